//! Golden cases: a folder per case under a crate's `tests/golden/`, holding
//!
//! - `args`: the command line, one argument per line (`{root}` is the case's scratch copy);
//! - `tree/` (optional): the input files, copied to a fresh scratch folder the binary runs in;
//! - `stdin` (optional): piped to the binary;
//! - `env` (optional): `KEY=VALUE` lines set for the run;
//! - `stdout`, `stderr`, `code`: what the run must print and exit with, byte for byte;
//! - `after/` (optional): the whole scratch tree after the run, byte for byte (a tool that
//!   edits files, like `lane-scan --fix`); blessing rewrites it.
//!
//! A difference fails the test. `LANES_BLESS=1` rewrites the expected files instead, except
//! when `CI` is set: a stale golden file fails in CI, it never updates itself.

use std::fs;
use std::path::{Path, PathBuf};

use crate::{Cmd, Scratch};

/// Runs every case under `dir` with `bin`; panics naming each case whose output differs.
pub fn check_all(bin: &str, dir: &Path) {
    let mut cases: Vec<PathBuf> = fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.expect("a readable folder entry").path())
        .filter(|p| p.is_dir())
        .collect();
    cases.sort();
    assert!(!cases.is_empty(), "no golden cases under {}", dir.display());
    let bless = std::env::var_os("LANES_BLESS").is_some_and(|v| v == "1");
    let ci = std::env::var_os("CI").is_some_and(|v| !v.is_empty() && v != "false" && v != "0");
    let mut stale = Vec::new();
    for case in &cases {
        if let Some(why) = check_case(bin, case, bless && !ci) {
            stale.push(why);
        }
    }
    assert!(
        stale.is_empty(),
        "{} golden case(s) differ (LANES_BLESS=1 rewrites them outside CI; review the diff):\n{}",
        stale.len(),
        stale.join("\n")
    );
}

fn read_text(path: &Path) -> Option<String> {
    fs::read(path)
        .ok()
        .map(|b| String::from_utf8(b).unwrap_or_else(|_| panic!("{} is not UTF-8", path.display())))
}

fn copy_tree(from: &Path, to: &Path) {
    for entry in fs::read_dir(from).unwrap_or_else(|e| panic!("{}: {e}", from.display())) {
        let entry = entry.expect("a readable folder entry");
        let target = to.join(entry.file_name());
        if entry.path().is_dir() {
            fs::create_dir_all(&target).expect("create a folder of the tree");
            copy_tree(&entry.path(), &target);
        } else {
            fs::copy(entry.path(), &target).expect("copy a file of the tree");
        }
    }
}

/// `None` when the case's output is as expected (or was just blessed); else what differs.
fn check_case(bin: &str, case: &Path, bless: bool) -> Option<String> {
    let name = case
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let scratch = Scratch::new(&format!("golden-{name}"));
    let root = scratch.path();
    if case.join("tree").is_dir() {
        copy_tree(&case.join("tree"), root);
    }
    let root_text = root.display().to_string();
    let args_text = read_text(&case.join("args"))
        .unwrap_or_else(|| panic!("golden case {name} has no args file"));
    let args: Vec<String> = args_text
        .lines()
        .map(|a| a.replace("{root}", &root_text))
        .collect();
    let mut cmd = Cmd::new(bin).args(&args).dir(root);
    if let Some(stdin) = read_text(&case.join("stdin")) {
        cmd = cmd.stdin(stdin);
    }
    for line in read_text(&case.join("env")).unwrap_or_default().lines() {
        let (key, value) = line
            .split_once('=')
            .unwrap_or_else(|| panic!("golden case {name}: env line '{line}' is not KEY=VALUE"));
        cmd = cmd.env(key, value);
    }
    let run = cmd.run();
    // The scratch folder's path differs run to run: shown as {root}.
    let got = [
        ("stdout", run.stdout.replace(&root_text, "{root}")),
        ("stderr", run.stderr.replace(&root_text, "{root}")),
        ("code", format!("{}\n", run.code)),
    ];
    let mut diffs = Vec::new();
    for (file, text) in got {
        let path = case.join(file);
        let want = read_text(&path);
        if want.as_deref() == Some(text.as_str()) {
            continue;
        }
        if bless {
            fs::write(&path, &text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            continue;
        }
        diffs.push(format!(
            "--- {name}/{file} expected:\n{}\n--- got:\n{text}",
            want.as_deref().unwrap_or("(no file)")
        ));
    }
    let after = case.join("after");
    if after.is_dir() || (bless && case.join("tree").is_dir() && has_after_marker(case)) {
        let got = tree_files(root);
        let want = if after.is_dir() {
            tree_files(&after)
        } else {
            Vec::new()
        };
        if got != want {
            if bless {
                let _ = fs::remove_dir_all(&after);
                for (rel, bytes) in &got {
                    let path = after.join(rel);
                    if let Some(parent) = path.parent() {
                        fs::create_dir_all(parent).expect("create a folder of after/");
                    }
                    fs::write(&path, bytes).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
                }
            } else {
                let names = |files: &[(String, Vec<u8>)]| {
                    files.iter().map(|(n, _)| n.clone()).collect::<Vec<_>>()
                };
                let differing: Vec<String> = got
                    .iter()
                    .filter(|(n, b)| !want.iter().any(|(wn, wb)| wn == n && wb == b))
                    .map(|(n, b)| format!("{n}:\n{}", String::from_utf8_lossy(b)))
                    .collect();
                diffs.push(format!(
                    "--- {name}/after: files {:?}, expected {:?}; differing:\n{}",
                    names(&got),
                    names(&want),
                    differing.join("\n")
                ));
            }
        }
    }
    (!diffs.is_empty()).then(|| diffs.join("\n"))
}

/// A case without `after/` yet asks for one with an empty `after.expected` file (blessing then
/// writes the folder).
fn has_after_marker(case: &Path) -> bool {
    case.join("after.expected").is_file()
}

/// Every file under `dir` (root-relative `/` paths, sorted) with its bytes.
pub fn tree_files(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut out = Vec::new();
    walk(dir, dir, &mut out);
    out.sort();
    out
}

fn walk(root: &Path, dir: &Path, out: &mut Vec<(String, Vec<u8>)>) {
    for entry in fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
        let path = entry.expect("a readable folder entry").path();
        if path.is_dir() {
            walk(root, &path, out);
        } else {
            let rel = path
                .strip_prefix(root)
                .expect("under the root")
                .to_string_lossy()
                .replace('\\', "/");
            out.push((rel, fs::read(&path).expect("a readable file")));
        }
    }
}

/// Copies the files of `from` into `to` (a case's tree into a scratch folder).
pub fn copy_into(from: &Path, to: &Path) {
    copy_tree(from, to);
}
