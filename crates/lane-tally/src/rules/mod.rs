//! The vote's detectors: one file per rule or close family of rules, each holding its decision
//! and its messages and declaring its `Detector`, all listed in [`DETECTORS`] (generated at build
//! time). Lane-specific
//! verdicts come from the table of lane rights ([`lane_core::rights`]).
//!
//! Adding a rule: its entry in lane-core's catalogue, a file here that declares its
//! `DETECTOR`, and its cases in the vote's tests.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use lane_core::detector::{self, Facts};
use lane_core::rights::{self, LaneRights, Verdict};
use lane_core::scan::{ScanSection, ScanTest};
use lane_core::{Document, Problem};

use crate::reports::{Drift, Unmatched};
use crate::runs::{LaneRuns, NotableCase};
use crate::shards::ShardFacts;
use crate::vote::{Lanes, Report};

/// The facts of the vote, as the detectors' table names them.
pub(crate) enum Tally {}

impl Facts for Tally {
    type Of<'a> = TallyFacts<'a>;
}

/// Everything the detectors judge.
pub(crate) struct TallyFacts<'a> {
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
    /// What the reports' run manifests and the shards of each lane showed.
    pub shards: &'a ShardFacts,
}

// The rule files: every file of this folder that declares a `DETECTOR` is a module here and
// a line of `DETECTORS` (and `RULE_FILES`), written by build.rs (lane-build).
include!(concat!(env!("OUT_DIR"), "/detectors.rs"));

/// Every detector's problems, in the table's order (the section sorts them).
pub(crate) fn detect(facts: &TallyFacts<'_>) -> Vec<Problem> {
    let mut problems = Vec::new();
    detector::run_all(DETECTORS, facts, &mut problems);
    problems
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
fn each_test<'a>(facts: &'a TallyFacts<'a>) -> impl Iterator<Item = TestRun<'a>> {
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

/// For every scanned test with cases in its lane's reports, the verdict `judge` gives from the
/// lane's rights, the test and its cases that did not plainly pass (the verdict and the names
/// of the cases it is about), placed at the test; none where it names no case.
fn judge_each_test(
    facts: &TallyFacts<'_>,
    problems: &mut Vec<Problem>,
    judge: impl Fn(&LaneRights, &ScanTest, &[NotableCase]) -> Option<(Verdict, Vec<String>)>,
) {
    for run in each_test(facts) {
        let Some(cases) = run.cases else { continue };
        if let Some((v, names)) = judge(run.rights, run.test, cases) {
            problems.extend(verdict(v, &names).map(|p| at(run.test, p)));
        }
    }
}

/// Every report case (the first of its kind in its report) that matched no scanned test of
/// its lane, with the report.
fn each_unmatched<'a>(
    facts: &'a TallyFacts<'a>,
) -> impl Iterator<Item = (&'a Report, &'a Unmatched)> {
    facts
        .unmatched
        .iter()
        .flat_map(|(report, unmatched)| unmatched.iter().map(move |u| (*report, u)))
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

/// A test's verdict from the names its cases gave, or nothing when none did.
fn verdict(verdict: Verdict, names: &[String]) -> Option<Problem> {
    (!names.is_empty())
        .then(|| Problem::new(verdict.rule, format!("{}: {}", verdict.says, list(names))))
}

/// `LABEL (OUTCOME)`.
fn named(c: &NotableCase) -> String {
    format!("{} ({})", c.label, c.case.outcome_name())
}

#[cfg(test)]
mod tests {
    use lane_core::Rule;
    use lane_core::rights::{RIGHTS, Rerun};

    use super::*;

    /// Every rule the catalogue gives lane-tally has a detector here.
    #[test]
    fn every_tally_rule_has_a_detector() {
        for rule in Rule::ALL.iter().filter(|r| r.tool() == "lane-tally") {
            assert!(
                DETECTORS.iter().any(|d| d.rules.contains(rule)),
                "{rule} has no detector"
            );
        }
    }

    /// The per-test detectors declare every rule the lane-rights table gives their verdicts.
    #[test]
    fn verdict_detectors_declare_the_rules_of_the_rights_table() {
        let declares = |d: &lane_core::detector::Detector<Tally>, v: Verdict| {
            assert!(
                d.rules.contains(&v.rule),
                "{:?} do not include {}",
                d.rules,
                v.rule
            );
        };
        for r in &RIGHTS {
            declares(&failed::DETECTOR, r.failed);
            declares(&missing_or_skipped::DETECTOR, r.skipped);
            declares(&missing_or_skipped::DETECTOR, r.missing);
            if let Rerun::Flaky(v) = r.rerun {
                declares(&flaky_voter::DETECTOR, v);
            }
            if let Some(v) = r.replay {
                declares(&missing_replay_artifact::DETECTOR, v);
            }
            if let Some(v) = r.known_failure {
                declares(&known_failure_passed::DETECTOR, v);
            }
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
