//! `missing-ticket`: a freeze test of the scan without a row in the ledger.

use lane_core::detector::Detector;
use lane_core::{Problem, Rule};

use super::{FreezeLedger, LedgerFacts};

pub(crate) const DETECTOR: Detector<FreezeLedger> = Detector {
    rules: &[Rule::MissingTicket],
    check,
};

fn check(facts: &LedgerFacts<'_>, problems: &mut Vec<Problem>) {
    let LedgerFacts::Check(facts) = facts else {
        return;
    };
    for (id, test) in facts.unticketed() {
        problems.push(
            Problem::new(
                Rule::MissingTicket,
                format!("freeze test {id} has no ticket in {}", facts.ledger_name),
            )
            .at(test.file.as_str(), test.line)
            .test(id),
        );
    }
}
