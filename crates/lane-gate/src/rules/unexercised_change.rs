//! `unexercised-change`: a product statement the patch changed, or a branch from one, that no
//! voting test executed (DESIGN §9.6). Acknowledgeable: a maintainer who read the lines may
//! let them land.

use lane_core::detector::Detector;
use lane_core::{Problem, Rule};

use super::{Gate, GateFacts};

pub(crate) const DETECTOR: Detector<Gate> = Detector {
    rules: &[Rule::UnexercisedChange],
    check,
};

fn check(facts: &GateFacts<'_>, problems: &mut Vec<Problem>) {
    let GateFacts::Exercised(e) = facts else {
        return;
    };
    for (file, error) in &e.unreadable {
        problems.push(
            Problem::new(
                Rule::UnexercisedChange,
                format!(
                    "{file}: the gate cannot tell which of the changed lines the voters ran: \
                     the file does not parse ({error})"
                ),
            )
            .file(file),
        );
    }
    for u in &e.unexercised {
        let message = match u.branch {
            None => format!(
                "{}:{}: `{}` changed and no voting test ran it",
                u.file, u.line, u.text
            ),
            Some(to) if to < 0 => format!(
                "{}:{}: `{}` changed and no voting test took its way out of the enclosing \
                 function or class here",
                u.file, u.line, u.text
            ),
            Some(to) => format!(
                "{}:{}: `{}` changed and no voting test took its branch to line {to}",
                u.file, u.line, u.text
            ),
        };
        problems.push(Problem::new(Rule::UnexercisedChange, message).at(&u.file, u.line));
    }
}

/// The gate problems of a run's shards, as one run's: each shard traced only its own slice of
/// the voters, so a changed line is unexercised when every shard says so; every other problem
/// counts from any shard.
pub(crate) fn across_shards(shards: Vec<Vec<Problem>>) -> Vec<Problem> {
    let count = shards.len();
    let mut out = Vec::new();
    let mut unexercised: Vec<(Problem, usize)> = Vec::new();
    for p in shards.into_iter().flatten() {
        if p.rule != Rule::UnexercisedChange.id() {
            out.push(p);
            continue;
        }
        match unexercised.iter_mut().find(|(q, _)| *q == p) {
            Some((_, n)) => *n += 1,
            None => unexercised.push((p, 1)),
        }
    }
    out.extend(
        unexercised
            .into_iter()
            .filter(|&(_, n)| n == count)
            .map(|(p, _)| p),
    );
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::exercised::{ExercisedFacts, Unexercised};

    #[test]
    fn across_shards_only_what_every_shard_missed_stays() {
        let missed = |line| {
            Problem::new(Rule::UnexercisedChange, format!("core.py:{line}")).at("core.py", line)
        };
        let timeout = Problem::new(Rule::LaneTimeout, "merge killed");
        let got = across_shards(vec![
            vec![missed(3), missed(5), timeout.clone()],
            vec![missed(5), missed(7)],
        ]);
        assert_eq!(got, [timeout, missed(5)]);
    }

    #[test]
    fn each_statement_and_branch_is_named_at_its_line() {
        let at = |line, branch| Unexercised {
            file: "src/pkg/core.py".into(),
            line,
            text: "if n > 10:".into(),
            branch,
        };
        let facts = ExercisedFacts {
            unexercised: vec![at(4, None), at(7, Some(9)), at(7, Some(-3))],
            unreadable: vec![("pkg/bad.py".into(), "invalid syntax (line 2)".into())],
            ran: Vec::new(),
        };
        let mut problems = Vec::new();
        check(&GateFacts::Exercised(&facts), &mut problems);
        let got: Vec<(Option<&str>, Option<u64>, &str)> = problems
            .iter()
            .map(|p| (p.file.as_deref(), p.line, p.message.as_str()))
            .collect();
        assert_eq!(
            got,
            [
                (
                    Some("pkg/bad.py"),
                    None,
                    "pkg/bad.py: the gate cannot tell which of the changed lines the voters ran: \
                     the file does not parse (invalid syntax (line 2))"
                ),
                (
                    Some("src/pkg/core.py"),
                    Some(4),
                    "src/pkg/core.py:4: `if n > 10:` changed and no voting test ran it"
                ),
                (
                    Some("src/pkg/core.py"),
                    Some(7),
                    "src/pkg/core.py:7: `if n > 10:` changed and no voting test took its branch \
                     to line 9"
                ),
                (
                    Some("src/pkg/core.py"),
                    Some(7),
                    "src/pkg/core.py:7: `if n > 10:` changed and no voting test took its way out \
                     of the enclosing function or class here"
                ),
            ]
        );
    }
}
