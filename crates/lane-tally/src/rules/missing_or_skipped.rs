//! `missing-vote` / `missing-witness` / `missing-freeze-run`: a scanned test with no case in
//! its lane's reports; `merge-skipped` / `witness-skipped` / `missing-freeze-run`: its cases
//! were skipped or xfailed at run time. Which rule each lane reports, and the words, come from
//! the lane rights' `missing` and `skipped` verdicts.

use lane_core::detector::Detector;
use lane_core::rights::Rerun;
use lane_core::scan::EmptyParams;
use lane_core::{Problem, Rule};

use super::{Tally, TallyFacts, TestRun, at, each_test, judge_each_test, named};
use crate::junit::Outcome;
use crate::runs::NotableCase;

pub(crate) const DETECTOR: Detector<Tally> = Detector {
    rules: &[
        Rule::MissingVote,
        Rule::MissingWitness,
        Rule::MissingFreezeRun,
        Rule::MergeSkipped,
        Rule::WitnessSkipped,
    ],
    check,
};

fn check(facts: &TallyFacts<'_>, problems: &mut Vec<Problem>) {
    missing(facts, problems);
    skipped(facts, problems);
}

/// A scanned test with no case in its lane's reports.
fn missing(facts: &TallyFacts<'_>, problems: &mut Vec<Problem>) {
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
        problems.push(at(
            test,
            Problem::new(rights.missing.rule, format!("{says}: {where_}")),
        ));
    }
}

/// Cases skipped or xfailed at run time (a case the lane already counts as failed by its
/// rerun is not a skip too; an xfail in a lane where it records is no skip).
fn skipped(facts: &TallyFacts<'_>, problems: &mut Vec<Problem>) {
    judge_each_test(facts, problems, |rights, test, cases| {
        // The item pytest makes when a computed parameter set comes out empty: the scan says
        // the sets are computed and what that item carries.
        let empty_set = |c: &NotableCase| {
            test.empty_params
                .as_ref()
                .filter(|_| EmptyParams::is_empty_set_case(&c.label))
        };
        let names = cases
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
        Some((rights.skipped, names))
    });
}
