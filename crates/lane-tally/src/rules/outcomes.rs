//! The per-test verdicts of every lane, from its rights: `missing-vote` / `missing-witness` /
//! `missing-freeze-run` (no case), `flaky-voter` (a voter that needed a rerun),
//! `merge-failed` / `witness-failed` / `freeze-failed`, `missing-replay-artifact` (a failed
//! freeze case that names no usable capsule), `merge-skipped` / `witness-skipped` /
//! `missing-freeze-run` (skipped at run time), `known-failure-passed` (a recorded known
//! failure's strict xpass).

use lane_core::Problem;
use lane_core::scan::EmptyParams;

use super::{Facts, TestRun, at, each_test, list};
use crate::junit::Outcome;
use crate::rights::{Rerun, Verdict};
use crate::runs::{NotableCase, replay_problem};

/// A test's verdict from the names its cases gave, or nothing when none did.
fn verdict(verdict: Verdict, names: &[String]) -> Option<Problem> {
    (!names.is_empty())
        .then(|| Problem::new(verdict.rule, format!("{}: {}", verdict.says, list(names))))
}

/// `LABEL (OUTCOME)`.
fn named(c: &NotableCase) -> String {
    format!("{} ({})", c.label, c.case.outcome_name())
}

/// A scanned test with no case in its lane's reports.
pub fn missing(facts: &Facts<'_>) -> Vec<Problem> {
    let mut out = Vec::new();
    for TestRun {
        rights,
        runs,
        test,
        cases,
    } in each_test(facts)
    {
        if cases.is_some() {
            continue;
        }
        let lane = rights.lane;
        let where_ = if runs.reports.is_empty() {
            format!("no {lane} report was given (--junit {lane}=PATH)")
        } else {
            format!("not in {}", runs.reports.join(", "))
        };
        let says = rights.missing.says;
        out.push(at(
            test,
            Problem::new(rights.missing.rule, format!("{says}: {where_}")),
        ));
    }
    out
}

/// A voter whose case needed a rerun, in a lane where that is its own rule. The case's
/// outcome is judged as well: a rerun plugin writes a passing-looking case for every failed
/// try, so a test that failed on every try looks "failed and passed" and must still fail.
pub fn flaky(facts: &Facts<'_>) -> Vec<Problem> {
    let mut out = Vec::new();
    for TestRun {
        rights,
        test,
        cases,
        ..
    } in each_test(facts)
    {
        let (Rerun::Flaky(flaky), Some(cases)) = (rights.rerun, cases) else {
            continue;
        };
        let names: Vec<String> = cases
            .iter()
            .filter_map(|c| Some(format!("{} {}", c.label, c.case.retried()?)))
            .collect();
        out.extend(verdict(flaky, &names).map(|p| at(test, p)));
    }
    out
}

/// Failed or errored cases; where the lane counts a rerun as a failure, a case rescued by
/// one as well.
pub fn failed(facts: &Facts<'_>) -> Vec<Problem> {
    let mut out = Vec::new();
    for TestRun {
        rights,
        test,
        cases,
        ..
    } in each_test(facts)
    {
        let Some(cases) = cases else { continue };
        let names: Vec<String> = cases
            .iter()
            .filter(|c| rights.known_failure.is_none() || !c.case.is_strict_xpass())
            .filter_map(|c| {
                if c.case.worst.is_failure() {
                    Some(named(c) + c.detail.as_deref().unwrap_or_default())
                } else if rights.rerun == Rerun::Failed {
                    Some(format!("{} {}", c.label, c.case.retried()?))
                } else {
                    None
                }
            })
            .collect();
        out.extend(verdict(rights.failed, &names).map(|p| at(test, p)));
    }
    out
}

/// Failed cases of a lane whose failures must name a usable replay artifact.
pub fn missing_replay_artifact(facts: &Facts<'_>) -> Vec<Problem> {
    let mut out = Vec::new();
    for TestRun {
        rights,
        test,
        cases,
        ..
    } in each_test(facts)
    {
        let (Some(replay), Some(cases)) = (rights.replay, cases) else {
            continue;
        };
        let names: Vec<String> = cases
            .iter()
            .filter(|c| c.case.worst.is_failure())
            .filter(|c| rights.known_failure.is_none() || !c.case.is_strict_xpass())
            .filter_map(|c| {
                let why = replay_problem(facts.rootdir, c.replay.as_ref())?;
                Some(format!("{} {why}", c.label))
            })
            .collect();
        out.extend(verdict(replay, &names).map(|p| at(test, p)));
    }
    out
}

/// Cases skipped or xfailed at run time (a case the lane already counts as failed by its
/// rerun is not a skip too; an xfail in a lane where it records is no skip).
pub fn skipped(facts: &Facts<'_>) -> Vec<Problem> {
    let mut out = Vec::new();
    for TestRun {
        rights,
        test,
        cases,
        ..
    } in each_test(facts)
    {
        let Some(cases) = cases else { continue };
        // The item pytest makes when a computed parameter set comes out empty (issue 18
        // (fid5)): the scan says the sets are computed and what that item carries.
        let empty_set = |c: &NotableCase| {
            test.empty_params
                .as_ref()
                .filter(|_| EmptyParams::is_empty_set_case(&c.label))
        };
        let names: Vec<String> = cases
            .iter()
            .filter(|c| c.case.worst.is_skip())
            // A freeze test's xfail is its known failure, run and recorded; the empty set's
            // xfail never ran.
            .filter(|c| {
                rights.known_failure.is_none()
                    || c.case.worst != Outcome::XFail
                    || empty_set(c).is_some()
            })
            .filter(|c| rights.rerun != Rerun::Failed || c.case.retried().is_none())
            .map(|c| match empty_set(c) {
                Some(e) => format!(
                    "{} [its parameter sets, computed at run time ({}), came out empty: pytest \
                     ran no case and gave this item empty_parameter_set_mark's {}]",
                    named(c),
                    e.computed.join(", "),
                    e.mark
                ),
                None => named(c),
            })
            .collect();
        out.extend(verdict(rights.skipped, &names).map(|p| at(test, p)));
    }
    out
}

/// A recorded known failure (a freeze test's `xfail(strict=True)`) that passed: ready to be
/// promoted out of its lane. Its xfail outcome, when it failed as expected, is a run, not a
/// skip (issue 19).
pub fn known_failure_passed(facts: &Facts<'_>) -> Vec<Problem> {
    let mut out = Vec::new();
    for TestRun {
        rights,
        test,
        cases,
        ..
    } in each_test(facts)
    {
        let (Some(known), Some(cases)) = (rights.known_failure, cases) else {
            continue;
        };
        let names: Vec<String> = cases
            .iter()
            .filter(|c| c.case.is_strict_xpass())
            .map(|c| c.label.clone())
            .collect();
        out.extend(verdict(known, &names).map(|p| at(test, p)));
    }
    out
}
