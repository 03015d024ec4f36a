//! `missing-file`: a locked path that is safe to open is missing or not a regular file.

use lane_core::detector::Detector;
use lane_core::{Problem, Rule};

use super::{Lock, LockFacts};
use crate::verify::Reading;

pub(crate) const DETECTOR: Detector<Lock> = Detector {
    rules: &[Rule::MissingFile],
    check,
};

fn check(facts: &LockFacts<'_>, problems: &mut Vec<Problem>) {
    let LockFacts::Verify(facts) = facts else {
        return;
    };
    for (c, reading) in facts.claims_read() {
        if let Reading::Unreadable(e) = reading {
            problems.push(
                Problem::new(
                    Rule::MissingFile,
                    format!("{} is locked ({}) but {e}", c.path, c.source),
                )
                .file(c.path.clone()),
            );
        }
    }
}
