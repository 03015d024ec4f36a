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

/// The name the base gives the project, as a module name (lower case, `-` and `.` as `_`):
/// `pyproject.toml`'s `[project]` or poetry's table, else `setup.cfg`'s `[metadata]`, else a
/// literal `name=` of `setup.py`'s `setup()` call.
fn project_name(base_root: &Path) -> Option<String> {
    let read = |name: &str| read_text(&base_root.join(name));
    let from_pyproject = || {
        let table: toml::Table = read("pyproject.toml")?.parse().ok()?;
        let named = |t: Option<&toml::Value>| t?.get("name")?.as_str().map(str::to_string);
        named(table.get("project"))
            .or_else(|| named(table.get("tool").and_then(|t| t.get("poetry"))))
    };
    let from_setup_cfg = || {
        let sections = surface::ini_sections(&read("setup.cfg")?).ok()?;
        sections.get("metadata")?.iter().find_map(|line| {
            let (key, value) = line.split_once(['=', ':'])?;
            (key.trim() == "name").then(|| value.trim().to_string())
        })
    };
    // `setup(name="...")` (or `setuptools.setup`) as a statement of setup.py, read by the
    // parser, never run.
    let from_setup_py = || {
        let module = lane_python::summarize(&read("setup.py")?).ok()?;
        module.calls.iter().find_map(|c| match &c.value {
            lane_python::Ex::Call(call)
                if matches!(&call.func, lane_python::Ex::Name(n) | lane_python::Ex::Dotted(n)
                    if n == "setup" || n.ends_with(".setup")) =>
            {
                call.kwargs.iter().find_map(|(key, value)| match value {
                    lane_python::Ex::Str(s) if key == "name" => Some(s.to_string()),
                    _ => None,
                })
            }
            _ => None,
        })
    };
    let name = from_pyproject()
        .or_else(from_setup_cfg)
        .or_else(from_setup_py)?;
    Some(name.to_ascii_lowercase().replace(['-', '.'], "_"))
}

/// The modules of the project's own package that sit beside its test modules (a package
/// `iso8601/` holding `test_iso8601.py` beside `iso8601.py`): the package's `__init__.py` and
/// the sibling modules it imports, for the top-level package named as the project; or the
/// single module named as the project (`parse.py` beside `test_parse.py`). They are
/// the code under test, not helpers of the tests: the base's own `__init__.py` says so. Read
/// from the base's checkout with the base's own facts `f` (the caller computes it once and
/// gives it to both sets of facts), so a patch cannot make a helper product code by editing
/// `__init__.py` or the project's name.
pub(crate) fn package_modules(base_root: &Path, f: &Facts) -> BTreeSet<String> {
    let mut found = BTreeSet::new();
    let Some(name) = project_name(base_root) else {
        return found;
    };
    // A single-module project (`parse.py` beside `test_parse.py`): the module named as the
    // project, on an import folder.
    for dir in &f.import_dirs {
        let module = if dir.is_empty() {
            format!("{name}.py")
        } else {
            format!("{dir}/{name}.py")
        };
        if f.base_files.contains(&module) {
            found.insert(module);
        }
    }
    let packages: BTreeSet<String> = f
        .import_dirs
        .iter()
        .map(|d| {
            if d.is_empty() {
                name.clone()
            } else {
                format!("{d}/{name}")
            }
        })
        .filter(|dir| {
            f.base_files.contains(&format!("{dir}/__init__.py")) && f.beside_test_module(dir)
        })
        .collect();
    for dir in packages {
        let init = format!("{dir}/__init__.py");
        let Some(module) =
            read_text(&base_root.join(&init)).and_then(|text| lane_python::summarize(&text).ok())
        else {
            continue;
        };
        let own = format!("{name}.");
        for import in &module.imports {
            // `from .core import x` / `from . import core` / `from iso8601.core import x` /
            // `import iso8601.core`: the sibling module `core`.
            let within = match import.level {
                1 => import.submodule().map(|m| m.to_string()),
                0 => match (&import.dotted, &import.name) {
                    (Some(dotted), _) => dotted.strip_prefix(own.as_str()).map(str::to_string),
                    (None, Some(item)) if import.module == name.as_str() => Some(item.to_string()),
                    (None, _) => import.module.strip_prefix(own.as_str()).map(str::to_string),
                },
                _ => None,
            };
            let Some(sibling) = within.as_deref().and_then(|m| m.split('.').next()) else {
                continue;
            };
            let file = format!("{dir}/{sibling}.py");
            if f.base_files.contains(&file)
                && !surface::is_test_module_name(&format!("{sibling}.py"), &f.python_files)
            {
                found.insert(file);
            }
        }
        found.insert(init);
    }
    found
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
        let name = path.rsplit('/').next().unwrap_or(path);
        if name == "pyproject.toml" || surface::SECTIONED_CONFIGS.contains(&name) {
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
                    format!("{name} that cannot be read (or is over 16 MiB): cannot be classified"),
                );
            }
            if name == "pyproject.toml" {
                return surface::classify_pyproject(base.as_deref(), head.as_deref());
            }
            return surface::classify_ini(name, base.as_deref(), head.as_deref());
        }
        surface::classify(path, self.trees.has_mode(path, "120000"), &self.facts)
    }

    /// Whether the base's own facts make `path` product code (it is then never put back).
    pub(crate) fn base_says_product(&self, path: &str) -> bool {
        let name = path.rsplit('/').next().unwrap_or(path);
        name != "pyproject.toml"
            && !surface::SECTIONED_CONFIGS.contains(&name)
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

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    /// A base tree on disk with `files`, and the facts of it alone.
    fn base_facts(files: &[(&str, &str)]) -> Facts {
        let dir = tempfile::tempdir().unwrap();
        for (path, text) in files {
            let at = dir.path().join(path);
            std::fs::create_dir_all(at.parent().unwrap()).unwrap();
            std::fs::write(at, text).unwrap();
        }
        let listed: BTreeSet<String> = files.iter().map(|(p, _)| p.to_string()).collect();
        let mut f = facts(&[dir.path()], &listed, &listed).unwrap();
        f.package_modules = package_modules(dir.path(), &f);
        f
    }

    const PACKAGE: &[(&str, &str)] = &[
        (
            "iso8601/__init__.py",
            "from .iso8601 import parse_date\nfrom iso8601 import extra\n\
          import iso8601.more\n",
        ),
        ("iso8601/iso8601.py", "def parse_date(s):\n    return s\n"),
        ("iso8601/extra.py", "X = 1\n"),
        ("iso8601/more.py", "Y = 2\n"),
        ("iso8601/helper.py", "def expected():\n    return 1\n"),
        ("iso8601/test_iso8601.py", "from iso8601 import helper\n"),
    ];

    #[test]
    fn the_project_s_own_package_beside_its_tests_is_product_code_and_its_helpers_are_not() {
        let mut files = PACKAGE.to_vec();
        files.push(("pyproject.toml", "[tool.poetry]\nname = \"ISO8601\"\n"));
        let f = base_facts(&files);
        assert_eq!(
            f.package_modules
                .iter()
                .map(String::as_str)
                .collect::<Vec<_>>(),
            [
                "iso8601/__init__.py",
                "iso8601/extra.py",
                "iso8601/iso8601.py",
                "iso8601/more.py"
            ]
        );
        let class = |path: &str| surface::classify(path, false, &f).0;
        assert_eq!(class("iso8601/iso8601.py"), surface::Class::Product);
        assert_eq!(class("iso8601/__init__.py"), surface::Class::Product);
        // imported by the tests only: a helper of theirs, test surface as before
        assert_eq!(class("iso8601/helper.py"), surface::Class::TestSurface);
        // a module the patch adds there is no module of the base's __init__.py
        assert_eq!(class("iso8601/new.py"), surface::Class::TestSurface);
    }

    #[test]
    fn a_single_module_project_beside_its_tests_is_product_code() {
        let f = base_facts(&[
            ("pyproject.toml", "[project]\nname = \"parse\"\n"),
            ("parse.py", "def parse(s):\n    return s\n"),
            ("helpers.py", "X = 1\n"),
            ("test_parse.py", "from parse import parse\n"),
        ]);
        let class = |path: &str| surface::classify(path, false, &f).0;
        assert_eq!(class("parse.py"), surface::Class::Product);
        assert_eq!(class("helpers.py"), surface::Class::TestSurface);
    }

    #[test]
    fn setup_cfg_or_setup_py_names_the_project_when_pyproject_toml_does_not() {
        let mut files = PACKAGE.to_vec();
        files.push((
            "setup.cfg",
            "[metadata]\nname = ISO8601\n\n[flake8]\nx = 1\n",
        ));
        let f = base_facts(&files);
        assert!(f.package_modules.contains("iso8601/iso8601.py"));
        let mut files = PACKAGE.to_vec();
        files.push((
            "setup.py",
            "import setuptools\nNAME = 'x'\nsetuptools.setup(name='iso8601', version='1')\n",
        ));
        assert!(
            base_facts(&files)
                .package_modules
                .contains("iso8601/iso8601.py")
        );
        let mut files = PACKAGE.to_vec();
        files.push((
            "setup.py",
            "from setuptools import setup\nsetup(name=NAME)\n",
        ));
        assert!(base_facts(&files).package_modules.is_empty());
    }

    #[test]
    fn without_a_package_named_as_the_project_every_module_beside_tests_stays_test_surface() {
        for config in [
            "[project]\nname = \"other\"\n",
            "[tool.black]\nline-length = 99\n",
        ] {
            let mut files = PACKAGE.to_vec();
            files.push(("pyproject.toml", config));
            let f = base_facts(&files);
            assert!(f.package_modules.is_empty(), "{config}");
            assert_eq!(
                surface::classify("iso8601/iso8601.py", false, &f).0,
                surface::Class::TestSurface
            );
        }
    }
}
