//! Acknowledgment: a text from outside the patch (`--ack`, `LANES_ACK`, set by CI from
//! something only a maintainer can do) that covers every rule flagging a change for human
//! review rather than a broken invariant. Acknowledged problems stay listed, as warnings
//! carrying the text.

use std::path::Path;

use lane_core::{Document, Problem, Severity};
use lane_tally::{Decision, TallySection};

use crate::GateError;
use crate::rules::{AckFacts, GateFacts};

/// Whether an acknowledgment covers `rule`: the catalogue's flag (DESIGN.md §9.3). Ids the
/// catalogue does not know are never acknowledgeable.
pub(crate) fn is_acknowledgeable(rule: &str) -> bool {
    lane_core::rule::Rule::from_id(rule).is_some_and(|r| r.acknowledgeable())
}

/// Turns the acknowledgeable errors of `problems` into warnings that carry `text`; returns
/// how many.
pub(crate) fn acknowledge(problems: &mut [Problem], text: &str) -> usize {
    let mut n = 0;
    for p in problems.iter_mut() {
        if p.is_error() && is_acknowledgeable(&p.rule) {
            p.severity = Severity::Warning;
            p.message = format!("{} (acknowledged: {text})", p.message);
            n += 1;
        }
    }
    n
}

/// [`acknowledge`] over every section of `doc` that carries problems, except the tally's.
pub(crate) fn acknowledge_document(doc: &mut Document, text: &str) -> Result<usize, GateError> {
    let mut n = 0;
    for (name, mut problems) in doc.all_problems("<evidence document>")? {
        if name == "tally" {
            continue;
        }
        let changed = acknowledge(&mut problems, text);
        if changed == 0 {
            continue;
        }
        n += changed;
        crate::section::set_problems(doc, &name, &problems)?;
    }
    Ok(n)
}

/// The tally's own acknowledgeable errors as warnings, and the decision taken again.
pub(crate) fn acknowledge_tally(section: &mut TallySection, text: &str) {
    acknowledge(&mut section.problems, text);
    section
        .reasons
        .retain(|p| !(p.is_error() && is_acknowledgeable(&p.rule)));
    if section.reasons.is_empty() {
        section.decision = Decision::Approve;
    }
}

/// The acknowledgment, when it names the head commit of the checkout at `cwd`
/// (`ack-for-another-commit` decides); otherwise none, and the warning that says it was ignored
/// (the run votes as if none were given).
pub(crate) fn for_head(ack: Option<String>, cwd: &Path) -> (Option<String>, Option<Problem>) {
    let Some(text) = ack else {
        return (None, None);
    };
    let head = crate::git::run(cwd, &["rev-parse", "--verify", "--quiet", "HEAD^{commit}"])
        .ok()
        .map(|out| String::from_utf8_lossy(&out).trim().to_ascii_lowercase())
        .filter(|h| !h.is_empty());
    let facts = AckFacts { text, head };
    match crate::rules::check(&GateFacts::Ack(&facts))
        .into_iter()
        .next()
    {
        None => (Some(facts.text), None),
        Some(problem) => {
            eprintln!("lane-gate: warning: {}", problem.message);
            (None, Some(problem))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use lane_core::Rule;

    #[test]
    fn only_review_rules_are_acknowledged() {
        let mut problems = vec![
            Problem::new(Rule::TestSurfaceChanged, "tests/test_a.py changed"),
            Problem::new(Rule::LockEntryMoved, "moved"),
            Problem::new(Rule::TicketRenewed, "renewed"),
            Problem::new(Rule::MergeFailed, "failed"),
            Problem::new(Rule::UnconditionalSkip, "skip"),
            Problem::new(Rule::ExpiredTicket, "expired"),
        ];
        assert_eq!(
            acknowledge(&mut problems, "label lanes-ack by @maintainer"),
            3
        );
        let severities: Vec<Severity> = problems.iter().map(|p| p.severity).collect();
        assert_eq!(
            severities,
            [
                Severity::Warning,
                Severity::Warning,
                Severity::Warning,
                Severity::Error,
                Severity::Error,
                Severity::Error
            ]
        );
        assert!(
            problems[0]
                .message
                .ends_with("(acknowledged: label lanes-ack by @maintainer)")
        );
        assert_eq!(problems[3].message, "failed");
    }
}
