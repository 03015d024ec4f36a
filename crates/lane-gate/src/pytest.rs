//! One pytest run the patch cannot steer: `python -P` running pytest from a bootstrap that puts
//! the tree on `sys.path` after start-up, with plugin autoloading off and
//! only named plugins loaded, the caller's pytest environment cleared, the gate's own options
//! last-word (a user argument may not override them), a fresh report path, and a timeout that
//! kills the whole process group.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::GateError;

/// Options the gate sets itself: a user argument after `--` may not give them again.
const GATE_LONG: &[&str] = &[
    "--junitxml",
    "--junit-xml",
    "--junit-prefix",
    "--override-ini",
    "--config-file",
    "--rootdir",
    "--confcutdir",
    "--hypothesis-seed",
    "--lanes-contract",
    "--color",
];

/// pytest-lanes-gate's module: loaded, it records each item's runtime lanes and leaves the
/// contract to the static scan (`--lanes-contract=record`).
pub(crate) const LANES_PLUGIN_MODULE: &str = "pytest_lanes_gate";
/// pytest-cov's plugin module (`pytest_cov.plugin`): when the project's manifests load it, the
/// gate passes `--no-cov`.
const COV_PLUGIN: &str = "pytest_cov";
/// Single-letter options of the gate's (`-m` lane, `-p` plugins, `-o` ini, `-c` config).
const GATE_SHORT: &[char] = &['m', 'p', 'o', 'c'];
/// Single-letter pytest options that take a value (the rest of the word, or the next word).
const VALUE_SHORT: &[char] = &['k', 'r', 'W', 'n'];

/// Refuses user arguments that would override one of the gate's own options.
pub(crate) fn check_user_args(args: &[String]) -> Result<(), GateError> {
    let refuse = |opt: &str, arg: &str| {
        Err(GateError::Usage(format!(
            "-- {arg}: {opt} is the gate's own pytest option; a user argument may not override \
             it"
        )))
    };
    let mut skip_value = false;
    for arg in args {
        if std::mem::take(&mut skip_value) {
            continue;
        }
        if arg == "--" {
            break;
        }
        if let Some(long) = arg.strip_prefix("--") {
            let name = long.split('=').next().unwrap_or(long);
            if name.is_empty() {
                continue;
            }
            if name.starts_with("cov") {
                return Err(GateError::Usage(format!(
                    "-- {arg}: a voting run loads no other tracer than the gate's (it traces \
                     the changed product lines itself); measure coverage outside the gate"
                )));
            }
            for own in GATE_LONG {
                // pytest refuses abbreviations, but a prefix of one of the gate's options is
                // refused all the same
                if own[2..] == *name || (name.len() >= 3 && own[2..].starts_with(name)) {
                    return refuse(own, arg);
                }
            }
            continue;
        }
        if let Some(short) = arg.strip_prefix('-') {
            for (i, c) in short.char_indices() {
                if GATE_SHORT.contains(&c) {
                    return refuse(&format!("-{c}"), arg);
                }
                if VALUE_SHORT.contains(&c) {
                    skip_value = i + c.len_utf8() == short.len();
                    break;
                }
            }
        }
    }
    Ok(())
}

/// The program `python -P -c` runs: the gate's bootstrap (DESIGN §9.6). It reads its
/// configuration from stdin (the folders the run needs, put on `sys.path` only after start-up
/// so a `sitecustomize.py` in them is never imported by the interpreter itself; the outcome
/// channel's descriptor; the project's top-level module names), sets up the channel, the
/// import-origin finder and the identity snapshot, and only then imports pytest.
///
/// Under a bytecode prefix (a run in the checkout itself, PYTHONPYCACHEPREFIX a fresh folder),
/// a module whose real path lies under the interpreter's own installation and not under the
/// tree reads its bytecode from its classic `__pycache__` again; the project's modules are
/// compiled from their source bytes wherever they load from.
pub(crate) const BOOTSTRAP: &str = include_str!("bootstrap.py");

/// The environment every run gets whatever the caller's holds (docs/test-surface.md lists it).
const PINNED: &[(&str, &str)] = &[
    ("PYTHONHASHSEED", "0"),
    ("PYTHONDONTWRITEBYTECODE", "1"),
    ("TZ", "UTC"),
    ("LC_ALL", "C.UTF-8"),
    ("LANG", "C.UTF-8"),
];

/// Whether the caller's variable `name` is kept from the tests: lanes' own (a CI key among
/// them), pytest's and coverage's settings, the interpreter's (but `PYTHONHOME`), the locale's,
/// and what a shell leaves that names the caller (`_`, `OLDPWD`).
fn unpinned(name: &str) -> bool {
    const PREFIXES: &[&str] = &[
        "LANES_",
        "PYTEST_",
        "COVERAGE_",
        "COV_CORE_",
        "PYTHON",
        "LC_",
    ];
    (PREFIXES.iter().any(|p| name.starts_with(p)) && name != "PYTHONHOME")
        || matches!(name, "_" | "OLDPWD" | "LANGUAGE")
}

/// What every run of one gate shares.
#[derive(Debug, Clone)]
pub(crate) struct Setup {
    pub(crate) python: PathBuf,
    /// Modules given to `-p`, in order.
    pub(crate) plugins: Vec<String>,
    /// `--hypothesis-seed` (only when hypothesis's plugin is loaded).
    pub(crate) seed: Option<u64>,
    pub(crate) user_args: Vec<String>,
    pub(crate) timeout: Duration,
    /// PYTHONPATH for the run (absolute folders), or none at all.
    pub(crate) pythonpath: Vec<PathBuf>,
    /// PYTHONPYCACHEPREFIX: bytecode read and written only under this fresh folder, never a
    /// `__pycache__` of the tree (PYTHONDONTWRITEBYTECODE alone still reads them).
    pub(crate) pycache_prefix: Option<PathBuf>,
    /// The project's top-level module names: the bootstrap records where each of their
    /// modules loads from and compiles them from source.
    pub(crate) product: Vec<String>,
    /// The changed product files the bootstrap traces, and the voters (a run's data file lies
    /// beside its report); None: nothing to trace.
    pub(crate) trace: Option<std::sync::Arc<crate::exercised::TracePlan>>,
    /// The tests' temporary folder (TMPDIR, TMP, TEMP).
    pub(crate) tmpdir: Option<PathBuf>,
    /// A mutant's run: the product file the bootstrap compiles from this source instead of
    /// its bytes.
    pub(crate) mutant: Option<std::sync::Arc<MutantSource>>,
}

/// A mutated product module: its path below the folder it imports from, and its source.
#[derive(Debug)]
pub(crate) struct MutantSource {
    pub(crate) suffix: String,
    pub(crate) source: String,
}

/// A run's end and what its outcome channel carried.
#[derive(Debug, Clone)]
pub(crate) struct Finished {
    pub(crate) ended: Ended,
    pub(crate) stream: Vec<u8>,
}

/// How a run ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Ended {
    /// pytest's exit status (None when killed by a signal).
    pub(crate) code: Option<i32>,
    pub(crate) timed_out: bool,
}

impl Setup {
    /// The arguments after `python`: the selection first, the gate's own options after it,
    /// then the user's.
    pub(crate) fn arguments(&self, select: &[String], report: &Path) -> Vec<String> {
        let mut args: Vec<String> = vec!["-P".into(), "-c".into(), BOOTSTRAP.into()];
        args.extend(select.iter().cloned());
        args.extend(
            [
                "-p",
                "no:cacheprovider",
                "--strict-markers",
                // The reports and logs are read, not watched: no terminal escapes in them,
                // whatever the project's addopts ask.
                "--color=no",
                "-o",
                "junit_family=xunit1",
            ]
            .map(String::from),
        );
        args.push(format!("--junitxml={}", report.display()));
        for p in &self.plugins {
            args.push("-p".into());
            args.push(p.clone());
        }
        if self.plugins.iter().any(|p| p == LANES_PLUGIN_MODULE) {
            args.push("--lanes-contract=record".into());
        }
        if let Some(seed) = self.seed {
            args.push(format!("--hypothesis-seed={seed}"));
        }
        if self.plugins.iter().any(|p| p.starts_with(COV_PLUGIN)) {
            // The run's tracer is the gate's: pytest-cov, loaded for the project's addopts,
            // starts none.
            args.push("--no-cov".into());
        }
        args.extend(self.user_args.iter().cloned());
        args
    }

    /// Runs pytest in `tree` with its output in `log`; kills the process group on timeout and
    /// after the run (nothing the run started may write on afterwards).
    pub(crate) fn run(
        &self,
        tree: &Path,
        select: &[String],
        report: &Path,
        log: &Path,
    ) -> Result<Finished, GateError> {
        let start = Instant::now();
        let timeout = self.timeout;
        self.run_until(tree, select, report, log, move || {
            start.elapsed() >= timeout
        })
    }

    /// The bootstrap's configuration: one JSON line on the run's stdin.
    fn config(&self, channel: i32, report: &Path) -> String {
        let path: Vec<String> = self
            .pythonpath
            .iter()
            .map(|p| p.display().to_string())
            .collect();
        let config = serde_json::json!({
            "path": path,
            "channel": channel,
            "product": self.product,
            "trace": self.trace.as_ref().map(|t| serde_json::json!({
                "patterns": t.patterns(),
                "lines": t.files.iter().map(|f| (f.suffix.clone(), f.lines.clone()))
                    .collect::<std::collections::BTreeMap<_, _>>(),
                "voters": t.voters,
                "per_test": t.per_test,
                "data_file": format!("{}{}", report.display(), crate::exercised::DATA_SUFFIX),
            })),
            "mutant": self.mutant.as_ref().map(|m| serde_json::json!({
                "suffix": m.suffix,
                "source": m.source,
            })),
        });
        format!("{config}\n")
    }

    /// The command of one run, its output in `log_file`.
    fn command(
        &self,
        tree: &Path,
        select: &[String],
        report: &Path,
        log_file: std::fs::File,
        err_file: std::fs::File,
    ) -> Command {
        use std::os::unix::process::CommandExt;
        let mut cmd = Command::new(&self.python);
        cmd.args(self.arguments(select, report))
            .current_dir(tree)
            .stdin(Stdio::piped())
            .stdout(Stdio::from(log_file))
            .stderr(Stdio::from(err_file))
            .process_group(0);
        for (name, _) in std::env::vars_os() {
            if unpinned(&name.to_string_lossy()) {
                cmd.env_remove(&name);
            }
        }
        cmd.envs(PINNED.iter().copied())
            .env("PWD", tree)
            .env("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1");
        if let Some(tmp) = &self.tmpdir {
            cmd.env("TMPDIR", tmp).env("TMP", tmp).env("TEMP", tmp);
        }
        if let Some(prefix) = &self.pycache_prefix {
            cmd.env("PYTHONPYCACHEPREFIX", prefix);
        }
        cmd
    }

    /// [`Setup::run`] with the timeout decided by `over`, asked between polls: true ends the
    /// run as timed out.
    pub(crate) fn run_until(
        &self,
        tree: &Path,
        select: &[String],
        report: &Path,
        log: &Path,
        mut over: impl FnMut() -> bool,
    ) -> Result<Finished, GateError> {
        let log_file = std::fs::File::create(log)
            .map_err(|e| GateError::io(format!("cannot create {}", log.display()), e))?;
        let err_file = log_file
            .try_clone()
            .map_err(|e| GateError::io(format!("cannot write {}", log.display()), e))?;
        let mut cmd = self.command(tree, select, report, log_file, err_file);
        let (mut child, reader) = crate::channel::spawn(&mut cmd, |fd| self.config(fd, report))
            .map_err(|source| GateError::PytestStart {
                python: self.python.clone(),
                source,
            })?;
        let pid = rustix::process::Pid::from_raw(child.id() as i32);
        let kill_group = || {
            if let Some(pid) = pid {
                // The group may be gone already: nothing left to stop.
                let _ = rustix::process::kill_process_group(pid, rustix::process::Signal::KILL);
            }
        };
        let mut pause = Duration::from_millis(5);
        let ended = loop {
            match child.try_wait() {
                Ok(Some(status)) => {
                    kill_group();
                    break Ended {
                        code: status.code(),
                        timed_out: false,
                    };
                }
                Ok(None) => {}
                Err(e) => {
                    kill_group();
                    let _ = reader.finish();
                    return Err(GateError::io("cannot wait for pytest", e));
                }
            }
            if over() {
                kill_group();
                let _ = child.wait();
                break Ended {
                    code: None,
                    timed_out: true,
                };
            }
            std::thread::sleep(pause);
            pause = (pause * 2).min(Duration::from_millis(100));
        };
        let stream = reader
            .finish()
            .map_err(|e| GateError::io("cannot read pytest's outcome channel", e))?;
        Ok(Finished { ended, stream })
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn args(list: &[&str]) -> Vec<String> {
        list.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn user_arguments_may_not_override_the_gate() {
        let refused: &[&[&str]] = &[
            &["-m", "merge or witness"],
            &["-mmerge"],
            &["-q", "-m", "x"],
            &["-qm", "x"],
            &["-p", "rig"],
            &["-prig"],
            &["-o", "junit_family=xunit2"],
            &["-c", "other.ini"],
            &["--junitxml=elsewhere.xml"],
            &["--junitxml", "elsewhere.xml"],
            &["--junit-xml=x"],
            &["--override-ini=x=y"],
            &["--rootdir=/"],
            &["--config-file", "x.ini"],
            &["--confcutdir=/"],
            &["--hypothesis-seed=1"],
            &["--junit=x"],
            &["--lanes-contract=fail"],
            &["--cov=pkg"],
            &["--cov-report", "term"],
        ];
        for case in refused {
            let err = check_user_args(&args(case)).unwrap_err().to_string();
            assert!(
                err.contains("gate's own") || err.contains("no other tracer"),
                "{case:?}: {err}"
            );
        }
        let allowed: &[&[&str]] = &[
            &["-q"],
            &["-x", "-v"],
            &["-k", "not test_credit_examples"],
            &["-kmerge"],
            &["-k", "-m"],
            &["-n", "2"],
            &["--tb=short"],
            &["--no-such-pytest-option"],
            &["tests/test_a.py"],
            &["-W", "error"],
            &["--no-cov"],
        ];
        for case in allowed {
            assert!(check_user_args(&args(case)).is_ok(), "{case:?}");
        }
    }

    #[test]
    fn the_gate_s_options_come_after_the_selection_and_before_the_user_s() {
        let setup = Setup {
            python: "python".into(),
            plugins: vec!["_hypothesis_pytestplugin".into()],
            seed: Some(7),
            user_args: args(&["-q"]),
            timeout: Duration::from_secs(1),
            pythonpath: vec![],
            pycache_prefix: None,
            product: vec![],
            trace: None,
            tmpdir: None,
            mutant: None,
        };
        let got = setup.arguments(&args(&["-m", "merge"]), Path::new("/tmp/r.xml"));
        assert_eq!(
            got,
            args(&[
                "-P",
                "-c",
                BOOTSTRAP,
                "-m",
                "merge",
                "-p",
                "no:cacheprovider",
                "--strict-markers",
                "--color=no",
                "-o",
                "junit_family=xunit1",
                "--junitxml=/tmp/r.xml",
                "-p",
                "_hypothesis_pytestplugin",
                "--hypothesis-seed=7",
                "-q"
            ])
        );
    }

    #[test]
    fn lanes_plugin_records_and_leaves_the_contract_to_the_scan() {
        let mut setup = Setup {
            python: "python".into(),
            plugins: vec!["_hypothesis_pytestplugin".into()],
            seed: None,
            user_args: vec![],
            timeout: Duration::from_secs(1),
            pythonpath: vec![],
            pycache_prefix: None,
            product: vec![],
            trace: None,
            tmpdir: None,
            mutant: None,
        };
        let report = Path::new("r.xml");
        let record = "--lanes-contract=record".to_string();
        assert!(!setup.arguments(&[], report).contains(&record));
        setup.plugins.push(LANES_PLUGIN_MODULE.into());
        let got = setup.arguments(&[], report);
        let p = got.iter().position(|a| a == LANES_PLUGIN_MODULE).unwrap();
        assert_eq!(got[p - 1], "-p");
        assert_eq!(got[p + 1], record);
    }
}
