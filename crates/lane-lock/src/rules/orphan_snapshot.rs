//! `orphan-snapshot`: a file in a snapshot library's layout beside a test module
//! (the scan's `snapshots`) that is no witness test's fixture (only with a scan).

use std::collections::BTreeSet;

use lane_core::detector::Detector;
use lane_core::{Problem, Rule};

use super::{Lock, LockFacts};

pub(crate) const DETECTOR: Detector<Lock> = Detector {
    rules: &[Rule::OrphanSnapshot],
    check,
};

fn check(facts: &LockFacts<'_>, problems: &mut Vec<Problem>) {
    let LockFacts::Verify(facts) = facts else {
        return;
    };
    let Some(fixtures) = &facts.fixtures else {
        return;
    };
    let used: BTreeSet<&str> = fixtures.iter().map(|f| f.path.as_str()).collect();
    problems.extend(
        facts
            .snapshots
            .iter()
            .filter(|s| !used.contains(s.as_str()))
            .map(|s| {
                Problem::new(
                    Rule::OrphanSnapshot,
                    format!("snapshot file {s} is used by no witness test"),
                )
                .file(s.clone())
            }),
    );
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::verify::{FixtureLock, VerifyFacts, WitnessFixture};

    /// What the detector finds in `facts`.
    fn detect(facts: &VerifyFacts) -> Vec<Problem> {
        let mut problems = Vec::new();
        check(&LockFacts::Verify(facts), &mut problems);
        problems
    }

    #[test]
    fn only_with_a_scan_and_only_unused_snapshots() {
        let mut facts = VerifyFacts {
            snapshots: vec![
                "tests/__snapshots__/test_a.ambr".into(),
                "tests/__snapshots__/test_gone.ambr".into(),
            ],
            ..VerifyFacts::default()
        };
        assert!(detect(&facts).is_empty(), "no scan, no orphans");
        facts.fixtures = Some(vec![WitnessFixture {
            test_id: "tests/test_a.py::test_a".into(),
            path: "tests/__snapshots__/test_a.ambr".into(),
            lock: FixtureLock::Locked,
        }]);
        let found = detect(&facts);
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].rule, Rule::OrphanSnapshot.id());
        assert_eq!(
            found[0].file.as_deref(),
            Some("tests/__snapshots__/test_gone.ambr")
        );
    }
}
