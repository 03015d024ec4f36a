//! Warnings a team has accepted, per rule and path, in the base's `pyproject.toml`:
//!
//! ```toml
//! [tool.lanes.accept-warnings]
//! no-assertion = ["tests/helpers/*", "tests/test_legacy.py"]
//! plugin-not-loaded = ["*"]
//! ```
//!
//! Each key is a warning rule of the catalogue, each pattern an fnmatch pattern over the
//! problem's root-relative file (`*` also matches `/`, and a problem without a file is matched
//! only by a pattern that matches the empty path, such as `*`). An accepted warning leaves its
//! section and is kept whole in the gate section's `accepted`; the verdict counts them. The
//! table is the base's (the patch's `pyproject.toml` is test surface, never read here), and
//! errors are never accepted: naming an error rule, an unknown rule or a value that is not a
//! list of patterns is a usage error naming the file and key.

use std::collections::BTreeMap;
use std::path::Path;

use lane_core::{Document, Problem, Rule, Severity};

use crate::GateError;

/// The table's name, as the messages say it.
const TABLE: &str = "[tool.lanes.accept-warnings]";

/// Accepted warnings: rule id to patterns.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Accept {
    patterns: BTreeMap<String, Vec<String>>,
}

impl Accept {
    /// The table of `root/pyproject.toml` (empty when the file, the table or the file's
    /// syntax is missing: an unreadable `pyproject.toml` is the scan's to report).
    pub(crate) fn of(root: &Path) -> Result<Accept, GateError> {
        let Ok(text) = std::fs::read_to_string(root.join("pyproject.toml")) else {
            return Ok(Accept::default());
        };
        let Ok(doc) = text.parse::<toml::Table>() else {
            return Ok(Accept::default());
        };
        let Some(value) = doc
            .get("tool")
            .and_then(|t| t.get("lanes"))
            .and_then(|t| t.get("accept-warnings"))
        else {
            return Ok(Accept::default());
        };
        let bad = |what: String| GateError::Usage(format!("pyproject.toml: {TABLE}{what}"));
        let Some(table) = value.as_table() else {
            return Err(bad(format!(
                ": expected a table of rule = [patterns], found {value}"
            )));
        };
        let mut patterns = BTreeMap::new();
        for (rule, list) in table {
            match Rule::from_id(rule) {
                None => return Err(bad(format!(" {rule}: no rule has this id"))),
                Some(r) if r.severity() != Severity::Warning => {
                    return Err(bad(format!(
                        " {rule}: an error rule cannot be accepted, only warnings can"
                    )));
                }
                Some(_) => {}
            }
            let texts: Option<Vec<String>> = list.as_array().and_then(|items| {
                items
                    .iter()
                    .map(|i| i.as_str().filter(|s| !s.is_empty()).map(str::to_string))
                    .collect()
            });
            match texts {
                Some(texts) if !texts.is_empty() => {
                    patterns.insert(rule.clone(), texts);
                }
                _ => {
                    return Err(bad(format!(
                        " {rule}: expected a list of path patterns (\"tests/helpers/*\", \
                         \"*\"), found {list}"
                    )));
                }
            }
        }
        Ok(Accept { patterns })
    }

    fn accepts(&self, p: &Problem) -> bool {
        !p.is_error()
            && self.patterns.get(&p.rule).is_some_and(|pats| {
                let file = p.file.as_deref().unwrap_or("");
                pats.iter()
                    .any(|pat| lane_scan::fnmatch::fnmatch(pat, file))
            })
    }

    /// Moves the accepted warnings out of `problems` and returns them.
    pub(crate) fn take(&self, problems: &mut Vec<Problem>) -> Vec<Problem> {
        if self.patterns.is_empty() {
            return Vec::new();
        }
        let (accepted, kept) = std::mem::take(problems)
            .into_iter()
            .partition(|p| self.accepts(p));
        *problems = kept;
        accepted
    }

    /// Moves the accepted warnings out of every section of `doc` and returns them.
    pub(crate) fn take_from(&self, doc: &mut Document) -> Result<Vec<Problem>, GateError> {
        if self.patterns.is_empty() {
            return Ok(Vec::new());
        }
        let mut accepted = Vec::new();
        for (name, mut problems) in doc.all_problems("<evidence document>")? {
            let taken = self.take(&mut problems);
            if taken.is_empty() {
                continue;
            }
            let Some(mut section) = doc.section(&name) else {
                continue;
            };
            section["problems"] =
                serde_json::to_value(&problems).map_err(|source| GateError::Encode {
                    what: format!("the {name} section"),
                    source,
                })?;
            doc.set_section(&name, &section);
            accepted.extend(taken);
        }
        Ok(accepted)
    }
}

/// The verdict's line for `accepted`: how many, per rule; None when there are none.
pub(crate) fn markdown(accepted: &[Problem]) -> Option<String> {
    if accepted.is_empty() {
        return None;
    }
    let mut by_rule: BTreeMap<&str, usize> = BTreeMap::new();
    for p in accepted {
        *by_rule.entry(p.rule.as_str()).or_default() += 1;
    }
    let rules: Vec<String> = by_rule
        .iter()
        .map(|(rule, n)| format!("`{rule}` {n}"))
        .collect();
    Some(format!(
        "\n{} warning{} accepted by the base's {TABLE} (listed in evidence.json, gate.accepted): \
         {}.\n",
        accepted.len(),
        lane_core::render::plural(accepted.len()),
        rules.join(", ")
    ))
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn root_with(pyproject: &str) -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("pyproject.toml"), pyproject).unwrap();
        dir
    }

    fn warning(rule: Rule, file: Option<&str>) -> Problem {
        let p = Problem::new(rule, "m".to_string());
        match file {
            Some(f) => p.file(f),
            None => p,
        }
    }

    #[test]
    fn accepted_warnings_are_matched_by_rule_and_path_and_errors_never() {
        let dir = root_with(
            "[tool.lanes.accept-warnings]\nno-assertion = [\"tests/helpers/*\"]\n\
             plugin-not-loaded = [\"*\"]\n",
        );
        let accept = Accept::of(dir.path()).unwrap();
        let mut problems = vec![
            warning(Rule::NoAssertion, Some("tests/helpers/check.py")),
            warning(Rule::NoAssertion, Some("tests/test_x.py")),
            warning(Rule::PluginNotLoaded, None),
            warning(Rule::RuntimeHook, Some("tests/helpers/conftest.py")),
            warning(Rule::Unmarked, Some("tests/helpers/check.py")),
        ];
        let taken = accept.take(&mut problems);
        let rules = |ps: &[Problem]| -> Vec<(String, Option<String>)> {
            ps.iter()
                .map(|p| (p.rule.clone(), p.file.clone()))
                .collect()
        };
        assert_eq!(
            rules(&taken),
            [
                ("no-assertion".into(), Some("tests/helpers/check.py".into())),
                ("plugin-not-loaded".into(), None),
            ]
        );
        assert_eq!(problems.len(), 3, "{problems:?}");
        let line = markdown(&taken).unwrap();
        assert!(
            line.contains("2 warnings accepted") && line.contains("`no-assertion` 1"),
            "{line}"
        );
        assert_eq!(markdown(&[]), None);
    }

    #[test]
    fn a_table_that_names_an_error_an_unknown_rule_or_no_patterns_is_refused() {
        for (table, words) in [
            (
                "unmarked = [\"*\"]",
                "unmarked: an error rule cannot be accepted",
            ),
            (
                "no-such-rule = [\"*\"]",
                "no-such-rule: no rule has this id",
            ),
            (
                "no-assertion = \"tests/*\"",
                "no-assertion: expected a list of path patterns",
            ),
            ("no-assertion = []", "no-assertion: expected a list"),
            ("no-assertion = [3]", "no-assertion: expected a list"),
        ] {
            let dir = root_with(&format!("[tool.lanes.accept-warnings]\n{table}\n"));
            let err = Accept::of(dir.path()).unwrap_err().to_string();
            assert!(
                err.contains("pyproject.toml: [tool.lanes.accept-warnings]") && err.contains(words),
                "{table}: {err}"
            );
        }
        let dir = root_with("[tool.lanes]\naccept-warnings = 3\n");
        assert!(Accept::of(dir.path()).is_err());
        for nothing in ["", "[tool.lanes]\nmutant-seconds = 5\n", "not toml ["] {
            let dir = root_with(nothing);
            assert_eq!(Accept::of(dir.path()).unwrap(), Accept::default());
        }
    }
}
