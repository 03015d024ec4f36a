//! `merge-test-removed`, `lane-changed` (`--base`): a merge test of the base that is gone from
//! the patch or left the merge lane. `--reason` acknowledges them: they stay, as warnings.

use std::collections::HashMap;

use lane_core::detector::Detector;
use lane_core::scan::{Lane, ScanTest};
use lane_core::{Problem, Rule, Severity};

use super::{Tally, TallyFacts};

pub(crate) const DETECTOR: Detector<Tally> = Detector {
    rules: &[Rule::MergeTestRemoved, Rule::LaneChanged],
    check,
};

fn check(facts: &TallyFacts<'_>, problems: &mut Vec<Problem>) {
    let Some(base) = facts.base else {
        return;
    };
    let acknowledge = |p: Problem| match facts.reason {
        Some(r) => {
            let message = format!("{} (acknowledged: {r})", p.message);
            Problem {
                message,
                ..p.severity(Severity::Warning)
            }
        }
        None => p,
    };
    let head_by_id: HashMap<&str, &ScanTest> =
        facts.tests.iter().map(|t| (t.id.as_str(), t)).collect();
    for old in base.tests_in(Lane::Merge) {
        let (rule, message, at) = match head_by_id.get(old.id.as_str()) {
            None => (
                Rule::MergeTestRemoved,
                "merge test of the base is gone from the patch".to_string(),
                old,
            ),
            Some(new) => match new.lane {
                Some(Lane::Merge) => continue,
                Some(other) => (
                    Rule::LaneChanged,
                    format!("test moved from merge to {other}: it no longer votes"),
                    *new,
                ),
                None => (
                    Rule::MergeTestRemoved,
                    "merge test of the base left the merge lane (no single lane now)".to_string(),
                    *new,
                ),
            },
        };
        problems.push(acknowledge(super::at(at, Problem::new(rule, message))));
    }
}
