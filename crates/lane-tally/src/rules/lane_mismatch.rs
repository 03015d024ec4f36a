//! `lane-mismatch`: a report case of another lane's test: the report was produced with a
//! wider selection than its lane. Unknown evidence is a rejection, never ignored.

use lane_core::detector::Detector;
use lane_core::{Problem, Rule};

use super::{Tally, TallyFacts, at, each_unmatched};
use crate::reports::Unmatched;

pub(crate) const DETECTOR: Detector<Tally> = Detector {
    rules: &[Rule::LaneMismatch],
    check,
};

fn check(facts: &TallyFacts<'_>, problems: &mut Vec<Problem>) {
    for (report, u) in each_unmatched(facts) {
        let Unmatched::OtherLane { test, case } = u else {
            continue;
        };
        let lane = report.lane;
        let test = &facts.tests[*test as usize];
        let theirs = match test.lane {
            Some(l) => format!("a {l} test"),
            None => "a test with no single lane in the scan".to_string(),
        };
        problems.push(at(
            test,
            Problem::new(
                Rule::LaneMismatch,
                format!(
                    "the {lane} report {} has a case of {theirs} ({case}); run each lane as its \
                     own pytest invocation (-m {lane})",
                    report.path
                ),
            ),
        ));
    }
}
