//! `orphan-lock`: a lock entry no witness test names in `fixture=` (only with a scan).

use std::collections::BTreeSet;

use lane_core::{Problem, Rule};

use crate::verify::VerifyFacts;

pub fn detect(facts: &VerifyFacts) -> Vec<Problem> {
    let Some(fixtures) = &facts.fixtures else {
        return Vec::new();
    };
    let named: BTreeSet<&str> = fixtures.iter().map(|f| f.path.as_str()).collect();
    facts
        .lock_entries
        .iter()
        .filter(|e| !named.contains(e.path.as_str()))
        .map(|e| {
            Problem::new(
                Rule::OrphanLock,
                format!(
                    "{} is locked in {} but no witness test names it in fixture=",
                    e.path, facts.lock_name
                ),
            )
            .file(e.path.clone())
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lock::Entry;
    use crate::verify::{FixtureLock, WitnessFixture};

    fn entry(path: &str) -> Entry {
        Entry {
            path: path.into(),
            sha256: "a".repeat(64),
            bytes: 1,
            locked_on: "2026-01-01".into(),
        }
    }

    #[test]
    fn only_with_a_scan_and_only_unnamed_entries() {
        let mut facts = VerifyFacts {
            lock_name: "lanes.lock".into(),
            lock_entries: vec![entry("named.txt"), entry("orphan.txt")],
            ..VerifyFacts::default()
        };
        assert!(detect(&facts).is_empty(), "no scan, no orphans");
        facts.fixtures = Some(vec![WitnessFixture {
            test_id: "t.py::t".into(),
            path: "named.txt".into(),
            lock: FixtureLock::Locked,
        }]);
        let found = detect(&facts);
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].file.as_deref(), Some("orphan.txt"));
        assert_eq!(
            found[0].message,
            "orphan.txt is locked in lanes.lock but no witness test names it in fixture="
        );
    }
}
