//! lane-lock's detectors: one file per rule, each a function from the facts it needs to the
//! problems it finds. A new rule is a variant in lane-core's catalogue, one file here and
//! its line in [`VERIFY`] or [`DIFF`].
//!
//! Detectors only read facts (the files were read and hashed before), so they can run in any
//! order: the problems are sorted and deduplicated afterwards.

use lane_core::Problem;

use crate::diff::DiffFacts;
use crate::verify::VerifyFacts;

pub mod digest_moved;
pub mod lock_batched_with_behavior;
pub mod lock_entry_added;
pub mod lock_entry_moved;
pub mod lock_entry_removed;
pub mod missing_file;
pub mod orphan_lock;
pub mod orphan_snapshot;
pub mod unlocked_fixture;
pub mod unsafe_path;
pub mod witness_base;

/// A detector of `lane-lock verify`.
pub type VerifyDetector = fn(&VerifyFacts) -> Vec<Problem>;

/// A detector of `lane-lock diff`.
pub type DiffDetector = fn(&DiffFacts<'_>) -> Vec<Problem>;

/// Every rule `lane-lock verify` reports.
pub const VERIFY: &[VerifyDetector] = &[
    digest_moved::detect,
    missing_file::detect,
    unsafe_path::detect,
    unlocked_fixture::detect,
    orphan_lock::detect,
    orphan_snapshot::detect,
];

/// Every rule `lane-lock diff` reports.
pub const DIFF: &[DiffDetector] = &[
    lock_entry_moved::detect,
    lock_entry_removed::detect,
    lock_entry_added::detect,
    lock_batched_with_behavior::detect,
    witness_base::witness_tests_kept,
    witness_base::orphaned_by_the_change,
];
