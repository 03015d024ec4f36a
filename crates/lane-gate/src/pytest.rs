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
];

/// pytest-lanes-gate's module: loaded, it records each item's runtime lanes and leaves the
/// contract to the static scan (`--lanes-contract=record`).
pub(crate) const LANES_PLUGIN_MODULE: &str = "pytest_lanes_gate";
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

/// The program `python -P -c` runs: the folders the run needs go on `sys.path` only now, after
/// start-up, so a `sitecustomize.py` or `usercustomize.py` in them is never imported by the
/// interpreter itself; children get them on PYTHONPATH as before.
///
/// Under a bytecode prefix (a run in the checkout itself, PYTHONPYCACHEPREFIX a fresh folder),
/// a module whose real path lies under the interpreter's own installation (`sys.prefix`,
/// `sys.base_prefix`, their exec twins: the standard library, site-packages) and not under the
/// tree reads its bytecode from its classic `__pycache__` again (so pytest, hypothesis
/// and the standard library no longer compile from source on every run). Everything else, the
/// tree's modules above all, still reads bytecode only from the fresh prefix: a `.pyc` a patch
/// commits or a run leaves in the tree is never imported. PYTHONDONTWRITEBYTECODE still holds,
/// so nothing is written to either place.
pub(crate) const BOOTSTRAP: &str = "import os, sys\n\
p = os.environ.pop('LANES_GATE_PATH', '')\n\
sys.path[0:0] = [d for d in p.split(os.pathsep) if d]\n\
if p:\n    os.environ['PYTHONPATH'] = p\n\
if sys.pycache_prefix:\n\
\x20   import _frozen_importlib_external as _be\n\
\x20   def _lanes_warm():\n\
\x20       real, join = os.path.realpath, os.path.join\n\
\x20       tree = join(real(os.getcwd()), '')\n\
\x20       roots = {join(real(d), '') for d in (sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix) if d}\n\
\x20       roots = tuple(r for r in roots if not r.startswith(tree))\n\
\x20       cached = _be.cache_from_source\n\
\x20       def cache_from_source(path, debug_override=None, *, optimization=None):\n\
\x20           pyc = cached(path, debug_override, optimization=optimization)\n\
\x20           source = real(os.fspath(path))\n\
\x20           if source.startswith(roots) and not source.startswith(tree):\n\
\x20               head = os.path.dirname(os.fspath(path))\n\
\x20               return join(head, '__pycache__', os.path.basename(pyc))\n\
\x20           return pyc\n\
\x20       _be.cache_from_source = cache_from_source\n\
\x20   _lanes_warm()\n\
\x20   del _lanes_warm, _be\n\
import pytest\n\
raise SystemExit(int(pytest.main()))\n";

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
    ) -> Result<Ended, GateError> {
        let start = Instant::now();
        let timeout = self.timeout;
        self.run_until(tree, select, report, log, move || {
            start.elapsed() >= timeout
        })
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
    ) -> Result<Ended, GateError> {
        use std::os::unix::process::CommandExt;
        let log_file = std::fs::File::create(log)
            .map_err(|e| GateError::io(format!("cannot create {}", log.display()), e))?;
        let err_file = log_file
            .try_clone()
            .map_err(|e| GateError::io(format!("cannot write {}", log.display()), e))?;
        let mut cmd = Command::new(&self.python);
        cmd.args(self.arguments(select, report))
            .current_dir(tree)
            .stdin(Stdio::null())
            .stdout(Stdio::from(log_file))
            .stderr(Stdio::from(err_file))
            .env_remove("PYTEST_ADDOPTS")
            .env_remove("PYTEST_PLUGINS")
            .env("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1")
            .env("PYTHONHASHSEED", "0")
            .env("TZ", "UTC")
            .env("PYTHONDONTWRITEBYTECODE", "1")
            .env_remove("PYTHONPYCACHEPREFIX")
            .process_group(0);
        if let Some(prefix) = &self.pycache_prefix {
            cmd.env("PYTHONPYCACHEPREFIX", prefix);
        }
        cmd.env_remove("PYTHONPATH").env_remove("LANES_GATE_PATH");
        if !self.pythonpath.is_empty() {
            let joined =
                std::env::join_paths(&self.pythonpath).map_err(|source| GateError::SearchPath {
                    what: "cannot build the run's sys.path",
                    source,
                })?;
            cmd.env("LANES_GATE_PATH", joined);
        }
        let mut child = cmd.spawn().map_err(|source| GateError::PytestStart {
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
        loop {
            match child.try_wait() {
                Ok(Some(status)) => {
                    kill_group();
                    return Ok(Ended {
                        code: status.code(),
                        timed_out: false,
                    });
                }
                Ok(None) => {}
                Err(e) => {
                    kill_group();
                    return Err(GateError::io("cannot wait for pytest", e));
                }
            }
            if over() {
                kill_group();
                let _ = child.wait();
                return Ok(Ended {
                    code: None,
                    timed_out: true,
                });
            }
            std::thread::sleep(pause);
            pause = (pause * 2).min(Duration::from_millis(100));
        }
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
        ];
        for case in refused {
            let err = check_user_args(&args(case)).unwrap_err().to_string();
            assert!(err.contains("gate's own"), "{case:?}: {err}");
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
