//! `digest-moved`: a locked file's bytes no longer hash to the digest its lock source holds.

use lane_core::detector::Detector;
use lane_core::{Problem, Rule};

use super::{Lock, LockFacts};
use crate::verify::{Reading, VerifyFacts};

pub(crate) const DETECTOR: Detector<Lock> = Detector {
    rules: &[Rule::DigestMoved],
    check,
    file: file!(),
};

fn check(facts: &LockFacts<'_>, problems: &mut Vec<Problem>) {
    if let LockFacts::Verify(facts) = facts {
        problems.extend(detect(facts));
    }
}

fn detect(facts: &VerifyFacts) -> Vec<Problem> {
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
