//! `report-contradicts-exit`: a lane's report says something other than pytest's exit status
//! (exit 1 without a failure, exit 0 with one, exit 5 with cases): it was written over after
//! pytest wrote it, and does not vote.

use lane_core::detector::Detector;
use lane_core::{Problem, Rule};

use super::{Gate, GateFacts, ReportCounts};

pub(crate) const DETECTOR: Detector<Gate> = Detector {
    rules: &[Rule::ReportContradictsExit],
    check,
};

/// What the report contradicts, if anything.
fn contradiction(code: Option<i32>, report: ReportCounts) -> Option<&'static str> {
    match code {
        Some(1) if report.failed == 0 => {
            Some("exited 1 (tests failed), but its report has no failure")
        }
        Some(0) if report.failed > 0 => Some("exited 0 (all passed), but its report has a failure"),
        Some(5) if report.cases > 0 => {
            Some("exited 5 (no tests collected), but its report has cases")
        }
        _ => None,
    }
}

fn check(facts: &GateFacts<'_>, problems: &mut Vec<Problem>) {
    let GateFacts::Lane(run) = facts else {
        return;
    };
    let Some(report) = run.report else {
        return;
    };
    if let Some(says) = contradiction(run.ended.code, report) {
        problems.push(Problem::new(
            Rule::ReportContradictsExit,
            format!(
                "the {} lane's pytest run {says}: the report was written over after pytest \
                 wrote it, and does not vote",
                run.lane
            ),
        ));
    }
}
