//! `lock-entry-moved`: the change gives a locked path a new digest, in the lock or in its
//! `.sha256` sidecar.

use lane_core::detector::Detector;
use lane_core::{Problem, Rule};

use super::{Lock, LockFacts};
use crate::diff::SidecarChange;

pub(crate) const DETECTOR: Detector<Lock> = Detector {
    rules: &[Rule::LockEntryMoved],
    check,
};

fn check(facts: &LockFacts<'_>, problems: &mut Vec<Problem>) {
    let LockFacts::Diff(facts) = facts else {
        return;
    };
    problems.extend(facts.moved.iter().map(|m| {
        Problem::new(
            Rule::LockEntryMoved,
            format!(
                "{}: locked digest moved from {} to {}: review the new bytes",
                m.path, m.base_sha256, m.head_sha256
            ),
        )
        .file(m.path.clone())
    }));
    for s in facts.sidecars {
        let what = match s.change {
            SidecarChange::Changed => "changed",
            SidecarChange::AddedOrChanged => "added or changed",
            SidecarChange::Added | SidecarChange::Removed => continue,
        };
        problems.push(
            Problem::new(
                Rule::LockEntryMoved,
                format!(
                    "{}: sidecar {what}: the digest it locks may have moved; review the new \
                     bytes",
                    s.path
                ),
            )
            .file(s.path.clone()),
        );
    }
}
