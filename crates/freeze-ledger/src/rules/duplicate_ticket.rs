//! `duplicate-ticket`: a second row for a test id (every row after the first is reported).

use std::collections::BTreeMap;

use lane_core::{Problem, Rule};

use crate::check::{CheckFacts, Finding, TicketStatus};

pub fn detect(facts: &CheckFacts<'_>) -> Vec<Finding> {
    let mut first_line: BTreeMap<&str, u64> = BTreeMap::new();
    let mut out = Vec::new();
    for (i, row) in facts.rows.iter().enumerate() {
        let Some(id) = row.test_id.as_deref() else {
            continue;
        };
        match first_line.get(id) {
            Some(first) => {
                let problem = Problem::new(
                    Rule::DuplicateTicket,
                    format!("a second ticket for {id} (the first is on line {first})"),
                );
                out.push(Finding::on_row(facts, i, TicketStatus::Duplicate, problem));
            }
            None => {
                first_line.insert(id, row.line);
            }
        }
    }
    out
}
