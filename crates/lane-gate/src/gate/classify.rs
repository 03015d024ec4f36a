//! With `--base`: every path the patch changed, classified as product code or test surface
//! ([`crate::surface`]) from what the base's checkout and the patch's tree configure.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use crate::git::{Delta, Repo, TreeFile};
use crate::surface::{self, Change, Class, Entry, Facts};
use crate::{GateError, from_tool};

/// The most bytes of a patch's pyproject.toml read to classify it (a larger one is unreadable
/// here, so the whole file is test surface).
const PYPROJECT_MAX_BYTES: u64 = 16 << 20;

fn read_text(path: &Path) -> Option<String> {
    let bytes =
        lane_core::io::read_file_capped(path, PYPROJECT_MAX_BYTES, "pyproject.toml").ok()?;
    String::from_utf8(bytes).ok()
}

/// Lock entries and capsules named by the lock and ledger in `root` (unreadable ones, and ones
/// over the tools' size caps, are the tools' to report: they are never read whole here).
pub(crate) fn locked_paths(root: &Path, into: &mut BTreeSet<String>) {
    let lock = root.join("lanes.lock");
    if let Ok(bytes) =
        lane_core::io::read_file_capped(&lock, lane_lock::lock::LOCK_MAX_BYTES, "the lock")
        && let Ok(lock) = lane_lock::lock::LockFile::parse(&bytes, "lanes.lock")
    {
        into.extend(lock.files.into_iter().map(|e| e.path));
    }
    let ledger = root.join("freeze_ledger.json");
    if let Ok(bytes) = lane_core::io::read_file_capped(
        &ledger,
        freeze_ledger::ledger::LEDGER_MAX_BYTES,
        "the ledger",
    ) && let Ok(serde_json::Value::Array(rows)) = serde_json::from_slice(&bytes)
    {
        for row in rows {
            if let Some(p) = row.get("input_path").and_then(|v| v.as_str()) {
                into.insert(p.to_string());
            }
        }
    }
}

fn rel_dir(root: &Path, dir: &str) -> String {
    let joined = lane_scan::config::normalize(&root.join(dir));
    lane_core::paths::relative_to(&joined, &lane_scan::config::normalize(root))
        .unwrap_or_default()
        .trim_end_matches('/')
        .to_string()
}

/// The modules `-p NAME` in addopts loads, as the files they may be.
fn plugin_files(addopts: &[String], into: &mut BTreeSet<String>) {
    let mut addopts = addopts.iter();
    while let Some(a) = addopts.next() {
        let name = if a == "-p" {
            addopts.next().cloned()
        } else {
            a.strip_prefix("-p").map(str::to_string)
        };
        if let Some(name) = name.filter(|n| !n.starts_with("no:")) {
            let stem = name.replace('.', "/");
            into.insert(format!("{stem}.py"));
            into.insert(format!("{stem}/__init__.py"));
        }
    }
}

/// Each test module's first folder above its packages is on sys.path (rootdir-based
/// "prepend" import mode).
fn test_import_dirs(f: &mut Facts) {
    let all: BTreeSet<&String> = f.base_files.iter().chain(f.head_files.iter()).collect();
    let mut dirs = Vec::new();
    for file in &all {
        let name = file.rsplit('/').next().unwrap_or(file);
        if !surface::is_test_module_name(name, &f.python_files) {
            continue;
        }
        let mut dir = file.rsplit_once('/').map_or("", |(d, _)| d).to_string();
        while !dir.is_empty() && all.contains(&format!("{dir}/__init__.py")) {
            dir = dir.rsplit_once('/').map_or("", |(d, _)| d).to_string();
        }
        dirs.push(dir);
    }
    f.import_dirs.extend(dirs);
}

/// The facts the classification needs, from the base's checkout and the patch's tree.
/// `roots`: the base's checkout, and the patch's tree unless only the base's facts are wanted.
pub(crate) fn facts(
    roots: &[&Path],
    base_files: &BTreeSet<String>,
    head_files: &BTreeSet<String>,
) -> Result<Facts, GateError> {
    let mut f = Facts {
        base_files: base_files.clone(),
        head_files: head_files.clone(),
        ..Facts::default()
    };
    f.import_dirs.insert(String::new());
    for &root in roots {
        let config = lane_scan::config::load(&[], None, root).map_err(from_tool("lane-scan"))?;
        if config.python_files != surface::DEFAULT_PYTHON_FILES {
            f.python_files.extend(config.python_files.iter().cloned());
        }
        for tp in &config.testpaths {
            let d = rel_dir(root, tp);
            if !d.is_empty() {
                f.testpaths.push(d);
            }
        }
        for p in
            lane_scan::config::ini_args(&config, "pythonpath").map_err(from_tool("lane-scan"))?
        {
            f.import_dirs.insert(rel_dir(root, &p));
        }
        plugin_files(&config.addopts, &mut f.plugin_modules);
        locked_paths(root, &mut f.locked);
    }
    if !f.python_files.is_empty() {
        f.python_files
            .extend(surface::DEFAULT_PYTHON_FILES.iter().map(|s| s.to_string()));
        f.python_files.sort();
        f.python_files.dedup();
    }
    test_import_dirs(&mut f);
    Ok(f)
}

/// The base's and the patch's trees as git lists them, and the git that reads their blobs.
pub(crate) struct Trees<'a> {
    pub(crate) repo: &'a Repo,
    pub(crate) base: &'a BTreeMap<String, TreeFile>,
    pub(crate) head: &'a BTreeMap<String, TreeFile>,
}

impl Trees<'_> {
    /// Whether `path` has git mode `mode` in the base or the patch.
    fn has_mode(&self, path: &str, mode: &str) -> bool {
        self.base.get(path).is_some_and(|f| f.mode == mode)
            || self.head.get(path).is_some_and(|f| f.mode == mode)
    }
}

/// Classifies the patch's paths: with the facts of both trees, and with the base's alone for
/// what the vote tree may put back.
pub(crate) struct Classifier<'a> {
    pub(crate) trees: Trees<'a>,
    /// The checkout (the patch's tree).
    pub(crate) cwd: &'a Path,
    /// The base's and the patch's facts together.
    pub(crate) facts: Facts,
    /// What the base alone says. Only a path the base's own facts make test surface is put
    /// back as the base had it: a patch that makes a product file look like test surface (a
    /// test module or `python_files` pattern beside it, a `testpaths` over it) must not get
    /// the base's product code voted on in place of its own.
    pub(crate) base_facts: Facts,
}

/// The paths the patch changed: each classified, and the rootdir-relative names lane-lock diff
/// reads (both names of a rename).
#[derive(Debug, Default)]
pub(crate) struct Classified {
    pub(crate) entries: Vec<Entry>,
    pub(crate) changed: Vec<String>,
}

impl Classifier<'_> {
    fn classify(&self, path: &str) -> (Class, String) {
        if path.rsplit('/').next() == Some("pyproject.toml") {
            let base = self
                .trees
                .base
                .get(path)
                .and_then(|f| self.trees.repo.blob(&f.oid).ok())
                .and_then(|b| String::from_utf8(b).ok());
            let head_path = self.cwd.join(path);
            let head = read_text(&head_path);
            if head.is_none() && head_path.symlink_metadata().is_ok() {
                return (
                    Class::TestSurface,
                    "pyproject.toml that cannot be read (or is over 16 MiB): cannot be classified"
                        .into(),
                );
            }
            return surface::classify_pyproject(base.as_deref(), head.as_deref());
        }
        surface::classify(path, self.trees.has_mode(path, "120000"), &self.facts)
    }

    /// Whether the base's own facts make `path` product code (it is then never put back).
    pub(crate) fn base_says_product(&self, path: &str) -> bool {
        path.rsplit('/').next() != Some("pyproject.toml")
            && self.facts.base_files.contains(path)
            && surface::classify(path, self.trees.has_mode(path, "120000"), &self.base_facts).0
                == Class::Product
    }

    /// One rootdir-relative path; a renamed one is as much test surface as its old name.
    fn push(&self, into: &mut Classified, path: &str, change: Change, from: Option<String>) {
        let (mut class, mut reason) = self.classify(path);
        if let Some(old) = &from {
            let (c2, r2) = self.classify(old);
            if c2 > class {
                class = c2;
                reason = format!("renamed from {old}: {r2}");
            }
        }
        into.changed.push(path.to_string());
        into.entries.push(Entry {
            class,
            change,
            from,
            path: path.to_string(),
            reason,
        });
    }

    /// A changed path outside the rootdir: classified by its name only, never restored.
    fn outside(&self, into: &mut Classified, path: &str, change: Change) {
        let empty = Facts {
            base_files: self.facts.base_files.clone(),
            ..Facts::default()
        };
        let (class, reason) = surface::classify(path, false, &empty);
        into.entries.push(Entry {
            class,
            change,
            from: None,
            path: format!("/{path}"),
            reason: format!("outside the rootdir: {reason}"),
        });
    }

    /// One top-relative path: under the rootdir, or outside it.
    fn one(&self, into: &mut Classified, path: &str, change: Change) {
        match self.trees.repo.under_root(path) {
            Some(r) => self.push(into, &r, change, None),
            None => self.outside(into, path, change),
        }
    }

    /// Refuses a changed submodule: the gate cannot read inside it.
    fn refuse_submodule(&self, delta: &Delta) -> Result<(), GateError> {
        let paths: Vec<&String> = match delta {
            Delta::Added(p) | Delta::Modified(p) | Delta::Deleted(p) => vec![p],
            Delta::Renamed { from, to } => vec![from, to],
        };
        for p in paths {
            let rel = self.trees.repo.under_root(p);
            if self.trees.has_mode(rel.as_deref().unwrap_or(p), "160000") {
                return Err(GateError::Checkout(format!(
                    "the submodule {p} changed: the gate cannot read inside a submodule to \
                     classify its change"
                )));
            }
        }
        Ok(())
    }

    /// Every path of `deltas`, then the untracked files of the copy (`copied` less `tracked`)
    /// that are test surface (a conftest.py or .pth a build step left does not vote either);
    /// sorted, without duplicates.
    pub(crate) fn classify_all(
        &self,
        deltas: &[Delta],
        copied: &BTreeSet<String>,
        tracked: &BTreeSet<String>,
    ) -> Result<Classified, GateError> {
        let mut out = Classified::default();
        for delta in deltas {
            self.refuse_submodule(delta)?;
            match delta {
                Delta::Added(p) => self.one(&mut out, p, Change::Added),
                Delta::Modified(p) => self.one(&mut out, p, Change::Changed),
                Delta::Deleted(p) => self.one(&mut out, p, Change::Removed),
                Delta::Renamed { from, to } => {
                    let repo = self.trees.repo;
                    match (repo.under_root(from), repo.under_root(to)) {
                        (Some(f), Some(t)) => {
                            self.push(&mut out, &f, Change::Removed, None);
                            self.push(&mut out, &t, Change::Renamed, Some(f));
                        }
                        _ => {
                            self.one(&mut out, from, Change::Removed);
                            self.one(&mut out, to, Change::Added);
                        }
                    }
                }
            }
        }
        for path in copied.difference(tracked) {
            let (class, reason) = surface::classify(path, false, &self.facts);
            if class == Class::TestSurface {
                out.entries.push(Entry {
                    class,
                    change: Change::Untracked,
                    from: None,
                    path: path.clone(),
                    reason,
                });
            }
        }
        out.entries.sort();
        out.entries.dedup();
        out.changed.sort();
        out.changed.dedup();
        Ok(out)
    }
}
