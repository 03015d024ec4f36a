//! `lane-lock diff BASE HEAD`: what a change does to the lock — added, removed and moved
//! entries, and (from `--changed`) new, changed and removed `.sha256` sidecars — written as
//! the `lock_diff` section. A lock edit is its own review surface: every one is an error
//! (acknowledgeable), and editing the lock in the same change as code (`--changed`) is
//! `lock-batched-with-behavior` unless `--reason` says why the bytes changed.
//!
//! Given the base's scan (`--base-scan`) and the change's own (the document on stdin), it
//! also compares the witness lane: `witness-test-removed`, `witness-fixture-changed`, and
//! `orphan-lock` as an error for an entry a witness test of the base named. These live here,
//! beside the lock they guard, so a team running lane-lock without lane-gate sees them.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use lane_core::detector::run_all;
use lane_core::scan::ScanSection;
use lane_core::{Document, Error, Problem};
use serde::{Deserialize, Serialize};

use crate::lock::{self, Entry, LockFile};
use crate::rules::{DETECTORS, LockFacts};
use crate::{LockPaths, TOOL};

/// The section name.
pub const SECTION: &str = "lock_diff";

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DiffSection {
    pub tool: String,
    /// BASE and HEAD as given (`-` for stdin; an absolute path shows only its file name).
    pub base: String,
    pub head: String,
    /// Entries only in HEAD.
    pub added: Vec<Entry>,
    /// Entries only in BASE.
    pub removed: Vec<Entry>,
    /// Entries whose digest differs.
    pub moved: Vec<Moved>,
    /// Number of entries with the same digest in both.
    pub unchanged: u64,
    /// With `--changed`: the `.sha256` sidecars the change adds, changes or removes (sorted).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub sidecars: Vec<SidecarEdit>,
    /// With `--changed`: the changed paths that are neither locked files, nor the lock, nor
    /// sidecars (sorted). Null without `--changed`.
    pub behavior_changes: Option<Vec<String>>,
    /// `--reason`, recorded as given.
    pub reason: Option<String>,
    pub problems: Vec<Problem>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Moved {
    pub path: String,
    pub base_sha256: String,
    pub base_bytes: u64,
    pub head_sha256: String,
    pub head_bytes: u64,
}

/// A sidecar the change touches.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SidecarEdit {
    pub path: String,
    /// `added`, `changed`, `removed`, or `added-or-changed` when `--changed` lists only the
    /// path and the sidecar exists now.
    pub change: SidecarChange,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum SidecarChange {
    Added,
    Changed,
    Removed,
    AddedOrChanged,
}

/// How `--changed` says a path changed: `git diff --name-status` lines carry it, plain
/// `--name-only` lines do not.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum PathChange {
    Added,
    Modified,
    Deleted,
}

/// Options of `lane-lock diff`.
#[derive(Debug, Clone, Default)]
pub struct DiffOptions {
    pub base: String,
    pub head: String,
    /// A file with one changed path per line (`git diff --name-only`).
    pub changed: Option<std::path::PathBuf>,
    pub reason: Option<String>,
    /// The base's scan (`--base-scan`): compare the witness lane with the head's.
    pub base_scan: Option<ScanSection>,
    /// The head's scan; when `None`, the scan section of the document the diff is given.
    pub head_scan: Option<ScanSection>,
}

/// Reads BASE or HEAD: `-` is stdin; empty content means "no lock".
fn read_lock(arg: &str, lock_paths: &LockPaths) -> Result<(LockFile, String), Error> {
    let (bytes, name) = if arg == "-" {
        let bytes = lane_core::io::read_capped(
            std::io::stdin().lock(),
            Path::new("<stdin>"),
            crate::lock::LOCK_MAX_BYTES,
            "a lock file",
        )?;
        (bytes, "-".to_string())
    } else {
        // BASE and HEAD are read as streams: `/dev/null` and process substitution
        // (`<(git show origin/main:lanes.lock)`) are the usual ways to give them.
        let path = Path::new(arg);
        let name = lane_core::paths::display_name(&lock_paths.root, path);
        if path.is_dir() {
            return Err(Error::usage(format!(
                "{name}: is a folder, expected a lock file"
            )));
        }
        let file = std::fs::File::open(path).map_err(|e| Error::io(name.as_str(), e))?;
        let bytes = lane_core::io::read_capped(
            file,
            Path::new(&name),
            crate::lock::LOCK_MAX_BYTES,
            "a lock file",
        )?;
        (bytes, name)
    };
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return Ok((LockFile::default(), name));
    }
    Ok((LockFile::parse(&bytes, &name)?, name))
}

/// Compares two locks.
pub(crate) fn compare(
    base: &LockFile,
    head: &LockFile,
) -> (Vec<Entry>, Vec<Entry>, Vec<Moved>, u64) {
    let b: BTreeMap<&str, &Entry> = base.files.iter().map(|e| (e.path.as_str(), e)).collect();
    let h: BTreeMap<&str, &Entry> = head.files.iter().map(|e| (e.path.as_str(), e)).collect();
    let (mut added, mut removed, mut moved, mut unchanged) =
        (Vec::new(), Vec::new(), Vec::new(), 0);
    for (path, he) in &h {
        match b.get(path) {
            None => added.push((*he).clone()),
            Some(be) if be.sha256 != he.sha256 => moved.push(Moved {
                path: path.to_string(),
                base_sha256: be.sha256.clone(),
                base_bytes: be.bytes,
                head_sha256: he.sha256.clone(),
                head_bytes: he.bytes,
            }),
            Some(_) => unchanged += 1,
        }
    }
    for (path, be) in &b {
        if !h.contains_key(path) {
            removed.push((*be).clone());
        }
    }
    (added, removed, moved, unchanged)
}

/// Parses `--changed` content: one path per line, blank lines ignored, `./` dropped.
#[cfg(test)]
fn parse_changed(text: &str) -> Vec<String> {
    let mut out: Vec<String> = parse_changed_status(text)
        .into_iter()
        .map(|(p, _)| p)
        .collect();
    out.sort();
    out.dedup();
    out
}

/// Parses `--changed` content with what each line says about the change: `git diff
/// --name-only` lines (a path) or `--name-status` lines (`A\tpath`, `M\tpath`, `D\tpath`,
/// `R100\told\tnew`, `C75\told\tnew`; git quotes a path holding a tab, so a raw tab always
/// separates a status). Sorted by path, each path once (its last status).
pub(crate) fn parse_changed_status(text: &str) -> Vec<(String, Option<PathChange>)> {
    let clean = |p: &str| p.trim().trim_start_matches("./").to_string();
    let mut out: BTreeMap<String, Option<PathChange>> = BTreeMap::new();
    for line in text.lines().map(|l| l.trim_end_matches('\r')) {
        if line.trim().is_empty() {
            continue;
        }
        let fields: Vec<&str> = line.split('\t').collect();
        let status = fields[0].trim();
        let is_status = fields.len() > 1
            && status.len() <= 5
            && status.chars().next().is_some_and(|c| "AMDTRCU".contains(c))
            && status[1..].chars().all(|c| c.is_ascii_digit());
        if !is_status {
            out.insert(clean(line), None);
            continue;
        }
        match (status.as_bytes()[0], &fields[1..]) {
            (b'R', [from, to]) => {
                out.insert(clean(from), Some(PathChange::Deleted));
                out.insert(clean(to), Some(PathChange::Added));
            }
            (b'C', [_, to]) => {
                out.insert(clean(to), Some(PathChange::Added));
            }
            (b'A', [p]) => {
                out.insert(clean(p), Some(PathChange::Added));
            }
            (b'D', [p]) => {
                out.insert(clean(p), Some(PathChange::Deleted));
            }
            (_, [p]) => {
                out.insert(clean(p), Some(PathChange::Modified));
            }
            _ => {
                out.insert(clean(line), None);
            }
        }
    }
    out.remove("");
    out.into_iter().collect()
}

/// The sidecars among the changed paths, with how each changed: from the status when
/// `--changed` gave one, else from whether the sidecar exists under the root now.
fn sidecar_edits(changed: &[(String, Option<PathChange>)], root: &Path) -> Vec<SidecarEdit> {
    changed
        .iter()
        .filter(|(p, _)| {
            let name = p.rsplit('/').next().unwrap_or(p);
            name.len() > lock::SIDECAR_SUFFIX.len() && name.ends_with(lock::SIDECAR_SUFFIX)
        })
        .map(|(p, change)| SidecarEdit {
            path: p.clone(),
            change: match change {
                Some(PathChange::Added) => SidecarChange::Added,
                Some(PathChange::Modified) => SidecarChange::Changed,
                Some(PathChange::Deleted) => SidecarChange::Removed,
                None if root.join(p).symlink_metadata().is_ok() => SidecarChange::AddedOrChanged,
                None => SidecarChange::Removed,
            },
        })
        .collect()
}

/// What the diff detectors look at.
#[derive(Debug, Clone, Copy)]
pub(crate) struct DiffFacts<'a> {
    pub moved: &'a [Moved],
    pub removed: &'a [Entry],
    pub added: &'a [Entry],
    /// Sidecars the change touches (from `--changed`).
    pub sidecars: &'a [SidecarEdit],
    /// HEAD's entries.
    pub head_entries: &'a [Entry],
    /// The base's and the head's scans, both or neither (`--base-scan`).
    pub scans: Option<(&'a ScanSection, &'a ScanSection)>,
    /// The changed paths that are not lock material (null without `--changed`).
    pub behavior_changes: Option<&'a [String]>,
    /// `--reason`.
    pub reason: Option<&'a str>,
}

/// Reads `--changed`: UTF-8 text, one path (or `git diff --name-status` line) per line.
fn read_changed(
    lock_paths: &LockPaths,
    path: &Path,
) -> Result<Vec<(String, Option<PathChange>)>, Error> {
    let name = lane_core::paths::display_name(&lock_paths.root, path);
    let bytes = crate::read_small(path, &name)?;
    let text = String::from_utf8(bytes)
        .map_err(|_| Error::parse(name.clone(), 0, 0, "expected UTF-8 text, one path per line"))?;
    Ok(parse_changed_status(&text))
}

/// The changed paths that are neither locked in BASE or HEAD, nor a lock file (the --lock
/// file, and BASE and HEAD when they are files), nor sidecars.
fn behavior_changes(
    changed: Vec<String>,
    lock_paths: &LockPaths,
    (base, base_arg, base_name): (&LockFile, &str, &str),
    (head, head_arg, head_name): (&LockFile, &str, &str),
) -> Vec<String> {
    let locked: BTreeSet<&str> = base
        .files
        .iter()
        .chain(&head.files)
        .map(|e| e.path.as_str())
        .collect();
    let mut lock_names: BTreeSet<String> = BTreeSet::new();
    lock_names.insert(lock_paths.lock_name());
    for (arg, name) in [(base_arg, base_name), (head_arg, head_name)] {
        if arg != "-" {
            lock_names.insert(name.to_string());
        }
    }
    changed
        .into_iter()
        .filter(|p| {
            !locked.contains(p.as_str())
                && !lock_names.contains(p)
                && !p.ends_with(lock::SIDECAR_SUFFIX)
        })
        .collect()
}

/// Runs the diff and sets the `lock_diff` section of `doc`.
pub fn diff(
    lock_paths: &LockPaths,
    opts: &DiffOptions,
    mut doc: Document,
) -> Result<(Document, DiffSection), Error> {
    if opts.base == "-" && opts.head == "-" {
        return Err(Error::usage("only one of BASE and HEAD can be '-' (stdin)"));
    }
    if opts.reason.as_deref().is_some_and(|r| r.trim().is_empty()) {
        return Err(Error::usage(
            "--reason needs a text saying why the locked bytes changed",
        ));
    }
    let changed = match &opts.changed {
        Some(path) => Some(read_changed(lock_paths, path)?),
        None => None,
    };
    let head_scan: Option<ScanSection> = match (&opts.base_scan, &opts.head_scan) {
        (None, _) => None,
        (Some(_), Some(h)) => Some(h.clone()),
        (Some(_), None) => Some(
            doc.section_as(ScanSection::NAME, "<evidence document>")?
                .ok_or_else(|| {
                    Error::usage(
                        "--base-scan needs the change's own scan: give lane-lock diff the \
                         evidence document lane-scan wrote (stdin or --input)",
                    )
                })?,
        ),
    };
    let (base, base_name) = read_lock(&opts.base, lock_paths)?;
    let (head, head_name) = read_lock(&opts.head, lock_paths)?;
    let (added, removed, moved, unchanged) = compare(&base, &head);
    let sidecars = changed
        .as_deref()
        .map(|c| sidecar_edits(c, &lock_paths.root))
        .unwrap_or_default();
    let changed = changed.map(|c| c.into_iter().map(|(p, _)| p).collect::<Vec<_>>());
    let behavior_changes = changed.map(|changed| {
        behavior_changes(
            changed,
            lock_paths,
            (&base, &opts.base, &base_name),
            (&head, &opts.head, &head_name),
        )
    });
    let facts = DiffFacts {
        moved: &moved,
        removed: &removed,
        added: &added,
        sidecars: &sidecars,
        head_entries: &head.files,
        scans: opts.base_scan.as_ref().zip(head_scan.as_ref()),
        behavior_changes: behavior_changes.as_deref(),
        reason: opts.reason.as_deref(),
    };
    let mut problems: Vec<Problem> = Vec::new();
    run_all(DETECTORS, &LockFacts::Diff(&facts), &mut problems);
    lane_core::problem::normalize(&mut problems);
    let section = DiffSection {
        tool: TOOL.into(),
        base: base_name,
        head: head_name,
        added,
        removed,
        moved,
        unchanged,
        sidecars,
        behavior_changes,
        reason: opts.reason.clone(),
        problems,
    };
    doc.set_section(SECTION, &section);
    Ok((doc, section))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(path: &str, c: char) -> Entry {
        Entry {
            path: path.into(),
            sha256: c.to_string().repeat(64),
            bytes: 1,
            locked_on: "2026-01-01".into(),
        }
    }

    #[test]
    fn compares_by_path() {
        let base = LockFile {
            files: vec![entry("a", 'a'), entry("b", 'b'), entry("c", 'c')],
        };
        let head = LockFile {
            files: vec![entry("a", 'a'), entry("b", 'f'), entry("d", 'd')],
        };
        let (added, removed, moved, unchanged) = compare(&base, &head);
        assert_eq!(added, vec![entry("d", 'd')]);
        assert_eq!(removed, vec![entry("c", 'c')]);
        assert_eq!(moved.len(), 1);
        assert_eq!(moved[0].path, "b");
        assert_eq!(moved[0].head_sha256, "f".repeat(64));
        assert_eq!(unchanged, 1);
    }

    #[test]
    fn changed_lists() {
        let cases = [
            ("", vec![]),
            ("a.py\n\n./b.py\r\na.py\n", vec!["a.py", "b.py"]),
            ("  spaced.txt  \n", vec!["spaced.txt"]),
        ];
        for (text, expected) in cases {
            assert_eq!(parse_changed(text), expected, "{text:?}");
        }
    }
}
