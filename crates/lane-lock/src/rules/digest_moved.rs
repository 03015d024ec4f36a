//! `digest-moved`: a locked file's bytes no longer hash to the digest its lock source holds.

use lane_core::{Problem, Rule};

use crate::verify::{Reading, VerifyFacts};

pub fn detect(facts: &VerifyFacts) -> Vec<Problem> {
    facts
        .claims
        .iter()
        .filter_map(|c| match facts.reading(c) {
            Some(Reading::Hashed(d)) if d.sha256 != c.expected => Some(
                Problem::new(
                    Rule::DigestMoved,
                    format!(
                        "{}: digest moved: expected {} ({}), actual {} ({} bytes)",
                        c.path, c.expected, c.source, d.sha256, d.bytes
                    ),
                )
                .file(c.path.clone()),
            ),
            _ => None,
        })
        .collect()
}
