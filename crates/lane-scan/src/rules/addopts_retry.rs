//! retry-in-voting-lane for the whole suite: `addopts` retries every failing test, and some
//! test is in a lane that refuses retries.

use lane_core::scan::{Counts, Lane};
use lane_core::{Problem, Rule};

use super::SuiteFacts;
use super::lanes::RIGHTS;

pub fn check(s: &SuiteFacts, problems: &mut Vec<Problem>) {
    let Some(opt) = s
        .config
        .addopts
        .iter()
        .find(|a| a.starts_with("--reruns") || a.starts_with("--force-flaky"))
    else {
        return;
    };
    let refusing: u64 = RIGHTS
        .iter()
        .filter(|r| r.no_retry)
        .map(|r| tests_in(s.counts, r.lane))
        .sum();
    if refusing == 0 {
        return;
    }
    let lanes: Vec<&str> = RIGHTS
        .iter()
        .filter(|r| r.no_retry)
        .map(|r| Lane::as_str(r.lane))
        .collect();
    let msg = format!(
        "addopts has {opt}: every {} test is retried on failure",
        lanes.join(" and ")
    );
    problems.push(s.locate(
        Problem::new(Rule::RetryInVotingLane, msg),
        s.config.addopts_line,
    ));
}

fn tests_in(counts: &Counts, lane: Lane) -> u64 {
    match lane {
        Lane::Merge => counts.merge,
        Lane::Witness => counts.witness,
        Lane::Freeze => counts.freeze,
    }
}
