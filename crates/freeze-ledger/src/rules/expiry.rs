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

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::ledger::Seed;
    use jiff::civil::date;

    fn ticket() -> Ticket {
        Ticket {
            test_id: "t.py::t".into(),
            seed: Seed::new(1).unwrap(),
            input_sha256: "0".repeat(64),
            input_path: None,
            expires_on: date(2026, 3, 10),
            last_replay_job: "https://ci/1".into(),
            created_on: None,
            owner: None,
            reason: None,
        }
    }

    #[test]
    fn one_verdict_per_ticket_and_the_cap_comes_before_soon() {
        // (days left, --max-days, rule, part of the message)
        let cases: &[(i64, u32, Option<&str>, &str)] = &[
            (-1, 90, Some("expired-ticket"), "(1 day ago)"),
            (-2, 90, Some("expired-ticket"), "(2 days ago)"),
            (0, 90, Some("expiring-soon"), "expires today"),
            (1, 90, Some("expiring-soon"), "expires tomorrow"),
            (SOON_DAYS, 90, Some("expiring-soon"), "expires in 7 days"),
            (SOON_DAYS + 1, 90, None, ""),
            (90, 90, None, ""),
            (
                91,
                90,
                Some("expiry-too-far"),
                "91 days from today; the limit is 90",
            ),
            // Within the warning window but past a tighter cap: the cap is the verdict.
            (
                5,
                3,
                Some("expiry-too-far"),
                "5 days from today; the limit is 3",
            ),
            (-1, 0, Some("expired-ticket"), "(1 day ago)"),
        ];
        for (days, max, rule, text) in cases {
            let got = judge(&ticket(), *days, *max);
            match rule {
                None => assert!(got.is_none(), "{days} {max}: {got:?}"),
                Some(rule) => {
                    let (_, p) = got.unwrap();
                    assert_eq!(p.rule, *rule, "{days} {max}");
                    assert!(p.message.contains(text), "{days} {max}: {}", p.message);
                }
            }
        }
    }
}
