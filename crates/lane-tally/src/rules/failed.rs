//! `merge-failed` / `witness-failed` / `freeze-failed`: failed or errored cases (the lane
//! rights' `failed` verdict); where the lane counts a rerun as a failure, a case rescued by one
//! as well.

use lane_core::detector::Detector;
use lane_core::rights::Rerun;
use lane_core::{Problem, Rule};

use super::{Tally, TallyFacts, TestRun, at, each_test, named, verdict};

pub(crate) const DETECTOR: Detector<Tally> = Detector {
    rules: &[Rule::MergeFailed, Rule::WitnessFailed, Rule::FreezeFailed],
    check,
    file: file!(),
};

fn check(facts: &TallyFacts<'_>, problems: &mut Vec<Problem>) {
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
        problems.extend(verdict(rights.failed, &names).map(|p| at(test, p)));
    }
}
