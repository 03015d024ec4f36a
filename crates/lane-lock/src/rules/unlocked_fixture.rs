//! `unlocked-fixture`: a witness fixture the scan names that neither the lock nor a sidecar
//! locks.

use lane_core::{Problem, Rule};

use crate::verify::{FixtureLock, VerifyFacts};

pub fn detect(facts: &VerifyFacts) -> Vec<Problem> {
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
        })
        .collect()
}
