//! One lane's reports folded: every report of the same case side by side (whichever shard or
//! rerun it came from), counted once by its worst outcome, and kept per test only when it did
//! not plainly pass. These are the facts the per-test detectors judge.

use std::collections::{BTreeMap, HashMap};
use std::path::Path;

use lane_core::scan::{Lane, ScanTest};
use rayon::slice::ParallelSliceMut;

use crate::junit::Outcome;
use crate::reports::{NO_TEST, Occurrence, ReportTally};
use crate::vote::LaneCounts;

/// One distinct case after folding its reports.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Folded {
    test: u32,
    hash: u64,
    pub worst: Outcome,
    count: u32,
    passes: u32,
    retry: bool,
    xpass: bool,
}

impl Folded {
    /// How the case shows a retry, when it does: retry elements, or more than one report of
    /// it with a pass among them (pytest-rerunfailures writes each failed try as a
    /// passing-looking case next to the final one).
    pub(crate) fn retried(&self) -> Option<String> {
        if self.retry {
            Some("carries rerun evidence".to_string())
        } else if self.count > 1 && self.passes > 0 {
            Some(if self.worst == Outcome::Passed {
                format!("was reported {} times (a rerun)", self.count)
            } else {
                format!(
                    "was reported {} times, {} and passed (a rerun)",
                    self.count,
                    self.outcome_name()
                )
            })
        } else {
            None
        }
    }

    /// A strict xpass (pytest writes it as a failure): an expected failure that passed.
    pub(crate) fn is_strict_xpass(&self) -> bool {
        self.worst == Outcome::Failed && self.xpass
    }

    /// The worst outcome's name; a strict xpass (written by pytest as a failure) says so.
    pub(crate) fn outcome_name(&self) -> &'static str {
        if self.worst == Outcome::Failed && self.xpass {
            "xpass strict"
        } else {
            self.worst.as_str()
        }
    }
}

/// The distinct cases of a lane, folded from its occurrences in (test, hash) order; an
/// iterator, so no second list of a million cases is built.
struct Folds {
    occurrences: Vec<Occurrence>,
    pos: usize,
}

fn fold(mut occurrences: Vec<Occurrence>) -> Folds {
    // Unstable is enough: a fold counts its occurrences in any order.
    occurrences.par_sort_unstable_by_key(|o| (o.test, o.hash));
    Folds {
        occurrences,
        pos: 0,
    }
}

impl Iterator for Folds {
    type Item = Folded;

    fn next(&mut self) -> Option<Folded> {
        let first = *self.occurrences.get(self.pos)?;
        let mut f = Folded {
            test: first.test,
            hash: first.hash,
            worst: first.outcome,
            count: 1,
            passes: u32::from(first.outcome == Outcome::Passed),
            retry: first.retry,
            xpass: first.xpass,
        };
        self.pos += 1;
        while let Some(o) = self.occurrences.get(self.pos) {
            if o.test != f.test || o.hash != f.hash {
                break;
            }
            f.worst = f.worst.max(o.outcome);
            f.count += 1;
            f.passes += u32::from(o.outcome == Outcome::Passed);
            f.retry |= o.retry;
            f.xpass |= o.xpass;
            self.pos += 1;
        }
        Some(f)
    }
}

/// A case that did not plainly pass: it failed, was skipped or needed a rerun.
#[derive(Debug, Clone)]
pub(crate) struct NotableCase {
    /// The case's name in the report (the test's name when no report named it).
    pub label: String,
    pub case: Folded,
    /// The `replay` property its reports recorded (freeze cases only).
    pub replay: Option<String>,
    /// What its first failed or errored report said ([`crate::detail::suffix`]).
    pub detail: Option<String>,
}

/// One lane's folded reports.
#[derive(Debug, Default)]
pub(crate) struct LaneRuns {
    /// The lane's reports as the section names them.
    pub reports: Vec<String>,
    /// Every scanned test of the lane that has a case, by its index in the scan, with the
    /// cases that did not plainly pass.
    pub ran: BTreeMap<u32, Vec<NotableCase>>,
}

/// A `replay` property as the rootdir sees it: an absolute path inside the rootdir (pytest's
/// `tmp_path` of a test that wrote its capsule under the tree, `str(Path(__file__).parent /
/// ...)`) becomes root-relative; anything else is kept as written, for [`replay_problem`] to
/// judge (an absolute path outside the rootdir stays refused).
pub(crate) fn root_relative_replay(rootdir: &Path, replay: String) -> String {
    let path = Path::new(&replay);
    if !path.is_absolute() {
        return replay;
    }
    let mut roots = vec![rootdir.to_path_buf()];
    if let Ok(real) = rootdir.canonicalize() {
        roots.push(real);
    }
    let mut candidates = vec![path.to_path_buf()];
    if let Ok(real) = path.canonicalize() {
        candidates.push(real);
    }
    for root in &roots {
        for candidate in &candidates {
            if let Ok(rest) = candidate.strip_prefix(root)
                && let Some(text) = rest.to_str()
                && !text.is_empty()
            {
                return text.replace('\\', "/");
            }
        }
    }
    replay
}

/// Why a replay property does not point at a usable file, or None when it does.
pub(crate) fn replay_problem(rootdir: &Path, replay: Option<&String>) -> Option<String> {
    let Some(replay) = replay else {
        return Some("recorded no replay property".to_string());
    };
    match lane_core::paths::resolve_inside(rootdir, replay) {
        Err(why) => Some(format!("its replay property '{replay}' {why}")),
        Ok(path) if path.is_file() => None,
        Ok(_) => Some(format!(
            "its replay property names '{replay}', which is not a file under the rootdir"
        )),
    }
}

/// Folds the lane's report tallies (their unmatched facts are left in place) into its runs,
/// and counts its cases and missing tests into `counts`.
pub(crate) fn gather<'f>(
    lane: Lane,
    files: impl Iterator<Item = &'f mut ReportTally>,
    reports: Vec<String>,
    tests: &[ScanTest],
    rootdir: &Path,
    counts: &mut LaneCounts,
) -> LaneRuns {
    let mut occurrences = Vec::new();
    let mut labels: HashMap<(u32, u64), String> = HashMap::new();
    let mut replays: HashMap<(u32, u64), String> = HashMap::new();
    let mut details: HashMap<(u32, u64), String> = HashMap::new();
    for f in files {
        if occurrences.is_empty() {
            occurrences = std::mem::take(&mut f.occurrences);
        } else {
            occurrences.append(&mut f.occurrences);
        }
        for (t, h, name) in f.labels.drain(..) {
            labels.entry((t, h)).or_insert(name);
        }
        for (t, h, detail) in f.details.drain(..) {
            details.entry((t, h)).or_insert(detail);
        }
        for (t, h, replay) in f.replays.drain(..) {
            let replay = root_relative_replay(rootdir, replay);
            // Several reports of one case: prefer a replay that names a usable file.
            let slot = replays.entry((t, h)).or_insert_with(|| replay.clone());
            if replay_problem(rootdir, Some(slot)).is_some() {
                *slot = replay;
            }
        }
    }
    let mut ran: BTreeMap<u32, Vec<NotableCase>> = BTreeMap::new();
    for case in fold(occurrences) {
        counts.cases += 1;
        match case.worst {
            Outcome::Passed => counts.passed += 1,
            Outcome::Failed => counts.failed += 1,
            Outcome::Error => counts.errors += 1,
            Outcome::Skipped | Outcome::XFail => counts.skipped += 1,
        }
        if case.test == NO_TEST {
            continue;
        }
        let notable = ran.entry(case.test).or_default();
        if case.worst == Outcome::Passed && case.retried().is_none() {
            continue;
        }
        let key = (case.test, case.hash);
        let label = labels.remove(&key).unwrap_or_else(|| {
            let id = &tests[case.test as usize].id;
            id.rsplit("::").next().unwrap_or(id).to_string()
        });
        notable.push(NotableCase {
            label,
            case,
            replay: replays.remove(&key),
            detail: details.remove(&key),
        });
    }
    counts.missing = tests
        .iter()
        .enumerate()
        .filter(|(i, t)| t.lane == Some(lane) && !ran.contains_key(&(*i as u32)))
        .count() as u64;
    LaneRuns { reports, ran }
}
