//! `missing-shard`: shard K of N of a lane with tests has no report among those that answer
//! the document.

use lane_core::detector::Detector;
use lane_core::{Problem, Rule};

use super::{Tally, TallyFacts};

pub(crate) const DETECTOR: Detector<Tally> = Detector {
    rules: &[Rule::MissingShard],
    check,
};

fn check(facts: &TallyFacts<'_>, problems: &mut Vec<Problem>) {
    let of = facts.shards.of;
    for shards in facts.shards.lanes.iter().filter(|l| l.tests > 0) {
        let lane = shards.lane;
        for k in (1..=of).filter(|k| !shards.reported.contains(k)) {
            problems.push(Problem::new(
                Rule::MissingShard,
                format!("the {lane} lane's shard {k}/{of} has no report: its tests did not vote"),
            ));
        }
    }
}
