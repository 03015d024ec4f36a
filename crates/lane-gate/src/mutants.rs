//! Mutants of the changed product statements the voters ran (DESIGN §12, `unpinned-change`).
//!
//! For each changed statement a voter executed (the trace, each voter in a context of its own),
//! lane-python's generator makes its mutants from the syntax tree, at most the budget's number
//! per statement; each runs in the gate's own pytest (the bootstrap compiles the mutated source
//! in place of the file's bytes, nothing in the tree is written), `-x`, with the vote's seed and
//! a timeout per mutant, several at once: first on the voters the trace saw run the statement
//! (the tracer stops once the voters have run every changed line, so these are the first ones),
//! then, if it survived them, on every voting test. A mutant is killed when a run fails, errors
//! or times out; the rule file decides what the survivors mean.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use lane_python::mutant::{self, Kind};

use crate::GateError;
use crate::exercised::RanBy;
use crate::pytest::Setup;

/// `[tool.lanes] mutants-per-statement` when the base's pyproject.toml does not say.
pub(crate) const DEFAULT_PER_STATEMENT: usize = 8;
/// `[tool.lanes] mutant-seconds` when the base's pyproject.toml does not say.
pub(crate) const DEFAULT_SECONDS: u64 = 600;

/// What the team allows the mutants: read from the vote tree's pyproject.toml, whose
/// `[tool.lanes]` is the base's (the table is test surface: a patch that changes it does not
/// vote with it).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Budget {
    pub(crate) per_statement: usize,
    pub(crate) seconds: u64,
}

impl Budget {
    /// The budget `[tool.lanes]` of `root/pyproject.toml` sets (the defaults where it says
    /// nothing); a value of the wrong type is an error naming the file and key.
    pub(crate) fn of(root: &Path) -> Result<Budget, GateError> {
        let path = root.join("pyproject.toml");
        let mut budget = Budget {
            per_statement: DEFAULT_PER_STATEMENT,
            seconds: DEFAULT_SECONDS,
        };
        let Ok(text) = std::fs::read_to_string(&path) else {
            return Ok(budget);
        };
        let Ok(doc) = text.parse::<toml::Table>() else {
            // An unreadable pyproject.toml is the scan's to report; the defaults hold.
            return Ok(budget);
        };
        let Some(table) = doc
            .get("tool")
            .and_then(|t| t.get("lanes"))
            .and_then(|t| t.as_table())
        else {
            return Ok(budget);
        };
        let number = |key: &str| -> Result<Option<u64>, GateError> {
            match table.get(key) {
                None => Ok(None),
                Some(toml::Value::Integer(n)) if *n >= 0 => Ok(Some(*n as u64)),
                Some(other) => Err(GateError::Checkout(format!(
                    "pyproject.toml: [tool.lanes] {key}: expected a whole number of at least 0, \
                     found {other}"
                ))),
            }
        };
        if let Some(n) = number("mutants-per-statement")? {
            budget.per_statement = n as usize;
        }
        if let Some(n) = number("mutant-seconds")? {
            budget.seconds = n;
        }
        Ok(budget)
    }
}

/// One mutant of a statement: what it changes, and how its run ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Tried {
    pub(crate) kind: Kind,
    /// The changed source line before and after (trimmed).
    pub(crate) before: String,
    pub(crate) after: String,
    pub(crate) outcome: Outcome,
}

/// How one mutant's run ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Outcome {
    /// A voter failed, errored or timed out.
    Killed,
    /// Every voter that ran the statement passed.
    Survived,
    /// Not run: an earlier mutant of the statement decided it already.
    Skipped,
    /// Not run: the budget's wall time ran out.
    Unrun,
    /// The run could not judge it (why).
    Undecided(String),
}

/// One changed statement the voters ran, and its mutants in the generator's order: those that
/// take a part of it away when it has any (they alone decide), else the others.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Mutated {
    pub(crate) file: String,
    pub(crate) line: u64,
    pub(crate) text: String,
    /// The voters the mutants ran.
    pub(crate) tests: Vec<String>,
    pub(crate) tried: Vec<Tried>,
}

/// What the mutants of a gate run found; `off`: `--mutants off`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct MutantFacts {
    pub(crate) off: bool,
    pub(crate) statements: Vec<Mutated>,
    /// The budget's wall time, for the messages.
    pub(crate) seconds: u64,
}

/// One run to make: mutant `index` of statement `at`, its mutated module.
struct Job {
    at: usize,
    index: usize,
    suffix: String,
    source: String,
    tests: Vec<String>,
}

/// Where and how the mutants run.
pub(crate) struct Runs<'a> {
    pub(crate) setup: &'a Setup,
    pub(crate) tree: &'a Path,
    /// A fresh folder for the runs' reports and logs.
    pub(crate) scratch: PathBuf,
    pub(crate) budget: Budget,
    /// Each mutant's timeout.
    pub(crate) timeout: Duration,
    /// How many run at once.
    pub(crate) jobs: usize,
}

/// The mutants of the statements in `ran` (the trace's), run as `runs` says.
pub(crate) fn run(runs: &Runs<'_>, ran: &[RanBy]) -> Result<MutantFacts, GateError> {
    let mut statements: Vec<Mutated> = Vec::new();
    let mut jobs: Vec<Job> = Vec::new();
    let mut by_file: BTreeMap<&str, Vec<&RanBy>> = BTreeMap::new();
    for r in ran {
        by_file.entry(r.file.as_str()).or_default().push(r);
    }
    for (file, stmts) in by_file {
        let path = runs.tree.join(file);
        let source = std::fs::read_to_string(&path)
            .map_err(|e| GateError::io(format!("cannot read {}", path.display()), e))?;
        // A module-level statement ran at import: the voters that ran any of the file's
        // statements are its voters.
        let any: Vec<String> = stmts
            .iter()
            .flat_map(|r| r.tests.iter().cloned())
            .collect::<BTreeSet<_>>()
            .into_iter()
            .collect();
        let lines: BTreeSet<u64> = stmts.iter().map(|r| r.line).collect();
        let made = match mutant::mutants(&source, &lines) {
            Ok(made) => mutant::budget(made, runs.budget.per_statement),
            // The trace analysis parsed it; a parser that disagrees is the gate's to report.
            Err(e) => {
                return Err(GateError::Checkout(format!(
                    "{file}:{}: the mutant generator cannot parse the changed file: {}",
                    e.line, e.message
                )));
            }
        };
        for r in stmts {
            let tests = if r.tests.is_empty() {
                any.clone()
            } else {
                r.tests.clone()
            };
            let at = statements.len();
            let own: Vec<&mutant::Mutant> = made.iter().filter(|m| m.line == r.line).collect();
            let taking = own.iter().any(|m| m.kind.takes_away());
            let mut tried = Vec::new();
            for m in own.into_iter().filter(|m| m.kind.takes_away() == taking) {
                let (before, after) = m.line_diff(&source);
                jobs.push(Job {
                    at,
                    index: tried.len(),
                    suffix: r.suffix.clone(),
                    source: m.apply(&source),
                    tests: tests.clone(),
                });
                tried.push(Tried {
                    kind: m.kind,
                    before: before.trim().to_string(),
                    after: after.trim().to_string(),
                    outcome: Outcome::Unrun,
                });
            }
            statements.push(Mutated {
                file: r.file.clone(),
                line: r.line,
                text: r.text.clone(),
                tests,
                tried,
            });
        }
    }
    std::fs::create_dir_all(&runs.scratch)
        .map_err(|e| GateError::io(format!("cannot create {}", runs.scratch.display()), e))?;
    let outcomes = run_all(runs, &jobs, &statements)?;
    for (job, outcome) in jobs.iter().zip(outcomes) {
        statements[job.at].tried[job.index].outcome = outcome;
    }
    Ok(MutantFacts {
        off: false,
        statements,
        seconds: runs.budget.seconds,
    })
}

/// Whether the mutant `index` of a statement need not run, given what its earlier mutants gave
/// so far (`done`): a mutant that takes a part away is moot once an earlier one survived (the
/// statement is unpinned, shown by the first survivor); a perturbing one once an earlier one was
/// killed (the statement is pinned). The verdict does not depend on which runs were skipped.
fn moot(mutated: &Mutated, done: &[Option<Outcome>], index: usize) -> bool {
    let decided_by = if mutated.tried[index].kind.takes_away() {
        Outcome::Survived
    } else {
        Outcome::Killed
    };
    done[..index]
        .iter()
        .any(|o| o.as_ref() == Some(&decided_by))
}

/// Runs every job, `runs.jobs` at a time, in job order; a job that would start after the
/// budget's wall time is left unrun, one an earlier outcome made moot is skipped.
fn run_all(
    runs: &Runs<'_>,
    jobs: &[Job],
    statements: &[Mutated],
) -> Result<Vec<Outcome>, GateError> {
    let next = AtomicUsize::new(0);
    // each statement's outcomes so far, by mutant index
    let done: Mutex<Vec<Vec<Option<Outcome>>>> = Mutex::new(
        statements
            .iter()
            .map(|s| vec![None; s.tried.len()])
            .collect(),
    );
    let results: Mutex<Vec<Option<Result<Outcome, GateError>>>> =
        Mutex::new((0..jobs.len()).map(|_| None).collect());
    let deadline = Instant::now() + Duration::from_secs(runs.budget.seconds);
    let workers = runs.jobs.clamp(1, jobs.len().max(1));
    std::thread::scope(|scope| {
        for _ in 0..workers {
            scope.spawn(|| {
                loop {
                    let i = next.fetch_add(1, Ordering::SeqCst);
                    let Some(job) = jobs.get(i) else { break };
                    let skip = done
                        .lock()
                        .is_ok_and(|d| moot(&statements[job.at], &d[job.at], job.index));
                    let outcome = if skip {
                        Ok(Outcome::Skipped)
                    } else if Instant::now() >= deadline {
                        Ok(Outcome::Unrun)
                    } else {
                        run_one(runs, job, i, deadline)
                    };
                    if let (Ok(o), Ok(mut d)) = (&outcome, done.lock()) {
                        d[job.at][job.index] = Some(o.clone());
                    }
                    if let Ok(mut r) = results.lock() {
                        r[i] = Some(outcome);
                    }
                }
            });
        }
    });
    let results = results
        .into_inner()
        .map_err(|_| GateError::Checkout("a mutant run panicked".into()))?;
    results
        .into_iter()
        .map(|r| r.unwrap_or_else(|| Err(GateError::Checkout("a mutant was not run".into()))))
        .collect()
}

/// One mutant: the gate's pytest on the statement's voters, `-x`, the mutated source compiled
/// in place of the file's.
fn run_one(runs: &Runs<'_>, job: &Job, i: usize, deadline: Instant) -> Result<Outcome, GateError> {
    let mut setup = runs.setup.clone();
    setup.trace = None;
    setup.mutant = Some(std::sync::Arc::new(crate::pytest::MutantSource {
        suffix: job.suffix.clone(),
        source: job.source.clone(),
    }));
    let report = runs.scratch.join(format!("mutant-{i}.xml"));
    let log = runs.scratch.join(format!("mutant-{i}.log"));
    // First the voters the trace saw run the statement (a few: their collection is quick), and
    // only when the mutant survives them, every voting test.
    let sample: Vec<String> = job.tests.iter().take(SAMPLE).cloned().collect();
    if !sample.is_empty() {
        let outcome = run_on(runs, &setup, &sample, &report, &log, deadline)?;
        if matches!(outcome, Outcome::Killed | Outcome::Unrun) {
            return Ok(outcome);
        }
    }
    let every = ["-m".to_string(), "merge or witness".to_string()];
    run_on(runs, &setup, &every, &report, &log, deadline)
}

/// How many of the voters the trace saw run a statement a mutant meets first.
const SAMPLE: usize = 32;

/// One run of a mutant on the tests `select` names, `-x`.
fn run_on(
    runs: &Runs<'_>,
    setup: &Setup,
    select: &[String],
    report: &Path,
    log: &Path,
    deadline: Instant,
) -> Result<Outcome, GateError> {
    let mut select = select.to_vec();
    select.push("-x".into());
    let start = Instant::now();
    let timeout = runs.timeout;
    let mut past_deadline = false;
    let finished = setup.run_until(runs.tree, &select, report, log, || {
        if Instant::now() >= deadline {
            past_deadline = true;
            return true;
        }
        start.elapsed() >= timeout
    })?;
    if past_deadline {
        return Ok(Outcome::Unrun);
    }
    let applied = crate::trial::read(&finished.stream).mutated;
    Ok(match (finished.ended.timed_out, finished.ended.code) {
        (true, _) => Outcome::Killed,
        // a failure, an interruption (the mutant broke an import), an internal error, a signal
        (false, Some(1..=3) | None) => Outcome::Killed,
        (false, Some(0)) if applied => Outcome::Survived,
        (false, Some(0)) => Outcome::Undecided(
            "the tests passed without loading the mutated module from the vote tree".into(),
        ),
        (false, Some(5)) => Outcome::Undecided("pytest selected none of the tests".into()),
        (false, Some(code)) => Outcome::Undecided(format!("pytest exited {code}")),
    })
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn the_budget_comes_from_the_tool_lanes_table() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let defaults = Budget {
            per_statement: DEFAULT_PER_STATEMENT,
            seconds: DEFAULT_SECONDS,
        };
        assert_eq!(Budget::of(root).unwrap(), defaults);
        std::fs::write(
            root.join("pyproject.toml"),
            "[tool.ruff]\nline-length = 99\n",
        )
        .unwrap();
        assert_eq!(Budget::of(root).unwrap(), defaults);
        std::fs::write(
            root.join("pyproject.toml"),
            "[tool.lanes]\nmutants-per-statement = 2\nmutant-seconds = 30\n",
        )
        .unwrap();
        assert_eq!(
            Budget::of(root).unwrap(),
            Budget {
                per_statement: 2,
                seconds: 30
            }
        );
        std::fs::write(
            root.join("pyproject.toml"),
            "[tool.lanes]\nmutant-seconds = \"soon\"\n",
        )
        .unwrap();
        let err = Budget::of(root).unwrap_err().to_string();
        assert!(
            err.contains("[tool.lanes] mutant-seconds: expected a whole number"),
            "{err}"
        );
    }
}
