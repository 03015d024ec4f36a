//! `lane-lock lock PATH... --today DATE`: hash files (or every file under a folder) and add or
//! update their entries in the lock, atomically; optionally write `FILE.sha256` sidecars.
//!
//! The report is the `lock_update` section of a small evidence document (the document of
//! `--input` when given; stdin is never read, so the command cannot block in a script).

use std::collections::BTreeMap;
use std::path::{Component, Path, PathBuf};

use lane_core::paths::{resolve_inside, to_slash};
use lane_core::{Document, Error, Problem};
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use crate::hash::{self, HashError};
use crate::lock::{self, Entry, LockFile};
use crate::{LockPaths, TOOL};

/// The section name of the report.
pub const SECTION: &str = "lock_update";

/// What `lane-lock lock` did.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct UpdateSection {
    pub tool: String,
    /// The root-relative lock file written.
    pub lock: String,
    /// New entries.
    pub added: Vec<Entry>,
    /// Entries whose bytes changed: the new entry and the digest it replaced.
    pub changed: Vec<Changed>,
    /// Entries whose bytes did not change (they keep their `locked_on`).
    pub unchanged: Vec<Entry>,
    /// Sidecars written or confirmed (`--sidecar`), root-relative.
    pub sidecars: Vec<String>,
    /// Always empty: refusals stop the command (exit 2) instead.
    pub problems: Vec<Problem>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Changed {
    pub path: String,
    pub previous_sha256: String,
    pub previous_bytes: u64,
    pub sha256: String,
    pub bytes: u64,
    pub locked_on: String,
}

/// Options of `lane-lock lock`.
#[derive(Debug, Clone)]
pub struct LockOptions {
    /// Files or folders, relative to the current folder; they must lie inside the root.
    pub paths: Vec<PathBuf>,
    /// `YYYY-MM-DD`.
    pub today: String,
    pub sidecar: bool,
}

/// A file to lock: its root-relative path and where to read it.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
struct FileToLock {
    rel: String,
    abs: PathBuf,
}

/// Locks the files and returns the report section. Nothing is written when anything is
/// refused; the lock is written before any sidecar.
pub fn lock(lock_paths: &LockPaths, opts: &LockOptions) -> Result<UpdateSection, Error> {
    let root = &lock_paths.root;
    let real_root = root
        .canonicalize()
        .map_err(|e| Error::io(root.clone(), e))?;
    let lock_name = lock_paths.lock_name();
    lock_paths.check_link()?;
    // Held until the new lock is in place: a concurrent `lock` waits, then reads this edit.
    let _edit = lane_core::io::EditLock::acquire(&lock_paths.lock, &lock_name, TOOL)?;

    // The current lock first: a malformed one stops everything before any work.
    let old = if lock_paths.lock.symlink_metadata().is_ok() {
        let bytes = crate::read_small(&lock_paths.lock, &lock_name)?;
        Some((LockFile::parse(&bytes, &lock_name)?, bytes))
    } else {
        None
    };
    let files = files_to_lock(root, &real_root, &opts.paths, &lock_name)?;
    let mut section = UpdateSection {
        tool: TOOL.into(),
        lock: lock_name.clone(),
        added: Vec::new(),
        changed: Vec::new(),
        unchanged: Vec::new(),
        sidecars: Vec::new(),
        problems: Vec::new(),
    };
    let previous = old.as_ref().map_or(&[][..], |(l, _)| &l.files[..]);
    let lockfile = LockFile {
        files: merge_entries(previous, &files, &opts.today, &mut section)?,
    };
    let bytes = lockfile.to_bytes();
    if old.as_ref().map(|(_, b)| b) != Some(&bytes) {
        lane_core::io::atomic_write(&lock_paths.lock, &bytes).map_err(|e| e.renamed(&lock_name))?;
    }
    if opts.sidecar {
        section.sidecars = write_sidecars(root, &files, &lockfile)?;
    }
    Ok(section)
}

/// Every file the command-line paths name, by root-relative path (sorted, each once).
fn files_to_lock(
    root: &Path,
    real_root: &Path,
    paths: &[PathBuf],
    lock_name: &str,
) -> Result<Vec<FileToLock>, Error> {
    let mut files = BTreeMap::new();
    for arg in paths {
        for t in files_of(root, real_root, arg, lock_name)? {
            files.insert(t.rel.clone(), t);
        }
    }
    if files.is_empty() {
        return Err(Error::usage(
            "nothing to lock: the paths hold no regular files",
        ));
    }
    Ok(files.into_values().collect())
}

/// Hashes `files` (on all cores) and merges them into the `previous` entries: new files are
/// added, files whose bytes changed get a new entry dated `today`, the others keep theirs.
/// Each is recorded in `section`; returns every entry of the new lock, sorted by path.
fn merge_entries(
    previous: &[Entry],
    files: &[FileToLock],
    today: &str,
    section: &mut UpdateSection,
) -> Result<Vec<Entry>, Error> {
    let mut entries: BTreeMap<String, Entry> = previous
        .iter()
        .map(|e| (e.path.clone(), e.clone()))
        .collect();
    let abs: Vec<PathBuf> = files.iter().map(|t| t.abs.clone()).collect();
    for (t, d) in files.iter().zip(hash::hash_files(&abs)) {
        let d = d.map_err(|e| match e {
            HashError::Io(io) => Error::io(t.rel.as_str(), io),
            other => Error::io(t.rel.as_str(), std::io::Error::other(other.to_string())),
        })?;
        let new = Entry {
            path: t.rel.clone(),
            sha256: d.sha256,
            bytes: d.bytes,
            locked_on: today.to_string(),
        };
        match entries.get(&t.rel) {
            Some(prev) if prev.sha256 == new.sha256 && prev.bytes == new.bytes => {
                section.unchanged.push(prev.clone());
            }
            Some(prev) => {
                section.changed.push(Changed {
                    path: new.path.clone(),
                    previous_sha256: prev.sha256.clone(),
                    previous_bytes: prev.bytes,
                    sha256: new.sha256.clone(),
                    bytes: new.bytes,
                    locked_on: new.locked_on.clone(),
                });
                entries.insert(t.rel.clone(), new);
            }
            None => {
                section.added.push(new.clone());
                entries.insert(t.rel.clone(), new);
            }
        }
    }
    Ok(entries.into_values().collect())
}

/// Writes `FILE.sha256` beside each locked file (unless it already holds the digest) and
/// returns the sidecars, root-relative.
fn write_sidecars(
    root: &Path,
    files: &[FileToLock],
    lockfile: &LockFile,
) -> Result<Vec<String>, Error> {
    let mut sidecars = Vec::new();
    for t in files {
        let Some(entry) = lockfile.get(&t.rel) else {
            continue;
        };
        let rel = format!("{}{}", t.rel, lock::SIDECAR_SUFFIX);
        let path = root.join(&rel);
        resolve_inside(root, &rel)
            .map_err(|why| Error::usage(format!("refusing to write sidecar {rel}: it {why}")))?;
        let content = format!("{}\n", entry.sha256);
        if std::fs::read(&path).ok().as_deref() != Some(content.as_bytes()) {
            lane_core::io::atomic_write(&path, content.as_bytes()).map_err(|e| e.renamed(&rel))?;
        }
        sidecars.push(rel);
    }
    Ok(sidecars)
}

/// Runs `lock` and builds the report document: the `--input` document when given, otherwise
/// an empty one (stdin is not read).
pub fn run(
    lock_paths: &LockPaths,
    opts: &LockOptions,
    input: Option<&Path>,
) -> Result<Document, Error> {
    let mut doc = match input {
        Some(p) => lane_core::io::read_document(Some(p))?,
        None => Document::empty(),
    };
    let section = lock(lock_paths, opts)?;
    doc.set_section(SECTION, &section);
    Ok(doc)
}

/// The files one command-line path names, refusing anything outside the root.
fn files_of(
    root: &Path,
    real_root: &Path,
    arg: &Path,
    lock_name: &str,
) -> Result<Vec<FileToLock>, Error> {
    let shown = arg.display().to_string();
    if arg.components().any(|c| c == Component::ParentDir) {
        return Err(Error::usage(format!(
            "{shown}: refusing a path with a '..' component (lock files inside the root only)"
        )));
    }
    std::fs::symlink_metadata(arg).map_err(|e| Error::io(arg, e))?;
    let rel_path = root_relative(real_root, arg).ok_or_else(|| {
        Error::usage(format!(
            "{shown}: refusing a path outside the root (--rootdir {})",
            root.display()
        ))
    })?;
    utf8_name(&shown, rel_path.as_os_str())?;
    let rel = to_slash(&rel_path);
    // Symlinks (of the path itself or its folders) must stay inside the root.
    let abs = if rel.is_empty() {
        root.to_path_buf()
    } else {
        resolve_inside(root, &rel)
            .map_err(|why| Error::usage(format!("{shown}: refusing a path that {why}")))?
    };
    let real = std::fs::metadata(&abs).map_err(|e| Error::io(arg, e))?;
    if real.is_file() {
        return Ok(vec![FileToLock { rel, abs }]);
    }
    if !real.is_dir() {
        return Err(Error::usage(format!(
            "{shown}: not a regular file or folder (FIFOs and devices are never read)"
        )));
    }
    walk_folder(root, &abs, &rel, lock_name)
}

/// Every regular file under a folder; pruned folders, sidecars and the lock itself are left
/// out, FIFOs and devices are skipped, symlinks must stay inside the root. The folder's own
/// subfolders are walked in parallel.
fn walk_folder(
    root: &Path,
    abs: &Path,
    rel: &str,
    lock_name: &str,
) -> Result<Vec<FileToLock>, Error> {
    let join = |name: &str| {
        if rel.is_empty() {
            name.to_string()
        } else {
            format!("{rel}/{name}")
        }
    };
    let mut out = Vec::new();
    let mut subdirs = Vec::new();
    for child in std::fs::read_dir(abs).map_err(|e| Error::io(abs, e))? {
        let child = child.map_err(|e| Error::io(abs, e))?;
        let kind = child.file_type().map_err(|e| Error::io(child.path(), e))?;
        let name = utf8_name(
            &join(&child.file_name().to_string_lossy()),
            &child.file_name(),
        )?;
        if kind.is_dir() {
            if !lock::is_pruned_dir(&name) {
                subdirs.push((child.path(), join(&name)));
            }
        } else if let Some(t) = classify(root, child.path(), kind, join(&name), lock_name)? {
            out.push(t);
        }
    }
    // Sorted, so the first refusal reported is the same on every run.
    subdirs.sort();
    let nested: Vec<Result<Vec<FileToLock>, Error>> = subdirs
        .par_iter()
        .map(|(a, r)| walk_tree(root, a, r, lock_name))
        .collect();
    for n in nested {
        out.extend(n?);
    }
    Ok(out)
}

/// One folder tree, walked sequentially.
fn walk_tree(
    root: &Path,
    abs: &Path,
    rel: &str,
    lock_name: &str,
) -> Result<Vec<FileToLock>, Error> {
    let mut out = Vec::new();
    let walker = walkdir::WalkDir::new(abs)
        .sort_by_file_name()
        .into_iter()
        .filter_entry(|e| {
            e.depth() == 0
                || !e.file_type().is_dir()
                || !lock::is_pruned_dir(&e.file_name().to_string_lossy())
        });
    for entry in walker {
        let entry = entry.map_err(|e| {
            let path = e.path().map(Path::to_path_buf).unwrap_or_default();
            Error::io(path, std::io::Error::other(e.to_string()))
        })?;
        if entry.file_type().is_dir() {
            continue;
        }
        let sub = entry.path().strip_prefix(abs).unwrap_or(entry.path());
        let file_rel = format!("{rel}/{}", to_slash(sub));
        utf8_name(&file_rel, sub.as_os_str())?;
        let kind = entry.file_type();
        if let Some(t) = classify(root, entry.into_path(), kind, file_rel, lock_name)? {
            out.push(t);
        }
    }
    Ok(out)
}

/// A name the lock can record: paths are JSON text, so a name that is not UTF-8 would be
/// written under a lossy spelling that names no file. It is refused instead (`shown` is the
/// root-relative path with the bad bytes replaced, for the message).
fn utf8_name(shown: &str, name: &std::ffi::OsStr) -> Result<String, Error> {
    name.to_str().map(str::to_string).ok_or_else(|| {
        Error::usage(format!(
            "{shown}: refusing a file name that is not UTF-8 (the lock records paths as UTF-8 text); rename it"
        ))
    })
}

/// Whether a walked (non-folder) entry is locked: regular files are; symlinks are when they
/// stay inside the root and point at a regular file (one that leaves the root is refused);
/// sidecars, the lock itself, FIFOs, sockets and devices are not.
fn classify(
    root: &Path,
    abs: PathBuf,
    kind: std::fs::FileType,
    rel: String,
    lock_name: &str,
) -> Result<Option<FileToLock>, Error> {
    if rel.ends_with(lock::SIDECAR_SUFFIX) || rel == lock_name {
        return Ok(None);
    }
    let abs = if kind.is_symlink() {
        let p = resolve_inside(root, &rel)
            .map_err(|why| Error::usage(format!("{rel}: refusing a symlink that {why}")))?;
        match std::fs::metadata(&p) {
            Ok(m) if m.is_file() => p,
            _ => return Ok(None),
        }
    } else if kind.is_file() {
        abs
    } else {
        return Ok(None);
    };
    Ok(Some(FileToLock { rel, abs }))
}

/// `arg` relative to the root, by the real location of its folder (so a symlink keeps
/// its own name); `None` when it lies outside the root. The root itself is empty.
fn root_relative(real_root: &Path, arg: &Path) -> Option<PathBuf> {
    let mut arg = without_cur_dir(arg);
    if arg.as_os_str().is_empty() {
        arg = PathBuf::from(".");
    }
    let real = match (arg.parent(), arg.file_name()) {
        (Some(parent), Some(name)) => {
            let parent = if parent.as_os_str().is_empty() {
                Path::new(".")
            } else {
                parent
            };
            parent.canonicalize().ok()?.join(name)
        }
        _ => arg.canonicalize().ok()?,
    };
    real.strip_prefix(real_root).ok().map(Path::to_path_buf)
}

/// `path` without `.` components (lexically; `..` is kept).
fn without_cur_dir(path: &Path) -> PathBuf {
    path.components()
        .filter(|c| !matches!(c, Component::CurDir))
        .collect()
}
