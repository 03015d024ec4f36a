//! The expiry family, one rule per valid ticket at most: `expired-ticket` (the expiry has
//! passed), else `expiry-too-far` (more than `--max-days` away), else `expiring-soon` (within
//! [`SOON_DAYS`] days, a warning).

use lane_core::{Problem, Rule};

use crate::check::{CheckFacts, Finding, SOON_DAYS, TicketStatus};
use crate::ledger::Ticket;

pub fn detect(facts: &CheckFacts<'_>) -> Vec<Finding> {
    let mut out = Vec::new();
    for (i, (row, days)) in facts.rows.iter().zip(&facts.days_left).enumerate() {
        let (Ok(ticket), Some(days)) = (&row.ticket, *days) else {
            continue;
        };
        if let Some((status, problem)) = judge(ticket, days, facts.max_days) {
            out.push(Finding::on_row(facts, i, status, problem));
        }
    }
    out
}

/// The expiry verdict of one ticket `days` before (negative: after) its expiry.
fn judge(t: &Ticket, days: i64, max_days: u32) -> Option<(TicketStatus, Problem)> {
    if days < 0 {
        let message = format!(
            "ticket for {} expired on {} ({} day{} ago)",
            t.test_id,
            t.expires_on,
            -days,
            if days == -1 { "" } else { "s" }
        );
        Some((
            TicketStatus::Expired,
            Problem::new(Rule::ExpiredTicket, message),
        ))
    } else if days > i64::from(max_days) {
        let message = format!(
            "ticket for {} expires on {}, {days} days from today; the limit is {max_days} days",
            t.test_id, t.expires_on
        );
        Some((
            TicketStatus::ExpiryTooFar,
            Problem::new(Rule::ExpiryTooFar, message),
        ))
    } else if days <= SOON_DAYS {
        let when = match days {
            0 => "today".to_string(),
            1 => "tomorrow".to_string(),
            d => format!("in {d} days"),
        };
        let message = format!("ticket for {} expires {when} ({})", t.test_id, t.expires_on);
        Some((
            TicketStatus::ExpiringSoon,
            Problem::new(Rule::ExpiringSoon, message),
        ))
    } else {
        None
    }
}
