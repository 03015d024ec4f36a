//! `lock-entry-removed`: the change drops a lock entry or a `.sha256` sidecar, so its bytes
//! are no longer witnessed.

use lane_core::detector::Detector;
use lane_core::{Problem, Rule};

use super::{Lock, LockFacts};
use crate::diff::SidecarChange;

pub(crate) const DETECTOR: Detector<Lock> = Detector {
    rules: &[Rule::LockEntryRemoved],
    check,
};

fn check(facts: &LockFacts<'_>, problems: &mut Vec<Problem>) {
    let LockFacts::Diff(facts) = facts else {
        return;
    };
    let sidecars = facts
        .sidecars
        .iter()
        .filter(|s| s.change == SidecarChange::Removed)
        .map(|s| {
            Problem::new(
                Rule::LockEntryRemoved,
                format!(
                    "{}: sidecar removed: the bytes it locked are no longer witnessed",
                    s.path
                ),
            )
            .file(s.path.clone())
        });
    problems.extend(
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
            .chain(sidecars),
    );
}
