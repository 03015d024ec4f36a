//! empty-merge-lane and freeze-over-budget: the sizes of the lanes.

use lane_core::detector::Detector;
use lane_core::{Problem, Rule};

use super::{Scan, ScanFacts};

pub(crate) const DETECTOR: Detector<Scan> = Detector {
    rules: &[Rule::EmptyMergeLane, Rule::FreezeOverBudget],
    check,
};

fn check(facts: &ScanFacts<'_>, problems: &mut Vec<Problem>) {
    let ScanFacts::Suite(s) = facts else { return };
    let counts = s.counts;
    if counts.merge == 0 {
        problems.push(Problem::new(
            Rule::EmptyMergeLane,
            "no merge test: nothing can approve the patch",
        ));
    }
    if counts.freeze > counts.merge {
        problems.push(Problem::new(
            Rule::FreezeOverBudget,
            format!(
                "{} freeze tests but only {} merge tests: freeze may not outgrow merge",
                counts.freeze, counts.merge
            ),
        ));
    }
}
