//! `missing-ticket`: a freeze test of the scan without a row in the ledger.

use lane_core::{Problem, Rule};

use crate::check::{CheckFacts, Finding, TicketStatus};

pub fn detect(facts: &CheckFacts<'_>) -> Vec<Finding> {
    facts
        .unticketed()
        .into_iter()
        .map(|(id, test)| Finding {
            row: None,
            status: TicketStatus::Missing,
            problem: Problem::new(
                Rule::MissingTicket,
                format!("freeze test {id} has no ticket in {}", facts.ledger_name),
            )
            .at(test.file.as_str(), test.line)
            .test(id),
        })
        .collect()
}
