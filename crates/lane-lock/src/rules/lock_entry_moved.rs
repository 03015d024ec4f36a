//! `lock-entry-moved`: the change gives a locked path a new digest.

use lane_core::{Problem, Rule};

use crate::diff::DiffFacts;

pub fn detect(facts: &DiffFacts<'_>) -> Vec<Problem> {
    facts
        .moved
        .iter()
        .map(|m| {
            Problem::new(
                Rule::LockEntryMoved,
                format!(
                    "{}: locked digest moved from {} to {}: review the new bytes",
                    m.path, m.base_sha256, m.head_sha256
                ),
            )
            .file(m.path.clone())
        })
        .collect()
}
