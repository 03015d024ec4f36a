//! Renderers for the non-JSON formats, one module each, and the stderr summary.

pub mod github;
pub mod markdown;
pub mod sarif;

use crate::problem::{Problem, Severity};

/// `lane-lock: 2 errors, 1 warning` followed by one line per problem.
pub(crate) fn summary(tool: &str, problems: &[Problem]) -> String {
    let errors = problems
        .iter()
        .filter(|p| p.severity == Severity::Error)
        .count();
    let warnings = problems.len() - errors;
    let mut out = format!(
        "{tool}: {errors} error{}, {warnings} warning{}\n",
        plural(errors),
        plural(warnings)
    );
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
