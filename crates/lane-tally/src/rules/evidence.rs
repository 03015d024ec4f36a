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
    // Witness tests corroborate digests that only lane-lock verify checks; freeze tests stand
    // on tickets that only freeze-ledger check checks.
    let lanes = facts.lanes;
    for (rule, tests, lane, section, tool) in [
        (
            Rule::NoLockEvidence,
            lanes.witness.tests,
            "witness",
            "lock",
            "lane-lock verify",
        ),
        (
            Rule::NoLedgerEvidence,
            lanes.freeze.tests,
            "freeze",
            "ledger",
            "freeze-ledger check",
        ),
    ] {
        if tests > 0 && !facts.doc.has_section(section) {
            problems.push(Problem::new(
                rule,
                format!(
                    "{tests} {lane} tests but no {section} section: run {tool} in the pipeline"
                ),
            ));
        }
    }
}
