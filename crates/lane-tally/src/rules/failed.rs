//! `merge-failed` / `witness-failed` / `freeze-failed`: failed or errored cases (the lane
//! rights' `failed` verdict); where the lane counts a rerun as a failure, a case rescued by one
//! as well.

use lane_core::detector::Detector;
use lane_core::rights::Rerun;
use lane_core::{Problem, Rule};

use super::{Tally, TallyFacts, judge_each_test, named};

pub(crate) const DETECTOR: Detector<Tally> = Detector {
    rules: &[Rule::MergeFailed, Rule::WitnessFailed, Rule::FreezeFailed],
    check,
};

fn check(facts: &TallyFacts<'_>, problems: &mut Vec<Problem>) {
    judge_each_test(facts, problems, |rights, _, cases| {
        let names = cases
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
        Some((rights.failed, names))
    });
}
