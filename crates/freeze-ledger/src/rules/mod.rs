//! freeze-ledger's detectors: one file per rule or close family, each holding its decision and
//! its messages and declaring its `Detector` over the scope it judges: one ledger row
//! (`check`), the ledger against the scan (`check`), or what a patch did to the ledger
//! (`diff`). All are listed in [`DETECTORS`], generated at build time. A new rule is a variant
//! in lane-core's catalogue and one file here (and, for a rule about a row, the status it gives
//! the ticket in [`crate::ticket_status`]).
//!
//! Detectors only read facts (capsules were hashed and expiries dated before), so they can
//! run in any order: the problems are sorted and deduplicated afterwards, and a ticket's
//! status is the worst its row's problems give it.

use lane_core::detector::Facts;

use crate::check::{CheckFacts, RowFacts};
use crate::diff::DiffFacts;

/// The facts of freeze-ledger, as the detectors' table names them.
pub(crate) enum FreezeLedger {}

impl Facts for FreezeLedger {
    type Of<'a> = LedgerFacts<'a>;
}

/// What a detector judges.
pub(crate) enum LedgerFacts<'a> {
    /// One row of the ledger (`check`): its problems give its ticket its status.
    Row(&'a RowFacts<'a>),
    /// The ledger as a whole against the scan (`check`).
    Check(&'a CheckFacts<'a>),
    /// What a patch did to the ledger (`diff`).
    Diff(&'a DiffFacts<'a>),
}

// The rule files: every file of this folder that declares a `DETECTOR` is a module here and
// a line of `DETECTORS` (and `RULE_FILES`), written by build.rs (lane-build).
include!(concat!(env!("OUT_DIR"), "/detectors.rs"));

#[cfg(test)]
mod tests {
    use lane_core::Rule;

    use super::*;

    /// Every rule the catalogue gives freeze-ledger has a detector here.
    #[test]
    fn every_ledger_rule_has_a_detector() {
        for rule in Rule::ALL.iter().filter(|r| r.tool() == "freeze-ledger") {
            assert!(
                DETECTORS.iter().any(|d| d.rules.contains(rule)),
                "{rule} has no detector"
            );
        }
    }
}
