//! `empty-merge-lane`, `freeze-over-budget`: the lanes' sizes. The scan reports both itself;
//! the tally adds them only when it did not (an older or hand-made scan section), so each
//! shows once.

use lane_core::detector::Detector;
use lane_core::scan::ScanSection;
use lane_core::{Problem, Rule};

use super::{Tally, TallyFacts};

pub(crate) const DETECTOR: Detector<Tally> = Detector {
    rules: &[Rule::EmptyMergeLane, Rule::FreezeOverBudget],
    check,
};

/// Whether the scan already reports `rule` as an error.
fn scan_says(scan: &ScanSection, rule: Rule) -> bool {
    scan.problems
        .iter()
        .any(|p| p.rule == rule.id() && p.is_error())
}

fn check(facts: &TallyFacts<'_>, problems: &mut Vec<Problem>) {
    let Some(scan) = facts.scan else {
        return;
    };
    let (freeze, merge) = (facts.lanes.freeze.tests, facts.lanes.merge.tests);
    if merge == 0 && !scan_says(scan, Rule::EmptyMergeLane) {
        problems.push(Problem::new(
            Rule::EmptyMergeLane,
            "the scan has no merge test: nothing can vote for the patch",
        ));
    }
    if freeze > merge && !scan_says(scan, Rule::FreezeOverBudget) {
        problems.push(Problem::new(
            Rule::FreezeOverBudget,
            format!("{freeze} freeze tests exceed {merge} merge tests"),
        ));
    }
}
