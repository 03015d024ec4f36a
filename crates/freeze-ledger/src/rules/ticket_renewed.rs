//! `ticket-renewed`: the patch changes a freeze ticket's expiry or replay job, and nothing of
//! its capsule (`freeze-ledger diff`).

use lane_core::detector::Detector;
use lane_core::{Problem, Rule};

use super::{FreezeLedger, LedgerFacts};

pub(crate) const DETECTOR: Detector<FreezeLedger> = Detector {
    rules: &[Rule::TicketRenewed],
    check,
};

fn check(facts: &LedgerFacts<'_>, problems: &mut Vec<Problem>) {
    let LedgerFacts::Diff(diff) = facts else {
        return;
    };
    for change in &diff.section.renewed {
        let (id, list) = (&change.test_id, change.fields.join(", "));
        problems.push(diff.place(
            Problem::new(
                Rule::TicketRenewed,
                format!("the patch renews the freeze ticket for {id} ({list})"),
            ),
            id,
        ));
    }
}
