//! `digest-moved`: a locked file's bytes no longer hash to the digest its lock source holds.

use lane_core::detector::Detector;
use lane_core::{Problem, Rule};

use super::{Lock, LockFacts};
use crate::verify::Reading;

pub(crate) const DETECTOR: Detector<Lock> = Detector {
    rules: &[Rule::DigestMoved],
    check,
};

fn check(facts: &LockFacts<'_>, problems: &mut Vec<Problem>) {
    let LockFacts::Verify(facts) = facts else {
        return;
    };
    for (c, reading) in facts.claims_read() {
        if let Reading::Hashed(d) = reading
            && d.sha256 != c.expected
        {
            problems.push(
                Problem::new(
                    Rule::DigestMoved,
                    format!(
                        "{}: digest moved: expected {} ({}), actual {} ({} bytes)",
                        c.path, c.expected, c.source, d.sha256, d.bytes
                    ),
                )
                .file(c.path.clone()),
            );
        }
    }
}
