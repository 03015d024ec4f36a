//! `lane-lock lock PATH... --today DATE`: hash files (or every file under a folder) and add or
//! update their entries in the lock, atomically; optionally write `FILE.sha256` sidecars.
//!
//! The report is the `lock_update` section of a small evidence document (the document of
//! `--input` when given; stdin is never read, so the command cannot block in a script).

use std::path::{Component, Path, PathBuf};
use std::sync::Mutex;

use lane_core::paths::{resolve_inside, to_slash};
use lane_core::{Document, Error, Problem};
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use crate::hash::{self, FileDigest, HashError};
use crate::lock::{self, Entry, LockFile};
use crate::render::{self, ChangedRef, EntryRef, SectionRef};
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

/// What `lane-lock lock` found: the old lock's entries and the files just hashed. The new
/// lock is written from it, and the report rendered from it, without copying an entry.
#[derive(Debug)]
pub(crate) struct Locked {
    lock_name: String,
    today: String,
    /// The old lock's entries, sorted by path.
    previous: Vec<Entry>,
    /// The files hashed, sorted by path, each once.
    hashed: Vec<Hashed>,
    /// Sidecars written or confirmed (`--sidecar`).
    sidecars: Vec<String>,
}

/// A file just hashed, and its entry in the old lock.
#[derive(Debug)]
struct Hashed {
    rel: String,
    sha256: String,
    bytes: u64,
    /// The index of its entry in [`Locked::previous`].
    previous: Option<usize>,
}

impl Locked {
    /// The old entry of `h` when its bytes did not change (it keeps its `locked_on`).
    fn unchanged(&self, h: &Hashed) -> Option<&Entry> {
        h.previous
            .map(|i| &self.previous[i])
            .filter(|p| p.sha256 == h.sha256 && p.bytes == h.bytes)
    }

    /// The entry the new lock holds for `h`: its old one when unchanged, else dated today.
    fn entry<'a>(&'a self, h: &'a Hashed) -> EntryRef<'a> {
        match self.unchanged(h) {
            Some(old) => EntryRef::from(old),
            None => EntryRef {
                path: &h.rel,
                sha256: &h.sha256,
                bytes: h.bytes,
                locked_on: &self.today,
            },
        }
    }

    /// Every entry of the new lock, sorted by path: the old entries of files not hashed now,
    /// and an entry for each file hashed.
    fn entries(&self) -> Vec<EntryRef<'_>> {
        let mut out = Vec::with_capacity(self.previous.len() + self.hashed.len());
        let mut old = self.previous.iter().peekable();
        for h in &self.hashed {
            while let Some(e) = old.next_if(|e| e.path.as_str() < h.rel.as_str()) {
                out.push(EntryRef::from(e));
            }
            if h.previous.is_some() {
                // Its old entry: replaced (or kept) by `entry`.
                old.next();
            }
            out.push(self.entry(h));
        }
        out.extend(old.map(EntryRef::from));
        out
    }

    fn added(&self) -> Vec<EntryRef<'_>> {
        self.hashed
            .par_iter()
            .filter(|h| h.previous.is_none())
            .map(|h| self.entry(h))
            .collect()
    }

    fn changed(&self) -> Vec<ChangedRef<'_>> {
        self.hashed
            .par_iter()
            .filter_map(|h| {
                let old = &self.previous[h.previous?];
                self.unchanged(h).is_none().then(|| ChangedRef {
                    new: self.entry(h),
                    previous_sha256: &old.sha256,
                    previous_bytes: old.bytes,
                })
            })
            .collect()
    }

    fn unchanged_entries(&self) -> Vec<EntryRef<'_>> {
        self.hashed
            .par_iter()
            .filter_map(|h| self.unchanged(h).map(EntryRef::from))
            .collect()
    }

    /// The `lock_update` section's text, rendered on every core (the same text as
    /// `Document::set_section` of the [`UpdateSection`] it describes).
    pub(crate) fn section_text(&self) -> String {
        let (added, (changed, unchanged)) = rayon::join(
            || self.added(),
            || rayon::join(|| self.changed(), || self.unchanged_entries()),
        );
        render::section_text(&SectionRef {
            tool: TOOL,
            lock: &self.lock_name,
            added: &added,
            changed: &changed,
            unchanged: &unchanged,
            sidecars: &self.sidecars,
        })
    }
}

/// Locks the files: walks and hashes them on every core, writes the new lock (atomically,
/// and only when its bytes change) and, with `--sidecar`, the sidecars. Nothing is written
/// when anything is refused; the lock is written before any sidecar.
pub(crate) fn lock(lock_paths: &LockPaths, opts: &LockOptions) -> Result<Locked, Error> {
    let root = &lock_paths.root;
    let real_root = root
        .canonicalize()
        .map_err(|e| Error::io(root.clone(), e))?;
    let lock_name = lock_paths.lock_name();
    lock_paths.check_link()?;
    // Held until the new lock is in place: a concurrent `lock` waits, then reads this edit.
    let _edit = lane_core::io::EditLock::acquire(&lock_paths.lock, &lock_name, TOOL)?;

    // The current lock first: a malformed one stops everything before any work.
    let (previous, old_bytes) = if lock_paths.lock.symlink_metadata().is_ok() {
        let bytes = crate::read_small(&lock_paths.lock, &lock_name)?;
        (LockFile::parse(&bytes, &lock_name)?.files, Some(bytes))
    } else {
        (Vec::new(), None)
    };
    let found = find_and_hash(root, &real_root, &opts.paths, &lock_name)?;
    let hashed: Vec<Hashed> = found
        .into_par_iter()
        .map(|(rel, d)| Hashed {
            previous: previous
                .binary_search_by(|e| e.path.as_str().cmp(&rel))
                .ok(),
            rel,
            sha256: d.sha256,
            bytes: d.bytes,
        })
        .collect();
    let mut locked = Locked {
        lock_name,
        today: opts.today.clone(),
        previous,
        hashed,
        sidecars: Vec::new(),
    };
    let bytes = render::lock_bytes(&locked.entries());
    if old_bytes.as_deref() != Some(&bytes[..]) {
        lane_core::io::atomic_write(&lock_paths.lock, &bytes)
            .map_err(|e| e.renamed(&locked.lock_name))?;
    }
    if opts.sidecar {
        locked.sidecars = write_sidecars(root, &locked.hashed)?;
    }
    Ok(locked)
}

/// Writes `FILE.sha256` beside each hashed file (unless it already holds the digest) and
/// returns the sidecars, root-relative. Every sidecar's place is checked before any is
/// written; they are written on every core.
fn write_sidecars(root: &Path, hashed: &[Hashed]) -> Result<Vec<String>, Error> {
    let places: Vec<(String, PathBuf)> = hashed
        .par_iter()
        .map(|h| {
            let rel = format!("{}{}", h.rel, lock::SIDECAR_SUFFIX);
            resolve_inside(root, &rel).map_err(|why| {
                Error::usage(format!("refusing to write sidecar {rel}: it {why}"))
            })?;
            let path = root.join(&rel);
            Ok((rel, path))
        })
        .collect::<Result<_, Error>>()?;
    places
        .par_iter()
        .zip(hashed)
        .map(|((rel, path), h)| {
            let content = format!("{}\n", h.sha256);
            if std::fs::read(path).ok().as_deref() != Some(content.as_bytes()) {
                lane_core::io::atomic_write(path, content.as_bytes())
                    .map_err(|e| e.renamed(rel))?;
            }
            Ok(rel.clone())
        })
        .collect()
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
    let locked = lock(lock_paths, opts)?;
    doc.set_section_text(SECTION, locked.section_text());
    Ok(doc)
}

/// What one command-line path names, once checked.
enum Target {
    /// A file (or a symlink to one inside the root), read through the path.
    File { rel: String, abs: PathBuf },
    /// A folder to walk.
    Folder { rel: String, abs: PathBuf },
}

/// Checks one command-line path, refusing anything outside the root.
fn target_of(root: &Path, real_root: &Path, arg: &Path) -> Result<Target, Error> {
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
        return Ok(Target::File { rel, abs });
    }
    if !real.is_dir() {
        return Err(Error::usage(format!(
            "{shown}: not a regular file or folder (FIFOs and devices are never read)"
        )));
    }
    Ok(Target::Folder { rel, abs })
}

/// Every file the command-line paths name, hashed: sorted by root-relative path, each once.
/// The paths are checked first, in order; then every folder is walked and every file hashed
/// on every core at once. A refusal met in the walk (a symlink leading out of the root, a
/// name that is not UTF-8, a folder that cannot be listed) stops the command before a file
/// that could not be read does; of several, the one at the first path in sorted order is
/// reported, so every run reports the same one.
fn find_and_hash(
    root: &Path,
    real_root: &Path,
    paths: &[PathBuf],
    lock_name: &str,
) -> Result<Vec<(String, FileDigest)>, Error> {
    let targets = paths
        .iter()
        .map(|arg| target_of(root, real_root, arg))
        .collect::<Result<Vec<_>, Error>>()?;
    let walk = Walk {
        root,
        lock_name,
        found: Mutex::new(Vec::new()),
    };
    rayon::scope(|scope| {
        for target in targets {
            let walk = &walk;
            match target {
                Target::File { rel, abs } => scope.spawn(move |_| {
                    walk.hash(vec![ToHash {
                        rel,
                        abs,
                        listed: false,
                    }])
                }),
                Target::Folder { rel, abs } => scope.spawn(move |s| walk.folder(s, abs, rel)),
            }
        }
    });
    let parts = walk
        .found
        .into_inner()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    let mut refused: Option<(String, Error)> = None;
    let mut files = Vec::with_capacity(parts.iter().map(Vec::len).sum());
    for found in parts.into_iter().flatten() {
        match found {
            Found::File(rel, digest) => files.push((rel, digest)),
            Found::Refused(rel, e) => {
                if refused.as_ref().is_none_or(|(first, _)| rel < *first) {
                    refused = Some((rel, e));
                }
            }
        }
    }
    if let Some((_, e)) = refused {
        return Err(e);
    }
    files.par_sort_unstable_by(|a, b| a.0.cmp(&b.0));
    files.dedup_by(|a, b| a.0 == b.0);
    if files.is_empty() {
        return Err(Error::usage(
            "nothing to lock: the paths hold no regular files",
        ));
    }
    files
        .into_iter()
        .map(|(rel, digest)| {
            digest.map(|d| (rel.clone(), d)).map_err(|e| match e {
                HashError::Io(io) => Error::io(rel.as_str(), io),
                other => Error::io(rel.as_str(), std::io::Error::other(other.to_string())),
            })
        })
        .collect()
}

/// Files hashed per task: many small files share one task, a few large ones still spread
/// over every core.
const HASH_CHUNK: usize = 32;

/// A walk over folders on every core: each folder is listed by one task, which starts a task
/// for each subfolder and hashes its files a chunk per task. Tasks are queued, not nested, so
/// a deep tree does not deepen the stack.
struct Walk<'a> {
    root: &'a Path,
    lock_name: &'a str,
    /// What each task found.
    found: Mutex<Vec<Vec<Found>>>,
}

/// One walked path: a file and its digest (or why it could not be read), or a refusal.
enum Found {
    File(String, Result<FileDigest, HashError>),
    Refused(String, Error),
}

/// A file to hash: its root-relative path and where to read it.
struct ToHash {
    rel: String,
    abs: PathBuf,
    /// Listed as a regular file (not a symlink) by its folder: opened without another
    /// `stat` and without following a symlink ([`hash::hash_listed_file`]).
    listed: bool,
}

impl Walk<'_> {
    fn push(&self, part: Vec<Found>) {
        if !part.is_empty() {
            self.found
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner)
                .push(part);
        }
    }

    fn hash(&self, files: Vec<ToHash>) {
        let part = files
            .into_iter()
            .map(|f| {
                let digest = if f.listed {
                    hash::hash_listed_file(&f.abs)
                } else {
                    hash::hash_file(&f.abs)
                };
                Found::File(f.rel, digest)
            })
            .collect();
        self.push(part);
    }

    /// Lists one folder: subfolders (pruned ones left out) are walked by tasks of their own;
    /// regular files, and symlinks that stay inside the root and lead to a regular file, are
    /// hashed; sidecars, the lock itself, FIFOs, sockets and devices are not read.
    fn folder<'s>(&'s self, scope: &rayon::Scope<'s>, abs: PathBuf, rel: String) {
        let join = |name: &str| {
            if rel.is_empty() {
                name.to_string()
            } else {
                format!("{rel}/{name}")
            }
        };
        let shown = if rel.is_empty() { "." } else { rel.as_str() };
        let mut found = Vec::new();
        let mut files = Vec::new();
        let listing = match std::fs::read_dir(&abs) {
            Ok(listing) => listing,
            Err(e) => return self.push(vec![Found::Refused(rel.clone(), Error::io(shown, e))]),
        };
        for child in listing {
            let child = match child {
                Ok(child) => child,
                Err(e) => {
                    found.push(Found::Refused(rel.clone(), Error::io(shown, e)));
                    break;
                }
            };
            let name = child.file_name();
            let kind = match child.file_type() {
                Ok(kind) => kind,
                Err(e) => {
                    let child_rel = join(&name.to_string_lossy());
                    found.push(Found::Refused(child_rel.clone(), Error::io(child_rel, e)));
                    continue;
                }
            };
            if kind.is_dir() && lock::is_pruned_dir(&name.to_string_lossy()) {
                continue;
            }
            let child_rel = match utf8_name(&join(&name.to_string_lossy()), &name) {
                Ok(name) => join(&name),
                Err(e) => {
                    found.push(Found::Refused(join(&name.to_string_lossy()), e));
                    continue;
                }
            };
            if kind.is_dir() {
                let child_abs = child.path();
                scope.spawn(move |s| self.folder(s, child_abs, child_rel));
            } else if child_rel.ends_with(lock::SIDECAR_SUFFIX) || child_rel == self.lock_name {
                continue;
            } else if kind.is_file() {
                files.push(ToHash {
                    rel: child_rel,
                    abs: child.path(),
                    listed: true,
                });
            } else if kind.is_symlink() {
                match resolve_inside(self.root, &child_rel) {
                    Err(why) => {
                        let e = Error::usage(format!("{child_rel}: refusing a symlink that {why}"));
                        found.push(Found::Refused(child_rel, e));
                    }
                    Ok(target) => {
                        if std::fs::metadata(&target).is_ok_and(|m| m.is_file()) {
                            files.push(ToHash {
                                rel: child_rel,
                                abs: target,
                                listed: false,
                            });
                        }
                    }
                }
            }
        }
        self.push(found);
        // Every chunk but the last to a task of its own; the last one here.
        while files.len() > HASH_CHUNK {
            let chunk = files.split_off(files.len() - HASH_CHUNK);
            scope.spawn(move |_| self.hash(chunk));
        }
        self.hash(files);
    }
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
