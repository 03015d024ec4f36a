//! GitHub Actions workflow commands: `::error file=F,line=L,title=RULE::MESSAGE`.

use crate::problem::{Problem, Severity};

pub fn annotations(problems: &[Problem]) -> String {
    let mut out = String::new();
    for p in problems {
        out.push_str(&annotation(p));
        out.push('\n');
    }
    out
}

pub fn annotation(p: &Problem) -> String {
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
