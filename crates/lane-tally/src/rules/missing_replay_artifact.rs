//! `missing-replay-artifact`: a failed case of a lane whose failures must name a usable replay
//! artifact (the lane rights' `replay`) that names no usable capsule.

use lane_core::detector::Detector;
use lane_core::{Problem, Rule};

use super::{Tally, TallyFacts, judge_each_test};
use crate::runs::replay_problem;

pub(crate) const DETECTOR: Detector<Tally> = Detector {
    rules: &[Rule::MissingReplayArtifact],
    check,
};

fn check(facts: &TallyFacts<'_>, problems: &mut Vec<Problem>) {
    judge_each_test(facts, problems, |rights, _, cases| {
        let replay = rights.replay?;
        let names = cases
            .iter()
            .filter(|c| c.case.worst.is_failure())
            .filter(|c| rights.known_failure.is_none() || !c.case.is_strict_xpass())
            .filter_map(|c| {
                let why = replay_problem(facts.rootdir, c.replay.as_ref())?;
                Some(format!("{} {why}", c.label))
            })
            .collect();
        Some((replay, names))
    });
}
