//! The vote tree: a copy of the working tree (untracked build outputs included) with the
//! base's test surface put back.

use std::collections::BTreeSet;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use crate::GateError;
use crate::git::{Repo, TreeFile};

/// Folders never copied: caches the gate does not trust, and virtual environments (an
/// interpreter is named with --python, never copied).
const SKIPPED_DIRS: &[&str] = &[
    "__pycache__",
    ".pytest_cache",
    ".hypothesis",
    ".mypy_cache",
    ".ruff_cache",
    ".tox",
    ".nox",
];

fn io(path: &Path, what: &str, e: std::io::Error) -> GateError {
    GateError::io(format!("{what} {}", path.display()), e)
}

/// Whether the walk leaves `entry` out of the copy.
fn skipped(entry: &walkdir::DirEntry, out: Option<&Path>) -> bool {
    if entry.depth() == 0 {
        return false;
    }
    let name = entry.file_name().to_string_lossy();
    if name == ".git" {
        return true;
    }
    if entry.file_type().is_dir() {
        if SKIPPED_DIRS.contains(&name.as_ref()) || entry.path().join("pyvenv.cfg").is_file() {
            return true;
        }
        if out.is_some_and(|o| entry.path() == o) {
            return true;
        }
    }
    false
}

/// Copies `src` into `dest` (which exists); returns the rootdir-relative files copied. `out`
/// (absolute) is the gate's out folder, left out.
pub(crate) fn copy_tree(
    src: &Path,
    dest: &Path,
    out: Option<&Path>,
) -> Result<BTreeSet<String>, GateError> {
    let mut files = BTreeSet::new();
    let walk = walkdir::WalkDir::new(src)
        .follow_links(false)
        .sort_by_file_name()
        .into_iter()
        .filter_entry(|e| !skipped(e, out));
    for entry in walk {
        let entry = entry.map_err(|e| {
            let at = e
                .path()
                .map_or_else(|| src.display().to_string(), |p| p.display().to_string());
            GateError::io(
                format!("cannot read the working tree at {at}"),
                std::io::Error::from(e),
            )
        })?;
        if entry.depth() == 0 {
            continue;
        }
        let rel = entry
            .path()
            .strip_prefix(src)
            .map_err(|_| GateError::Checkout("a walked path left the working tree".into()))?;
        let rel_text = rel.to_str().ok_or_else(|| {
            GateError::Checkout(format!(
                "the path {} is not UTF-8; the gate cannot classify it",
                rel.display()
            ))
        })?;
        if rel_text.contains('\n') || rel_text.contains('\r') {
            return Err(GateError::Checkout(format!(
                "the path {rel_text:?} has a line break in its name; the gate cannot carry it \
                 through the tools (rename it)"
            )));
        }
        let target = dest.join(rel);
        let kind = entry.file_type();
        if kind.is_dir() {
            std::fs::create_dir(&target).map_err(|e| io(&target, "cannot create", e))?;
        } else if kind.is_symlink() {
            let link = std::fs::read_link(entry.path())
                .map_err(|e| io(entry.path(), "cannot read the link", e))?;
            std::os::unix::fs::symlink(&link, &target)
                .map_err(|e| io(&target, "cannot create the link", e))?;
            files.insert(rel_text.to_string());
        } else if kind.is_file() {
            std::fs::copy(entry.path(), &target).map_err(|e| io(entry.path(), "cannot copy", e))?;
            files.insert(rel_text.to_string());
        }
        // Sockets, FIFOs and devices are not copied: pytest never needs one from the tree.
    }
    Ok(files)
}

/// Removes whatever is at `path` (a file, a link or a folder); nothing there is fine.
pub(crate) fn remove(path: &Path) -> Result<(), GateError> {
    match std::fs::symlink_metadata(path) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(io(path, "cannot read", e)),
        Ok(meta) if meta.is_dir() => {
            std::fs::remove_dir_all(path).map_err(|e| io(path, "cannot remove", e))
        }
        Ok(_) => std::fs::remove_file(path).map_err(|e| io(path, "cannot remove", e)),
    }
}

/// Removes the folder `path` even where a run left folders without write permission in it.
pub(crate) fn remove_forced(path: &Path) -> Result<(), GateError> {
    if remove(path).is_ok() {
        return Ok(());
    }
    use std::os::unix::fs::PermissionsExt;
    for entry in walkdir::WalkDir::new(path)
        .follow_links(false)
        .into_iter()
        .flatten()
    {
        if entry.file_type().is_dir() {
            let _ = std::fs::set_permissions(entry.path(), std::fs::Permissions::from_mode(0o700));
        }
    }
    remove(path)
}

/// Puts `rel` back as the base had it (or removes it when the base had none).
pub(crate) fn restore(
    root: &Path,
    rel: &str,
    base: Option<&TreeFile>,
    repo: &Repo,
) -> Result<(), GateError> {
    let target: PathBuf = root.join(rel);
    remove(&target)?;
    let Some(file) = base else {
        return Ok(());
    };
    if let Some(dir) = target.parent() {
        std::fs::create_dir_all(dir).map_err(|e| io(dir, "cannot create", e))?;
    }
    let bytes = repo.blob(&file.oid)?;
    match file.mode.as_str() {
        "120000" => {
            let link = String::from_utf8(bytes).map_err(|_| {
                GateError::Checkout(format!("{rel}: the base's link target is not UTF-8"))
            })?;
            std::os::unix::fs::symlink(link, &target)
                .map_err(|e| io(&target, "cannot create the link", e))
        }
        "100644" | "100755" => {
            std::fs::write(&target, &bytes).map_err(|e| io(&target, "cannot write", e))?;
            let mode = if file.mode == "100755" { 0o755 } else { 0o644 };
            std::fs::set_permissions(&target, std::fs::Permissions::from_mode(mode))
                .map_err(|e| io(&target, "cannot set the mode of", e))
        }
        other => Err(GateError::Checkout(format!(
            "{rel}: the base has it as a git object of mode {other} (a submodule?), which the \
             gate cannot read"
        ))),
    }
}
