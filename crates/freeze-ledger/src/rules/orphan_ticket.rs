//! `orphan-ticket`: a row for a test the scan does not place in the freeze lane (only with a
//! scan).

use lane_core::detector::Detector;
use lane_core::{Problem, Rule};

use super::{FreezeLedger, LedgerFacts};

pub(crate) const DETECTOR: Detector<FreezeLedger> = Detector {
    rules: &[Rule::OrphanTicket],
    check,
};

fn check(facts: &LedgerFacts<'_>, problems: &mut Vec<Problem>) {
    let LedgerFacts::Row(row) = facts else {
        return;
    };
    let (Some(scan), Some(id)) = (&row.ledger.scan, row.row.test_id.as_deref()) else {
        return;
    };
    if scan.freeze.contains_key(id) {
        return;
    }
    let why = match scan.all.get(id) {
        None => "the scan has no such test".to_string(),
        Some(t) => match t.lane {
            Some(lane) => format!("the scan places it in the {lane} lane"),
            None => "the scan gives it no single lane".to_string(),
        },
    };
    problems.push(row.place(Problem::new(
        Rule::OrphanTicket,
        format!("ticket for {id}, but {why}"),
    )));
}
