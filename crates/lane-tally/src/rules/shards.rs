//! `stale-report`, `missing-shard`, `conflicting-shard` (issue 21): found while the reports'
//! run manifests were checked ([`crate::shards`]), before the lanes folded their cases.

use lane_core::Problem;

use super::Facts;

pub fn shards(facts: &Facts<'_>) -> Vec<Problem> {
    facts.shards.problems.clone()
}
