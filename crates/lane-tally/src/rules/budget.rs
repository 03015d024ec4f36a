//! `empty-merge-lane`, `freeze-over-budget`: the lanes' sizes. The scan reports both itself;
//! the tally adds them only when it did not (an older or hand-made scan section), so each
//! shows once.

use lane_core::scan::ScanSection;
use lane_core::{Problem, Rule};

use super::Facts;

/// Whether the scan already reports `rule` as an error.
fn scan_says(scan: &ScanSection, rule: Rule) -> bool {
    scan.problems
        .iter()
        .any(|p| p.rule == rule.id() && p.is_error())
}

pub fn empty_merge_lane(facts: &Facts<'_>) -> Vec<Problem> {
    let Some(scan) = facts.scan else {
        return Vec::new();
    };
    if facts.lanes.merge.tests > 0 || scan_says(scan, Rule::EmptyMergeLane) {
        return Vec::new();
    }
    vec![Problem::new(
        Rule::EmptyMergeLane,
        "the scan has no merge test: nothing can vote for the patch",
    )]
}

pub fn freeze_over_budget(facts: &Facts<'_>) -> Vec<Problem> {
    let Some(scan) = facts.scan else {
        return Vec::new();
    };
    let (freeze, merge) = (facts.lanes.freeze.tests, facts.lanes.merge.tests);
    if freeze <= merge || scan_says(scan, Rule::FreezeOverBudget) {
        return Vec::new();
    }
    vec![Problem::new(
        Rule::FreezeOverBudget,
        format!("{freeze} freeze tests exceed {merge} merge tests"),
    )]
}
