//! `unlocked-fixture`: a witness fixture the scan names that neither the lock nor a sidecar
//! locks.

use lane_core::detector::Detector;
use lane_core::{Problem, Rule};

use super::{Lock, LockFacts};
use crate::verify::FixtureLock;

pub(crate) const DETECTOR: Detector<Lock> = Detector {
    rules: &[Rule::UnlockedFixture],
    check,
};

fn check(facts: &LockFacts<'_>, problems: &mut Vec<Problem>) {
    let LockFacts::Verify(facts) = facts else {
        return;
    };
    problems.extend(
        facts
            .fixtures
            .iter()
            .flatten()
            .filter(|f| f.lock == FixtureLock::Unlocked)
            .map(|f| {
                Problem::new(
                    Rule::UnlockedFixture,
                    format!(
                        "witness fixture {} has no entry in {} nor a .sha256 sidecar",
                        f.path, facts.lock_name
                    ),
                )
                .file(f.path.clone())
                .test(f.test_id.clone())
            }),
    );
}
