//! xfail-in-voting-lane and retry-in-voting-lane: a lane that refuses expected failures or
//! retries (the lane rights) gets neither, from a test's marks, or for the whole suite from
//! `addopts` retrying every failing test while some test is in such a lane.

use lane_core::detector::Detector;
use lane_core::scan::{Counts, Lane};
use lane_core::{Problem, Rule};

use super::facts::{Effect, TestFacts};
use super::{Scan, ScanFacts, SuiteFacts};
use crate::pytest::collect::EmptySetMark;
use lane_core::rights::{RIGHTS, of as rights};

pub(crate) const DETECTOR: Detector<Scan> = Detector {
    rules: &[Rule::XfailInVotingLane, Rule::RetryInVotingLane],
    check,
};

/// The rules of this file that keep a test from voting (`lane-scan --fix` asks).
pub(crate) const REFUSES_VOTER: &[Rule] = &[Rule::XfailInVotingLane, Rule::RetryInVotingLane];

/// The rule of this file that marks a known failure (an expected failure): `lane-scan --fix`
/// offers a known-failure ticket for a test it alone keeps from voting.
pub(crate) const KNOWN_FAILURE: Rule = Rule::XfailInVotingLane;

fn check(facts: &ScanFacts<'_>, problems: &mut Vec<Problem>) {
    match facts {
        ScanFacts::Test(t) => test(t, problems),
        ScanFacts::Suite(s) => suite(s, problems),
        _ => {}
    }
}

fn test(t: &TestFacts, problems: &mut Vec<Problem>) {
    let Some(lane) = t.lane else { return };
    let rights = rights(lane);
    for (effect, a) in &t.effects {
        let (rule, what) = match effect {
            Effect::Xfail if rights.no_xfail => (Rule::XfailInVotingLane, "an expected failure"),
            Effect::Retry if rights.no_retry => (Rule::RetryInVotingLane, "retried on failure"),
            _ => continue,
        };
        let msg = format!("{} is {what} in the {lane} lane", t.id);
        problems.push(t.problem(rule, msg, a.file, a.line));
    }
    // pytest-asyncio's xfail(run=False) on an async generator test.
    if rights.no_xfail && t.func.async_generator && t.plugin_xfail {
        let msg = format!(
            "{} is an async generator: pytest-asyncio marks it xfail(run=False) and it never \
             runs in the {lane} lane",
            t.id
        );
        problems.push(t.problem(Rule::XfailInVotingLane, msg, t.func_file, t.func.line));
    }
    // A used fixture's params written empty under empty_parameter_set_mark = xfail.
    if rights.no_xfail && t.empty_set_mark == EmptySetMark::Xfail {
        for f in &t.empty_fixture_params {
            let msg = format!(
                "{} is an expected failure in the {lane} lane: fixture {} has empty params \
                 (empty_parameter_set_mark = xfail)",
                t.id, f.what
            );
            problems.push(t.problem(Rule::XfailInVotingLane, msg, f.file, f.line));
        }
    }
}

/// `addopts` retries every failing test (`--reruns`, `--force-flaky`), and some test is in a
/// lane that refuses retries.
fn suite(s: &SuiteFacts, problems: &mut Vec<Problem>) {
    let Some(opt) = s
        .config
        .addopts
        .iter()
        .find(|a| a.starts_with("--reruns") || a.starts_with("--force-flaky"))
    else {
        return;
    };
    let refusing: u64 = RIGHTS
        .iter()
        .filter(|r| r.no_retry)
        .map(|r| tests_in(s.counts, r.lane))
        .sum();
    if refusing == 0 {
        return;
    }
    let lanes: Vec<&str> = RIGHTS
        .iter()
        .filter(|r| r.no_retry)
        .map(|r| Lane::as_str(r.lane))
        .collect();
    let msg = format!(
        "addopts has {opt}: every {} test is retried on failure",
        lanes.join(" and ")
    );
    problems.push(s.locate(
        Problem::new(Rule::RetryInVotingLane, msg),
        s.config.addopts_line,
    ));
}

fn tests_in(counts: &Counts, lane: Lane) -> u64 {
    match lane {
        Lane::Merge => counts.merge,
        Lane::Witness => counts.witness,
        Lane::Freeze => counts.freeze,
    }
}
