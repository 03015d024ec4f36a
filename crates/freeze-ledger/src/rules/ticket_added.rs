//! `ticket-added`: the patch adds a freeze ticket (`freeze-ledger diff`).

use lane_core::detector::Detector;
use lane_core::{Problem, Rule};

use super::{FreezeLedger, LedgerFacts};

pub(crate) const DETECTOR: Detector<FreezeLedger> = Detector {
    rules: &[Rule::TicketAdded],
    check,
};

fn check(facts: &LedgerFacts<'_>, problems: &mut Vec<Problem>) {
    let LedgerFacts::Diff(diff) = facts else {
        return;
    };
    for id in &diff.section.added {
        problems.push(diff.place(
            Problem::new(
                Rule::TicketAdded,
                format!("the patch adds a freeze ticket for {id}; a human reviews new tickets"),
            ),
            id,
        ));
    }
}
