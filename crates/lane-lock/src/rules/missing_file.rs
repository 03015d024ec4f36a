//! `missing-file`: a locked path that is safe to open is missing or not a regular file.

use lane_core::{Problem, Rule};

use crate::verify::{Reading, VerifyFacts};

pub fn detect(facts: &VerifyFacts) -> Vec<Problem> {
    facts
        .claims
        .iter()
        .filter_map(|c| match facts.reading(c) {
            Some(Reading::Unreadable(e)) => Some(
                Problem::new(
                    Rule::MissingFile,
                    format!("{} is locked ({}) but {e}", c.path, c.source),
                )
                .file(c.path.clone()),
            ),
            _ => None,
        })
        .collect()
}
