//! `missing-file`: a locked path that is safe to open is missing or not a regular file.

use lane_core::detector::Detector;
use lane_core::{Problem, Rule};

use super::{Lock, LockFacts};
use crate::verify::{Reading, VerifyFacts};

pub(crate) const DETECTOR: Detector<Lock> = Detector {
    rules: &[Rule::MissingFile],
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
