//! `conflicting-shard`: shards that disagree on N, one shard of a lane reported twice with
//! different outcomes, or one test answered by two shards.

use lane_core::detector::Detector;
use lane_core::{Problem, Rule};

use super::{Tally, TallyFacts};
use crate::shards::LaneShards;

pub(crate) const DETECTOR: Detector<Tally> = Detector {
    rules: &[Rule::ConflictingShard],
    check,
};

/// At most this many tests are named one by one as answered by two shards (per lane); the
/// rest are counted in one more problem.
const NAMED_TWICE: usize = 20;

fn check(facts: &TallyFacts<'_>, problems: &mut Vec<Problem>) {
    let shards = facts.shards;
    if shards.splits.len() > 1 {
        let names: Vec<String> = shards.splits.iter().map(|n| n.to_string()).collect();
        problems.push(Problem::new(
            Rule::ConflictingShard,
            format!(
                "the reports were split into different numbers of shards ({}): the shard jobs \
                 did not run one split",
                names.join(", ")
            ),
        ));
    }
    let of = shards.of;
    for lane in &shards.lanes {
        for repeat in lane.repeats.iter().filter(|r| !r.same) {
            problems.push(Problem::new(
                Rule::ConflictingShard,
                format!(
                    "the {} lane's shard {}/{of} was reported twice with different outcomes \
                     ({} and {}): keep one attempt's report",
                    lane.lane,
                    repeat.shard,
                    shards.reports[repeat.first].name,
                    shards.reports[repeat.other].name
                ),
            ));
        }
        answered_twice(facts, lane, of, problems);
    }
}

/// Every test of the lane answered by more than one shard: each belongs to one shard.
fn answered_twice(
    facts: &TallyFacts<'_>,
    shards: &LaneShards,
    of: u32,
    problems: &mut Vec<Problem>,
) {
    let lane = shards.lane;
    for (&test, answered) in shards.twice.iter().take(NAMED_TWICE) {
        let t = &facts.tests[test as usize];
        let names: Vec<String> = answered.iter().map(|k| format!("{k}/{of}")).collect();
        problems.push(
            Problem::new(
                Rule::ConflictingShard,
                format!(
                    "answered by the {lane} lane's shards {}: each test belongs to one shard of \
                     one split",
                    names.join(" and ")
                ),
            )
            .at(t.file.clone(), t.line)
            .test(t.id.clone()),
        );
    }
    if shards.twice.len() > NAMED_TWICE {
        problems.push(Problem::new(
            Rule::ConflictingShard,
            format!(
                "{} more tests of the {lane} lane were answered by more than one shard",
                shards.twice.len() - NAMED_TWICE
            ),
        ));
    }
}
