//! The one harness the crates' CLI tests share: run a binary with arguments, a working folder,
//! stdin and environment, and get its exit code, stdout and stderr back ([`Cmd`]); and golden
//! cases, an input tree and a command compared byte for byte with the expected stdout, stderr
//! and exit code kept next to them ([`golden`]).

pub mod golden;

use std::ffi::OsString;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

/// One run of a binary, built up and then [`Cmd::output`]. `LANES_TODAY` is removed from its
/// environment unless the test sets it: the tools read it, and the developer's must not leak in.
#[derive(Debug, Clone)]
pub struct Cmd {
    program: PathBuf,
    args: Vec<OsString>,
    dir: Option<PathBuf>,
    stdin: Option<Vec<u8>>,
    env: Vec<(OsString, Option<OsString>)>,
}

impl Cmd {
    pub fn new(program: impl Into<PathBuf>) -> Cmd {
        Cmd {
            program: program.into(),
            args: Vec::new(),
            dir: None,
            stdin: None,
            env: vec![("LANES_TODAY".into(), None)],
        }
    }

    pub fn args<S: AsRef<std::ffi::OsStr>>(mut self, args: impl IntoIterator<Item = S>) -> Cmd {
        self.args
            .extend(args.into_iter().map(|a| a.as_ref().to_os_string()));
        self
    }

    pub fn dir(mut self, dir: impl AsRef<Path>) -> Cmd {
        self.dir = Some(dir.as_ref().to_path_buf());
        self
    }

    /// Bytes piped to stdin; without it stdin is `/dev/null`.
    pub fn stdin(mut self, bytes: impl AsRef<[u8]>) -> Cmd {
        self.stdin = Some(bytes.as_ref().to_vec());
        self
    }

    pub fn env(mut self, key: impl Into<OsString>, value: impl Into<OsString>) -> Cmd {
        self.env.push((key.into(), Some(value.into())));
        self
    }

    pub fn env_remove(mut self, key: impl Into<OsString>) -> Cmd {
        self.env.push((key.into(), None));
        self
    }

    /// Removes each of `keys` (the variables that say a run is under CI, say, so that a test
    /// behaves the same on a developer's machine and in CI); a later [`Cmd::env`] sets one again.
    pub fn env_remove_all(mut self, keys: &[&str]) -> Cmd {
        self.env.extend(keys.iter().map(|k| ((*k).into(), None)));
        self
    }

    /// Runs it to the end. A binary that exits before reading all of stdin (a usage error)
    /// closes the pipe: that is not a failure of the test.
    pub fn output(&self) -> Output {
        let mut cmd = Command::new(&self.program);
        cmd.args(&self.args)
            .stdin(if self.stdin.is_some() {
                Stdio::piped()
            } else {
                Stdio::null()
            })
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        if let Some(dir) = &self.dir {
            cmd.current_dir(dir);
        }
        for (key, value) in &self.env {
            match value {
                Some(v) => cmd.env(key, v),
                None => cmd.env_remove(key),
            };
        }
        let mut child = cmd
            .spawn()
            .unwrap_or_else(|e| panic!("spawn {}: {e}", self.program.display()));
        if let Some(bytes) = &self.stdin {
            let mut pipe = child.stdin.take().expect("stdin is piped");
            if let Err(e) = pipe.write_all(bytes) {
                assert_eq!(e.kind(), std::io::ErrorKind::BrokenPipe, "write stdin: {e}");
            }
        }
        child
            .wait_with_output()
            .unwrap_or_else(|e| panic!("wait for {}: {e}", self.program.display()))
    }

    /// [`Cmd::output`] as a [`Run`]: the exit code (-1 when killed by a signal) and the output
    /// as text.
    pub fn run(&self) -> Run {
        Run::from(self.output())
    }
}

/// What a run left: exit code and output as (lossy) text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Run {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
}

impl From<Output> for Run {
    fn from(out: Output) -> Run {
        Run {
            code: out.status.code().unwrap_or(-1),
            stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        }
    }
}

/// A fresh, empty folder under the system's temporary folder, removed when dropped.
#[derive(Debug)]
pub struct Scratch(PathBuf);

impl Scratch {
    /// `name` keeps runs of different tests apart; the process id keeps parallel runs apart.
    pub fn new(name: &str) -> Scratch {
        let dir = std::env::temp_dir().join(format!("lanes-testkit-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("create {}: {e}", dir.display()));
        Scratch(dir)
    }

    pub fn path(&self) -> &Path {
        &self.0
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}
