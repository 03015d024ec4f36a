//! `orphan-lock`: a lock entry no witness test names in `fixture=` (only with a scan).

use std::collections::BTreeSet;

use lane_core::{Problem, Rule};

use crate::verify::VerifyFacts;

pub fn detect(facts: &VerifyFacts) -> Vec<Problem> {
    let Some(fixtures) = &facts.fixtures else {
        return Vec::new();
    };
    let named: BTreeSet<&str> = fixtures.iter().map(|f| f.path.as_str()).collect();
    facts
        .lock_entries
        .iter()
        .filter(|e| !named.contains(e.path.as_str()))
        .map(|e| {
            Problem::new(
                Rule::OrphanLock,
                format!(
                    "{} is locked in {} but no witness test names it in fixture=",
                    e.path, facts.lock_name
                ),
            )
            .file(e.path.clone())
        })
        .collect()
}
