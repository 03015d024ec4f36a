//! `unsafe-path`: a path verify refuses to open (absolute, climbing out of the root, or
//! through a symlink that leaves it) — a sidecar, a locked path, or an unlocked witness
//! fixture. Such a path is never read.

use lane_core::detector::Detector;
use lane_core::{Problem, Rule};

use super::{Lock, LockFacts};
use crate::verify::{Claim, FixtureLock, Reading};

pub(crate) const DETECTOR: Detector<Lock> = Detector {
    rules: &[Rule::UnsafePath],
    check,
};

fn check(facts: &LockFacts<'_>, problems: &mut Vec<Problem>) {
    let LockFacts::Verify(facts) = facts else {
        return;
    };
    let sidecars = facts.unread_sidecars.iter().map(|(rel, why)| {
        Problem::new(
            Rule::UnsafePath,
            format!("sidecar {rel} {why}; it is never read"),
        )
        .file(rel.clone())
    });
    let claims = facts
        .claims_read()
        .filter_map(|(c, reading)| match reading {
            Reading::Unsafe(why) => Some(unsafe_claim(c, why)),
            _ => None,
        });
    let fixtures = facts
        .fixtures
        .iter()
        .flatten()
        .filter_map(|f| match &f.lock {
            FixtureLock::Unsafe(why) => Some(
                Problem::new(
                    Rule::UnsafePath,
                    format!("witness fixture '{}' {why}; it is never read", f.path),
                )
                .test(f.test_id.clone()),
            ),
            _ => None,
        });
    problems.extend(sidecars.chain(claims).chain(fixtures));
}

/// A claimed path that is never read, placed at the lock or sidecar line that claims it.
fn unsafe_claim(c: &Claim, why: &str) -> Problem {
    let mut p = Problem::new(
        Rule::UnsafePath,
        format!(
            "locked path '{}' ({}) {why}; it is never read",
            c.path, c.source
        ),
    );
    if let Some(origin) = &c.origin {
        p = p.file(origin.clone());
        if let Some(line) = c.line {
            p = p.line(line);
        }
    }
    p
}
