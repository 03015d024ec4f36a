//! `unknown-test`: a case no scanned test has, and a module-level case that is neither a
//! collection error nor a skip. Unknown evidence is a rejection, never ignored.

use lane_core::detector::Detector;
use lane_core::{Problem, Rule};

use super::{Tally, TallyFacts, each_unmatched};
use crate::reports::Unmatched;

pub(crate) const DETECTOR: Detector<Tally> = Detector {
    rules: &[Rule::UnknownTest],
    check,
};

fn check(facts: &TallyFacts<'_>, problems: &mut Vec<Problem>) {
    for (report, u) in each_unmatched(facts) {
        let lane = report.lane;
        match u {
            Unmatched::ModuleCase { name } => problems.push(Problem::new(
                Rule::UnknownTest,
                format!(
                    "the {lane} report {} has a module-level case {name} that is neither a \
                     collection error nor a skip",
                    report.path
                ),
            )),
            Unmatched::Unknown { key, why, file } => {
                let mut problem = Problem::new(
                    Rule::UnknownTest,
                    format!(
                        "the {lane} report {} has a case {key} that matches no scanned \
                         test ({why})",
                        report.path
                    ),
                );
                if let Some(file) = file {
                    problem = problem.file(file.clone());
                }
                problems.push(problem);
            }
            Unmatched::OtherLane { .. } | Unmatched::CollectionError { .. } => {}
        }
    }
}
