//! The first step: the arguments checked, the out folder emptied of an earlier run's files, a
//! temporary folder, and the interpreter the lanes run in (its version and installed plugins).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use crate::python::{Interpreter, Plugin};
use crate::section::{self, Seed};
use crate::{Args, GateError, tree};

/// Files a run leaves in the out folder; an earlier run's are removed first, so a gate that
/// stops never leaves a verdict behind.
const OUT_FILES: &[&str] = &[
    "evidence.json",
    "base-evidence.json",
    "verdict.json",
    "verdict.md",
    "pytest-status",
    "merge.xml",
    "witness.xml",
    "freeze.xml",
    "merge.log",
    "witness.log",
    "freeze.log",
    "candidates.xml",
    "candidates.log",
    crate::capture::FILE,
    crate::capture::CAPSULES,
];

/// lanes' own pytest plugin (a distribution name, normalized).
pub(crate) const LANES_PLUGIN: &str = "pytest-lanes-gate";

/// The folders a run works in.
#[derive(Debug, Clone)]
pub(crate) struct Places {
    /// The checkout: the folder the gate was started in (its rootdir).
    pub(crate) cwd: PathBuf,
    /// The out folder, absolute.
    pub(crate) out: PathBuf,
    /// The out folder as given, for the names the tally and the messages show.
    pub(crate) out_given: PathBuf,
    /// The run's temporary folder (removed when [`Prepared`] is dropped).
    pub(crate) tmp: PathBuf,
}

impl Places {
    /// A file of the out folder as the tally and the messages name it: under the folder as
    /// given.
    pub(crate) fn out_name(&self, file: &str) -> String {
        let base = self.out_given.to_string_lossy();
        format!("{}/{file}", base.trim_end_matches('/'))
    }
}

/// The interpreter the lanes run in, and what is installed in it.
#[derive(Debug, Clone)]
pub(crate) struct Python {
    /// `--python` as given (default `python`): what pytest is started with.
    pub(crate) command: PathBuf,
    pub(crate) interp: Interpreter,
    /// Installed distributions (normalized name -> version).
    pub(crate) dists: BTreeMap<String, String>,
    /// Every pytest plugin an installed distribution declares.
    pub(crate) plugins: Vec<Plugin>,
}

/// What every later step starts from.
pub(crate) struct Prepared {
    pub(crate) today: lane_core::clock::Today,
    /// The acknowledgment from outside the patch (`--ack`, `LANES_ACK`), when it names the
    /// head commit.
    pub(crate) ack: Option<String>,
    /// An acknowledgment given for another commit, ignored: the warning that says so.
    pub(crate) ack_ignored: Option<lane_core::Problem>,
    pub(crate) places: Places,
    pub(crate) python: Python,
    /// How every tree is scanned (the folder aside): for the interpreter that runs.
    pub(crate) scan: lane_scan::Options,
    /// The seed before the base is known (`--seed`, `LANES_SEED`, else 0).
    pub(crate) seed: Seed,
    /// Held so the temporary folder lives as long as the run.
    _tmp: tempfile::TempDir,
}

impl Prepared {
    /// The interpreter as the `gate` section records it.
    pub(crate) fn interpreter_info(&self) -> section::InterpreterInfo {
        let p = &self.python;
        section::InterpreterInfo {
            hypothesis: p.dists.get("hypothesis").cloned(),
            implementation: p.interp.implementation.clone(),
            pytest: p.dists.get("pytest").cloned(),
            version: format!(
                "{}.{}.{}",
                p.interp.version.0, p.interp.version.1, p.interp.version.2
            ),
        }
    }
}

/// Checks the arguments, empties the out folder of an earlier run's files, makes the temporary
/// folder and asks the interpreter, in that order (the first failure is the one reported).
pub(crate) fn prepare(args: &Args) -> Result<Prepared, GateError> {
    let today = lane_core::clock::today(args.today.as_deref())?;
    today.say_if_local(crate::TOOL);
    let ack = acknowledgment(args)?;
    crate::pytest::check_user_args(&args.pytest_args)?;
    if args.lane_timeout == 0 {
        return Err(GateError::Usage(
            "--lane-timeout must be at least 1 second".into(),
        ));
    }
    let cwd =
        std::env::current_dir().map_err(|e| GateError::io("cannot read the current folder", e))?;
    let (ack, ack_ignored) = crate::ack::for_head(ack, &cwd);
    let out = out_folder(&cwd, &args.out)?;
    let tmp_dir = tempfile::Builder::new()
        .prefix("lane-gate.")
        .tempdir()
        .map_err(|e| GateError::io("cannot create a temporary folder", e))?;
    let python = interpreter(args.python.clone())?;
    // Always loaded when installed (choose_plugins), so it registers the lane markers.
    let markers_plugin = python
        .plugins
        .iter()
        .any(|p| p.distribution == LANES_PLUGIN);
    // lane-scan decides sys.version_info / sys.platform conditions for the interpreter that runs.
    let scan = lane_scan::Options {
        target: Some(python.interp.target.clone()),
        python: Some(python.interp.command.clone()),
        markers_plugin,
        ..Default::default()
    };
    Ok(Prepared {
        today,
        seed: seed(args, None)?,
        ack,
        ack_ignored,
        places: Places {
            cwd,
            out,
            out_given: args.out.clone(),
            tmp: tmp_dir.path().to_path_buf(),
        },
        python,
        scan,
        _tmp: tmp_dir,
    })
}

/// The out folder, made and emptied of an earlier run's files.
fn out_folder(cwd: &Path, given: &Path) -> Result<PathBuf, GateError> {
    let out = lane_scan::config::normalize(&cwd.join(given));
    refuse_tracked(cwd, &out, given)?;
    let new = !out.exists();
    std::fs::create_dir_all(&out)
        .map_err(|e| GateError::io(format!("cannot create {}", given.display()), e))?;
    for f in OUT_FILES {
        tree::remove(&out.join(f))?;
    }
    // The gate's output is not source: git leaves it out of `git add -A` and of the status, as
    // pytest's cache folder does for itself. Only in a folder that holds nothing but the gate's
    // own output (never the checkout itself or a folder of the user's).
    let ignore = out.join(".gitignore");
    if !ignore.exists() && !cwd.starts_with(&out) && (new || only_gate_output(&out)) {
        super::write(&ignore, OUT_IGNORE.as_bytes())?;
    }
    Ok(out)
}

/// Refuses an out folder that holds files git tracks, before anything is touched: every run
/// removes and rewrites its output, and a tracked file deleted by the gate would leave the
/// checkout dirty (the next run with `--base` then refuses it, and so on). Outside a git work
/// tree, or with no git, nothing is tracked.
fn refuse_tracked(cwd: &Path, out: &Path, given: &Path) -> Result<(), GateError> {
    if !out.is_dir() {
        return Ok(());
    }
    let path = out.to_string_lossy();
    let Ok(listed) = crate::git::run(cwd, &["ls-files", "-z", "--", path.as_ref()]) else {
        return Ok(());
    };
    let tracked: Vec<String> = listed
        .split(|b| *b == 0)
        .filter(|s| !s.is_empty())
        .map(|s| String::from_utf8_lossy(s).into_owned())
        .collect();
    let Some(first) = tracked.first() else {
        return Ok(());
    };
    let more = match tracked.len() {
        1 => String::new(),
        n => format!(" and {} more", n - 1),
    };
    Err(GateError::Usage(format!(
        "the out folder {} holds files git tracks ({first}{more}): every run replaces its \
         output there, so nothing was changed; untrack them (git rm -r --cached {}) and commit, \
         or give --out a folder git does not track",
        given.display(),
        given.display()
    )))
}

/// The out folder's `.gitignore`: everything in it.
const OUT_IGNORE: &str = "# Written by lane-gate: its output folder is not source.\n*\n";

/// Files a run writes besides [`OUT_FILES`] (the verdict's other forms, the shard manifest).
const OUT_OTHERS: &[&str] = &["comment.md", crate::shard::MANIFEST_FILE, "verdict.sarif"];

/// Whether `out` holds only files a gate run writes (an earlier run's, before the ignore file).
fn only_gate_output(out: &Path) -> bool {
    let Ok(entries) = std::fs::read_dir(out) else {
        return false;
    };
    entries.filter_map(Result::ok).all(|e| {
        let name = e.file_name();
        let name = name.to_string_lossy();
        let kind_ok = e
            .file_type()
            .is_ok_and(|t| t.is_file() || (t.is_dir() && name == crate::capture::CAPSULES));
        kind_ok && (OUT_FILES.contains(&name.as_ref()) || OUT_OTHERS.contains(&name.as_ref()))
    })
}

/// The interpreter (`--python`, default `python` on PATH) and what is installed in it.
pub(crate) fn interpreter(given: Option<PathBuf>) -> Result<Python, GateError> {
    let command = given.unwrap_or_else(|| PathBuf::from("python"));
    let interp = Interpreter::probe(&command)?;
    let (dists, plugins) = interp.installed()?;
    if !dists.contains_key("pytest") {
        let why = imports_pytest(&command).err().unwrap_or_default();
        if !why.is_empty() {
            return Err(GateError::Interpreter(format!(
                "the lanes' interpreter ({}) cannot import pytest ({why}): install the project's \
                 test requirements into it, or name one that has them with --python",
                command.display()
            )));
        }
    }
    Ok(Python {
        command,
        interp,
        dists,
        plugins,
    })
}

/// Whether `python` imports pytest in isolated mode (a folder a `.pth` file adds counts);
/// `Err`: the last line of what it said.
fn imports_pytest(python: &Path) -> Result<(), String> {
    let out = std::process::Command::new(python)
        .args(["-I", "-c", "import pytest"])
        .stdin(std::process::Stdio::null())
        .output()
        .map_err(|e| e.to_string())?;
    if out.status.success() {
        return Ok(());
    }
    let said = String::from_utf8_lossy(&out.stderr);
    Err(said
        .lines()
        .rev()
        .find(|l| !l.trim().is_empty())
        .unwrap_or("it exited with an error")
        .trim()
        .to_string())
}

fn non_empty_env(name: &str) -> Option<String> {
    std::env::var(name).ok().filter(|v| !v.is_empty())
}

/// What the CI gave: the acknowledgment, from `--ack` / `--reason` or `LANES_ACK`.
fn acknowledgment(args: &Args) -> Result<Option<String>, GateError> {
    let ack = args.ack.clone().or_else(|| non_empty_env("LANES_ACK"));
    if ack.as_deref().is_some_and(|t| t.trim().is_empty()) {
        return Err(GateError::Usage(
            "--ack needs a text saying who acknowledged what (e.g. the PR label and its author)"
                .into(),
        ));
    }
    Ok(ack)
}

/// The hypothesis seed of every run: `--seed`, `LANES_SEED`, HMAC(`LANES_SEED_KEY`, the head's
/// tree id) when CI gives a key (unknowable when the patch is written, the same for every run
/// of one commit), the merge base's commit id, or 0. `commit`: the merge base and the head's
/// tree id (`--base`).
pub(crate) fn seed(args: &Args, commit: Option<(&str, &str)>) -> Result<Seed, GateError> {
    if let Some(n) = args.seed {
        return Ok(Seed {
            from: "--seed".into(),
            value: Some(n),
            predictable: true,
        });
    }
    if let Some(text) = non_empty_env("LANES_SEED") {
        let n = text.trim().parse::<u64>().map_err(|_| {
            GateError::Usage(format!(
                "LANES_SEED: expected a whole number, found '{text}'"
            ))
        })?;
        return Ok(Seed {
            from: "LANES_SEED".into(),
            value: Some(n),
            predictable: true,
        });
    }
    let key = non_empty_env(SEED_KEY);
    Ok(match (commit, key) {
        (Some((_, tree)), Some(key)) => Seed {
            from: format!("{SEED_KEY} and the head's tree"),
            value: Some(keyed(&key, tree)),
            predictable: false,
        },
        (Some((mb, _)), None) => Seed {
            from: "the merge base's commit id".into(),
            value: Some(u64::from_str_radix(&mb[..mb.len().min(8)], 16).unwrap_or(0)),
            predictable: true,
        },
        (None, _) => Seed {
            from: "default".into(),
            value: Some(0),
            predictable: true,
        },
    })
}

/// The CI secret the seed and the vote folder derive from.
pub(crate) const SEED_KEY: &str = "LANES_SEED_KEY";

/// A number from HMAC(`key`, `tree`): the first 8 hex digits of the digest.
pub(crate) fn keyed(key: &str, tree: &str) -> u64 {
    let mac = lane_core::io::hmac_sha256(key.as_bytes(), tree.as_bytes());
    u64::from_str_radix(&mac[..8], 16).unwrap_or(0)
}
