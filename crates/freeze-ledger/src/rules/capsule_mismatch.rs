//! `capsule-mismatch`: a valid ticket's capsule (`input_path`) is unsafe, missing, unreadable
//! or hashes to another digest than `input_sha256`.

use lane_core::{Problem, Rule};

use crate::check::{CheckFacts, Finding, TicketStatus};

pub fn detect(facts: &CheckFacts<'_>) -> Vec<Finding> {
    facts
        .capsules
        .iter()
        .enumerate()
        .filter_map(|(i, capsule)| {
            let why = capsule.as_ref().err()?;
            let problem = Problem::new(Rule::CapsuleMismatch, why.clone());
            Some(Finding::on_row(
                facts,
                i,
                TicketStatus::CapsuleMismatch,
                problem,
            ))
        })
        .collect()
}
