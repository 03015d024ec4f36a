//! `lock-batched-with-behavior`: the change edits the lock (moves, adds or removes entries,
//! or touches `.sha256` sidecars) and also changes other files (`--changed`), with no
//! `--reason` for the new bytes.

use lane_core::detector::Detector;
use lane_core::render::plural;
use lane_core::{Problem, Rule};

use super::{Lock, LockFacts};

/// How many behaviour paths the message names.
const NAMED_PATHS: usize = 5;

pub(crate) const DETECTOR: Detector<Lock> = Detector {
    rules: &[Rule::LockBatchedWithBehavior],
    check,
};

fn check(facts: &LockFacts<'_>, problems: &mut Vec<Problem>) {
    let LockFacts::Diff(facts) = facts else {
        return;
    };
    let Some(behavior) = facts.behavior_changes else {
        return;
    };
    let counts = [
        (facts.moved.len(), "moves", "locked digest"),
        (facts.added.len(), "adds", "lock entry"),
        (facts.removed.len(), "removes", "lock entry"),
        (facts.sidecars.len(), "edits", "sidecar"),
    ];
    let edits: Vec<String> = counts
        .iter()
        .filter(|(n, _, _)| *n > 0)
        .map(|(n, verb, what)| {
            let what = match (*n, *what) {
                (1, w) => w.to_string(),
                (_, "lock entry") => "lock entries".to_string(),
                (_, w) => format!("{w}s"),
            };
            format!("{verb} {n} {what}")
        })
        .collect();
    if edits.is_empty() || behavior.is_empty() || facts.reason.is_some() {
        return;
    }
    let mut named: Vec<&str> = behavior
        .iter()
        .take(NAMED_PATHS)
        .map(String::as_str)
        .collect();
    if behavior.len() > NAMED_PATHS {
        named.push("...");
    }
    problems.push(Problem::new(
        Rule::LockBatchedWithBehavior,
        format!(
            "this change {} and also changes {} other file{} ({}): split the lock edit into \
             its own change or pass --reason",
            edits.join(", "),
            behavior.len(),
            plural(behavior.len()),
            named.join(", ")
        ),
    ));
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diff::{DiffFacts, Moved};

    /// What the detector finds in `facts`.
    fn detect(facts: &DiffFacts<'_>) -> Vec<Problem> {
        let mut problems = Vec::new();
        check(&LockFacts::Diff(facts), &mut problems);
        problems
    }

    fn moved() -> Moved {
        Moved {
            path: "fx.txt".into(),
            base_sha256: "a".repeat(64),
            base_bytes: 1,
            head_sha256: "b".repeat(64),
            head_bytes: 1,
        }
    }

    #[test]
    fn needs_moved_digests_other_changes_and_no_reason() {
        let moved = [moved()];
        let paths: Vec<String> = (1..=6).map(|i| format!("m{i}.py")).collect();
        let facts = DiffFacts {
            moved: &moved,
            removed: &[],
            added: &[],
            sidecars: &[],
            head_entries: &[],
            scans: None,
            behavior_changes: Some(&paths),
            reason: None,
        };
        let found = detect(&facts);
        assert_eq!(found.len(), 1);
        assert!(
            found[0].message.contains(
                "moves 1 locked digest and also changes 6 other files \
                 (m1.py, m2.py, m3.py, m4.py, m5.py, ...)"
            ),
            "{}",
            found[0].message
        );
        let lifted = [
            DiffFacts {
                reason: Some("regenerated"),
                ..facts
            },
            DiffFacts {
                behavior_changes: None,
                ..facts
            },
            DiffFacts {
                behavior_changes: Some(&[]),
                ..facts
            },
            DiffFacts {
                moved: &[],
                ..facts
            },
        ];
        for f in lifted {
            assert!(detect(&f).is_empty(), "{f:?}");
        }
    }
}
