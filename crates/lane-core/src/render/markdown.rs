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

/// `| severity | rule | where | message |` rows.
pub fn problem_table(problems: &[Problem]) -> String {
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

/// Escapes a table cell: pipes and newlines.
pub fn cell(s: &str) -> String {
    s.replace('|', "\\|").replace('\n', "<br>")
}
