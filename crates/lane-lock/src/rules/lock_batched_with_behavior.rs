//! `lock-batched-with-behavior`: the change moves locked digests and also changes other
//! files (`--changed`), with no `--reason` for the new bytes.

use lane_core::render::plural;
use lane_core::{Problem, Rule};

use crate::diff::DiffFacts;

/// How many behaviour paths the message names.
const NAMED_PATHS: usize = 5;

pub fn detect(facts: &DiffFacts<'_>) -> Vec<Problem> {
    let Some(behavior) = facts.behavior_changes else {
        return Vec::new();
    };
    if facts.moved.is_empty() || behavior.is_empty() || facts.reason.is_some() {
        return Vec::new();
    }
    let mut named: Vec<&str> = behavior
        .iter()
        .take(NAMED_PATHS)
        .map(String::as_str)
        .collect();
    if behavior.len() > NAMED_PATHS {
        named.push("...");
    }
    let moved = facts.moved.len();
    vec![Problem::new(
        Rule::LockBatchedWithBehavior,
        format!(
            "this change moves {moved} locked digest{} and also changes {} other file{} ({}): \
             split the lock edit into its own change or pass --reason",
            plural(moved),
            behavior.len(),
            plural(behavior.len()),
            named.join(", ")
        ),
    )]
}
