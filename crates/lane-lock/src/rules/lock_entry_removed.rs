//! `lock-entry-removed`: the change drops a lock entry, so its bytes are no longer witnessed.

use lane_core::{Problem, Rule};

use crate::diff::DiffFacts;

pub fn detect(facts: &DiffFacts<'_>) -> Vec<Problem> {
    facts
        .removed
        .iter()
        .map(|r| {
            Problem::new(
                Rule::LockEntryRemoved,
                format!(
                    "{}: lock entry removed (was {}): its bytes are no longer witnessed",
                    r.path, r.sha256
                ),
            )
            .file(r.path.clone())
        })
        .collect()
}
