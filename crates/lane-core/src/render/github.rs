//! GitHub Actions workflow commands: `::error file=F,line=L,title=RULE::MESSAGE`.

use std::collections::BTreeMap;

use crate::problem::{Problem, Severity};

/// GitHub shows at most this many error and this many warning annotations of a step.
pub(crate) const MAX_PER_LEVEL: usize = 10;

/// One annotation per problem, in order, at most `MAX_PER_LEVEL` of each level: beyond that
/// the first `MAX_PER_LEVEL - 1` are shown and one annotation of that level sums up the rest
/// by rule, so nothing is dropped without a word.
pub fn annotations(problems: &[Problem]) -> String {
    let total = |level: Severity| problems.iter().filter(|p| p.severity == level).count();
    let room = |level: Severity| {
        if total(level) > MAX_PER_LEVEL {
            MAX_PER_LEVEL - 1
        } else {
            MAX_PER_LEVEL
        }
    };
    let rooms = [room(Severity::Error), room(Severity::Warning)];
    let mut shown = [0usize; 2];
    let mut rest: [BTreeMap<&str, usize>; 2] = Default::default();
    let mut out = String::new();
    for p in problems {
        let i = usize::from(p.severity == Severity::Warning);
        if shown[i] < rooms[i] {
            shown[i] += 1;
            out.push_str(&annotation(p));
            out.push('\n');
        } else {
            *rest[i].entry(p.rule.as_str()).or_default() += 1;
        }
    }
    for (i, level) in ["error", "warning"].into_iter().enumerate() {
        if rest[i].is_empty() {
            continue;
        }
        let n: usize = rest[i].values().sum();
        let mut by_rule: Vec<(&str, usize)> = rest[i].iter().map(|(r, c)| (*r, *c)).collect();
        by_rule.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
        let rules: Vec<String> = by_rule.iter().map(|(r, c)| format!("{r} x{c}")).collect();
        let title = format!("lanes: {n} more {level}{}", super::plural(n));
        let message = format!(
            "{n} more {level}{} than GitHub shows as annotations: {}. Every problem is in the \
             markdown summary and the JSON evidence.",
            super::plural(n),
            rules.join(", ")
        );
        out.push_str(&format!(
            "::{level} title={}::{}\n",
            escape_property(&title),
            escape_data(&message)
        ));
    }
    out
}

pub(crate) fn annotation(p: &Problem) -> String {
    let level = match p.severity {
        Severity::Error => "error",
        Severity::Warning => "warning",
    };
    let mut props = Vec::new();
    if let Some(file) = &p.file {
        props.push(format!("file={}", escape_property(file)));
        if let Some(line) = p.line {
            props.push(format!("line={line}"));
        }
    }
    props.push(format!("title={}", escape_property(&p.rule)));
    let mut message = p.message.clone();
    if let Some(test) = &p.test
        && !message.contains(test.as_str())
    {
        message.push_str(&format!(" ({test})"));
    }
    format!("::{level} {}::{}", props.join(","), escape_data(&message))
}

/// Workflow-command data escaping: `%`, CR and LF.
fn escape_data(s: &str) -> String {
    s.replace('%', "%25")
        .replace('\r', "%0D")
        .replace('\n', "%0A")
}

/// Property escaping additionally covers `:` and `,`.
fn escape_property(s: &str) -> String {
    escape_data(s).replace(':', "%3A").replace(',', "%2C")
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::rule::Rule;

    fn problems(errors: usize, warnings: usize) -> Vec<Problem> {
        let mut out = Vec::new();
        for i in 0..errors {
            let rule = if i % 3 == 0 {
                Rule::Unmarked
            } else {
                Rule::MergeFailed
            };
            out.push(Problem::new(rule, format!("e{i}")).at("t.py", i as u64 + 1));
        }
        for i in 0..warnings {
            out.push(Problem::new(Rule::NoAssertion, format!("w{i}")).at("t.py", i as u64 + 1));
        }
        out
    }

    #[test]
    fn at_most_ten_of_each_level_the_rest_summed_up_by_rule() {
        let text = annotations(&problems(10, 10));
        assert_eq!(text.lines().count(), 20, "ten of each fit: no summary");
        assert!(!text.contains("more"), "{text}");
        let text = annotations(&problems(25, 11));
        let errors: Vec<&str> = text.lines().filter(|l| l.starts_with("::error")).collect();
        let warnings: Vec<&str> = text
            .lines()
            .filter(|l| l.starts_with("::warning"))
            .collect();
        assert_eq!((errors.len(), warnings.len()), (10, 10));
        // e0..e8 shown; e9..e24 summed: unmarked at i = 9, 12, 15, 18, 21, 24, the rest merge-failed
        assert_eq!(
            errors[9],
            "::error title=lanes%3A 16 more errors::16 more errors than GitHub shows as \
             annotations: merge-failed x10, unmarked x6. Every problem is in the markdown \
             summary and the JSON evidence."
        );
        assert!(errors[8].ends_with("::e8"), "{}", errors[8]);
        assert!(warnings[9].contains("2 more warnings") && warnings[9].contains("no-assertion x2"));
        assert_eq!(annotations(&problems(25, 11)), text, "deterministic");
    }

    #[test]
    fn escapes_and_locates() {
        let p = Problem::new(Rule::DigestMoved, "50% moved\nnow")
            .at("tests/a,b:c.txt", 3)
            .test("tests/test_a.py::test_x");
        assert_eq!(
            annotation(&p),
            "::error file=tests/a%2Cb%3Ac.txt,line=3,title=digest-moved::50%25 moved%0Anow (tests/test_a.py::test_x)"
        );
    }
}
