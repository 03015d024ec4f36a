//! `invalid-ticket`: a row that is not a valid ticket, one problem per bad field.

use lane_core::{Problem, Rule};

use crate::check::{CheckFacts, Finding, TicketStatus};

pub fn detect(facts: &CheckFacts<'_>) -> Vec<Finding> {
    let mut out = Vec::new();
    for (i, row) in facts.rows.iter().enumerate() {
        let Err(issues) = &row.ticket else {
            continue;
        };
        for issue in issues {
            let problem = Problem::new(
                Rule::InvalidTicket,
                format!("row {}: {}", row.index, issue.message),
            );
            out.push(Finding::on_row(facts, i, TicketStatus::Invalid, problem));
        }
    }
    out
}
