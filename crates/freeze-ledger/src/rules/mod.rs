//! freeze-ledger's detectors: one file per rule or close family, each a function from the
//! facts of `check` to what it finds (a problem and the status it gives its ticket). A new
//! rule is a variant in lane-core's catalogue, one file here and its line in [`CHECK`].
//!
//! Detectors only read facts (capsules were hashed and expiries dated before), so they can
//! run in any order: the problems are sorted and deduplicated afterwards, and a ticket's
//! status is the worst of its findings.

use crate::check::{CheckFacts, Finding};

pub mod capsule_mismatch;
pub mod duplicate_ticket;
pub mod expiry;
pub mod invalid_ticket;
pub mod missing_ticket;
pub mod orphan_ticket;

/// A detector of `freeze-ledger check`.
pub type CheckDetector = fn(&CheckFacts<'_>) -> Vec<Finding>;

/// Every rule `freeze-ledger check` reports.
pub const CHECK: &[CheckDetector] = &[
    invalid_ticket::detect,
    duplicate_ticket::detect,
    missing_ticket::detect,
    orphan_ticket::detect,
    capsule_mismatch::detect,
    expiry::detect,
];
