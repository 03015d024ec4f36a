//! `freeze-ledger check`: every ticket's status and the problems of the `ledger` section.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use jiff::civil::Date;
use lane_core::problem::normalize;
use lane_core::scan::{Lane, ScanSection};
use lane_core::{Problem, Rule};
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use crate::capsule;
use crate::ledger::Ledger;

pub const SECTION: &str = "ledger";
pub const TOOL: &str = "freeze-ledger";
pub use lane_core::rule::{DEFAULT_MAX_DAYS, SOON_DAYS};

/// The `ledger` section.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LedgerSection {
    pub tool: String,
    /// The ledger file, root-relative when it is inside the root.
    pub ledger: String,
    /// False when the ledger file does not exist (then it has no tickets).
    pub exists: bool,
    pub today: String,
    pub max_days: u32,
    /// True when a scan section was present and tickets were matched 1:1 to its freeze tests.
    pub matched_scan: bool,
    /// One entry per ledger row, plus one `missing` entry per freeze test without a row;
    /// sorted by test id, then line.
    pub tickets: Vec<TicketStatus>,
    pub problems: Vec<Problem>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TicketStatus {
    /// Null only for a row whose test id cannot be read.
    pub test_id: Option<String>,
    pub status: Status,
    /// The row's line in the ledger file (null for `missing`).
    pub line: Option<u64>,
    pub expires_on: Option<String>,
    /// Days from today to the expiry: 0 expires today (still valid), negative is expired.
    pub days_left: Option<i64>,
}

/// A ticket's status: the worst thing found about it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Status {
    Invalid,
    Duplicate,
    Missing,
    Orphan,
    CapsuleMismatch,
    Expired,
    ExpiryTooFar,
    ExpiringSoon,
    Ok,
}

pub struct CheckOptions<'a> {
    pub root: &'a Path,
    /// How the ledger is named in problems and the section.
    pub ledger_name: &'a str,
    pub today: Date,
    pub max_days: u32,
}

/// Days from `today` to `date` (negative when `date` is earlier).
pub fn days_between(today: Date, date: Date) -> i64 {
    today.duration_until(date).as_secs() / 86_400
}

/// Checks a parsed ledger against the clock, its capsules and (when given) the scan.
pub fn check(
    ledger: &Ledger,
    scan: Option<&ScanSection>,
    opts: &CheckOptions<'_>,
) -> LedgerSection {
    let file = opts.ledger_name;
    let mut problems = Vec::new();
    let mut tickets = Vec::new();
    let freeze: Option<BTreeMap<&str, &lane_core::scan::ScanTest>> = scan.map(|s| {
        s.tests_in(Lane::Freeze)
            .map(|t| (t.id.as_str(), t))
            .collect()
    });
    let all_scanned: Option<BTreeMap<&str, &lane_core::scan::ScanTest>> =
        scan.map(ScanSection::by_id);
    let mut first_line: BTreeMap<&str, u64> = BTreeMap::new();

    // Capsules can be large: hash them on every core, then walk the rows in order.
    let capsules: Vec<Result<(), String>> = ledger
        .rows
        .par_iter()
        .map(|row| match &row.ticket {
            Ok(t) => match &t.input_path {
                Some(path) => capsule::verify(opts.root, path, &t.input_sha256),
                None => Ok(()),
            },
            Err(_) => Ok(()),
        })
        .collect();

    for (row, capsule) in ledger.rows.iter().zip(capsules) {
        let id = row.test_id.as_deref();
        let mut status = Status::Ok;
        let mut expires_on = None;
        let mut days_left = None;
        let at = |p: Problem| {
            let p = p.at(file, row.line);
            match id {
                Some(id) => p.test(id),
                None => p,
            }
        };
        if let Some(id) = id {
            if let Some(first) = first_line.get(id) {
                problems.push(at(Problem::new(
                    Rule::DuplicateTicket,
                    format!("a second ticket for {id} (the first is on line {first})"),
                )));
                status = status.min(Status::Duplicate);
            } else {
                first_line.insert(id, row.line);
            }
            if let (Some(freeze), Some(all)) = (&freeze, &all_scanned)
                && !freeze.contains_key(id)
            {
                let why = match all.get(id) {
                    None => "the scan has no such test".to_string(),
                    Some(t) => match t.lane {
                        Some(lane) => format!("the scan places it in the {lane} lane"),
                        None => "the scan gives it no single lane".to_string(),
                    },
                };
                problems.push(at(Problem::new(
                    Rule::OrphanTicket,
                    format!("ticket for {id}, but {why}"),
                )));
                status = status.min(Status::Orphan);
            }
        }
        match &row.ticket {
            Err(issues) => {
                for issue in issues {
                    problems.push(at(Problem::new(
                        Rule::InvalidTicket,
                        format!("row {}: {}", row.index, issue.message),
                    )));
                }
                status = Status::Invalid;
            }
            Ok(t) => {
                let days = days_between(opts.today, t.expires_on);
                expires_on = Some(t.expires_on.to_string());
                days_left = Some(days);
                if let Err(why) = capsule {
                    problems.push(at(Problem::new(Rule::CapsuleMismatch, why)));
                    status = status.min(Status::CapsuleMismatch);
                }
                if days < 0 {
                    problems.push(at(Problem::new(
                        Rule::ExpiredTicket,
                        format!(
                            "ticket for {} expired on {} ({} day{} ago)",
                            t.test_id,
                            t.expires_on,
                            -days,
                            if days == -1 { "" } else { "s" }
                        ),
                    )));
                    status = status.min(Status::Expired);
                } else if days > i64::from(opts.max_days) {
                    problems.push(at(Problem::new(
                        Rule::ExpiryTooFar,
                        format!(
                            "ticket for {} expires on {}, {days} days from today; the limit is {} days",
                            t.test_id, t.expires_on, opts.max_days
                        ),
                    )));
                    status = status.min(Status::ExpiryTooFar);
                } else if days <= SOON_DAYS {
                    let when = match days {
                        0 => "today".to_string(),
                        1 => "tomorrow".to_string(),
                        d => format!("in {d} days"),
                    };
                    problems.push(at(Problem::new(
                        Rule::ExpiringSoon,
                        format!("ticket for {} expires {when} ({})", t.test_id, t.expires_on),
                    )));
                    status = status.min(Status::ExpiringSoon);
                }
            }
        }
        tickets.push(TicketStatus {
            test_id: id.map(str::to_string),
            status,
            line: Some(row.line),
            expires_on,
            days_left,
        });
    }

    if let Some(freeze) = &freeze {
        let ticketed: BTreeSet<&str> = first_line.keys().copied().collect();
        for (id, test) in freeze {
            if !ticketed.contains(id) {
                problems.push(
                    Problem::new(
                        Rule::MissingTicket,
                        format!("freeze test {id} has no ticket in {file}"),
                    )
                    .at(test.file.as_str(), test.line)
                    .test(*id),
                );
                tickets.push(TicketStatus {
                    test_id: Some((*id).to_string()),
                    status: Status::Missing,
                    line: None,
                    expires_on: None,
                    days_left: None,
                });
            }
        }
    }

    tickets.sort_by(|a, b| (&a.test_id, a.line).cmp(&(&b.test_id, b.line)));
    normalize(&mut problems);
    LedgerSection {
        tool: TOOL.to_string(),
        ledger: file.to_string(),
        exists: ledger.exists,
        today: opts.today.to_string(),
        max_days: opts.max_days,
        matched_scan: scan.is_some(),
        tickets,
        problems,
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use jiff::civil::date;

    fn ledger_with_expiry(expires: &str) -> Ledger {
        let text = format!(
            r#"[{{"test_id":"t.py::t","seed":1,"input_sha256":"{}","expires_on":"{expires}",
                "last_replay_job":"https://ci/1"}}]"#,
            "0".repeat(64)
        );
        Ledger::parse(text.as_bytes(), "l.json").unwrap()
    }

    #[test]
    fn expiry_boundaries() {
        let today = date(2026, 3, 10);
        // (expires_on, status, rule or "")
        let cases: &[(&str, Status, &str)] = &[
            ("2026-03-09", Status::Expired, "expired-ticket"),
            ("2025-12-31", Status::Expired, "expired-ticket"),
            ("2026-03-10", Status::ExpiringSoon, "expiring-soon"),
            ("2026-03-11", Status::ExpiringSoon, "expiring-soon"),
            ("2026-03-17", Status::ExpiringSoon, "expiring-soon"),
            ("2026-03-18", Status::Ok, ""),
            ("2026-06-08", Status::Ok, ""),
            ("2026-06-09", Status::ExpiryTooFar, "expiry-too-far"),
        ];
        let root = std::env::temp_dir();
        for (expires, status, rule) in cases {
            let ledger = ledger_with_expiry(expires);
            let opts = CheckOptions {
                root: &root,
                ledger_name: "l.json",
                today,
                max_days: 90,
            };
            let section = check(&ledger, None, &opts);
            assert_eq!(section.tickets[0].status, *status, "{expires}");
            let rules: Vec<&str> = section.problems.iter().map(|p| p.rule.as_str()).collect();
            let expected: Vec<&str> = if rule.is_empty() { vec![] } else { vec![*rule] };
            assert_eq!(rules, expected, "{expires}");
        }
    }

    #[test]
    fn leap_day_arithmetic() {
        assert_eq!(days_between(date(2028, 2, 28), date(2028, 3, 1)), 2);
        assert_eq!(days_between(date(2027, 2, 28), date(2027, 3, 1)), 1);
        assert_eq!(days_between(date(2028, 2, 29), date(2028, 2, 28)), -1);
        assert_eq!(days_between(date(2026, 1, 1), date(2027, 1, 1)), 365);
        assert_eq!(days_between(date(2028, 1, 1), date(2029, 1, 1)), 366);
    }
}
