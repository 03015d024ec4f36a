//! `freeze-ledger check`: every ticket's status and the problems of the `ledger` section.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use jiff::civil::Date;
use lane_core::Problem;
use lane_core::clock::Today;
use lane_core::detector::run_all;
use lane_core::problem::normalize;
use lane_core::scan::{Lane, ScanSection, ScanTest};
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use crate::capsule;
use crate::ledger::{Ledger, Replay, Row, Ticket};
use crate::rules::{DETECTORS, LedgerFacts};

pub const SECTION: &str = "ledger";
pub const TOOL: &str = "freeze-ledger";
pub use lane_core::rule::DEFAULT_MAX_DAYS;

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
    /// `local` when `today` came from the machine's clock outside CI (no `--today`, no
    /// `LANES_TODAY`): a verdict over this section is not a CI verdict.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clock: Option<String>,
    pub max_days: u32,
    /// True when a scan section was present and tickets were matched 1:1 to its freeze tests.
    pub matched_scan: bool,
    /// One entry per ledger row, plus one `missing` entry per freeze test without a row;
    /// sorted by test id, then line.
    pub tickets: Vec<CheckedTicket>,
    pub problems: Vec<Problem>,
}

/// One ticket as checked: a ledger row, or a freeze test of the scan that has no row.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CheckedTicket {
    /// Null only for a row whose test id cannot be read.
    pub test_id: Option<String>,
    pub status: TicketStatus,
    /// The row's line in the ledger file (null for `missing`).
    pub line: Option<u64>,
    pub expires_on: Option<String>,
    /// Days from today to the expiry: 0 expires today (still valid), negative is expired.
    pub days_left: Option<i64>,
}

pub use crate::ticket_status::TicketStatus;

pub struct CheckOptions<'a> {
    pub root: &'a Path,
    /// How the ledger is named in problems and the section.
    pub ledger_name: &'a str,
    pub today: Today,
    pub max_days: u32,
}

/// Days from `today` to `date` (negative when `date` is earlier).
pub(crate) fn days_between(today: Date, date: Date) -> i64 {
    today.duration_until(date).as_secs() / 86_400
}

/// The tests of the scan, by id: its freeze tests, and all of them.
pub(crate) struct ScanTests<'a> {
    pub freeze: BTreeMap<&'a str, &'a ScanTest>,
    pub all: BTreeMap<&'a str, &'a ScanTest>,
}

/// Everything `check` knows about the ledger as a whole.
pub(crate) struct CheckFacts<'a> {
    /// How the ledger is named in problems.
    pub ledger_name: &'a str,
    pub rows: &'a [Row],
    /// Per row: what hashing its capsule gave (`Ok` for a row without a capsule or not a
    /// valid ticket).
    pub capsules: Vec<Result<(), String>>,
    /// Per row: days from today to its expiry (`None` for a row that is not a valid ticket).
    pub days_left: Vec<Option<i64>>,
    /// Per row: the line of the first row with the same test id, when that is an earlier row.
    pub first_line: Vec<Option<u64>>,
    pub max_days: u32,
    /// `None` when the document has no scan section.
    pub scan: Option<ScanTests<'a>>,
}

impl<'a> CheckFacts<'a> {
    /// Hashes the capsules (on every core: they can be large) and dates the tickets.
    pub(crate) fn gather(
        ledger: &'a Ledger,
        scan: Option<&'a ScanSection>,
        opts: &CheckOptions<'a>,
    ) -> CheckFacts<'a> {
        let capsules = ledger
            .rows
            .par_iter()
            .map(
                |row| match row.ticket.as_ref().ok().and_then(Ticket::replay) {
                    Some(Replay {
                        input_path: Some(path),
                        input_sha256,
                        ..
                    }) => capsule::verify(opts.root, path, input_sha256),
                    _ => Ok(()),
                },
            )
            .collect();
        let days_left = ledger
            .rows
            .iter()
            .map(|row| {
                (row.ticket.as_ref().ok()).map(|t| days_between(opts.today.date, t.expires_on))
            })
            .collect();
        let mut first: BTreeMap<&str, u64> = BTreeMap::new();
        let first_line = ledger
            .rows
            .iter()
            .map(|row| {
                let id = row.test_id.as_deref()?;
                match first.get(id) {
                    Some(line) => Some(*line),
                    None => {
                        first.insert(id, row.line);
                        None
                    }
                }
            })
            .collect();
        CheckFacts {
            ledger_name: opts.ledger_name,
            rows: &ledger.rows,
            capsules,
            days_left,
            first_line,
            max_days: opts.max_days,
            scan: scan.map(|s| ScanTests {
                freeze: s
                    .tests_in(Lane::Freeze)
                    .map(|t| (t.id.as_str(), t))
                    .collect(),
                all: s.by_id(),
            }),
        }
    }

    /// The test ids that have at least one row.
    pub(crate) fn ticketed(&self) -> BTreeSet<&'a str> {
        self.rows
            .iter()
            .filter_map(|r| r.test_id.as_deref())
            .collect()
    }

    /// The scan's freeze tests without a row, by id (none without a scan).
    pub(crate) fn unticketed(&self) -> Vec<(&'a str, &'a ScanTest)> {
        let ticketed = self.ticketed();
        self.scan
            .iter()
            .flat_map(|s| &s.freeze)
            .filter(|(id, _)| !ticketed.contains(*id))
            .map(|(id, t)| (*id, *t))
            .collect()
    }

    /// What the detectors see of row `index`.
    fn row(&self, index: usize) -> RowFacts<'_> {
        RowFacts {
            ledger: self,
            row: &self.rows[index],
            capsule: &self.capsules[index],
            days_left: self.days_left[index],
            first_line: self.first_line[index],
        }
    }
}

/// One ledger row as the per-row detectors judge it.
pub(crate) struct RowFacts<'a> {
    pub ledger: &'a CheckFacts<'a>,
    pub row: &'a Row,
    /// What hashing its capsule gave.
    pub capsule: &'a Result<(), String>,
    /// Days from today to its expiry (`None` when it is not a valid ticket).
    pub days_left: Option<i64>,
    /// The line of an earlier row for the same test id.
    pub first_line: Option<u64>,
}

impl RowFacts<'_> {
    /// `problem` placed at the row's line and test.
    pub(crate) fn place(&self, problem: Problem) -> Problem {
        let problem = problem.at(self.ledger.ledger_name, self.row.line);
        match &self.row.test_id {
            Some(id) => problem.test(id.as_str()),
            None => problem,
        }
    }
}

/// One entry per row: the worst status its problems give it (a row that is not a valid
/// ticket is `invalid` whatever was found), its expiry and days left.
fn row_ticket(row: &RowFacts<'_>, problems: &[Problem]) -> CheckedTicket {
    let valid = match row.row.ticket {
        Ok(_) => TicketStatus::Ok,
        Err(_) => TicketStatus::Invalid,
    };
    CheckedTicket {
        test_id: row.row.test_id.clone(),
        status: TicketStatus::worst(valid, problems),
        line: Some(row.row.line),
        expires_on: row
            .row
            .ticket
            .as_ref()
            .ok()
            .map(|t| t.expires_on.to_string()),
        days_left: row.days_left,
    }
}

/// Checks a parsed ledger against the clock, its capsules and (when given) the scan.
pub fn check(
    ledger: &Ledger,
    scan: Option<&ScanSection>,
    opts: &CheckOptions<'_>,
) -> LedgerSection {
    let facts = CheckFacts::gather(ledger, scan, opts);
    let mut problems: Vec<Problem> = Vec::new();
    let mut tickets: Vec<CheckedTicket> = Vec::with_capacity(facts.rows.len());
    for index in 0..facts.rows.len() {
        let row = facts.row(index);
        let mut found = Vec::new();
        run_all(DETECTORS, &LedgerFacts::Row(&row), &mut found);
        tickets.push(row_ticket(&row, &found));
        problems.append(&mut found);
    }
    run_all(DETECTORS, &LedgerFacts::Check(&facts), &mut problems);
    tickets.extend(facts.unticketed().into_iter().map(|(id, _)| CheckedTicket {
        test_id: Some(id.to_string()),
        status: TicketStatus::Missing,
        line: None,
        expires_on: None,
        days_left: None,
    }));
    tickets.sort_by(|a, b| (&a.test_id, a.line).cmp(&(&b.test_id, b.line)));
    normalize(&mut problems);
    LedgerSection {
        tool: TOOL.to_string(),
        ledger: opts.ledger_name.to_string(),
        exists: ledger.exists,
        today: opts.today.date.to_string(),
        clock: opts.today.local.then(|| "local".to_string()),
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
        let cases: &[(&str, TicketStatus, &str)] = &[
            ("2026-03-09", TicketStatus::Expired, "expired-ticket"),
            ("2025-12-31", TicketStatus::Expired, "expired-ticket"),
            ("2026-03-10", TicketStatus::ExpiringSoon, "expiring-soon"),
            ("2026-03-11", TicketStatus::ExpiringSoon, "expiring-soon"),
            ("2026-03-17", TicketStatus::ExpiringSoon, "expiring-soon"),
            ("2026-03-18", TicketStatus::Ok, ""),
            ("2026-06-08", TicketStatus::Ok, ""),
            ("2026-06-09", TicketStatus::ExpiryTooFar, "expiry-too-far"),
        ];
        let root = std::env::temp_dir();
        for (expires, status, rule) in cases {
            let ledger = ledger_with_expiry(expires);
            let opts = CheckOptions {
                root: &root,
                ledger_name: "l.json",
                today: Today::pinned(today),
                max_days: 90,
            };
            let section = check(&ledger, None, &opts);
            assert_eq!(section.tickets[0].status, *status, "{expires}");
            let rules: Vec<&str> = section.problems.iter().map(|p| p.rule.as_str()).collect();
            let expected: Vec<&str> = if rule.is_empty() { vec![] } else { vec![*rule] };
            assert_eq!(rules, expected, "{expires}");
        }
    }

    /// Each row's status comes from its own problems, also where rows share a line.
    #[test]
    fn rows_on_one_line_keep_their_own_status() {
        let row = |seed: u32, expires: &str| {
            format!(
                r#"{{"test_id":"t.py::t","seed":{seed},"input_sha256":"{}","expires_on":"{expires}","last_replay_job":"https://ci/1"}}"#,
                "0".repeat(64)
            )
        };
        let text = format!("[{}, {}]", row(1, "2026-03-20"), row(2, "2026-03-11"));
        let ledger = Ledger::parse(text.as_bytes(), "l.json").unwrap();
        let root = std::env::temp_dir();
        let opts = CheckOptions {
            root: &root,
            ledger_name: "l.json",
            today: Today::pinned(date(2026, 3, 10)),
            max_days: 90,
        };
        let section = check(&ledger, None, &opts);
        let statuses: Vec<TicketStatus> = section.tickets.iter().map(|t| t.status).collect();
        assert_eq!(statuses, [TicketStatus::Ok, TicketStatus::Duplicate]);
        let rules: Vec<&str> = section.problems.iter().map(|p| p.rule.as_str()).collect();
        assert_eq!(rules, ["duplicate-ticket", "expiring-soon"]);
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
