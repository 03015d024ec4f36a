//! Snapshot libraries' files as a witness test's fixtures: a test that takes
//! syrupy's or pytest-snapshot's `snapshot`, or one of pytest-regressions' `*_regression`
//! fixtures, compares against files the library keeps beside the test module. Those files
//! are the test's golden bytes, found here by each library's own naming rules:
//!
//! - syrupy: `<dir>/__snapshots__/<module>.ambr` (the amber file every test of the module
//!   shares), and its single-file layout `<dir>/__snapshots__/<module>/<name>.<ext>`, where
//!   `<name>` is `[Class.]test[params][.index]` (a file belongs to the test whose name it
//!   starts with, read as syrupy reads it: the identifier prefix of each dotted part).
//! - pytest-regressions: the data folder named after the module, `<dir>/<module>/`, holding
//!   `<name>.<ext>` with `<name>` the test's node name with every non-word character made `_`
//!   (a parametrized test's files start with `<test>_`; the longest test name that fits wins).
//!   With `--with-test-class-names` in the config's addopts (the library's option; never
//!   `PYTEST_ADDOPTS`, which the gate's runs clear), a test in a class is named
//!   `<Class>_<test>` (its innermost class, non-word characters made `_`). A data file named
//!   like that for any class pytest would collect (`python_classes`), or after any test name
//!   (`python_functions`), is listed even when that class or test is gone, or the option is
//!   off: it is left over, and no test uses it.
//!   A `check(basename="NAME")` names `<dir>/<module>/NAME.<ext>` instead, and a
//!   `check(fullpath="PATH")` names PATH (relative to the rootdir, where the gate runs pytest);
//!   a value that is not a string literal, or that leaves the root, is refused. Such a test
//!   keeps the default-named files only when one of its `check` calls passes neither.
//! - pytest-snapshot: every file under `<dir>/snapshots/<module>/<test>/`, or under the folder
//!   a `snapshot.snapshot_dir = "..."` literal names (relative to the rootdir, where the gate
//!   runs pytest); any other value cannot be followed statically and is refused.
//!
//! Every file found in these layouts, and every file a test's own arguments name (a
//! `snapshot_dir` folder it sets, a `check(basename=...)` / `check(fullpath=...)`), whatever the
//! test's lane, is listed in the scan (`snapshots`), so that lane-lock can report one that no
//! witness test uses.

use std::collections::{BTreeSet, HashMap};
use std::path::Path;

use crate::pytest::collect::TestFound;
use crate::pytest::marks::ModuleFile;
use lane_python::{ANY_FIXTURE, FileArg, Function, Module, RegressionCheck};

/// pytest-regressions' fixtures.
pub const REGRESSION_FIXTURES: [&str; 6] = [
    "data_regression",
    "dataframe_regression",
    "file_regression",
    "image_regression",
    "ndarrays_regression",
    "num_regression",
];

/// The fixture syrupy and pytest-snapshot both name `snapshot`.
pub const SNAPSHOT_FIXTURE: &str = "snapshot";

/// The extensions pytest-regressions writes (file_regression's default is `.txt`): a file in
/// the data folder with one of these, named like a test, is a snapshot even when no test
/// claims it.
const REGRESSION_EXTENSIONS: [&str; 5] = ["csv", "npz", "png", "txt", "yml"];

/// How deep a snapshot folder is walked.
const MAX_DEPTH: usize = 16;

/// One test's snapshot files, or why they cannot be found.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct TestSnapshots {
    /// Root-relative, sorted, unique.
    pub files: Vec<String>,
    /// Arguments naming snapshot files that cannot be followed.
    pub unresolved: Vec<Unresolved>,
}

/// A value naming snapshot files that cannot be followed statically.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unresolved {
    pub line: u64,
    /// What carries it, as written (`snapshot.snapshot_dir`,
    /// `data_regression.check(basename=...)`).
    pub what: String,
    /// Its short name (`snapshot_dir`, `basename`, `fullpath`).
    pub name: &'static str,
    /// The literal when it is one (it then leaves the root); None: not a string literal.
    pub literal: Option<String>,
    /// How to write it so that it can be followed.
    pub hint: &'static str,
}

/// What a function asks for.
fn uses_snapshot(f: &Function) -> bool {
    f.params.iter().any(|p| p == SNAPSHOT_FIXTURE)
}

fn uses_regression(f: &Function) -> bool {
    f.params
        .iter()
        .any(|p| REGRESSION_FIXTURES.contains(&p.as_str()))
}

/// `dir` and module stem of a root-relative `.py` path.
fn dir_and_stem(rel: &str) -> (&str, &str) {
    let (dir, name) = rel.rsplit_once('/').unwrap_or(("", rel));
    (dir, name.strip_suffix(".py").unwrap_or(name))
}

fn join(dir: &str, rest: &str) -> String {
    if dir.is_empty() {
        rest.to_string()
    } else {
        format!("{dir}/{rest}")
    }
}

/// Regular files under root-relative `rel` (a folder), root-relative and sorted; nothing when
/// it is not a folder. Symbolic links are listed, never followed (lane-lock judges them).
fn files_under(root: &Path, rel: &str, recursive: bool) -> Vec<String> {
    let mut out = Vec::new();
    walk(root, rel, recursive, 0, &mut out);
    out.sort();
    out
}

/// [`files_under`] as syrupy discovers its snapshots: no hidden files, and no write sidecars
/// (`NAME.EXT.lock` / `NAME.EXT.tmp`, which syrupy 5+ leaves beside an amber file it wrote).
fn syrupy_files_under(root: &Path, rel: &str) -> Vec<String> {
    let mut out = files_under(root, rel, true);
    out.retain(|f| {
        let name = f.rsplit('/').next().unwrap_or(f);
        let sidecar = [".lock", ".tmp"].iter().any(|suffix| {
            name.strip_suffix(suffix)
                .is_some_and(|base| base.contains('.'))
        });
        !name.starts_with('.') && !sidecar
    });
    out
}

fn walk(root: &Path, rel: &str, recursive: bool, depth: usize, out: &mut Vec<String>) {
    let Ok(entries) = std::fs::read_dir(root.join(rel)) else {
        return;
    };
    for entry in entries.flatten() {
        let Some(name) = entry.file_name().to_str().map(str::to_owned) else {
            continue;
        };
        let Ok(kind) = entry.file_type() else {
            continue;
        };
        let child = join(rel, &name);
        if kind.is_dir() {
            if recursive && depth < MAX_DEPTH {
                walk(root, &child, recursive, depth + 1, out);
            }
        } else {
            out.push(child);
        }
    }
}

/// pytest-regressions' `re.sub(r"[\W]", "_", name)`.
fn word_chars(name: &str) -> String {
    name.chars()
        .map(|c| {
            if c.is_alphanumeric() || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect()
}

/// syrupy's reading of a snapshot name: each dotted part's longest identifier prefix, up to
/// the first part that is not wholly an identifier.
fn syrupy_name(name: &str) -> String {
    let mut parts = Vec::new();
    for part in name.split('.') {
        let mut end = 0;
        for (i, c) in part.char_indices() {
            let ok = if i == 0 {
                c.is_alphabetic() || c == '_'
            } else {
                c.is_alphanumeric() || c == '_'
            };
            if !ok {
                break;
            }
            end = i + c.len_utf8();
        }
        if end > 0 {
            parts.push(&part[..end]);
        }
        if end != part.len() {
            break;
        }
    }
    parts.join(".")
}

/// pytest-regressions' `--with-test-class-names` in the config's addopts: a data file of a
/// test in a class is named `<Class>_<test>` (the innermost class).
pub fn regression_class_names(addopts: &[String]) -> bool {
    addopts.iter().any(|o| o == "--with-test-class-names")
}

/// The name pytest-regressions gives a test's data files: its node name, after its innermost
/// class's name with `--with-test-class-names`, non-word characters made `_`.
fn regression_name(classes: &[&str], name: &str, class_names: bool) -> String {
    match classes.last() {
        Some(class) if class_names => format!("{}_{}", word_chars(class), word_chars(name)),
        _ => word_chars(name),
    }
}

/// A collected test's classes and function name, from its id (`file::Class::test`).
fn id_parts(id: &str) -> (Vec<&str>, &str) {
    let mut parts: Vec<&str> = id.split("::").skip(1).collect();
    let name = parts.pop().unwrap_or("");
    (parts, name)
}

/// Resolves a `snapshot_dir` literal against the root; None when it leaves the root.
fn root_relative(p: &str) -> Option<String> {
    if p.starts_with('/') {
        return None;
    }
    let mut parts: Vec<&str> = Vec::new();
    for seg in p.split(['/', '\\']) {
        match seg {
            "" | "." => {}
            ".." => {
                parts.pop()?;
            }
            s => parts.push(s),
        }
    }
    Some(parts.join("/"))
}

/// The snapshot files of each test of one module (`found`, all collected from `module`), by
/// test id. Tests that use no snapshot fixture are absent. `class_names`: pytest-regressions'
/// `--with-test-class-names` is in addopts ([`regression_class_names`]).
pub fn for_module(
    root: &Path,
    module: &ModuleFile,
    found: &[TestFound<'_>],
    class_names: bool,
) -> HashMap<String, TestSnapshots> {
    let mut out: HashMap<String, TestSnapshots> = HashMap::new();
    if !found
        .iter()
        .any(|t| uses_snapshot(t.func) || uses_regression(t.func))
    {
        return out;
    }
    let layout = ModuleLayout::of(root, module, found, class_names);
    for t in found {
        let (classes, name) = id_parts(&t.id);
        let mut files = BTreeSet::new();
        let mut unresolved = Vec::new();
        if uses_snapshot(t.func) {
            layout.syrupy(&classes, name, &mut files);
            layout.pytest_snapshot(t, name, &mut files, &mut unresolved);
        }
        if uses_regression(t.func) {
            layout.regression(t, (&classes, name), &mut files, &mut unresolved);
        }
        if !files.is_empty() || !unresolved.is_empty() {
            out.insert(
                t.id.clone(),
                TestSnapshots {
                    files: files.into_iter().collect(),
                    unresolved,
                },
            );
        }
    }
    out
}

/// The snapshot layouts beside one test module, looked up once for all its tests.
struct ModuleLayout<'a> {
    root: &'a Path,
    /// The module's folder and file stem.
    dir: &'a str,
    stem: &'a str,
    /// syrupy's `__snapshots__/<module>.ambr`, when it exists.
    amber: Option<String>,
    /// syrupy's single-file snapshots under `__snapshots__/<module>/`, and that prefix.
    single: Vec<String>,
    single_prefix: String,
    /// pytest-regressions' data folder and its files.
    data_dir: String,
    data_files: Vec<String>,
    /// The regression tests' file names, to give each data file to the longest that fits.
    regression_names: Vec<String>,
    class_names: bool,
}

impl<'a> ModuleLayout<'a> {
    fn of(
        root: &'a Path,
        module: &'a ModuleFile,
        found: &[TestFound<'_>],
        class_names: bool,
    ) -> Self {
        let (dir, stem) = dir_and_stem(&module.rel);
        let snapshots_dir = join(dir, "__snapshots__");
        let amber = format!("{snapshots_dir}/{stem}.ambr");
        let data_dir = join(dir, stem);
        ModuleLayout {
            root,
            dir,
            stem,
            amber: root.join(&amber).is_file().then_some(amber),
            single: syrupy_files_under(root, &format!("{snapshots_dir}/{stem}")),
            single_prefix: format!("{snapshots_dir}/{stem}/"),
            data_files: files_under(root, &data_dir, false),
            data_dir,
            regression_names: found
                .iter()
                .filter(|t| uses_regression(t.func))
                .map(|t| {
                    let (classes, name) = id_parts(&t.id);
                    regression_name(&classes, name, class_names)
                })
                .collect(),
            class_names,
        }
    }

    /// syrupy's files of test `name` in `classes`: the module's `.ambr`, and its single-file
    /// snapshots named for the test.
    fn syrupy(&self, classes: &[&str], name: &str, files: &mut BTreeSet<String>) {
        if let Some(amber) = &self.amber {
            files.insert(amber.clone());
        }
        let mut wanted = classes.join(".");
        if !wanted.is_empty() {
            wanted.push('.');
        }
        wanted.push_str(name);
        for f in &self.single {
            let rest = &f[self.single_prefix.len()..];
            // Only files straight in the module's folder; the extension is not the name.
            if rest.contains('/') {
                continue;
            }
            let base = rest.rsplit_once('.').map_or(rest, |(b, _)| b);
            if syrupy_name(base) == wanted {
                files.insert(f.clone());
            }
        }
    }

    /// pytest-snapshot's files of test `t` (named `name`): its default folder, or the
    /// `snapshot_dir` its body sets, which must be a literal inside the root.
    fn pytest_snapshot(
        &self,
        t: &TestFound<'_>,
        name: &str,
        files: &mut BTreeSet<String>,
        unresolved: &mut Vec<Unresolved>,
    ) {
        let root = self.root;
        let overrides: Vec<_> = t
            .func
            .snapshot_dirs
            .iter()
            .filter(|d| d.value.0 == SNAPSHOT_FIXTURE)
            .collect();
        if overrides.is_empty() {
            let default = join(self.dir, &format!("snapshots/{}/{name}", self.stem));
            files.extend(files_under(root, &default, true));
        }
        for o in overrides {
            let unfollowed = |literal: Option<&str>| Unresolved {
                line: o.line,
                what: format!("{}.snapshot_dir", o.value.0),
                name: "snapshot_dir",
                literal: literal.map(str::to_string),
                hint: "write the folder as a literal relative to the rootdir",
            };
            match o.value.1.as_deref().map(|p| (p, root_relative(p))) {
                Some((_, Some(rel))) if !rel.is_empty() => {
                    files.extend(files_under(root, &rel, true))
                }
                Some((p, _)) => unresolved.push(unfollowed(Some(p))),
                None => unresolved.push(unfollowed(None)),
            }
        }
    }

    /// pytest-regressions' files of test `t` (`classes` and `name` of its id): those its
    /// `check` calls name, and the data files named after it (given to the longest test name
    /// that fits) unless every call names its file.
    fn regression(
        &self,
        t: &TestFound<'_>,
        (classes, name): (&[&str], &str),
        files: &mut BTreeSet<String>,
        unresolved: &mut Vec<Unresolved>,
    ) {
        let checks = regression_checks(t.func);
        for c in &checks {
            named_regression_files(self.root, &self.data_dir, c, files, unresolved);
        }
        let default_files = checks.is_empty()
            || checks
                .iter()
                .any(|c| c.value.basename.is_none() && c.value.fullpath.is_none());
        if !default_files {
            return;
        }
        let mine = regression_name(classes, name, self.class_names);
        for f in &self.data_files {
            let file = &f[self.data_dir.len() + 1..];
            let best = self
                .regression_names
                .iter()
                .filter(|n| regression_match(file, n))
                .map(String::len)
                .max();
            if best == Some(mine.len()) && regression_match(file, &mine) {
                files.insert(f.clone());
            }
        }
    }
}

/// The `check` calls of a test's pytest-regressions fixtures (and any its code too deep to
/// read may make).
fn regression_checks(f: &Function) -> Vec<&lane_python::Located<RegressionCheck>> {
    f.regression_checks
        .iter()
        .filter(|c| {
            let fixture = c.value.fixture.as_str();
            fixture == ANY_FIXTURE
                || (REGRESSION_FIXTURES.contains(&fixture) && f.params.iter().any(|p| p == fixture))
        })
        .collect()
}

/// The files a `check(basename=...)` / `check(fullpath=...)` names, or why they cannot be
/// followed.
fn named_regression_files(
    root: &Path,
    data_dir: &str,
    c: &lane_python::Located<RegressionCheck>,
    files: &mut BTreeSet<String>,
    unresolved: &mut Vec<Unresolved>,
) {
    let fixture = c.value.fixture.as_str();
    let fixture = if fixture == ANY_FIXTURE {
        "a pytest-regressions fixture"
    } else {
        fixture
    };
    let mut unfollowed = |name: &'static str, literal: Option<&str>, hint: &'static str| {
        unresolved.push(Unresolved {
            line: c.line,
            what: format!("{fixture}.check({name}=...)"),
            name,
            literal: literal.map(str::to_string),
            hint,
        })
    };
    const BASENAME_HINT: &str =
        "write it as a string literal (a file name in the module's data folder)";
    const FULLPATH_HINT: &str = "write it as a string literal relative to the rootdir";
    match &c.value.basename {
        None => {}
        Some(FileArg::Computed) => unfollowed("basename", None, BASENAME_HINT),
        Some(FileArg::Literal(b)) => match root_relative(&join(data_dir, b)) {
            Some(rel) if !b.is_empty() && !rel.is_empty() => {
                let (dir, stem) = rel.rsplit_once('/').unwrap_or(("", &rel));
                let prefix = format!("{stem}.");
                files.extend(
                    files_under(root, dir, false)
                        .into_iter()
                        .filter(|f| f.rsplit('/').next().is_some_and(|n| n.starts_with(&prefix))),
                );
            }
            _ => unfollowed("basename", Some(b), BASENAME_HINT),
        },
    }
    match &c.value.fullpath {
        None => {}
        Some(FileArg::Computed) => unfollowed("fullpath", None, FULLPATH_HINT),
        Some(FileArg::Literal(p)) => match root_relative(p) {
            Some(rel) if !rel.is_empty() => {
                if root.join(&rel).is_file() {
                    files.insert(rel);
                }
            }
            _ => unfollowed("fullpath", Some(p), FULLPATH_HINT),
        },
    }
}

/// A pytest-regressions data file named for a test whose word-character name is `name`: the
/// name and an extension, or a parametrized name (`name_<params>_`) and an extension.
fn regression_match(file: &str, name: &str) -> bool {
    file.strip_prefix(name)
        .is_some_and(|rest| rest.starts_with('.') || (rest.starts_with('_') && rest.contains('.')))
}

/// [`module_files_in`] with no folder known to be bare.
#[cfg(test)]
fn module_files(root: &Path, rel: &str, module: &Module) -> Vec<String> {
    module_files_in(root, rel, module, &Folders::default())
}

/// The folders of test modules that hold neither `__snapshots__` nor `snapshots` (so no
/// module there has syrupy or pytest-snapshot files): looked up once per folder rather than
/// twice per module; and the names pytest collects (a pytest-regressions data file is named
/// after one).
#[derive(Debug)]
pub struct Folders {
    bare: std::collections::HashSet<String>,
    /// pytest-regressions' `--with-test-class-names` is in addopts: a data file may start
    /// with a class's name.
    class_names: bool,
    /// The config's `python_classes` and `python_functions`.
    python_classes: Vec<String>,
    python_functions: Vec<String>,
}

impl Default for Folders {
    /// No folder known to be bare; pytest's default names.
    fn default() -> Folders {
        Folders {
            bare: Default::default(),
            class_names: false,
            python_classes: vec!["Test".to_string()],
            python_functions: vec!["test".to_string()],
        }
    }
}

impl Folders {
    /// The bare folders among those of the root-relative module paths `rels`.
    pub fn of<'r>(root: &Path, rels: impl Iterator<Item = &'r str>) -> Folders {
        let dirs: BTreeSet<&str> = rels.map(|rel| dir_and_stem(rel).0).collect();
        let bare = dirs
            .into_iter()
            .filter(|dir| {
                // Anything there at all (a folder, a file, a link) is read as before.
                ["__snapshots__", "snapshots"]
                    .iter()
                    .all(|name| std::fs::symlink_metadata(root.join(join(dir, name))).is_err())
            })
            .map(str::to_string)
            .collect();
        Folders {
            bare,
            ..Folders::default()
        }
    }

    /// With pytest-regressions' `--with-test-class-names` in addopts (or not).
    pub fn with_class_names(mut self, on: bool) -> Folders {
        self.class_names = on;
        self
    }

    /// With the config's `python_classes` and `python_functions`.
    pub fn with_names(mut self, config: &crate::pytest::config::Config) -> Folders {
        self.python_classes = config.python_classes.clone();
        self.python_functions = config.python_functions.clone();
        self
    }

    /// `stem` (a data file's name without its extension) is one pytest-regressions gives a
    /// test pytest collects: the test's name (parameters after it, `_`-joined), or, as
    /// `--with-test-class-names` names it, a class's name, `_`, then that (whether or not the
    /// option or the class is still there: a file of a renamed class, or one left from when
    /// the option was on, is named so, and no test uses it).
    fn regression_stem(&self, stem: &str) -> bool {
        let function = |name: &str| {
            crate::pytest::fnmatch::matches_prefix_or_glob(&self.python_functions, name)
                || name.match_indices('_').any(|(i, _)| {
                    crate::pytest::fnmatch::matches_prefix_or_glob(
                        &self.python_functions,
                        &name[..i],
                    )
                })
        };
        function(stem)
            || stem.match_indices('_').any(|(i, _)| {
                crate::pytest::fnmatch::matches_prefix_or_glob(&self.python_classes, &stem[..i])
                    && function(&stem[i + 1..])
            })
    }
}

/// Every file in the snapshot layouts of a test module, root-relative and sorted: all of
/// `__snapshots__/` beside it (syrupy keeps every module's snapshots there), its
/// `snapshots/<module>/` (pytest-snapshot), and, when one of its functions takes a
/// pytest-regressions fixture, the files of its data folder named like a test with one of the
/// extensions the library writes (the folder also holds pytest-datadir's inputs). The
/// snapshot folders of a folder `folders` knows to be bare are not looked for.
pub fn module_files_in(root: &Path, rel: &str, module: &Module, folders: &Folders) -> Vec<String> {
    let (dir, stem) = dir_and_stem(rel);
    let mut out = Vec::new();
    if !folders.bare.contains(dir) {
        out = syrupy_files_under(root, &join(dir, "__snapshots__"));
        out.extend(files_under(
            root,
            &join(dir, &format!("snapshots/{stem}")),
            true,
        ));
    }
    let functions = module
        .functions
        .iter()
        .chain(module.classes.iter().flat_map(all_methods));
    let mut regression = false;
    for f in functions {
        regression |= uses_regression(f);
    }
    if regression {
        let data_dir = join(dir, stem);
        // With `--with-test-class-names`, a class's tests' files start with its name.
        let mut classes = Vec::new();
        if folders.class_names {
            let mut todo: Vec<&lane_python::Class> = module.classes.iter().collect();
            while let Some(c) = todo.pop() {
                classes.push(format!("{}_", word_chars(&c.name)));
                todo.extend(c.classes.iter());
            }
        }
        out.extend(files_under(root, &data_dir, false).into_iter().filter(|f| {
            let file = &f[data_dir.len() + 1..];
            file.rsplit_once('.').is_some_and(|(stem, ext)| {
                REGRESSION_EXTENSIONS.contains(&ext)
                    && (folders.regression_stem(stem)
                        || classes.iter().any(|c| file.starts_with(c.as_str())))
            })
        }));
    }
    out.sort();
    out.dedup();
    out
}

fn all_methods(c: &lane_python::Class) -> Box<dyn Iterator<Item = &Function> + '_> {
    Box::new(
        c.methods
            .iter()
            .chain(c.classes.iter().flat_map(all_methods)),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn syrupy_reads_names_as_syrupy_does() {
        assert_eq!(syrupy_name("test_a"), "test_a");
        assert_eq!(syrupy_name("test_a.1"), "test_a");
        assert_eq!(syrupy_name("test_a[x-1]"), "test_a");
        assert_eq!(syrupy_name("test_a[x.y]"), "test_a");
        assert_eq!(syrupy_name("TestC.test_a[1].2"), "TestC.test_a");
        assert_eq!(syrupy_name("TestC.Inner.test_a"), "TestC.Inner.test_a");
        assert_ne!(syrupy_name("test_ab"), "test_a");
    }

    #[test]
    fn regression_names() {
        assert_eq!(word_chars("test_a[1-x]"), "test_a_1_x_");
        assert!(regression_match("test_a.yml", "test_a"));
        assert!(regression_match("test_a_1_x_.yml", "test_a"));
        assert!(!regression_match("test_ab.yml", "test_a"));
        assert!(!regression_match("test_a_b", "test_a"));
    }

    #[test]
    fn regression_names_with_test_class_names() {
        let on = regression_class_names(&["-q".into(), "--with-test-class-names".into()]);
        assert!(on);
        assert!(!regression_class_names(&["--with-test-class".into()]));
        // The innermost class only, as the library reads `request.node.cls.__name__`.
        assert_eq!(
            regression_name(&["A", "B-c"], "test_x[1]", true),
            "B_c_test_x_1_"
        );
        assert_eq!(regression_name(&["A"], "test_x", false), "test_x");
        assert_eq!(regression_name(&[], "test_x", true), "test_x");
    }

    #[test]
    fn regression_data_files_are_named_after_a_collectable_test_or_class() {
        let default = Folders::default();
        for stem in [
            "test_a",
            "test_a_1_x_",
            // A class's file, whether or not the class (or the option) is still there.
            "TestShapes_test_top",
            "TestRenamed_Away_test_a_1_",
        ] {
            assert!(default.regression_stem(stem), "{stem}");
        }
        // pytest-datadir's inputs share the folder: a name no test or class gives is not one.
        for stem in ["Inputs_table", "TestData_notes", "data", "Test", "xtest_a"] {
            assert!(!default.regression_stem(stem), "{stem}");
        }
        // The config's names, prefixes or globs.
        let custom = Folders {
            python_classes: vec!["*Suite".to_string()],
            python_functions: vec!["check_*".to_string()],
            ..Folders::default()
        };
        assert!(custom.regression_stem("check_sum"));
        assert!(custom.regression_stem("check_sum_1_"));
        assert!(custom.regression_stem("MathSuite_check_sum"));
        assert!(!custom.regression_stem("test_a"));
        assert!(!custom.regression_stem("TestMath_check_sum"));
    }

    #[test]
    fn bare_folders_are_skipped_and_nothing_else() {
        let root = std::env::temp_dir().join(format!("lane-scan-folders-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        for (path, dir) in [
            ("t/a/__snapshots__/test_x/test_y.raw", false),
            ("t/b/snapshots/test_z/f.txt", false),
            ("t/c", true),
            ("t/d/snapshots", false),
        ] {
            let full = root.join(path);
            if dir {
                std::fs::create_dir_all(&full).expect("create the folder");
            } else {
                std::fs::create_dir_all(full.parent().expect("a parent"))
                    .expect("create the folder");
                std::fs::write(&full, "x").expect("write the file");
            }
        }
        let rels = [
            "t/a/test_x.py",
            "t/b/test_z.py",
            "t/c/test_w.py",
            "t/d/test_v.py",
        ];
        let folders = Folders::of(&root, rels.iter().copied());
        let bare: Vec<&str> = folders.bare.iter().map(String::as_str).collect();
        // `t/d/snapshots` is a file, not a folder: read as before, never assumed away.
        assert_eq!(bare, ["t/c"]);
        let module = Module::default();
        let found: Vec<Vec<String>> = rels
            .iter()
            .map(|rel| module_files_in(&root, rel, &module, &folders))
            .collect();
        for (rel, files) in rels.iter().zip(&found) {
            assert_eq!(*files, module_files(&root, rel, &module), "{rel}");
        }
        assert_eq!(found[0], ["t/a/__snapshots__/test_x/test_y.raw"]);
        assert_eq!(found[1], ["t/b/snapshots/test_z/f.txt"]);
        std::fs::remove_dir_all(&root).expect("remove the tree");
    }

    #[test]
    fn snapshot_dir_literals_stay_inside() {
        assert_eq!(root_relative("tests/snaps").as_deref(), Some("tests/snaps"));
        assert_eq!(root_relative("./a/../b").as_deref(), Some("b"));
        assert_eq!(root_relative("../out"), None);
        assert_eq!(root_relative("/abs"), None);
    }
}
