//! Which product statements the patch changed that the voters executed (DESIGN §9.6,
//! `unexercised-change`). The bootstrap of every voting run traces the changed product files
//! (coverage.py's measurement core, a context per voter, `v|` and its id, or with `--mutants
//! off` one for all of them, `v`, and one for the others', `n`) into a data file beside the
//! run's report; after the runs, `exercised.py` reads those files in a fresh `python -I` (no
//! project code imported: the changed files are only parsed, by coverage.py's own parser) and
//! says, for each changed statement, whether a voter ran it, which voters, and which branches
//! from it no voter took.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use serde::Deserialize;

use crate::GateError;

/// The analysis `python -I -c` runs after the lanes.
const ANALYSIS: &str = include_str!("exercised.py");

/// The extension of a run's trace data, beside its report (`merge.xml.trace`).
pub(crate) const DATA_SUFFIX: &str = ".trace";

/// One product file the patch changed, traced in the voting runs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Traced {
    /// Tree-relative.
    pub(crate) rel: String,
    /// The path below the folder it imports from (`pkg/core.py` for `src/pkg/core.py`): a copy
    /// of the tree's bytes installed elsewhere is traced and counted by it.
    pub(crate) suffix: String,
    /// The changed lines, 1-based inclusive ranges (a new file: all of it).
    pub(crate) lines: Vec<(u64, u64)>,
}

/// What the voting runs trace: the changed product files and which tests vote.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct TracePlan {
    pub(crate) files: Vec<Traced>,
    /// Test ids (without parameters) whose contexts count.
    pub(crate) voters: Vec<String>,
    /// Each voter in a context of its own (`v|` and its id): the voters the trace saw run each
    /// changed statement are known (its mutants meet them first).
    pub(crate) per_test: bool,
}

impl TracePlan {
    /// The tracer's include patterns: each file by its import path, wherever it loads from.
    pub(crate) fn patterns(&self) -> Vec<String> {
        self.files
            .iter()
            .map(|f| format!("**/{}", f.suffix))
            .collect()
    }
}

/// The trace plan of a vote: the changed product Python files `changed` (tree-relative) that
/// the vote tree holds, under the import folders `dirs`; None when there are none.
pub(crate) fn plan(
    tree: &Path,
    dirs: &[String],
    changed: &BTreeMap<String, Vec<(u64, u64)>>,
    voters: Vec<String>,
) -> Option<TracePlan> {
    let files: Vec<Traced> = changed
        .iter()
        .filter(|(rel, lines)| rel.ends_with(".py") && !lines.is_empty())
        .filter(|(rel, _)| tree.join(rel).is_file())
        .map(|(rel, lines)| Traced {
            rel: rel.clone(),
            suffix: import_suffix(rel, dirs),
            lines: lines.clone(),
        })
        .collect();
    (!files.is_empty()).then_some(TracePlan {
        files,
        voters,
        per_test: false,
    })
}

/// `rel` below the deepest of `dirs` that holds it (`src/pkg/core.py` -> `pkg/core.py`).
fn import_suffix(rel: &str, dirs: &[String]) -> String {
    dirs.iter()
        .filter(|d| !d.is_empty())
        .filter_map(|d| rel.strip_prefix(d.as_str())?.strip_prefix('/'))
        .min_by_key(|s| s.len())
        .unwrap_or(rel)
        .to_string()
}

/// A changed statement, or a branch from one, that no voting test executed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Unexercised {
    /// Tree-relative.
    pub(crate) file: String,
    pub(crate) line: u64,
    /// The statement's first line, as written (trimmed, shortened).
    pub(crate) text: String,
    /// None: the statement never ran; Some: it ran, but never went on to this line (a negative
    /// number: out of its function or class body, as coverage.py numbers exits).
    pub(crate) branch: Option<i64>,
}

/// A changed statement a voter ran, and which voters (when the run traced each on its own).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct RanBy {
    /// Tree-relative.
    pub(crate) file: String,
    /// The file's path below the folder it imports from.
    pub(crate) suffix: String,
    pub(crate) line: u64,
    /// The statement's first line, as written (trimmed, shortened).
    pub(crate) text: String,
    /// Voter ids, sorted; empty for a module-level statement run at import.
    pub(crate) tests: Vec<String>,
}

/// What the analysis found: the unexercised statements and branches, the changed files it
/// could not read (a syntax error: fail closed), and the changed statements voters ran.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct ExercisedFacts {
    pub(crate) unexercised: Vec<Unexercised>,
    pub(crate) unreadable: Vec<(String, String)>,
    pub(crate) ran: Vec<RanBy>,
}

#[derive(Deserialize)]
struct FileOut {
    #[serde(default)]
    statements: Vec<StatementOut>,
    error: Option<String>,
}

#[derive(Deserialize)]
struct StatementOut {
    line: u64,
    text: String,
    ran: bool,
    missed: Vec<(i64, i64)>,
    #[serde(default)]
    tests: Vec<String>,
}

/// Runs the analysis with `python` over the trace data files `data` for the vote tree `tree`.
pub(crate) fn analyse(
    python: &Path,
    tree: &Path,
    plan: &TracePlan,
    data: &[PathBuf],
) -> Result<ExercisedFacts, GateError> {
    let by_path: BTreeMap<String, &Traced> = plan
        .files
        .iter()
        .map(|f| (tree.join(&f.rel).display().to_string(), f))
        .collect();
    let files: serde_json::Map<String, serde_json::Value> = by_path
        .iter()
        .map(|(path, f)| {
            (
                path.clone(),
                serde_json::json!({"lines": f.lines, "suffix": f.suffix}),
            )
        })
        .collect();
    let request = serde_json::json!({
        "data_files": data.iter().map(|p| p.display().to_string()).collect::<Vec<_>>(),
        "files": files,
    });
    let out = run_analysis(python, tree, &request.to_string())?;
    let parsed: BTreeMap<String, FileOut> = serde_json::from_slice(&out).map_err(|e| {
        GateError::Checkout(format!(
            "the trace analysis of the changed product files gave no answer the gate reads \
             ({e})"
        ))
    })?;
    let mut facts = ExercisedFacts::default();
    for (path, answer) in parsed {
        let Some(traced) = by_path.get(&path) else {
            continue;
        };
        if let Some(error) = answer.error {
            facts.unreadable.push((traced.rel.clone(), error));
            continue;
        }
        for s in answer.statements {
            let at = |branch| Unexercised {
                file: traced.rel.clone(),
                line: s.line,
                text: s.text.clone(),
                branch,
            };
            if s.ran {
                facts.ran.push(RanBy {
                    file: traced.rel.clone(),
                    suffix: traced.suffix.clone(),
                    line: s.line,
                    text: s.text.clone(),
                    tests: s.tests.clone(),
                });
            } else {
                facts.unexercised.push(at(None));
            }
            facts
                .unexercised
                .extend(s.missed.iter().map(|&(_, to)| at(Some(to))));
        }
    }
    Ok(facts)
}

/// `python -I -c ANALYSIS` in `tree` with `request` on stdin: its stdout.
fn run_analysis(python: &Path, tree: &Path, request: &str) -> Result<Vec<u8>, GateError> {
    let mut child = Command::new(python)
        .args(["-I", "-c", ANALYSIS])
        .current_dir(tree)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|source| GateError::PytestStart {
            python: python.to_path_buf(),
            source,
        })?;
    if let Some(mut stdin) = child.stdin.take() {
        stdin
            .write_all(request.as_bytes())
            .map_err(|e| GateError::io("cannot hand the trace analysis its request", e))?;
    }
    let out = child
        .wait_with_output()
        .map_err(|e| GateError::io("cannot run the trace analysis", e))?;
    if !out.status.success() {
        let err = String::from_utf8_lossy(&out.stderr);
        let last = err.lines().last().unwrap_or("").trim();
        return Err(GateError::Checkout(format!(
            "the trace analysis of the changed product files failed ({}): {last}",
            out.status
        )));
    }
    Ok(out.stdout)
}

/// The trace data files the runs left in `dir`, in name order.
pub(crate) fn data_files(dir: &Path) -> Result<Vec<PathBuf>, GateError> {
    let read = std::fs::read_dir(dir)
        .map_err(|e| GateError::io(format!("cannot read {}", dir.display()), e))?;
    let mut found: Vec<PathBuf> = read
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.to_string_lossy().ends_with(DATA_SUFFIX) && p.is_file())
        .collect();
    found.sort();
    Ok(found)
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn a_changed_file_is_traced_by_its_import_path() {
        let tree = tempfile::tempdir().unwrap();
        let t = tree.path();
        for f in ["src/pkg/core.py", "tool.py", "data.txt"] {
            std::fs::create_dir_all(t.join(f).parent().unwrap()).unwrap();
            std::fs::write(t.join(f), "").unwrap();
        }
        let changed: BTreeMap<String, Vec<(u64, u64)>> = [
            ("src/pkg/core.py", vec![(3, 4)]),
            ("tool.py", vec![(1, u64::MAX)]),
            ("data.txt", vec![(1, 1)]),
            ("gone.py", vec![(1, 1)]),
            ("src/pkg/empty.py", vec![]),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_string(), v))
        .collect();
        let dirs = vec![String::new(), "src".to_string()];
        let plan = plan(t, &dirs, &changed, vec!["tests/test_a.py::test_x".into()]).unwrap();
        let rels: Vec<(&str, &str)> = plan
            .files
            .iter()
            .map(|f| (f.rel.as_str(), f.suffix.as_str()))
            .collect();
        assert_eq!(
            rels,
            [("src/pkg/core.py", "pkg/core.py"), ("tool.py", "tool.py")]
        );
        assert_eq!(plan.patterns(), ["**/pkg/core.py", "**/tool.py"]);
        let none: BTreeMap<String, Vec<(u64, u64)>> = BTreeMap::new();
        assert_eq!(super::plan(t, &dirs, &none, Vec::new()), None);
    }
}
