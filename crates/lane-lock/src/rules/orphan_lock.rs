//! `orphan-lock`: a lock entry no witness test names in `fixture=` (verify, only with a scan;
//! a warning), and in `lane-lock diff --base-scan` a HEAD entry that no witness test names
//! now but a witness test of the base did (an error).

use std::collections::{BTreeMap, BTreeSet};

use lane_core::detector::Detector;
use lane_core::scan::Lane;
use lane_core::{Problem, Rule, Severity};

use super::{Lock, LockFacts};
use crate::diff::DiffFacts;
use crate::verify::VerifyFacts;

pub(crate) const DETECTOR: Detector<Lock> = Detector {
    rules: &[Rule::OrphanLock],
    check,
};

fn check(facts: &LockFacts<'_>, problems: &mut Vec<Problem>) {
    match facts {
        LockFacts::Verify(facts) => problems.extend(detect(facts)),
        LockFacts::Diff(facts) => problems.extend(orphaned_by_the_change(facts)),
    }
}

/// `lane-lock verify`: an entry no witness test names.
fn detect(facts: &VerifyFacts) -> Vec<Problem> {
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

/// `lane-lock diff --base-scan`: a HEAD lock entry that no witness test names now, but a
/// witness test of the base did: an error, the change dropped the witness.
fn orphaned_by_the_change(facts: &DiffFacts<'_>) -> Vec<Problem> {
    let Some((base, head)) = facts.scans else {
        return Vec::new();
    };
    let named_now: BTreeSet<&str> = head
        .tests_in(Lane::Witness)
        .flat_map(|t| t.attachments.fixtures.iter().map(String::as_str))
        .collect();
    let mut named_before: BTreeMap<&str, &str> = BTreeMap::new();
    for t in base.tests_in(Lane::Witness) {
        for f in &t.attachments.fixtures {
            named_before.entry(f.as_str()).or_insert(t.id.as_str());
        }
    }
    facts
        .head_entries
        .iter()
        .filter(|e| !named_now.contains(e.path.as_str()))
        .filter_map(|e| {
            let test = named_before.get(e.path.as_str())?;
            Some(
                Problem::new(
                    Rule::OrphanLock,
                    format!(
                        "{} is still locked but no witness test names it; the base's witness \
                         test {test} did: the change dropped the witness and kept its bytes",
                        e.path
                    ),
                )
                .severity(Severity::Error)
                .file(e.path.clone()),
            )
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
