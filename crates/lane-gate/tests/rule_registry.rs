//! The rule registry: every catalogue rule is reported by exactly one detector in each tool that
//! reports it, the tool whose section carries it among them, and the problems of a registered
//! rule are built in its rule file and nowhere else (ruff's layout: a rule's id, decision and
//! message in one file, one line in one table).
//!
//! Rules whose decision has not moved into a rule file of its own yet are listed in
//! `NOT_YET_MOVED`; that list may only shrink. A rule on it has no detector; once one registers
//! it, the first test asks for its line to go.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use lane_core::Rule;
use lane_core::detector::Registered;

const NOT_YET_MOVED: &[&str] = &[
    "fix-markers",
    "fix-property",
    "fix-snapshot",
    "fix-freeze-candidate",
    "fix-merge",
    "fix-owner",
];

/// Source files that name rules as data (the catalogue, the lane-rights table the detectors
/// consult, the renderers that list the catalogue): they may name a registered rule without
/// being its rule file. Each has a reason; the list stays short.
const RULE_DATA: &[(&str, &str)] = &[
    ("crates/lane-core/src/rule.rs", "the catalogue itself"),
    (
        "crates/lane-core/src/detector.rs",
        "the detector type's example",
    ),
    (
        "crates/lane-core/src/rights.rs",
        "the lane-rights table: the rule each lane's run-time verdicts report",
    ),
    (
        "crates/lane-tally/src/rules/domain_changed.rs",
        "domain-changed asks whether a base property had no assertion: it reads the scan's \
         no-assertion problems, it does not make them",
    ),
    (
        "crates/freeze-ledger/src/ticket_status.rs",
        "the status each rule about a ledger row gives its ticket",
    ),
];

/// Each tool's detector table.
fn tables() -> Vec<(&'static str, Vec<Registered>)> {
    vec![
        ("lane-scan", lane_scan::registry()),
        ("lane-lock", lane_lock::registry()),
        ("freeze-ledger", freeze_ledger::registry()),
        ("lane-tally", lane_tally::registry()),
        ("lane-gate", lane_gate::registry()),
    ]
}

/// The workspace's root (file!() paths in the tables are relative to it).
fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Per rule, the (tool, rule file) of each detector that declares it.
fn holders() -> BTreeMap<Rule, Vec<(&'static str, &'static str)>> {
    let mut by_rule: BTreeMap<Rule, Vec<(&'static str, &'static str)>> = BTreeMap::new();
    for (tool, table) in tables() {
        for registered in table {
            assert!(
                !registered.rules.is_empty(),
                "{tool}: the detector in {} declares no rule",
                registered.file
            );
            for rule in registered.rules {
                by_rule
                    .entry(*rule)
                    .or_default()
                    .push((tool, registered.file));
            }
        }
    }
    by_rule
}

#[test]
fn every_rule_has_one_detector_in_each_tool_that_reports_it() {
    let holders = holders();
    for id in NOT_YET_MOVED {
        assert!(
            Rule::from_id(id).is_some(),
            "NOT_YET_MOVED names '{id}', no catalogue rule"
        );
    }
    for rule in Rule::ALL {
        let found = holders.get(rule).map(Vec::as_slice).unwrap_or_default();
        if NOT_YET_MOVED.contains(&rule.id()) {
            assert!(
                found.is_empty(),
                "{rule} is registered by {found:?}: take it off NOT_YET_MOVED"
            );
            continue;
        }
        assert!(
            found.iter().any(|(tool, _)| *tool == rule.tool()),
            "{rule} is carried by {}'s section but no detector of {} declares it (found: {found:?})",
            rule.tool(),
            rule.tool()
        );
        for (tool, _) in found {
            let n = found.iter().filter(|(t, _)| t == tool).count();
            assert_eq!(n, 1, "{rule} has {n} detectors in {tool}: {found:?}");
        }
    }
}

#[test]
fn every_registered_rule_file_exists_and_lives_in_its_tool() {
    for (tool, table) in tables() {
        for registered in table {
            let path = workspace().join(registered.file);
            assert!(path.is_file(), "{tool}: {} is not a file", registered.file);
            assert!(
                registered.file.starts_with("crates/"),
                "{tool}: {} is not a workspace path",
                registered.file
            );
        }
    }
}

/// The production part of a source file: up to its test module.
fn production(text: &str) -> &str {
    match text.find("\n#[cfg(test)]") {
        Some(at) => &text[..at],
        None => text,
    }
}

fn rust_files(dir: &Path, into: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<PathBuf> = entries.flatten().map(|e| e.path()).collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            rust_files(&path, into);
        } else if path.extension().is_some_and(|e| e == "rs") {
            into.push(path);
        }
    }
}

/// Whether `text` names `Rule::<variant>` as a whole token.
fn names_variant(text: &str, variant: &str) -> bool {
    let needle = format!("Rule::{variant}");
    text.match_indices(&needle).any(|(at, _)| {
        let after = text[at + needle.len()..].chars().next();
        !after.is_some_and(|c| c.is_ascii_alphanumeric() || c == '_')
    })
}

#[test]
fn a_registered_rule_is_named_only_in_its_rule_files() {
    let holders = holders();
    let root = workspace();
    let mut files = Vec::new();
    for krate in std::fs::read_dir(root.join("crates"))
        .into_iter()
        .flatten()
        .flatten()
    {
        rust_files(&krate.path().join("src"), &mut files);
    }
    assert!(!files.is_empty(), "no sources under {}", root.display());
    let mut stray = Vec::new();
    for path in &files {
        let rel = path
            .strip_prefix(&root)
            .map(|p| p.to_string_lossy().replace('\\', "/"))
            .unwrap_or_default();
        if RULE_DATA.iter().any(|(f, _)| *f == rel) {
            continue;
        }
        let text = std::fs::read_to_string(path).unwrap_or_default();
        let text = production(&text);
        for (rule, found) in &holders {
            if found.iter().any(|(_, f)| *f == rel) {
                continue;
            }
            if names_variant(text, &format!("{rule:?}")) {
                stray.push(format!(
                    "{rel} names Rule::{rule:?} ({rule}), whose rule file is {found:?}"
                ));
            }
        }
    }
    assert!(
        stray.is_empty(),
        "decisions outside their rule files:\n{}",
        stray.join("\n")
    );
}
