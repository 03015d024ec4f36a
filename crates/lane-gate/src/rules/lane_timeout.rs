//! `lane-timeout`: a lane's pytest run ran past `--lane-timeout` and was killed; it does not
//! vote.

use lane_core::detector::Detector;
use lane_core::{Problem, Rule};

use super::{Gate, GateFacts};

pub(crate) const DETECTOR: Detector<Gate> = Detector {
    rules: &[Rule::LaneTimeout],
    check,
};

fn check(facts: &GateFacts<'_>, problems: &mut Vec<Problem>) {
    let GateFacts::Lane(run) = facts else {
        return;
    };
    if run.ended.timed_out {
        problems.push(Problem::new(
            Rule::LaneTimeout,
            format!(
                "the {} lane's pytest run ran longer than {} s and was killed: it did not vote",
                run.lane, run.timeout_secs
            ),
        ));
    }
}
