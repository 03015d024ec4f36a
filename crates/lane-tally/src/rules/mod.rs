//! The vote's detectors: one small function per rule or close family of rules, each taking
//! the facts it needs and returning problems, all registered in [`DETECTORS`]. Lane-specific
//! verdicts come from the table of lane rights ([`crate::rights`]).
//!
//! Adding a rule: its entry in lane-core's catalogue, a detector here (a file of its own, or
//! beside its family), one line in `DETECTORS`, and its cases in the vote's tests.

mod base;
mod budget;
mod domain;
mod drift;
mod evidence;
mod outcomes;
mod shards;
mod unmatched;

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use lane_core::scan::{ScanSection, ScanTest};
use lane_core::{Document, Problem, Rule};

use crate::reports::{Drift, Unmatched};
use crate::rights::{self, LaneRights};
use crate::runs::{LaneRuns, NotableCase};
use crate::vote::{Lanes, Report};

/// Everything the detectors judge.
pub struct Facts<'a> {
    pub doc: &'a Document,
    /// The scan section, when the document has one.
    pub scan: Option<&'a ScanSection>,
    /// The scan's tests (none without a scan).
    pub tests: &'a [ScanTest],
    /// Per-lane counts (scanned tests, folded cases).
    pub lanes: &'a Lanes,
    /// Each lane's folded runs, in `Lane::ALL` order.
    pub runs: &'a [LaneRuns; 3],
    /// Each report with the cases of it that matched no test of its lane.
    pub unmatched: Vec<(&'a Report, &'a [Unmatched])>,
    /// Per scanned test, the xunit1 files its cases (and cases claiming its name) ran from,
    /// over every report.
    pub case_files: BTreeMap<u32, BTreeSet<String>>,
    /// Each report with what pytest-lanes-gate recorded that disagrees with the scan.
    pub drift: Vec<(&'a Report, &'a [Drift])>,
    /// Where `replay` properties are resolved.
    pub rootdir: &'a Path,
    /// The base's scan section (`--base`).
    pub base: Option<&'a ScanSection>,
    /// `--reason`.
    pub reason: Option<&'a str>,
    /// What the run manifests and the shards showed (issue 21).
    pub shards: &'a crate::shards::ShardFacts,
}

/// A detector: the facts in, its problems out.
pub type Detector = fn(&Facts<'_>) -> Vec<Problem>;

/// Every detector, with the rules it reports.
pub const DETECTORS: &[(&[Rule], Detector)] = &[
    (&[Rule::NoScanEvidence], evidence::no_scan_evidence),
    (&[Rule::NoLockEvidence], evidence::no_lock_evidence),
    (&[Rule::NoLedgerEvidence], evidence::no_ledger_evidence),
    (&[Rule::EmptyMergeLane], budget::empty_merge_lane),
    (&[Rule::FreezeOverBudget], budget::freeze_over_budget),
    (&[Rule::LaneMismatch], unmatched::lane_mismatch),
    (&[Rule::CollectionError], unmatched::collection_error),
    (&[Rule::UnknownTest], unmatched::unknown_test),
    (&[Rule::IdentityCollision], unmatched::identity_collision),
    (
        &[
            Rule::MissingVote,
            Rule::MissingWitness,
            Rule::MissingFreezeRun,
        ],
        outcomes::missing,
    ),
    (&[Rule::FlakyVoter], outcomes::flaky),
    (
        &[Rule::MergeFailed, Rule::WitnessFailed, Rule::FreezeFailed],
        outcomes::failed,
    ),
    (
        &[Rule::MissingReplayArtifact],
        outcomes::missing_replay_artifact,
    ),
    (
        &[
            Rule::MergeSkipped,
            Rule::WitnessSkipped,
            Rule::MissingFreezeRun,
        ],
        outcomes::skipped,
    ),
    (
        &[Rule::MergeTestRemoved, Rule::LaneChanged],
        base::merge_tests_kept,
    ),
    (&[Rule::DomainChanged], domain::domain_kept),
    // issue 19
    (&[Rule::LaneDrift], drift::lane_drift),
    (&[Rule::KnownFailurePassed], outcomes::known_failure_passed),
    // issue 21
    (
        &[
            Rule::StaleReport,
            Rule::MissingShard,
            Rule::ConflictingShard,
        ],
        shards::shards,
    ),
];

/// Every detector's problems, in the list's order (the section sorts them).
pub fn detect(facts: &Facts<'_>) -> Vec<Problem> {
    DETECTORS
        .iter()
        .flat_map(|(_, detector)| detector(facts))
        .collect()
}

/// One scanned test as the per-test detectors see it.
struct TestRun<'a> {
    rights: &'static LaneRights,
    /// Its lane's runs.
    runs: &'a LaneRuns,
    test: &'a ScanTest,
    /// Its cases that did not plainly pass; `None` when it has no case at all.
    cases: Option<&'a [NotableCase]>,
}

/// Every scanned test of every lane, lane by lane, in scan order.
fn each_test<'a>(facts: &'a Facts<'a>) -> impl Iterator<Item = TestRun<'a>> {
    rights::RIGHTS
        .iter()
        .zip(facts.runs)
        .flat_map(move |(rights, runs)| {
            facts
                .tests
                .iter()
                .enumerate()
                .filter(move |(_, t)| t.lane == Some(rights.lane))
                .map(move |(i, test)| TestRun {
                    rights,
                    runs,
                    test,
                    cases: runs.ran.get(&(i as u32)).map(Vec::as_slice),
                })
        })
}

/// A problem placed at a scanned test.
fn at(test: &ScanTest, problem: Problem) -> Problem {
    problem
        .at(test.file.clone(), test.line)
        .test(test.id.clone())
}

/// Up to three names, sorted and unique, then how many more.
fn list(names: &[String]) -> String {
    const SHOWN: usize = 3;
    let mut sorted: Vec<&str> = names.iter().map(String::as_str).collect();
    sorted.sort_unstable();
    sorted.dedup();
    let mut out = sorted
        .iter()
        .take(SHOWN)
        .copied()
        .collect::<Vec<_>>()
        .join(", ");
    if sorted.len() > SHOWN {
        out.push_str(&format!(" and {} more", sorted.len() - SHOWN));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every rule the catalogue gives lane-tally has a detector here.
    #[test]
    fn every_tally_rule_has_a_detector() {
        for rule in Rule::ALL.iter().filter(|r| r.tool() == "lane-tally") {
            assert!(
                DETECTORS.iter().any(|(rules, _)| rules.contains(rule)),
                "{rule} has no detector"
            );
        }
    }

    #[test]
    fn list_shows_three_sorted_unique_names() {
        let names = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        assert_eq!(list(&names(&["b", "a", "b"])), "a, b");
        assert_eq!(
            list(&names(&["e", "d", "c", "b", "a"])),
            "a, b, c and 2 more"
        );
    }
}
