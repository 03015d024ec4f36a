//! `ack-for-another-commit`: an acknowledgment covers the commit a maintainer read, so its text
//! must name the head commit under judgment (its id, or a prefix of at least 12 hex digits);
//! one that does not is ignored, and this warning says so.

use lane_core::detector::Detector;
use lane_core::{Problem, Rule};

use super::{AckFacts, Gate, GateFacts};

pub(crate) const DETECTOR: Detector<Gate> = Detector {
    rules: &[Rule::AckForAnotherCommit],
    check,
};

/// The shortest prefix of a commit id an acknowledgment may name it by.
const PREFIX: usize = 12;

fn check(facts: &GateFacts<'_>, problems: &mut Vec<Problem>) {
    let GateFacts::Ack(AckFacts { text, head }) = facts else {
        return;
    };
    let what = match head {
        Some(h) if names_commit(text, h) => return,
        Some(h) => format!("HEAD {h}"),
        None => "no commit: the folder has no git HEAD".to_string(),
    };
    problems.push(Problem::new(
        Rule::AckForAnotherCommit,
        format!(
            "the acknowledgment '{text}' names no prefix of at least {PREFIX} hex digits of the \
             commit under judgment ({what}): ignored, the run votes as if none were given"
        ),
    ));
}

/// Whether `text` names `commit` (full lowercase hex): a run of hex digits in it, at least
/// [`PREFIX`] long, that starts the commit's id.
fn names_commit(text: &str, commit: &str) -> bool {
    text.split(|c: char| !c.is_ascii_hexdigit())
        .filter(|t| t.len() >= PREFIX && t.len() <= commit.len())
        .any(|t| commit.starts_with(&t.to_ascii_lowercase()))
}

#[cfg(test)]
mod tests {
    use super::*;

    const HEAD: &str = "0123456789abcdef0123456789abcdef01234567";

    fn ignored(text: &str, head: Option<&str>) -> Vec<Problem> {
        let facts = AckFacts {
            text: text.to_string(),
            head: head.map(str::to_string),
        };
        let mut problems = Vec::new();
        check(&GateFacts::Ack(&facts), &mut problems);
        problems
    }

    #[test]
    fn an_acknowledgment_names_its_commit_by_a_long_enough_prefix() {
        for yes in [
            "approved by @rosa at 0123456789abcdef0123456789abcdef01234567",
            "review of 0123456789AB by @rosa",
            "sha=0123456789abcdef;",
        ] {
            assert!(ignored(yes, Some(HEAD)).is_empty(), "{yes}");
        }
        for no in [
            "label lanes-ack by @maintainer",
            "approved 0123456789a (11 digits)",
            "approved at 1123456789abcdef",
            "approved at 0123456789abcdef0123456789abcdef0123456789",
        ] {
            let found = ignored(no, Some(HEAD));
            assert_eq!(found.len(), 1, "{no}");
            assert!(found[0].message.contains(&format!("HEAD {HEAD}")), "{no}");
        }
        let found = ignored(&format!("approved at {HEAD}"), None);
        assert!(found[0].message.contains("no git HEAD"), "{found:?}");
    }
}
