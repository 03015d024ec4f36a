//! `flaky-voter`: a voter whose case needed a rerun, in a lane where that is its own rule (the
//! lane rights' `rerun`). The case's outcome is judged as well (`failed`): a rerun plugin
//! writes a passing-looking case for every failed try, so a test that failed on every try
//! looks "failed and passed" and must still fail.

use lane_core::detector::Detector;
use lane_core::rights::Rerun;
use lane_core::{Problem, Rule};

use super::{Tally, TallyFacts, judge_each_test};

pub(crate) const DETECTOR: Detector<Tally> = Detector {
    rules: &[Rule::FlakyVoter],
    check,
};

fn check(facts: &TallyFacts<'_>, problems: &mut Vec<Problem>) {
    judge_each_test(facts, problems, |rights, _, cases| {
        let Rerun::Flaky(flaky) = rights.rerun else {
            return None;
        };
        let names = cases
            .iter()
            .filter_map(|c| Some(format!("{} {}", c.label, c.case.retried()?)))
            .collect();
        Some((flaky, names))
    });
}
