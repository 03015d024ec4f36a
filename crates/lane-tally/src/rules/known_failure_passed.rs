//! `known-failure-passed`: a recorded known failure (a freeze test's `xfail(strict=True)`, the
//! lane rights' `known_failure`) that passed: ready to be promoted out of its lane. Its xfail
//! outcome, when it failed as expected, is a run, not a skip.

use lane_core::detector::Detector;
use lane_core::{Problem, Rule};

use super::{Tally, TallyFacts, judge_each_test};

pub(crate) const DETECTOR: Detector<Tally> = Detector {
    rules: &[Rule::KnownFailurePassed],
    check,
};

fn check(facts: &TallyFacts<'_>, problems: &mut Vec<Problem>) {
    judge_each_test(facts, problems, |rights, _, cases| {
        let known = rights.known_failure?;
        let names = cases
            .iter()
            .filter(|c| c.case.is_strict_xpass())
            .map(|c| c.label.clone())
            .collect();
        Some((known, names))
    });
}
