//! lane-lock's detectors: one file per rule (or close family), each holding its decision and
//! its messages and declaring its [`Detector`] over the facts of the scope it judges (verify's
//! or diff's), all listed in [`DETECTORS`]. A new rule is a variant in lane-core's catalogue,
//! one file here and its line in `DETECTORS`.
//!
//! Detectors only read facts (the files were read and hashed before), so they can run in any
//! order: the problems are sorted and deduplicated afterwards.

use lane_core::detector::{Detector, Facts};

use crate::diff::DiffFacts;
use crate::verify::VerifyFacts;

mod digest_moved;
mod lock_batched_with_behavior;
mod lock_entry_added;
mod lock_entry_moved;
mod lock_entry_removed;
mod missing_file;
mod orphan_lock;
mod orphan_snapshot;
mod unlocked_fixture;
mod unsafe_path;
mod witness_base;

/// The facts of lane-lock, as the detectors' table names them.
pub(crate) enum Lock {}

impl Facts for Lock {
    type Of<'a> = LockFacts<'a>;
}

/// What a detector judges: the facts of `lane-lock verify` or of `lane-lock diff`.
pub(crate) enum LockFacts<'a> {
    Verify(&'a VerifyFacts),
    Diff(&'a DiffFacts<'a>),
}

/// Every detector of lane-lock, one line per rule file.
pub(crate) const DETECTORS: &[Detector<Lock>] = &[
    digest_moved::DETECTOR,
    missing_file::DETECTOR,
    unsafe_path::DETECTOR,
    unlocked_fixture::DETECTOR,
    orphan_lock::DETECTOR,
    orphan_snapshot::DETECTOR,
    lock_entry_moved::DETECTOR,
    lock_entry_removed::DETECTOR,
    lock_entry_added::DETECTOR,
    lock_batched_with_behavior::DETECTOR,
    witness_base::DETECTOR,
];

#[cfg(test)]
mod tests {
    use lane_core::Rule;

    use super::*;

    /// Every rule the catalogue gives lane-lock has a detector here.
    #[test]
    fn every_lock_rule_has_a_detector() {
        for rule in Rule::ALL.iter().filter(|r| r.tool() == "lane-lock") {
            assert!(
                DETECTORS.iter().any(|d| d.rules.contains(rule)),
                "{rule} has no detector"
            );
        }
    }
}
