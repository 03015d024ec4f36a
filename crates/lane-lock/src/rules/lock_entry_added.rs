//! `lock-entry-added`: the change locks new bytes, with an entry in the lock or a
//! new `.sha256` sidecar. A patch that locks its own golden files chooses what its witness
//! tests compare against, so an addition is a lock edit like a move.

use lane_core::detector::Detector;
use lane_core::{Problem, Rule};

use super::{Lock, LockFacts};
use crate::diff::SidecarChange;

pub(crate) const DETECTOR: Detector<Lock> = Detector {
    rules: &[Rule::LockEntryAdded],
    check,
};

fn check(facts: &LockFacts<'_>, problems: &mut Vec<Problem>) {
    let LockFacts::Diff(facts) = facts else {
        return;
    };
    let entries = facts.added.iter().map(|e| {
        Problem::new(
            Rule::LockEntryAdded,
            format!(
                "{}: lock entry added ({}, {} bytes): review the newly locked bytes",
                e.path, e.sha256, e.bytes
            ),
        )
        .file(e.path.clone())
    });
    let sidecars = facts
        .sidecars
        .iter()
        .filter(|s| s.change == SidecarChange::Added)
        .map(|s| {
            Problem::new(
                Rule::LockEntryAdded,
                format!("{}: sidecar added: it locks new bytes; review them", s.path),
            )
            .file(s.path.clone())
        });
    problems.extend(entries.chain(sidecars));
}
