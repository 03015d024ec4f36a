//! `no-scan-evidence`, `no-lock-evidence`, `no-ledger-evidence`: a section the vote stands on
//! is absent from the evidence document.

use lane_core::{Problem, Rule};

use super::Facts;

pub fn no_scan_evidence(facts: &Facts<'_>) -> Vec<Problem> {
    if facts.scan.is_some() {
        return Vec::new();
    }
    vec![Problem::new(
        Rule::NoScanEvidence,
        "the evidence document has no scan section: nothing can be matched or counted \
         (run lane-scan first)",
    )]
}

/// Witness tests corroborate digests that only lane-lock verify checks.
pub fn no_lock_evidence(facts: &Facts<'_>) -> Vec<Problem> {
    let witness = facts.lanes.witness.tests;
    if facts.scan.is_none() || witness == 0 || facts.doc.has_section("lock") {
        return Vec::new();
    }
    vec![Problem::new(
        Rule::NoLockEvidence,
        format!(
            "{witness} witness tests but no lock section: run lane-lock verify in the pipeline"
        ),
    )]
}

/// Freeze tests stand on tickets that only freeze-ledger check checks.
pub fn no_ledger_evidence(facts: &Facts<'_>) -> Vec<Problem> {
    let freeze = facts.lanes.freeze.tests;
    if facts.scan.is_none() || freeze == 0 || facts.doc.has_section("ledger") {
        return Vec::new();
    }
    vec![Problem::new(
        Rule::NoLedgerEvidence,
        format!(
            "{freeze} freeze tests but no ledger section: run freeze-ledger check in the \
             pipeline"
        ),
    )]
}
