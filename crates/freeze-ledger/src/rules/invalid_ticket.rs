//! `invalid-ticket`: a row that is not a valid ticket, one problem per bad field.

use lane_core::detector::Detector;
use lane_core::{Problem, Rule};

use super::{FreezeLedger, LedgerFacts};

pub(crate) const DETECTOR: Detector<FreezeLedger> = Detector {
    rules: &[Rule::InvalidTicket],
    check,
};

fn check(facts: &LedgerFacts<'_>, problems: &mut Vec<Problem>) {
    let LedgerFacts::Row(row) = facts else {
        return;
    };
    let Err(issues) = &row.row.ticket else {
        return;
    };
    for issue in issues {
        problems.push(row.place(Problem::new(
            Rule::InvalidTicket,
            format!("row {}: {}", row.row.index, issue.message),
        )));
    }
}
