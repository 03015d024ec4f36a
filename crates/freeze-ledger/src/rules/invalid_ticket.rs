//! `invalid-ticket`: a row that is not a valid ticket, one problem per bad field; and, with a
//! scan, a known-failure ticket whose freeze test carries no `xfail` mark (a deterministic bug
//! kept without replay must be one pytest expects to fail, or its failures would go unseen).

use lane_core::detector::Detector;
use lane_core::{Problem, Rule};

use super::{FreezeLedger, LedgerFacts};
use crate::ledger::Kind;

pub(crate) const DETECTOR: Detector<FreezeLedger> = Detector {
    rules: &[Rule::InvalidTicket],
    check,
};

fn check(facts: &LedgerFacts<'_>, problems: &mut Vec<Problem>) {
    let LedgerFacts::Row(row) = facts else {
        return;
    };
    let issues = match &row.row.ticket {
        Err(issues) => issues,
        Ok(ticket) => {
            let freeze = row.ledger.scan.as_ref().map(|s| &s.freeze);
            if let (Kind::KnownFailure, Some(t)) = (
                &ticket.kind,
                freeze.and_then(|f| f.get(ticket.test_id.as_str())),
            ) && !t.marks.iter().any(|m| m == "xfail")
            {
                problems.push(row.place(Problem::new(
                    Rule::InvalidTicket,
                    format!(
                        "row {}: a known-failure ticket, but {} carries no xfail mark: mark it \
                         xfail(strict=True), or give the flake a replay ticket",
                        row.row.index, ticket.test_id
                    ),
                )));
            }
            return;
        }
    };
    for issue in issues {
        problems.push(row.place(Problem::new(
            Rule::InvalidTicket,
            format!("row {}: {}", row.row.index, issue.message),
        )));
    }
}
