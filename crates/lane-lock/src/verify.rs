//! `lane-lock verify`: rehash every lock entry and every sidecar under the root, check that
//! every witness fixture of the scan is locked, and write the `lock` section.

use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;

use lane_core::paths::resolve_inside;
use lane_core::rule::Rule;
use lane_core::scan::ScanSection;
use lane_core::{Document, Error, Problem};
use serde::{Deserialize, Serialize};

use crate::hash::{self, FileDigest, HashError};
use crate::lock::{self, LockFile, Sidecar};
use crate::{Place, TOOL};

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

/// A digest some lock source claims for a path.
struct Claim {
    path: String,
    expected: String,
    source: String,
    /// The file the claim was read from (root-relative), and its line.
    origin: Option<String>,
    line: Option<u64>,
}

/// Runs verify on `doc` and returns the document with the `lock` section set.
pub fn verify(place: &Place, mut doc: Document) -> Result<(Document, LockSection), Error> {
    let root = &place.root;
    let mut problems = Vec::new();
    let mut claims = Vec::new();

    // Read the scan first: a malformed scan section is a failure before any work.
    let scan: Option<ScanSection> = doc.section_as(ScanSection::NAME, "<document>")?;

    // The lock file (absent is fine; a malformed one stops the run).
    let lock_name = place.lock_name();
    let lock_exists = place.lock.symlink_metadata().is_ok();
    let lockfile = if lock_exists {
        let bytes = crate::read_small(&place.lock, &lock_name)?;
        LockFile::parse(&bytes, &lock_name)?
    } else {
        LockFile::default()
    };
    for e in &lockfile.files {
        claims.push(Claim {
            path: e.path.clone(),
            expected: e.sha256.clone(),
            source: "lock".into(),
            origin: lock_exists.then(|| lock_name.clone()),
            line: None,
        });
    }

    // Sidecars.
    for rel in lock::find_sidecars(root)? {
        let abs = match resolve_inside(root, &rel) {
            Ok(p) => p,
            Err(why) => {
                problems.push(
                    Problem::new(
                        Rule::UnsafePath,
                        format!("sidecar {rel} {why}; it is never read"),
                    )
                    .file(rel.clone()),
                );
                continue;
            }
        };
        let bytes = crate::read_small(&abs, &rel)?;
        let source = format!("sidecar:{rel}");
        match lock::parse_sidecar(&bytes, &rel)? {
            Sidecar::Bare(digest) => {
                let target = lock::bare_target(root, &rel).map_err(|candidates| {
                    Error::parse(
                        rel.clone(),
                        1,
                        1,
                        format!(
                            "this bare digest could lock any of {}; name the sidecar \
                             after one file (FILE.sha256) or use sha256sum lines naming it",
                            candidates.join(", ")
                        ),
                    )
                })?;
                claims.push(Claim {
                    path: target,
                    expected: digest,
                    source,
                    origin: Some(rel.clone()),
                    line: Some(1),
                });
            }
            Sidecar::Sums(lines) => {
                for l in lines {
                    // An absolute or climbing name stays as written and is reported unsafe.
                    let path = lock::sum_target(&rel, &l.name).unwrap_or(l.name);
                    claims.push(Claim {
                        path,
                        expected: l.digest,
                        source: source.clone(),
                        origin: Some(rel.clone()),
                        line: Some(l.line as u64),
                    });
                }
            }
        }
    }

    // Resolve every claimed path once, then hash the safe ones on all cores.
    let mut resolved: BTreeMap<String, Option<PathBuf>> = BTreeMap::new();
    for c in &claims {
        resolved
            .entry(c.path.clone())
            .or_insert_with(|| resolve_inside(root, &c.path).ok());
    }
    let safe: Vec<(&String, &PathBuf)> = resolved
        .iter()
        .filter_map(|(k, v)| v.as_ref().map(|p| (k, p)))
        .collect();
    let paths: Vec<PathBuf> = safe.iter().map(|(_, p)| (*p).clone()).collect();
    let mut digests: BTreeMap<&str, Result<FileDigest, HashError>> = BTreeMap::new();
    for ((rel, _), result) in safe.iter().zip(hash::hash_files(&paths)) {
        if let Err(HashError::Io(e)) = &result {
            return Err(Error::io(
                rel.as_str(),
                std::io::Error::new(e.kind(), e.to_string()),
            ));
        }
        digests.insert(rel.as_str(), result);
    }

    let mut files = Vec::new();
    for c in &claims {
        let mut check = FileCheck {
            path: c.path.clone(),
            expected: c.expected.clone(),
            actual: None,
            bytes: None,
            source: c.source.clone(),
            status: FileStatus::Unsafe,
        };
        match digests.get(c.path.as_str()) {
            None => {
                let why = resolve_inside(root, &c.path)
                    .err()
                    .map_or_else(|| "is unsafe".to_string(), |w| w.to_string());
                let mut p = Problem::new(
                    Rule::UnsafePath,
                    format!(
                        "locked path '{}' ({}) {why}; it is never read",
                        c.path, c.source
                    ),
                );
                if let Some(origin) = &c.origin {
                    p = p.file(origin.clone());
                    if let Some(line) = c.line {
                        p = p.line(line);
                    }
                }
                problems.push(p);
            }
            Some(Err(e)) => {
                check.status = FileStatus::Missing;
                problems.push(
                    Problem::new(
                        Rule::MissingFile,
                        format!("{} is locked ({}) but {e}", c.path, c.source),
                    )
                    .file(c.path.clone()),
                );
            }
            Some(Ok(d)) => {
                check.actual = Some(d.sha256.clone());
                check.bytes = Some(d.bytes);
                if d.sha256 == c.expected {
                    check.status = FileStatus::Ok;
                } else {
                    check.status = FileStatus::Moved;
                    problems.push(
                        Problem::new(
                            Rule::DigestMoved,
                            format!(
                                "{}: digest moved: expected {} ({}), actual {} ({} bytes)",
                                c.path, c.expected, c.source, d.sha256, d.bytes
                            ),
                        )
                        .file(c.path.clone()),
                    );
                }
            }
        }
        files.push(check);
    }

    // Witness fixtures against what is locked.
    if let Some(scan) = &scan {
        let locked: BTreeSet<&str> = claims.iter().map(|c| c.path.as_str()).collect();
        let mut named: BTreeSet<&str> = BTreeSet::new();
        for test in &scan.tests {
            for fixture in &test.attachments.fixtures {
                named.insert(fixture.as_str());
                if locked.contains(fixture.as_str()) {
                    continue;
                }
                match resolve_inside(root, fixture) {
                    Err(why) => problems.push(
                        Problem::new(
                            Rule::UnsafePath,
                            format!("witness fixture '{fixture}' {why}; it is never read"),
                        )
                        .test(test.id.clone()),
                    ),
                    Ok(_) => problems.push(
                        Problem::new(
                            Rule::UnlockedFixture,
                            format!(
                                "witness fixture {fixture} has no entry in {} nor a .sha256 sidecar",
                                lock_name
                            ),
                        )
                        .file(fixture.clone())
                        .test(test.id.clone()),
                    ),
                }
            }
        }
        for e in &lockfile.files {
            if !named.contains(e.path.as_str()) {
                problems.push(
                    Problem::new(
                        Rule::OrphanLock,
                        format!(
                            "{} is locked in {lock_name} but no witness test names it in fixture=",
                            e.path
                        ),
                    )
                    .file(e.path.clone()),
                );
            }
        }
    }

    files.sort();
    files.dedup();
    lane_core::problem::normalize(&mut problems);
    let section = LockSection {
        tool: TOOL.into(),
        lock: lock_exists.then_some(lock_name),
        files,
        problems,
    };
    doc.set_section(SECTION, &section);
    Ok((doc, section))
}
