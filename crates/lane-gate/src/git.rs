//! The git the gate needs: the base, the merge base, what the patch changed, the base's files.
//! Every failure is an error naming the command (exit 2): a gate never drops `--base` silently.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use crate::GateError;

/// A git work tree, entered from the rootdir (`prefix` is the rootdir inside it).
#[derive(Debug, Clone)]
pub(crate) struct Repo {
    pub(crate) top: PathBuf,
    /// The rootdir relative to the top, `/`-separated, empty or ending in `/`.
    pub(crate) prefix: String,
    cwd: PathBuf,
}

/// One path the patch changed, relative to the top of the work tree.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Delta {
    Added(String),
    Modified(String),
    Deleted(String),
    Renamed { from: String, to: String },
}

/// One file of a tree (`git ls-tree -r`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct TreeFile {
    pub(crate) mode: String,
    pub(crate) oid: String,
}

fn git_command(cwd: &Path) -> Command {
    let mut cmd = Command::new("git");
    cmd.current_dir(cwd)
        .args(["-c", "core.quotepath=off", "-c", "color.ui=false"])
        .env("GIT_OPTIONAL_LOCKS", "0")
        .env_remove("GIT_DIR")
        .env_remove("GIT_WORK_TREE")
        .env_remove("GIT_INDEX_FILE")
        .stdin(Stdio::null());
    cmd
}

/// Runs git in `cwd` and returns stdout; a failure names the command and git's first line.
pub(crate) fn run(cwd: &Path, args: &[&str]) -> Result<Vec<u8>, GateError> {
    let out = git_command(cwd)
        .args(args)
        .output()
        .map_err(GateError::GitStart)?;
    if !out.status.success() {
        let stderr = String::from_utf8_lossy(&out.stderr);
        let first = stderr
            .lines()
            .find(|l| !l.trim().is_empty())
            .unwrap_or("no message");
        return Err(GateError::Git(format!(
            "git {} failed ({}): {}",
            args.join(" "),
            out.status,
            first.trim()
        )));
    }
    Ok(out.stdout)
}

fn text(bytes: Vec<u8>, what: &str) -> Result<String, GateError> {
    String::from_utf8(bytes).map_err(|_| GateError::Git(format!("git {what}: output is not UTF-8")))
}

/// Splits `-z` output, refusing names the gate cannot carry.
fn names(bytes: &[u8], what: &str) -> Result<Vec<String>, GateError> {
    let mut out = Vec::new();
    for raw in bytes.split(|b| *b == 0).filter(|s| !s.is_empty()) {
        let name = std::str::from_utf8(raw).map_err(|_| {
            GateError::Checkout(format!(
                "{what}: the path {} is not UTF-8; the gate cannot classify it",
                String::from_utf8_lossy(raw)
            ))
        })?;
        if name.contains('\n') || name.contains('\r') {
            return Err(GateError::Checkout(format!(
                "{what}: the path {name:?} has a line break in its name; the gate cannot carry \
                 it through the tools (rename it)"
            )));
        }
        out.push(name.to_string());
    }
    Ok(out)
}

impl Repo {
    /// The work tree around `cwd`; not being in one is an error.
    pub(crate) fn open(cwd: &Path) -> Result<Repo, GateError> {
        let top = text(
            run(cwd, &["rev-parse", "--show-toplevel"])
                .map_err(|e| GateError::Git(format!("--base needs a git work tree: {e}")))?,
            "rev-parse",
        )?;
        let prefix = text(run(cwd, &["rev-parse", "--show-prefix"])?, "rev-parse")?;
        Ok(Repo {
            top: PathBuf::from(top.trim_end_matches('\n')),
            prefix: prefix.trim_end_matches('\n').to_string(),
            cwd: cwd.to_path_buf(),
        })
    }

    pub(crate) fn git(&self, args: &[&str]) -> Result<Vec<u8>, GateError> {
        run(&self.top, args)
    }

    /// The commit id of `rev`, or an error that says why (a shallow clone is named).
    pub(crate) fn commit(&self, rev: &str, flag: &str) -> Result<String, GateError> {
        let spec = format!("{rev}^{{commit}}");
        let out = git_command(&self.top)
            .args([
                "rev-parse",
                "--verify",
                "--quiet",
                "--end-of-options",
                &spec,
            ])
            .output()
            .map_err(GateError::GitStart)?;
        if out.status.success() {
            return Ok(text(out.stdout, "rev-parse")?.trim().to_string());
        }
        let shallow = self
            .git(&["rev-parse", "--is-shallow-repository"])
            .map(|b| b.starts_with(b"true"))
            .unwrap_or(false);
        Err(GateError::Git(if shallow {
            format!(
                "{flag}: '{rev}' is not a commit in this shallow clone; fetch the base (e.g. \
                 fetch-depth: 0, or git fetch --deepen) so the gate can read it"
            )
        } else {
            format!("{flag}: '{rev}' is not a commit")
        }))
    }

    /// The merge base of `base` and HEAD: what the patch started from.
    pub(crate) fn merge_base(&self, base: &str, head: &str) -> Result<String, GateError> {
        let out = self.git(&["merge-base", base, head]).map_err(|e| {
            GateError::Git(format!(
                "--base: no merge base of {base} and HEAD (a shallow clone without their common \
                 history?): {e}"
            ))
        })?;
        Ok(text(out, "merge-base")?.trim().to_string())
    }

    /// Tracked files with changes not committed (staged or not), rootdir-relative. The gate
    /// judges commits: a dirty tree is not one.
    pub(crate) fn dirty_tracked(&self) -> Result<Vec<String>, GateError> {
        let out = run(
            &self.cwd,
            &[
                "status",
                "--porcelain=v1",
                "-z",
                "--untracked-files=no",
                "--",
                ".",
            ],
        )?;
        let mut paths = Vec::new();
        let mut fields = out.split(|b| *b == 0).filter(|s| !s.is_empty());
        while let Some(entry) = fields.next() {
            if entry.len() < 4 {
                continue;
            }
            let xy = &entry[..2];
            paths.push(String::from_utf8_lossy(&entry[3..]).into_owned());
            if xy.contains(&b'R') || xy.contains(&b'C') {
                fields.next();
            }
        }
        Ok(paths)
    }

    /// What the patch changed between `from` and `to`, top-relative, renames paired.
    pub(crate) fn diff(&self, from: &str, to: &str) -> Result<Vec<Delta>, GateError> {
        let out = self.git(&[
            "diff",
            "-z",
            "--name-status",
            "--no-ext-diff",
            "--no-textconv",
            "--find-renames",
            "--ignore-submodules=none",
            from,
            to,
            "--",
        ])?;
        let fields = names(&out, "git diff")?;
        let mut it = fields.into_iter();
        let mut deltas = Vec::new();
        while let Some(status) = it.next() {
            let mut next = |what: &str| {
                it.next().ok_or_else(|| {
                    GateError::Git(format!("git diff: a {what} path is missing after {status}"))
                })
            };
            let delta = match status.chars().next() {
                Some('A') => Delta::Added(next("added")?),
                Some('M') | Some('T') => Delta::Modified(next("changed")?),
                Some('D') => Delta::Deleted(next("deleted")?),
                Some('R') | Some('C') => {
                    let from = next("renamed")?;
                    let to = next("renamed")?;
                    if status.starts_with('C') {
                        Delta::Added(to)
                    } else {
                        Delta::Renamed { from, to }
                    }
                }
                _ => {
                    return Err(GateError::Git(format!(
                        "git diff: status '{status}' is one the gate cannot classify"
                    )));
                }
            };
            deltas.push(delta);
        }
        Ok(deltas)
    }

    /// Every file of `rev` under the rootdir, rootdir-relative, with its mode and blob.
    pub(crate) fn tree(&self, rev: &str) -> Result<BTreeMap<String, TreeFile>, GateError> {
        let spec = format!("{rev}:{}", self.prefix);
        let out = self.git(&["ls-tree", "-r", "-z", "--full-tree", &spec])?;
        let mut files = BTreeMap::new();
        for raw in out.split(|b| *b == 0).filter(|s| !s.is_empty()) {
            let Some(tab) = raw.iter().position(|b| *b == b'\t') else {
                return Err(GateError::Git(
                    "git ls-tree: an entry without a path".into(),
                ));
            };
            let path = names(&raw[tab + 1..], "git ls-tree")?
                .pop()
                .unwrap_or_default();
            let meta = String::from_utf8_lossy(&raw[..tab]).into_owned();
            let mut parts = meta.split(' ');
            let (mode, _kind, oid) = (parts.next(), parts.next(), parts.next());
            files.insert(
                path,
                TreeFile {
                    mode: mode.unwrap_or_default().to_string(),
                    oid: oid.unwrap_or_default().to_string(),
                },
            );
        }
        Ok(files)
    }

    /// A blob's bytes.
    pub(crate) fn blob(&self, oid: &str) -> Result<Vec<u8>, GateError> {
        self.git(&["cat-file", "blob", oid])
    }

    /// Files git tracks under the rootdir (rootdir-relative).
    pub(crate) fn tracked(&self) -> Result<Vec<String>, GateError> {
        let out = run(&self.cwd, &["ls-files", "-z", "--", "."])?;
        names(&out, "git ls-files")
    }

    /// A top-relative path as rootdir-relative, or None outside the rootdir.
    pub(crate) fn under_root(&self, path: &str) -> Option<String> {
        path.strip_prefix(self.prefix.as_str()).map(str::to_string)
    }
}

impl Repo {
    /// Writes the files of `rev` under the rootdir into `dest` through a throwaway index (the
    /// work tree and the repository's own index are untouched).
    pub(crate) fn checkout(&self, rev: &str, dest: &Path, index: &Path) -> Result<(), GateError> {
        let spec = format!("{rev}:{}", self.prefix);
        let mut dest_arg = dest.as_os_str().to_os_string();
        dest_arg.push("/");
        let dest_arg = dest_arg
            .into_string()
            .map_err(|_| GateError::Git("the temporary folder's path is not UTF-8".into()))?;
        let prefix = format!("--prefix={dest_arg}");
        for args in [
            vec!["read-tree", spec.as_str()],
            vec!["checkout-index", "-a", prefix.as_str()],
        ] {
            let out = git_command(&self.top)
                .env("GIT_INDEX_FILE", index)
                .args(&args)
                .output()
                .map_err(GateError::GitStart)?;
            if !out.status.success() {
                return Err(GateError::Git(format!(
                    "git {} failed while checking out {rev}: {}",
                    args[0],
                    String::from_utf8_lossy(&out.stderr).trim()
                )));
            }
        }
        Ok(())
    }
}
