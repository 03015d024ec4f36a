//! `lane-lock verify`: rehash every lock entry and every sidecar under the root, check that
//! every witness fixture of the scan is locked, and write the `lock` section.
//!
//! The run has two halves: `VerifyFacts::gather` reads the lock, the sidecars and the scan
//! and hashes every claimed file (anything it cannot read as a lock or sidecar stops the
//! run), then lane-lock's detectors (`crate::rules`) turn those facts into problems.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use lane_core::detector::run_all;
use lane_core::paths::resolve_inside;
use lane_core::scan::ScanSection;
use lane_core::{Document, Error, Problem};
use serde::{Deserialize, Serialize};

use crate::hash::{self, FileDigest, HashError};
use crate::lock::{self, Entry, LockFile, Sidecar};
use crate::rules::{DETECTORS, LockFacts};
use crate::{LockPaths, TOOL};

/// The section name.
pub const SECTION: &str = "lock";

/// The `lock` section.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LockSection {
    pub tool: String,
    /// The root-relative lock file, or null when there is none.
    pub lock: Option<String>,
    /// Every checked (path, source), sorted.
    pub files: Vec<FileCheck>,
    pub problems: Vec<Problem>,
}

/// One locked file as checked.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FileCheck {
    /// Root-relative (for an unsafe path: the path as written).
    pub path: String,
    /// The digest the lock or sidecar holds.
    pub expected: String,
    /// The digest of the bytes on disk; null when the file was not read.
    pub actual: Option<String>,
    /// The size on disk; null when the file was not read.
    pub bytes: Option<u64>,
    /// `lock` or `sidecar:<root-relative sidecar path>`.
    pub source: String,
    pub status: FileStatus,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum FileStatus {
    Ok,
    Moved,
    Missing,
    Unsafe,
}

/// A digest some lock source (the lock or a sidecar) claims for a path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Claim {
    /// Root-relative; an absolute or climbing sidecar name stays as written.
    pub path: String,
    pub expected: String,
    /// `lock` or `sidecar:<root-relative sidecar path>`.
    pub source: String,
    /// The file the claim was read from (root-relative), and its line.
    pub origin: Option<String>,
    pub line: Option<u64>,
}

/// What reading a claimed path gave.
#[derive(Debug)]
pub(crate) enum Reading {
    /// The path is not safe to open (absolute, climbing, or through a symlink that leaves
    /// the root): why, and it is never read.
    Unsafe(String),
    /// Safe, but it could not be hashed: it is missing or not a regular file.
    Unreadable(HashError),
    Hashed(FileDigest),
}

/// How a witness fixture named by the scan stands against the lock sources.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum FixtureLock {
    /// Some lock source claims a digest for it.
    Locked,
    /// Nothing locks it.
    Unlocked,
    /// Nothing locks it and its path is not safe to open: why.
    Unsafe(String),
}

/// A witness fixture as a test of the scan names it (`fixture=`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct WitnessFixture {
    pub test_id: String,
    pub path: String,
    pub lock: FixtureLock,
}

/// Everything the verify detectors look at.
#[derive(Debug, Default)]
pub(crate) struct VerifyFacts {
    /// The lock file as named in messages.
    pub lock_name: String,
    /// Whether the lock file exists.
    pub lock_exists: bool,
    /// The entries of the lock file.
    pub lock_entries: Vec<Entry>,
    /// Every claim of the lock and of the sidecars, in the order read.
    pub claims: Vec<Claim>,
    /// Sidecars that are never read, root-relative, each with why.
    pub unread_sidecars: Vec<(String, String)>,
    /// What reading each claimed path gave, by path.
    pub readings: BTreeMap<String, Reading>,
    /// The witness fixtures of the scan; `None` when the document has no scan section.
    pub fixtures: Option<Vec<WitnessFixture>>,
    /// The snapshot libraries' files the scan found beside test modules.
    pub snapshots: Vec<String>,
}

impl VerifyFacts {
    /// Reads the lock and the sidecars, hashes every claimed file and places the scan's
    /// witness fixtures. A lock or sidecar that cannot be read or parsed, a bare sidecar that
    /// could lock more than one file, and an I/O error while hashing stop the run.
    pub(crate) fn gather(
        lock_paths: &LockPaths,
        scan: Option<&ScanSection>,
    ) -> Result<VerifyFacts, Error> {
        let root = &lock_paths.root;
        let mut facts = VerifyFacts {
            lock_name: lock_paths.lock_name(),
            lock_exists: lock_paths.lock.symlink_metadata().is_ok(),
            ..VerifyFacts::default()
        };
        // Absent is fine; a malformed lock stops the run.
        if facts.lock_exists {
            lock_paths.check_link()?;
            let bytes = crate::read_small(&lock_paths.lock, &facts.lock_name)?;
            facts.lock_entries = LockFile::parse(&bytes, &facts.lock_name)?.files;
        }
        for e in &facts.lock_entries {
            facts.claims.push(Claim {
                path: e.path.clone(),
                expected: e.sha256.clone(),
                source: "lock".into(),
                origin: Some(facts.lock_name.clone()),
                line: None,
            });
        }
        for rel in lock::find_sidecars(root)? {
            match resolve_inside(root, &rel) {
                Ok(abs) => facts.claims.extend(sidecar_claims(root, &abs, &rel)?),
                Err(why) => facts.unread_sidecars.push((rel, why.to_string())),
            }
        }
        facts.readings = read_claimed(root, &facts.claims)?;
        facts.fixtures = scan.map(|scan| witness_fixtures(root, scan, &facts.claims));
        facts.snapshots = scan.map(|scan| scan.snapshots.clone()).unwrap_or_default();
        Ok(facts)
    }

    /// What reading a claim's path gave.
    pub(crate) fn reading(&self, claim: &Claim) -> Option<&Reading> {
        self.readings.get(&claim.path)
    }

    /// Every claim whose path was read (or refused), with what that gave, in claim order.
    pub(crate) fn claims_read(&self) -> impl Iterator<Item = (&Claim, &Reading)> {
        self.claims
            .iter()
            .filter_map(|c| Some((c, self.reading(c)?)))
    }
}

/// The claims of one sidecar (`rel` root-relative, `abs` resolved inside the root).
fn sidecar_claims(root: &Path, abs: &Path, rel: &str) -> Result<Vec<Claim>, Error> {
    let bytes = crate::read_small(abs, rel)?;
    let source = format!("sidecar:{rel}");
    match lock::parse_sidecar(&bytes, rel)? {
        Sidecar::Bare(digest) => {
            let target = lock::bare_target(root, rel).map_err(|candidates| {
                Error::parse(
                    rel,
                    1,
                    1,
                    format!(
                        "this bare digest could lock any of {}; name the sidecar \
                         after one file (FILE.sha256) or use sha256sum lines naming it",
                        candidates.join(", ")
                    ),
                )
            })?;
            Ok(vec![Claim {
                path: target,
                expected: digest,
                source,
                origin: Some(rel.to_string()),
                line: Some(1),
            }])
        }
        Sidecar::Sums(lines) => Ok(lines
            .into_iter()
            .map(|l| Claim {
                // An absolute or climbing name stays as written and is reported unsafe.
                path: lock::sum_target(rel, &l.name).unwrap_or(l.name),
                expected: l.digest,
                source: source.clone(),
                origin: Some(rel.to_string()),
                line: Some(l.line as u64),
            })
            .collect()),
    }
}

/// Resolves every claimed path once, then hashes the safe ones on all cores. An I/O error
/// other than a missing or irregular file stops the run (the first, by path).
fn read_claimed(root: &Path, claims: &[Claim]) -> Result<BTreeMap<String, Reading>, Error> {
    let mut resolved: BTreeMap<&str, Result<PathBuf, String>> = BTreeMap::new();
    for c in claims {
        resolved
            .entry(c.path.as_str())
            .or_insert_with(|| resolve_inside(root, &c.path).map_err(|why| why.to_string()));
    }
    let safe: Vec<(&str, PathBuf)> = resolved
        .iter()
        .filter_map(|(rel, abs)| abs.as_ref().ok().map(|p| (*rel, p.clone())))
        .collect();
    let abs: Vec<PathBuf> = safe.iter().map(|(_, p)| p.clone()).collect();
    let mut readings = BTreeMap::new();
    for ((rel, _), result) in safe.iter().zip(hash::hash_files(&abs)) {
        let reading = match result {
            Ok(digest) => Reading::Hashed(digest),
            Err(HashError::Io(e)) => {
                return Err(Error::io(
                    *rel,
                    std::io::Error::new(e.kind(), e.to_string()),
                ));
            }
            Err(e) => Reading::Unreadable(e),
        };
        readings.insert(rel.to_string(), reading);
    }
    for (rel, abs) in resolved {
        if let Err(why) = abs {
            readings.insert(rel.to_string(), Reading::Unsafe(why));
        }
    }
    Ok(readings)
}

/// Every `fixture=` of every test of the scan, placed against what the claims lock.
fn witness_fixtures(root: &Path, scan: &ScanSection, claims: &[Claim]) -> Vec<WitnessFixture> {
    let locked: BTreeSet<&str> = claims.iter().map(|c| c.path.as_str()).collect();
    let mut out = Vec::new();
    for test in &scan.tests {
        for fixture in &test.attachments.fixtures {
            let lock = if locked.contains(fixture.as_str()) {
                FixtureLock::Locked
            } else {
                match resolve_inside(root, fixture) {
                    Ok(_) => FixtureLock::Unlocked,
                    Err(why) => FixtureLock::Unsafe(why.to_string()),
                }
            };
            out.push(WitnessFixture {
                test_id: test.id.clone(),
                path: fixture.clone(),
                lock,
            });
        }
    }
    out
}

/// One `files` entry per claim: what the claim expects and what reading its path gave.
fn file_checks(facts: &VerifyFacts) -> Vec<FileCheck> {
    let mut files: Vec<FileCheck> = facts
        .claims
        .iter()
        .map(|c| {
            let (actual, bytes, status) = match facts.reading(c) {
                Some(Reading::Hashed(d)) if d.sha256 == c.expected => {
                    (Some(d.sha256.clone()), Some(d.bytes), FileStatus::Ok)
                }
                Some(Reading::Hashed(d)) => {
                    (Some(d.sha256.clone()), Some(d.bytes), FileStatus::Moved)
                }
                Some(Reading::Unreadable(_)) => (None, None, FileStatus::Missing),
                Some(Reading::Unsafe(_)) | None => (None, None, FileStatus::Unsafe),
            };
            FileCheck {
                path: c.path.clone(),
                expected: c.expected.clone(),
                actual,
                bytes,
                source: c.source.clone(),
                status,
            }
        })
        .collect();
    files.sort();
    files.dedup();
    files
}

/// Runs verify on `doc` and returns the document with the `lock` section set.
pub fn verify(lock_paths: &LockPaths, mut doc: Document) -> Result<(Document, LockSection), Error> {
    // Read the scan first: a malformed scan section is a failure before any work.
    let scan: Option<ScanSection> = doc.section_as(ScanSection::NAME, "<document>")?;
    let facts = VerifyFacts::gather(lock_paths, scan.as_ref())?;
    let mut problems: Vec<Problem> = Vec::new();
    run_all(DETECTORS, &LockFacts::Verify(&facts), &mut problems);
    lane_core::problem::normalize(&mut problems);
    let section = LockSection {
        tool: TOOL.into(),
        files: file_checks(&facts),
        lock: facts.lock_exists.then_some(facts.lock_name),
        problems,
    };
    doc.set_section(SECTION, &section);
    Ok((doc, section))
}
