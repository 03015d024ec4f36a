//! `duplicate-ticket`: a second row for a test id (every row after the first is reported).

use lane_core::detector::Detector;
use lane_core::{Problem, Rule};

use super::{FreezeLedger, LedgerFacts};

pub(crate) const DETECTOR: Detector<FreezeLedger> = Detector {
    rules: &[Rule::DuplicateTicket],
    check,
};

fn check(facts: &LedgerFacts<'_>, problems: &mut Vec<Problem>) {
    let LedgerFacts::Row(row) = facts else {
        return;
    };
    let (Some(id), Some(first)) = (row.row.test_id.as_deref(), row.first_line) else {
        return;
    };
    problems.push(row.place(Problem::new(
        Rule::DuplicateTicket,
        format!("a second ticket for {id} (the first is on line {first})"),
    )));
}
