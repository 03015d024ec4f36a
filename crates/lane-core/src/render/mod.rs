//! Renderers for the non-JSON formats, one module each, and the stderr summary.

pub mod github;
pub mod markdown;
pub mod sarif;

use crate::problem::{Problem, Severity};

/// What to do about each rule among `problems`' errors, once per rule, in rule order: the
/// catalogue's fix, whether a maintainer's acknowledgment covers it, and where the whole
/// explanation is.
pub fn next_steps(problems: &[Problem]) -> Vec<(String, String)> {
    let mut rules: Vec<&str> = problems
        .iter()
        .filter(|p| p.severity == Severity::Error)
        .map(|p| p.rule.as_str())
        .collect();
    rules.sort_unstable();
    rules.dedup();
    rules
        .into_iter()
        .map(|id| {
            let Some(rule) = crate::rule::Rule::from_id(id) else {
                return (
                    id.to_string(),
                    "a rule this tool does not know.".to_string(),
                );
            };
            let ack = if rule.acknowledgeable() {
                " Acknowledgeable: a maintainer's `--ack TEXT` (from CI) turns it into a warning."
            } else {
                " Not acknowledgeable."
            };
            let text = format!("{}{ack} Why: `{} --explain {id}`.", rule.fix(), rule.tool());
            (id.to_string(), text)
        })
        .collect()
}

/// How many problems the human summary lists before it says how many more there are.
const HUMAN_SHOWN: usize = 25;

/// The short summary a terminal gets (`--format human`, the default when stdout is one):
/// `headline`, each problem on one line (the first [`HUMAN_SHOWN`]), the next step for each
/// rule with an error, and `last`: where the whole verdict is.
pub fn human(headline: &str, problems: &[Problem], last: &str) -> String {
    let mut out = format!("{headline}\n");
    for p in problems.iter().take(HUMAN_SHOWN) {
        out.push_str(&format!("  {}\n", one_line(p)));
    }
    if problems.len() > HUMAN_SHOWN {
        out.push_str(&format!(
            "  ... and {} more\n",
            problems.len() - HUMAN_SHOWN
        ));
    }
    let steps = next_steps(problems);
    if !steps.is_empty() {
        out.push_str("What to do next:\n");
        for (id, text) in steps {
            out.push_str(&format!("  {id}: {text}\n"));
        }
    }
    out.push_str(&format!("{last}\n"));
    out
}

/// `lane-lock: 2 errors, 1 warning`.
pub fn counts(tool: &str, problems: &[Problem]) -> String {
    let errors = problems
        .iter()
        .filter(|p| p.severity == Severity::Error)
        .count();
    let warnings = problems.len() - errors;
    format!(
        "{tool}: {errors} error{}, {warnings} warning{}",
        plural(errors),
        plural(warnings)
    )
}

/// `lane-lock: 2 errors, 1 warning` followed by one line per problem.
pub(crate) fn summary(tool: &str, problems: &[Problem]) -> String {
    let mut out = format!("{}\n", counts(tool, problems));
    for p in problems {
        out.push_str(&format!("  {}\n", one_line(p)));
    }
    out
}

/// `file:line: severity[rule] message (test)`.
pub(crate) fn one_line(p: &Problem) -> String {
    let mut out = String::new();
    if let Some(file) = &p.file {
        out.push_str(file);
        if let Some(line) = p.line {
            out.push_str(&format!(":{line}"));
        }
        out.push_str(": ");
    }
    out.push_str(&format!(
        "{}[{}] {}",
        p.severity.as_str(),
        p.rule,
        p.message
    ));
    if let Some(test) = &p.test
        && (p.file.is_none() || !p.message.contains(test.as_str()))
    {
        out.push_str(&format!(" ({test})"));
    }
    out
}

pub fn plural(n: usize) -> &'static str {
    if n == 1 { "" } else { "s" }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Rule;

    #[test]
    fn the_human_summary_lists_the_first_problems_and_one_next_step_per_rule() {
        let mut problems: Vec<Problem> = (1..=30)
            .map(|n| Problem::new(Rule::Unmarked, format!("test {n} has no lane")).at("t.py", n))
            .collect();
        problems.push(Problem::new(Rule::NoAssertion, "no assert").at("u.py", 1));
        let text = human(
            &counts("lane-scan", &problems),
            &problems,
            "more: --format json",
        );
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines[0], "lane-scan: 30 errors, 1 warning");
        assert_eq!(lines[1], "  t.py:1: error[unmarked] test 1 has no lane");
        assert_eq!(
            lines[HUMAN_SHOWN],
            "  t.py:25: error[unmarked] test 25 has no lane"
        );
        assert_eq!(lines[HUMAN_SHOWN + 1], "  ... and 6 more");
        assert_eq!(lines[HUMAN_SHOWN + 2], "What to do next:");
        // One step for the error rule; a warning has none.
        assert!(lines[HUMAN_SHOWN + 3].starts_with("  unmarked: "), "{text}");
        assert_eq!(lines[HUMAN_SHOWN + 4], "more: --format json");
        assert_eq!(lines.len(), HUMAN_SHOWN + 5);
    }
}
