//! `orphan-ticket`: a row for a test the scan does not place in the freeze lane (only with a
//! scan).

use lane_core::{Problem, Rule};

use crate::check::{CheckFacts, Finding, TicketStatus};

pub fn detect(facts: &CheckFacts<'_>) -> Vec<Finding> {
    let Some(scan) = &facts.scan else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for (i, row) in facts.rows.iter().enumerate() {
        let Some(id) = row.test_id.as_deref() else {
            continue;
        };
        if scan.freeze.contains_key(id) {
            continue;
        }
        let why = match scan.all.get(id) {
            None => "the scan has no such test".to_string(),
            Some(t) => match t.lane {
                Some(lane) => format!("the scan places it in the {lane} lane"),
                None => "the scan gives it no single lane".to_string(),
            },
        };
        let problem = Problem::new(Rule::OrphanTicket, format!("ticket for {id}, but {why}"));
        out.push(Finding::on_row(facts, i, TicketStatus::Orphan, problem));
    }
    out
}
