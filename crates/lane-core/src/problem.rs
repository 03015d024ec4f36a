//! A finding in a section: `{rule, severity, message, file?, line?, test?}`.

use serde::{Deserialize, Serialize};

use crate::rule::Rule;

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    Error,
    Warning,
}

impl Severity {
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
        }
    }
}

/// One finding. Only `error`s fail anything; warnings are shown, never counted.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
// Fields in key order: see `Document::set_section_presorted`.
pub struct Problem {
    /// Root-relative, `/`-separated.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub file: Option<String>,
    /// 1-based.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub line: Option<u64>,
    pub message: String,
    /// Kebab-case rule id (see [`Rule`]); kept as a string so documents written by a newer
    /// tool with rules this build does not know still travel.
    pub rule: String,
    pub severity: Severity,
    /// A pytest node id without parametrization.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub test: Option<String>,
}

impl Problem {
    /// A problem with the rule's own severity.
    pub fn new(rule: Rule, message: impl Into<String>) -> Self {
        Problem {
            rule: rule.id().to_string(),
            severity: rule.severity(),
            message: message.into(),
            file: None,
            line: None,
            test: None,
        }
    }

    pub fn file(mut self, file: impl Into<String>) -> Self {
        self.file = Some(file.into());
        self
    }

    pub fn line(mut self, line: u64) -> Self {
        self.line = Some(line);
        self
    }

    pub fn at(self, file: impl Into<String>, line: u64) -> Self {
        self.file(file).line(line)
    }

    pub fn test(mut self, test: impl Into<String>) -> Self {
        self.test = Some(test.into());
        self
    }

    pub fn severity(mut self, severity: Severity) -> Self {
        self.severity = severity;
        self
    }

    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }

    /// The order problems are written in: by file, line, test, rule, then message.
    pub(crate) fn sort_key(&self) -> (&str, u64, &str, &str, &str) {
        (
            self.file.as_deref().unwrap_or(""),
            self.line.unwrap_or(0),
            self.test.as_deref().unwrap_or(""),
            &self.rule,
            &self.message,
        )
    }
}

/// Sorts and removes exact duplicates, so output does not depend on discovery order.
pub fn normalize(problems: &mut Vec<Problem>) {
    problems.sort_by(|a, b| a.sort_key().cmp(&b.sort_key()));
    problems.dedup();
}
