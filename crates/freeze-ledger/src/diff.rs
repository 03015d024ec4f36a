//! `freeze-ledger diff BASE HEAD`: what a patch does to the ledger, as the `ledger_diff`
//! section: every ticket added, removed, renewed, changed or edited. The rules
//! `ticket-added`, `ticket-renewed` and `ticket-changed` judge it (a human reviews tickets;
//! the agent does not write them); removals are listed only.

use std::collections::{BTreeMap, BTreeSet};

use lane_core::detector::run_all;
use lane_core::problem::normalize;
use lane_core::{Error, Problem};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::check::TOOL;
use crate::ledger::{Ledger, Row};
use crate::rules::{DETECTORS, LedgerFacts};

pub const SECTION: &str = "ledger_diff";

/// Fields whose change is a renewal.
const RENEW_FIELDS: &[&str] = &["expires_on", "last_replay_job"];
/// Fields whose change makes the ticket a different capsule.
const CAPSULE_FIELDS: &[&str] = &["seed", "input_sha256", "input_path"];

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LedgerDiffSection {
    pub tool: String,
    pub base: String,
    pub head: String,
    /// Test ids with a ticket in HEAD only.
    pub added: Vec<String>,
    /// Test ids with a ticket in BASE only.
    pub removed: Vec<String>,
    /// Tickets whose expiry or replay job changed (and nothing of the capsule).
    pub renewed: Vec<TicketChange>,
    /// Tickets whose seed, digest or capsule path changed.
    pub changed: Vec<TicketChange>,
    /// Tickets where only owner, reason or created_on changed.
    pub edited: Vec<TicketChange>,
    pub unchanged: u64,
    pub problems: Vec<Problem>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TicketChange {
    pub test_id: String,
    /// The fields that differ, sorted.
    pub fields: Vec<String>,
}

/// What the `diff` detectors judge: the section's lists, and where each ticket of HEAD is.
pub(crate) struct DiffFacts<'a> {
    pub section: &'a LedgerDiffSection,
    /// HEAD's line of each of its tickets, by test id.
    pub lines: &'a BTreeMap<&'a str, u64>,
}

impl DiffFacts<'_> {
    /// `problem` placed at HEAD's row of `id`.
    pub(crate) fn place(&self, problem: Problem, id: &str) -> Problem {
        let line = self.lines.get(id).copied().unwrap_or(0);
        problem.at(self.section.head.as_str(), line).test(id)
    }
}

/// Rows by test id. A row without a readable test id, or a second row for one, makes the
/// comparison meaningless: that is an error naming the row.
fn by_id<'a>(ledger: &'a Ledger, name: &str) -> Result<BTreeMap<&'a str, &'a Row>, Error> {
    let mut map = BTreeMap::new();
    for row in &ledger.rows {
        let line = usize::try_from(row.line).unwrap_or(0);
        let Some(id) = row.test_id.as_deref() else {
            return Err(Error::parse(
                name,
                line,
                0,
                format!("row {} has no test_id string; cannot compare it", row.index),
            ));
        };
        if map.insert(id, row).is_some() {
            return Err(Error::parse(
                name,
                line,
                0,
                format!("a second ticket for {id}; cannot compare"),
            ));
        }
    }
    Ok(map)
}

fn field<'a>(row: &'a Row, name: &str) -> Option<&'a Value> {
    row.raw.get(name)
}

/// The fields whose values differ between two rows of a test, sorted; `row` when either
/// is not a JSON object and they differ.
fn changed_fields(before: &Row, after: &Row) -> Vec<String> {
    let keys: BTreeSet<&String> = after
        .raw
        .as_object()
        .into_iter()
        .chain(before.raw.as_object())
        .flat_map(|m| m.keys())
        .collect();
    let mut names: Vec<String> = keys
        .into_iter()
        .filter(|key| field(after, key) != field(before, key))
        .cloned()
        .collect();
    if (!after.raw.is_object() || !before.raw.is_object()) && after.raw != before.raw {
        names.push("row".to_string());
    }
    names
}

/// Compares two ledgers (already read; a missing or empty file has no tickets).
pub fn diff(
    base: &Ledger,
    base_name: &str,
    head: &Ledger,
    head_name: &str,
) -> Result<LedgerDiffSection, Error> {
    let old = by_id(base, base_name)?;
    let new = by_id(head, head_name)?;
    let mut section = LedgerDiffSection {
        tool: TOOL.to_string(),
        base: base_name.to_string(),
        head: head_name.to_string(),
        added: Vec::new(),
        removed: Vec::new(),
        renewed: Vec::new(),
        changed: Vec::new(),
        edited: Vec::new(),
        unchanged: 0,
        problems: Vec::new(),
    };
    for (id, row) in &new {
        let Some(before) = old.get(id) else {
            section.added.push((*id).to_string());
            continue;
        };
        let names = changed_fields(before, row);
        if names.is_empty() {
            section.unchanged += 1;
            continue;
        }
        let change = TicketChange {
            test_id: (*id).to_string(),
            fields: names.clone(),
        };
        if names
            .iter()
            .any(|n| CAPSULE_FIELDS.contains(&n.as_str()) || n == "row")
        {
            section.changed.push(change);
        } else if names.iter().any(|n| RENEW_FIELDS.contains(&n.as_str())) {
            section.renewed.push(change);
        } else {
            section.edited.push(change);
        }
    }
    for id in old.keys() {
        if !new.contains_key(id) {
            section.removed.push((*id).to_string());
        }
    }
    let lines: BTreeMap<&str, u64> = new.iter().map(|(id, row)| (*id, row.line)).collect();
    let mut problems = Vec::new();
    let facts = DiffFacts {
        section: &section,
        lines: &lines,
    };
    run_all(DETECTORS, &LedgerFacts::Diff(&facts), &mut problems);
    normalize(&mut problems);
    section.problems = problems;
    Ok(section)
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn ledger(rows: &[(&str, &str, &str, &str)]) -> Ledger {
        // (test_id, seed, expires_on, owner)
        let items: Vec<String> = rows
            .iter()
            .map(|(id, seed, exp, owner)| {
                format!(
                    r#"{{"test_id":"{id}","seed":{seed},"input_sha256":"{}","expires_on":"{exp}",
                    "last_replay_job":"https://ci/1","owner":"{owner}"}}"#,
                    "0".repeat(64)
                )
            })
            .collect();
        Ledger::parse(format!("[{}]", items.join(",\n")).as_bytes(), "x").unwrap()
    }

    #[test]
    fn classifies_each_kind_of_change() {
        let base = ledger(&[
            ("a.py::same", "1", "2026-03-01", "o"),
            ("a.py::gone", "1", "2026-03-01", "o"),
            ("a.py::renew", "1", "2026-03-01", "o"),
            ("a.py::reseed", "1", "2026-03-01", "o"),
            ("a.py::owner", "1", "2026-03-01", "o"),
        ]);
        let head = ledger(&[
            ("a.py::same", "1", "2026-03-01", "o"),
            ("a.py::renew", "1", "2026-04-01", "o"),
            ("a.py::reseed", "2", "2026-04-01", "o"),
            ("a.py::owner", "1", "2026-03-01", "p"),
            ("a.py::new", "1", "2026-03-01", "o"),
        ]);
        let d = diff(&base, "base.json", &head, "head.json").unwrap();
        assert_eq!(d.added, ["a.py::new"]);
        assert_eq!(d.removed, ["a.py::gone"]);
        assert_eq!(d.renewed[0].test_id, "a.py::renew");
        assert_eq!(d.renewed[0].fields, ["expires_on"]);
        assert_eq!(d.changed[0].test_id, "a.py::reseed");
        assert_eq!(d.changed[0].fields, ["expires_on", "seed"]);
        assert_eq!(d.edited[0].fields, ["owner"]);
        assert_eq!(d.unchanged, 1);
        let rules: Vec<(&str, &str)> = d
            .problems
            .iter()
            .map(|p| (p.rule.as_str(), p.test.as_deref().unwrap_or("")))
            .collect();
        assert_eq!(
            rules,
            [
                ("ticket-renewed", "a.py::renew"),
                ("ticket-changed", "a.py::reseed"),
                ("ticket-added", "a.py::new")
            ]
        );
        assert!(
            d.problems
                .iter()
                .all(|p| p.file.as_deref() == Some("head.json"))
        );
    }

    #[test]
    fn empty_base_adds_everything_and_duplicates_are_refused() {
        let head = ledger(&[("a.py::x", "1", "2026-03-01", "o")]);
        let d = diff(&Ledger::default(), "base", &head, "head").unwrap();
        assert_eq!(d.added, ["a.py::x"]);
        let dup = ledger(&[
            ("a.py::x", "1", "2026-03-01", "o"),
            ("a.py::x", "2", "2026-03-01", "o"),
        ]);
        let err = diff(&Ledger::default(), "base", &dup, "head").unwrap_err();
        assert!(
            err.to_string().contains("second ticket for a.py::x"),
            "{err}"
        );
    }
}
