//! `ticket-changed`: the patch changes a freeze ticket's seed, digest or capsule path (or a
//! row that is not an object), which makes it another capsule (`freeze-ledger diff`).

use lane_core::detector::Detector;
use lane_core::{Problem, Rule};

use super::{FreezeLedger, LedgerFacts};

pub(crate) const DETECTOR: Detector<FreezeLedger> = Detector {
    rules: &[Rule::TicketChanged],
    check,
};

fn check(facts: &LedgerFacts<'_>, problems: &mut Vec<Problem>) {
    let LedgerFacts::Diff(diff) = facts else {
        return;
    };
    for change in &diff.section.changed {
        let (id, list) = (&change.test_id, change.fields.join(", "));
        problems.push(diff.place(
            Problem::new(
                Rule::TicketChanged,
                format!("the patch changes the freeze ticket for {id} ({list})"),
            ),
            id,
        ));
    }
}
