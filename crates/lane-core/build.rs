//! Names the git commit the tools are built from, for every binary's `--version`
//! (`LANES_GIT_COMMIT`). A build outside a git checkout (an unpacked source archive) may set
//! `LANES_GIT_COMMIT` itself; otherwise the commit is `unknown`.

use std::path::{Path, PathBuf};
use std::process::Command;

fn git(dir: &Path, args: &[&str]) -> Option<String> {
    let out = Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(args)
        .output()
        .ok()?;
    if !out.status.success() {
        return None;
    }
    let text = String::from_utf8(out.stdout).ok()?;
    let text = text.trim();
    (!text.is_empty()).then(|| text.to_string())
}

/// Rebuild when HEAD moves: HEAD itself, the branch it points at and packed refs. Only files
/// that exist are named (a missing one would rerun this script on every build).
fn watch(dir: &Path) {
    let Some(git_dir) = git(dir, &["rev-parse", "--absolute-git-dir"]) else {
        return;
    };
    let git_dir = PathBuf::from(git_dir);
    let common = git(dir, &["rev-parse", "--git-common-dir"])
        .map(|c| {
            let c = PathBuf::from(c);
            if c.is_absolute() { c } else { dir.join(c) }
        })
        .unwrap_or_else(|| git_dir.clone());
    let mut files = vec![git_dir.join("HEAD"), common.join("packed-refs")];
    if let Some(branch) = git(dir, &["symbolic-ref", "-q", "HEAD"]) {
        files.push(common.join(&branch));
        files.push(git_dir.join(&branch));
    }
    for file in files {
        if file.is_file() {
            println!("cargo:rerun-if-changed={}", file.display());
        }
    }
}

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-env-changed=LANES_GIT_COMMIT");
    let dir = PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").unwrap_or_default());
    let commit = match std::env::var("LANES_GIT_COMMIT") {
        Ok(c) if !c.trim().is_empty() => c.trim().to_string(),
        _ => {
            watch(&dir);
            git(&dir, &["rev-parse", "--short=12", "HEAD"]).unwrap_or_else(|| "unknown".into())
        }
    };
    println!("cargo:rustc-env=LANES_GIT_COMMIT={commit}");
}
