//! The expiry family, one rule per valid ticket at most: `expired-ticket` (the expiry has
//! passed), else `expiry-too-far` (more than `--max-days` away), else `expiring-soon` (within
//! [`SOON_DAYS`] days, a warning).

use lane_core::detector::Detector;
use lane_core::rule::SOON_DAYS;
use lane_core::{Problem, Rule};

use super::{FreezeLedger, LedgerFacts};
use crate::ledger::Ticket;

pub(crate) const DETECTOR: Detector<FreezeLedger> = Detector {
    rules: &[Rule::ExpiredTicket, Rule::ExpiryTooFar, Rule::ExpiringSoon],
    check,
};

fn check(facts: &LedgerFacts<'_>, problems: &mut Vec<Problem>) {
    let LedgerFacts::Row(row) = facts else {
        return;
    };
    let (Ok(ticket), Some(days)) = (&row.row.ticket, row.days_left) else {
        return;
    };
    if let Some(problem) = judge(ticket, days, row.ledger.max_days) {
        problems.push(row.place(problem));
    }
}

/// The expiry verdict of one ticket `days` before (negative: after) its expiry.
fn judge(t: &Ticket, days: i64, max_days: u32) -> Option<Problem> {
    if days < 0 {
        let message = format!(
            "ticket for {} expired on {} ({} day{} ago)",
            t.test_id,
            t.expires_on,
            -days,
            if days == -1 { "" } else { "s" }
        );
        Some(Problem::new(Rule::ExpiredTicket, message))
    } else if days > i64::from(max_days) {
        let message = format!(
            "ticket for {} expires on {}, {days} days from today; the limit is {max_days} days",
            t.test_id, t.expires_on
        );
        Some(Problem::new(Rule::ExpiryTooFar, message))
    } else if days <= SOON_DAYS {
        let when = match days {
            0 => "today".to_string(),
            1 => "tomorrow".to_string(),
            d => format!("in {d} days"),
        };
        let message = format!("ticket for {} expires {when} ({})", t.test_id, t.expires_on);
        Some(Problem::new(Rule::ExpiringSoon, message))
    } else {
        None
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::ledger::{Kind, Replay, Seed};
    use jiff::civil::date;

    fn ticket() -> Ticket {
        Ticket {
            test_id: "t.py::t".into(),
            kind: Kind::Flake(Replay {
                seed: Seed::new(1).unwrap(),
                input_sha256: "0".repeat(64),
                input_path: None,
                last_replay_job: "https://ci/1".into(),
                typed: Vec::new(),
            }),
            expires_on: date(2026, 3, 10),
            issue: None,
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
                    let p = got.unwrap();
                    assert_eq!(p.rule, *rule, "{days} {max}");
                    assert!(p.message.contains(text), "{days} {max}: {}", p.message);
                }
            }
        }
    }
}
