//! `no-scan-evidence`, `no-lock-evidence`, `no-ledger-evidence`: a section the vote stands on
//! is absent from the evidence document.

use lane_core::detector::Detector;
use lane_core::{Problem, Rule};

use super::{Tally, TallyFacts};

pub(crate) const DETECTOR: Detector<Tally> = Detector {
    rules: &[
        Rule::NoScanEvidence,
        Rule::NoLockEvidence,
        Rule::NoLedgerEvidence,
    ],
    check,
    file: file!(),
};

fn check(facts: &TallyFacts<'_>, problems: &mut Vec<Problem>) {
    if facts.scan.is_none() {
        problems.push(Problem::new(
            Rule::NoScanEvidence,
            "the evidence document has no scan section: nothing can be matched or counted \
             (run lane-scan first)",
        ));
        return;
    }
    // Witness tests corroborate digests that only lane-lock verify checks.
    let witness = facts.lanes.witness.tests;
    if witness > 0 && !facts.doc.has_section("lock") {
        problems.push(Problem::new(
            Rule::NoLockEvidence,
            format!(
                "{witness} witness tests but no lock section: run lane-lock verify in the \
                 pipeline"
            ),
        ));
    }
    // Freeze tests stand on tickets that only freeze-ledger check checks.
    let freeze = facts.lanes.freeze.tests;
    if freeze > 0 && !facts.doc.has_section("ledger") {
        problems.push(Problem::new(
            Rule::NoLedgerEvidence,
            format!(
                "{freeze} freeze tests but no ledger section: run freeze-ledger check in the \
                 pipeline"
            ),
        ));
    }
}
