//! Markdown for PR comments and step summaries.

use crate::problem::{Problem, Severity};

/// A heading and a table of a section's problems.
pub fn section(tool: &str, section: &str, problems: &[Problem]) -> String {
    let errors = problems
        .iter()
        .filter(|p| p.severity == Severity::Error)
        .count();
    let warnings = problems.len() - errors;
    let mut out = format!("### {tool} (`{section}`)\n\n");
    if problems.is_empty() {
        out.push_str("No problems.\n");
        return out;
    }
    out.push_str(&format!(
        "{errors} error{}, {warnings} warning{}.\n\n",
        super::plural(errors),
        super::plural(warnings)
    ));
    out.push_str(&problem_table(problems));
    out
}

/// GitHub's limit on a pull-request comment is 65,536 characters; a comment is fitted to this
/// many bytes (never more characters than bytes), leaving room for a workflow's own lines.
pub const COMMENT_MAX_BYTES: usize = 65_000;

/// GitHub's limit on a step summary is 1 MiB; a summary is fitted to this many bytes.
pub const SUMMARY_MAX_BYTES: usize = 1_000_000;

/// One rule's problems by file, in the order given.
type RuleGroup<'a> = (&'a str, Severity, Vec<(&'a str, Vec<&'a Problem>)>);

/// At most this many problems are printed flat, one row each, in the order given: grouping a
/// handful of problems by rule and file adds a summary table and a heading per rule that say
/// less than the rows themselves. Beyond it they are grouped.
pub(crate) const FLAT_MAX_PROBLEMS: usize = 5;

/// The problems as a markdown table: flat (`| severity | rule | where | message |`, one row
/// each) for at most `FLAT_MAX_PROBLEMS`, grouped by rule and file with counts beyond.
pub fn problem_table(problems: &[Problem]) -> String {
    if problems.len() <= FLAT_MAX_PROBLEMS {
        flat_table(problems)
    } else {
        grouped_table(problems)
    }
}

/// `| severity | rule | where | message |` rows, in the order given.
fn flat_table(problems: &[Problem]) -> String {
    let mut out = String::from("| severity | rule | where | message |\n|---|---|---|---|\n");
    for p in problems {
        let mut place = String::new();
        if let Some(file) = &p.file {
            place.push_str(file);
            if let Some(line) = p.line {
                place.push_str(&format!(":{line}"));
            }
        }
        if let Some(test) = &p.test {
            if !place.is_empty() {
                place.push_str("<br>");
            }
            place.push_str(&format!("`{test}`"));
        }
        out.push_str(&format!(
            "| {} | `{}` | {} | {} |\n",
            p.severity.as_str(),
            p.rule,
            cell(&place),
            cell(&p.message)
        ));
    }
    out
}

/// Problems grouped by rule (errors first, then by rule id) and, within a rule, by file, with
/// counts: a table of every rule with its number of problems and files, then one
/// table per rule whose rows are each file (with its count) followed by its problems.
fn grouped_table(problems: &[Problem]) -> String {
    // rule -> file -> problems, in the order given.
    let mut rules: Vec<RuleGroup<'_>> = Vec::new();
    for p in problems {
        let i = match rules
            .iter()
            .position(|(r, sev, _)| *r == p.rule && *sev == p.severity)
        {
            Some(i) => i,
            None => {
                rules.push((p.rule.as_str(), p.severity, Vec::new()));
                rules.len() - 1
            }
        };
        let files = &mut rules[i].2;
        let file = p.file.as_deref().unwrap_or("");
        match files.iter_mut().find(|(f, _)| *f == file) {
            Some((_, list)) => list.push(p),
            None => files.push((file, vec![p])),
        }
    }
    rules.sort_by(|a, b| {
        let rank = |s: Severity| usize::from(s != Severity::Error);
        rank(a.1).cmp(&rank(b.1)).then(a.0.cmp(b.0))
    });
    let mut out = String::from("| rule | severity | problems | files |\n|---|---|---:|---:|\n");
    for (rule, severity, files) in &rules {
        let n: usize = files.iter().map(|(_, l)| l.len()).sum();
        let named = files.iter().filter(|(f, _)| !f.is_empty()).count();
        out.push_str(&format!(
            "| `{rule}` | {} | {n} | {named} |\n",
            severity.as_str()
        ));
    }
    for (rule, severity, files) in &mut rules {
        files.sort_by(|a, b| a.0.cmp(b.0));
        let n: usize = files.iter().map(|(_, l)| l.len()).sum();
        let named = files.iter().filter(|(f, _)| !f.is_empty()).count();
        out.push_str(&format!(
            "\n**`{rule}`** ({}): {n} problem{} in {named} file{}\n\n| where | message |\n|---|---|\n",
            severity.as_str(),
            super::plural(n),
            super::plural(named)
        ));
        for (file, list) in files.iter() {
            let name = if file.is_empty() { "(no file)" } else { file };
            out.push_str(&format!("| **{}** ({}) | |\n", cell(name), list.len()));
            for p in list {
                let mut place = String::new();
                if let Some(line) = p.line {
                    place.push_str(&format!("line {line}"));
                }
                if let Some(test) = &p.test {
                    if !place.is_empty() {
                        place.push_str("<br>");
                    }
                    place.push_str(&format!("`{test}`"));
                }
                out.push_str(&format!("| {} | {} |\n", cell(&place), cell(&p.message)));
            }
        }
    }
    out
}

/// `text` cut at a line boundary so that, with a closing line saying what was left out and
/// where the rest is (`rest`: e.g. "the JSON evidence"), it holds at most `max_bytes` bytes;
/// `text` itself when it fits. Deterministic: the same text and limit give the same bytes.
pub fn fit(text: &str, max_bytes: usize, rest: &str) -> String {
    if text.len() <= max_bytes {
        return text.to_string();
    }
    let total_lines = text.lines().count();
    let note = |shown: usize| {
        format!(
            "\n**Cut to stay within GitHub's size limit ({max_bytes} bytes): {} of {total_lines} \
             lines are not shown here; every problem is in {rest}.**\n",
            total_lines - shown
        )
    };
    // The note's length depends on the count only by a few digits: reserve its longest form.
    let budget = max_bytes.saturating_sub(note(0).len());
    let mut end = 0;
    let mut shown = 0;
    for (i, _) in text.match_indices('\n') {
        if i + 1 > budget {
            break;
        }
        end = i + 1;
        shown += 1;
    }
    let mut out = text[..end].to_string();
    out.push_str(&note(shown));
    out
}

/// Escapes a table cell: pipes and newlines.
pub fn cell(s: &str) -> String {
    s.replace('|', "\\|").replace('\n', "<br>")
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::rule::Rule;

    #[test]
    fn grouped_by_rule_then_file_with_counts() {
        let problems = vec![
            Problem::new(Rule::NoAssertion, "w").at("b.py", 2),
            Problem::new(Rule::Unmarked, "u2")
                .at("b.py", 9)
                .test("b.py::t"),
            Problem::new(Rule::Unmarked, "u1").at("a.py", 1),
            Problem::new(Rule::Unmarked, "u3").at("b.py", 3),
            Problem::new(Rule::EmptyMergeLane, "none | at all"),
            Problem::new(Rule::NoAssertion, "w2").at("c.py", 4),
        ];
        let text = problem_table(&problems);
        assert_eq!(problems.len(), FLAT_MAX_PROBLEMS + 1);
        assert_eq!(
            text,
            "| rule | severity | problems | files |\n|---|---|---:|---:|\n\
             | `empty-merge-lane` | error | 1 | 0 |\n\
             | `unmarked` | error | 3 | 2 |\n\
             | `no-assertion` | warning | 2 | 2 |\n\
             \n**`empty-merge-lane`** (error): 1 problem in 0 files\n\n| where | message |\n|---|---|\n\
             | **(no file)** (1) | |\n|  | none \\| at all |\n\
             \n**`unmarked`** (error): 3 problems in 2 files\n\n| where | message |\n|---|---|\n\
             | **a.py** (1) | |\n| line 1 | u1 |\n\
             | **b.py** (2) | |\n| line 9<br>`b.py::t` | u2 |\n| line 3 | u3 |\n\
             \n**`no-assertion`** (warning): 2 problems in 2 files\n\n| where | message |\n|---|---|\n\
             | **b.py** (1) | |\n| line 2 | w |\n\
             | **c.py** (1) | |\n| line 4 | w2 |\n"
        );
    }

    #[test]
    fn a_few_problems_are_flat_in_the_order_given() {
        let problems = vec![
            Problem::new(Rule::NoAssertion, "w").at("b.py", 2),
            Problem::new(Rule::Unmarked, "u | 1")
                .at("a.py", 9)
                .test("a.py::t"),
            Problem::new(Rule::EmptyMergeLane, "none"),
        ];
        assert_eq!(
            problem_table(&problems),
            "| severity | rule | where | message |\n|---|---|---|---|\n\
             | warning | `no-assertion` | b.py:2 | w |\n\
             | error | `unmarked` | a.py:9<br>`a.py::t` | u \\| 1 |\n\
             | error | `empty-merge-lane` |  | none |\n"
        );
        let five: Vec<Problem> = (0..FLAT_MAX_PROBLEMS)
            .map(|i| Problem::new(Rule::Unmarked, "u").at("a.py", i as u64))
            .collect();
        assert!(problem_table(&five).starts_with("| severity | rule |"));
        let six: Vec<Problem> = (0..=FLAT_MAX_PROBLEMS)
            .map(|i| Problem::new(Rule::Unmarked, "u").at("a.py", i as u64))
            .collect();
        assert!(problem_table(&six).starts_with("| rule | severity | problems | files |"));
    }

    #[test]
    fn fitting_cuts_at_a_line_and_says_where_the_rest_is() {
        let text: String = (0..1000).map(|i| format!("| row {i} |\n")).collect();
        assert_eq!(fit(&text, text.len(), "x"), text);
        let cut = fit(&text, 2000, "the JSON evidence (verdict.json)");
        assert!(cut.len() <= 2000, "{}", cut.len());
        assert!(cut.starts_with("| row 0 |\n"));
        let kept = cut.lines().filter(|l| l.starts_with("| row")).count();
        assert!(kept > 100, "{kept}");
        assert!(cut.ends_with(&format!(
            "{} of 1000 lines are not shown here; every problem is in the JSON evidence \
             (verdict.json).**\n",
            1000 - kept
        )));
        assert_eq!(fit(&text, 2000, "the JSON evidence (verdict.json)"), cut);
    }
}
