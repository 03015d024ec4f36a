//! `unpinned-change`: a changed product statement the voters ran, but would not notice going
//! wrong (DESIGN §12). Acknowledgeable: a maintainer who read the line may let it land.
//!
//! A statement is unpinned when a mutant that takes part of it away survived (that part can go
//! and no voter notices), or when none of its mutants was killed; and, failing closed, when the
//! budget left some of its mutants unrun or a run could not judge one, and no survivor or kill
//! has decided it already.

use std::collections::BTreeMap;

use lane_core::detector::Detector;
use lane_core::render::markdown::cell;
use lane_core::{Problem, Rule};

use super::{Gate, GateFacts};
use crate::mutants::{Mutated, Outcome, Tried};

pub(crate) const DETECTOR: Detector<Gate> = Detector {
    rules: &[Rule::UnpinnedChange],
    check,
};

/// How many of the tests that ran a statement a message names.
const TESTS_SHOWN: usize = 3;

fn check(facts: &GateFacts<'_>, problems: &mut Vec<Problem>) {
    let GateFacts::Mutants(m) = facts else {
        return;
    };
    for s in &m.statements {
        if let Some(why) = unpinned(s, m.seconds) {
            problems.push(
                Problem::new(
                    Rule::UnpinnedChange,
                    format!("{}:{}: {why}; {}", s.file, s.line, ran_by(s)),
                )
                .at(&s.file, s.line),
            );
        }
    }
}

/// Why statement `s` is unpinned, or None when the voters pinned it. Its mutants are those
/// that take a part away, when it has any, else the others; the first that decides is shown.
fn unpinned(s: &Mutated, seconds: u64) -> Option<String> {
    let taking = s.tried.iter().any(|t| t.kind.takes_away());
    let survived = s.tried.iter().find(|t| t.outcome == Outcome::Survived);
    let killed = s.tried.iter().any(|t| t.outcome == Outcome::Killed);
    let decided = if taking {
        survived
    } else {
        survived.filter(|_| !killed)
    };
    let open: Vec<&Tried> = s
        .tried
        .iter()
        .filter(|t| matches!(t.outcome, Outcome::Unrun | Outcome::Undecided(_)))
        .collect();
    if let Some(t) = decided.filter(|_| taking || open.is_empty()) {
        return Some(format!(
            "no voting test fails if this line is wrong: `{}` -> `{}` ({}) survived every \
             voting test",
            t.before,
            t.after,
            t.kind.as_str()
        ));
    }
    // pinned: every mutant that takes a part away killed, or (without any) one mutant killed
    if (taking && open.is_empty()) || (!taking && killed) || s.tried.is_empty() {
        return None;
    }
    let mut why = Vec::new();
    let unrun = open.iter().filter(|t| t.outcome == Outcome::Unrun).count();
    if unrun > 0 {
        why.push(format!(
            "{unrun} of its mutants not run: the mutant budget ({seconds} s, [tool.lanes] \
             mutant-seconds) ran out"
        ));
    }
    for t in &open {
        if let Outcome::Undecided(reason) = &t.outcome {
            why.push(format!("`{}`: {reason}", t.after));
        }
    }
    Some(format!("`{}`: not judged: {}", s.text, why.join("; ")))
}

/// The markdown verdict's list of unpinned statements, grouped per file (a reviewer reads a
/// file's survivors together, in line order), or None when there are none. Each line is the
/// problem's message without its `file:line: ` prefix.
pub(crate) fn by_file(problems: &[Problem]) -> Option<String> {
    let mut files: BTreeMap<&str, Vec<(u64, &str)>> = BTreeMap::new();
    for p in problems
        .iter()
        .filter(|p| p.rule == Rule::UnpinnedChange.id())
    {
        let file = p.file.as_deref().unwrap_or("");
        let line = p.line.unwrap_or(0);
        let prefix = format!("{file}:{line}: ");
        let text = p.message.strip_prefix(&prefix).unwrap_or(&p.message);
        files.entry(file).or_default().push((line, text));
    }
    if files.is_empty() {
        return None;
    }
    let mut out = String::from("\nChanged lines no voting test would notice going wrong:\n");
    for (file, mut lines) in files {
        lines.sort();
        out.push_str(&format!("\n`{}`\n\n", cell(file)));
        for (line, text) in lines {
            out.push_str(&format!("- line {line}: {}\n", cell(text)));
        }
    }
    Some(out)
}

fn ran_by(s: &Mutated) -> String {
    let mut names: Vec<&str> = s
        .tests
        .iter()
        .take(TESTS_SHOWN)
        .map(String::as_str)
        .collect();
    let more = s.tests.len().saturating_sub(TESTS_SHOWN);
    let more = if more > 0 {
        format!(" and {more} more")
    } else {
        String::new()
    };
    if names.is_empty() {
        names.push("no voter by name (run at import)");
    }
    format!("seen run by {}{more}", names.join(", "))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mutants::MutantFacts;
    use lane_python::mutant::Kind;

    fn tried(kind: Kind, after: &str, outcome: Outcome) -> Tried {
        Tried {
            kind,
            before: "return applied + credit + extra".into(),
            after: after.into(),
            outcome,
        }
    }

    fn statement(tried: Vec<Tried>) -> Mutated {
        Mutated {
            file: "invoice.py".into(),
            line: 7,
            text: "return applied + credit + extra".into(),
            tests: vec!["tests/test_a.py::test_round_trip".into()],
            tried,
        }
    }

    fn messages(statements: Vec<Mutated>) -> Vec<String> {
        let facts = MutantFacts {
            off: false,
            statements,
            seconds: 60,
        };
        let mut problems = Vec::new();
        check(&GateFacts::Mutants(&facts), &mut problems);
        assert!(problems.iter().all(|p| p.line == Some(7) && p.is_error()));
        problems.into_iter().map(|p| p.message).collect()
    }

    #[test]
    fn a_surviving_mutant_that_takes_a_part_away_unpins_the_line() {
        use Outcome::{Killed, Skipped, Survived};
        let got = messages(vec![statement(vec![
            tried(Kind::DropOperand, "return applied + extra", Killed),
            tried(Kind::DropOperand, "return (applied + credit)", Survived),
            tried(Kind::ReturnArgument, "return credit", Skipped),
        ])]);
        assert_eq!(
            got,
            [
                "invoice.py:7: no voting test fails if this line is wrong: `return applied + \
              credit + extra` -> `return (applied + credit)` (operand dropped) survived every voting test; \
              seen run by tests/test_a.py::test_round_trip"
            ]
        );
        // every one of them killed: pinned
        let all_killed = vec![
            tried(Kind::DropOperand, "return applied + extra", Killed),
            tried(Kind::ReturnArgument, "return credit", Killed),
        ];
        assert!(messages(vec![statement(all_killed)]).is_empty());
        // a statement with no such mutant: one killed pins it, none killed does not
        let one = vec![
            tried(
                Kind::Arithmetic,
                "return applied - credit + extra",
                Survived,
            ),
            tried(Kind::Constant, "return applied + credit + 1", Killed),
        ];
        assert!(messages(vec![statement(one)]).is_empty());
        let none = vec![tried(
            Kind::Arithmetic,
            "return applied - credit + extra",
            Survived,
        )];
        let got = messages(vec![statement(none)]);
        assert!(got[0].contains("-> `return applied - credit + extra` (operator) survived every"));
    }

    #[test]
    fn the_markdown_groups_unpinned_lines_per_file_in_line_order() {
        let at = |file: &str, line: u64| {
            Problem::new(
                Rule::UnpinnedChange,
                format!("{file}:{line}: no voting test fails if this line is wrong: `a|b`"),
            )
            .at(file, line)
        };
        let mut other = at("b.py", 1);
        other.rule = "unexercised-change".into();
        assert_eq!(by_file(std::slice::from_ref(&other)), None);
        let md = by_file(&[at("b.py", 9), other, at("a.py", 30), at("b.py", 2)]).unwrap();
        assert_eq!(
            md,
            "\nChanged lines no voting test would notice going wrong:\n\n`a.py`\n\n\
             - line 30: no voting test fails if this line is wrong: `a\\|b`\n\n`b.py`\n\n\
             - line 2: no voting test fails if this line is wrong: `a\\|b`\n\
             - line 9: no voting test fails if this line is wrong: `a\\|b`\n"
        );
    }

    #[test]
    fn mutants_left_unrun_or_undecided_are_reported_not_passed() {
        use Outcome::{Killed, Undecided, Unrun};
        let got = messages(vec![statement(vec![
            tried(Kind::DropOperand, "return applied + extra", Killed),
            tried(Kind::DropOperand, "return (applied + credit)", Unrun),
            tried(Kind::ReturnArgument, "return credit", Unrun),
        ])]);
        assert_eq!(
            got,
            [
                "invoice.py:7: `return applied + credit + extra`: not judged: 2 of its mutants not \
              run: the mutant budget (60 s, [tool.lanes] mutant-seconds) ran out; seen run by \
              tests/test_a.py::test_round_trip"
            ]
        );
        let got = messages(vec![statement(vec![
            tried(Kind::DropOperand, "return applied + extra", Killed),
            tried(
                Kind::ReturnArgument,
                "return credit",
                Undecided("pytest selected none of the tests".into()),
            ),
        ])]);
        assert!(
            got[0].contains("not judged: `return credit`: pytest selected none"),
            "{got:?}"
        );
    }
}
