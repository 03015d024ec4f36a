//! `candidate-failed`: the patch's new or changed tests, run in its own tree after the vote,
//! could not run or failed there. Shown, never counted.

use lane_core::detector::Detector;
use lane_core::{Problem, Rule};

use super::{Gate, GateFacts};

pub(crate) const DETECTOR: Detector<Gate> = Detector {
    rules: &[Rule::CandidateFailed],
    check,
};

fn check(facts: &GateFacts<'_>, problems: &mut Vec<Problem>) {
    let GateFacts::Candidates(run) = facts else {
        return;
    };
    if !run.has_report {
        problems.push(Problem::new(
            Rule::CandidateFailed,
            format!(
                "the patch's new or changed tests could not run ({}): see candidates.log",
                match (run.ended.timed_out, run.ended.code) {
                    (true, _) => "timed out".to_string(),
                    (false, Some(n)) => format!("pytest exit {n}"),
                    (false, None) => "killed".to_string(),
                }
            ),
        ));
    }
    for f in run.files.iter().filter(|f| f.failed + f.errors > 0) {
        problems.push(
            Problem::new(
                Rule::CandidateFailed,
                format!(
                    "{} of the patch's own tests here failed in its own tree ({} failed, {} \
                     errors); they do not vote",
                    f.failed + f.errors,
                    f.failed,
                    f.errors
                ),
            )
            .file(f.file.clone()),
        );
    }
}
