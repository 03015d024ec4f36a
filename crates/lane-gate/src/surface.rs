//! The test surface: every path a patch changes is product code or test surface. Test surface
//! is whatever decides the vote rather than being judged by it — tests and their helpers,
//! conftest files, pytest configuration, the lock, sidecars, the ledger, capsules, golden files,
//! plugin modules, anything that changes what Python imports before the product does, and
//! dependency manifests. What cannot be classified is test surface (docs/test-surface.md).

use std::collections::{BTreeMap, BTreeSet};

use serde::Serialize;

/// Which side of the vote a path is on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "kebab-case")]
pub(crate) enum Class {
    Product,
    TestSurface,
}

/// What the patch did to a path.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "kebab-case")]
pub(crate) enum Change {
    Added,
    Changed,
    Removed,
    /// The new name of a renamed path (the old name is listed as removed).
    Renamed,
    /// A file in the working tree that git does not track (a build output, or left behind).
    Untracked,
}

impl Change {
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Change::Added => "added",
            Change::Changed => "changed",
            Change::Removed => "removed",
            Change::Renamed => "renamed",
            Change::Untracked => "untracked",
        }
    }
}

/// One changed path with its class and the rule that decided it.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub(crate) struct Entry {
    pub(crate) class: Class,
    pub(crate) change: Change,
    /// For a renamed path: its name in the base.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) from: Option<String>,
    pub(crate) path: String,
    pub(crate) reason: String,
}

/// What the classification knows about the base and the patch (paths rootdir-relative,
/// `/`-separated).
#[derive(Debug, Clone, Default)]
pub(crate) struct Facts {
    /// Every file of the base.
    pub(crate) base_files: BTreeSet<String>,
    /// Every file of the patch's tree (tracked and untracked).
    pub(crate) head_files: BTreeSet<String>,
    /// pytest's `python_files` patterns of the base and the patch.
    pub(crate) python_files: Vec<String>,
    /// Folders of `testpaths` (base and patch), without a trailing `/`.
    pub(crate) testpaths: Vec<String>,
    /// Folders on the tests' import path: the rootdir (`""`), `pythonpath` entries and each
    /// test module's first folder above its packages.
    pub(crate) import_dirs: BTreeSet<String>,
    /// Paths locked in `lanes.lock` and capsules of `freeze_ledger.json` (base and patch).
    pub(crate) locked: BTreeSet<String>,
    /// Module files the configuration loads as plugins (`-p NAME` in addopts).
    pub(crate) plugin_modules: BTreeSet<String>,
    /// Modules of the project's own package that sit beside its test modules: the code under
    /// test, not helpers of the tests (read from the base only; see `classify`).
    pub(crate) package_modules: BTreeSet<String>,
}

/// Folder names that hold tests by convention.
const TEST_FOLDERS: &[&str] = &["tests", "test", "testing", "__snapshots__", "snapshots"];

/// pytest's configuration files (`pyproject.toml` is judged by its tables).
const PYTEST_CONFIGS: &[&str] = &[
    "pytest.ini",
    ".pytest.ini",
    "pytest.toml",
    ".pytest.toml",
    "tox.ini",
    "setup.cfg",
];

/// Files that name what gets installed into the interpreter the tests run in.
const MANIFESTS: &[&str] = &[
    "Pipfile",
    "Pipfile.lock",
    "poetry.lock",
    "uv.lock",
    "pdm.lock",
    "setup.py",
    "noxfile.py",
    "environment.yml",
    "environment.yaml",
    "requirements.in",
    "constraints.in",
];

/// Files git consults while diffing or checking out the tree the gate judges.
const GIT_FILES: &[&str] = &[".gitattributes", ".gitmodules", ".mailmap"];

/// Extensions of native code and of archives Python can import from.
const NATIVE: &[&str] = &[".so", ".pyd", ".dylib", ".dll", ".zip", ".egg", ".whl"];

/// A compiled extension, a native library (`libx.so.1` too) or an importable archive.
fn is_native(name: &str) -> bool {
    let lower = name.to_ascii_lowercase();
    NATIVE.iter().any(|ext| lower.ends_with(ext)) || lower.contains(".so.")
}

/// `python_files` when the configuration sets none.
pub(crate) const DEFAULT_PYTHON_FILES: &[&str] = &["test_*.py", "*_test.py"];

fn file_name(path: &str) -> &str {
    path.rsplit('/').next().unwrap_or(path)
}

fn parent(path: &str) -> &str {
    path.rsplit_once('/').map_or("", |(dir, _)| dir)
}

fn is_under(path: &str, dir: &str) -> bool {
    dir.is_empty()
        || path
            .strip_prefix(dir)
            .is_some_and(|rest| rest.starts_with('/'))
}

/// A dependency manifest by its name: requirements and constraints files (also under a
/// `requirements/` folder), lock files of pip-tools, Pipenv, Poetry, uv and PDM, setup.py,
/// noxfile.py, conda environments.
pub(crate) fn is_manifest(path: &str) -> bool {
    let name = file_name(path);
    let lower = name.to_ascii_lowercase();
    MANIFESTS.contains(&name)
        || ((lower.contains("requirements") || lower.contains("constraints"))
            && (lower.ends_with(".txt") || lower.ends_with(".in")))
        || (lower.starts_with("pylock") && lower.ends_with(".toml"))
        || path.split('/').any(|c| c == "requirements") && lower.ends_with(".txt")
}

/// Whether `name` matches one of pytest's `python_files` patterns.
pub(crate) fn is_test_module_name(name: &str, python_files: &[String]) -> bool {
    if !name.ends_with(".py") {
        return false;
    }
    if python_files.is_empty() {
        return DEFAULT_PYTHON_FILES
            .iter()
            .any(|p| lane_scan::fnmatch::fnmatch(p, name));
    }
    python_files
        .iter()
        .any(|p| lane_scan::fnmatch::fnmatch(p, name))
}

impl Facts {
    fn is_test_module(&self, path: &str) -> bool {
        is_test_module_name(file_name(path), &self.python_files)
    }

    /// The folder of `path` that makes it test surface, if any.
    fn test_folder(&self, path: &str) -> Option<String> {
        for tp in &self.testpaths {
            if !tp.is_empty() && is_under(path, tp) {
                return Some(tp.clone());
            }
        }
        let parts: Vec<&str> = path.split('/').collect();
        for (i, part) in parts.iter().enumerate().take(parts.len().saturating_sub(1)) {
            if TEST_FOLDERS.contains(part) {
                return Some(parts[..=i].join("/"));
            }
        }
        None
    }

    /// A test module of the base or the patch lives in `dir`.
    pub(crate) fn beside_test_module(&self, dir: &str) -> bool {
        self.base_files
            .iter()
            .chain(self.head_files.iter())
            .any(|f| parent(f) == dir && self.is_test_module(f))
    }

    /// For a `.py` the base did not have: the import folder where it adds a new top-level
    /// name (a module or package that could shadow another one).
    fn new_top_level_name(&self, path: &str) -> Option<String> {
        if self.base_files.contains(path) {
            return None;
        }
        for dir in self.import_dirs.iter().rev() {
            if !is_under(path, dir) {
                continue;
            }
            let rest = if dir.is_empty() {
                path
            } else {
                &path[dir.len() + 1..]
            };
            let first = rest.split('/').next().unwrap_or(rest);
            let prefix = if dir.is_empty() {
                String::new()
            } else {
                format!("{dir}/")
            };
            // A module file right in the import folder is new unless the base had that very
            // file: a base folder of the same name (`tests/` beside a new `tests.py`) does not
            // make it the base's.
            let base_has = if first == rest {
                self.base_files.contains(path)
            } else {
                let package = format!("{prefix}{first}/");
                self.base_files
                    .range(package.clone()..)
                    .next()
                    .is_some_and(|f| f.starts_with(&package))
            };
            return (!base_has).then(|| {
                if dir.is_empty() {
                    "the rootdir".to_string()
                } else {
                    dir.clone()
                }
            });
        }
        None
    }
}

/// How a `pyproject.toml` change is judged: its tables compared between base and patch.
pub(crate) fn classify_pyproject(base: Option<&str>, head: Option<&str>) -> (Class, String) {
    let parse = |text: Option<&str>| -> Result<toml::Table, ()> {
        match text {
            None => Ok(toml::Table::new()),
            Some(t) => t.parse::<toml::Table>().map_err(|_| ()),
        }
    };
    let (Ok(base), Ok(head)) = (parse(base), parse(head)) else {
        return (
            Class::TestSurface,
            "pyproject.toml that does not parse as TOML: cannot be classified".into(),
        );
    };
    let mut changed: BTreeSet<String> = BTreeSet::new();
    let keys: BTreeSet<&String> = base.keys().chain(head.keys()).collect();
    for key in keys {
        let (b, h) = (base.get(key.as_str()), head.get(key.as_str()));
        if b == h {
            continue;
        }
        // Tables whose own keys are judged one by one.
        if matches!(key.as_str(), "project" | "tool") {
            let empty = toml::Table::new();
            let bt = b.and_then(toml::Value::as_table).unwrap_or(&empty);
            let ht = h.and_then(toml::Value::as_table).unwrap_or(&empty);
            if b.is_some_and(|v| !v.is_table()) || h.is_some_and(|v| !v.is_table()) {
                changed.insert(key.clone());
                continue;
            }
            let sub: BTreeSet<&String> = bt.keys().chain(ht.keys()).collect();
            for s in sub {
                if bt.get(s.as_str()) != ht.get(s.as_str()) {
                    changed.insert(format!("{key}.{s}"));
                }
            }
        } else {
            changed.insert(key.clone());
        }
    }
    let surface = |k: &str| {
        matches!(
            k,
            "build-system"
                | "dependency-groups"
                | "project.dependencies"
                | "project.optional-dependencies"
                | "project.entry-points"
                | "project.dynamic"
                | "tool.pytest"
                | "tool.poetry"
                | "tool.uv"
                | "tool.pdm"
                | "tool.hatch"
                | "tool.hypothesis"
                | "tool.coverage"
                | "tool.setuptools"
                | "tool.setuptools_scm"
                | "tool.flit"
                | "tool.maturin"
                | "tool.scikit-build"
                | "tool.meson-python"
                | "tool.lanes"
        )
    };
    let touched: Vec<&String> = changed.iter().filter(|k| surface(k)).collect();
    if touched.is_empty() {
        (
            Class::Product,
            format!(
                "pyproject.toml: only tables that neither configure pytest nor name dependencies \
                 changed ({})",
                changed.iter().cloned().collect::<Vec<_>>().join(", ")
            ),
        )
    } else {
        (
            Class::TestSurface,
            format!(
                "pyproject.toml: the patch changes {}",
                touched
                    .iter()
                    .map(|s| s.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        )
    }
}

/// The configuration files judged by their sections ([`classify_ini`]): pytest reads one
/// section of each, other tools the rest.
pub(crate) const SECTIONED_CONFIGS: &[&str] = &["tox.ini", "setup.cfg"];

/// Sections of `tox.ini` or `setup.cfg` that neither pytest, coverage.py nor a build reads: tox's
/// own (the gate never runs tox: dropping a Python version from its env list changes nothing
/// the vote runs) and linters'. Any other section, and one the gate does not know, is test
/// surface.
fn harmless_section(file: &str, section: &str) -> bool {
    const LINTERS: &[&str] = &[
        "flake8",
        "pycodestyle",
        "pep8",
        "isort",
        "pydocstyle",
        "pylint",
        "mypy",
        "yapf",
        "codespell",
        "doc8",
        "check-manifest",
        "bumpversion",
        "zest.releaser",
    ];
    let tool = section.split([':', '-']).next().unwrap_or(section);
    let tox = file == "tox.ini"
        && (matches!(section, "tox" | "testenv" | "gh" | "gh-actions")
            || section.starts_with("testenv:")
            || section.starts_with("gh-actions:"));
    let cfg = file == "setup.cfg" && matches!(section, "metadata" | "bdist_wheel" | "sdist");
    tox || cfg || LINTERS.contains(&section) || LINTERS.contains(&tool)
}

/// An ini file's sections: each header's non-blank, non-comment lines, in order; `Err` when a
/// line comes before any header (the file cannot be judged by its sections).
pub(crate) fn ini_sections(text: &str) -> Result<BTreeMap<String, Vec<String>>, ()> {
    let mut out: BTreeMap<String, Vec<String>> = BTreeMap::new();
    let mut current: Option<String> = None;
    for line in text.strip_prefix('\u{feff}').unwrap_or(text).lines() {
        let trimmed = line.trim();
        if trimmed.is_empty() || trimmed.starts_with(['#', ';']) {
            continue;
        }
        if !line.starts_with([' ', '\t'])
            && let Some(header) = trimmed.strip_prefix('[').and_then(|r| r.strip_suffix(']'))
        {
            let header = header.trim().to_string();
            out.entry(header.clone()).or_default();
            current = Some(header);
            continue;
        }
        let section = current.as_ref().ok_or(())?;
        out.entry(section.clone())
            .or_default()
            .push(line.trim_end().to_string());
    }
    Ok(out)
}

/// How a change to `tox.ini` or `setup.cfg` (`file`) is judged: by the sections that changed
/// between base and patch. Test surface when any changed section is one pytest, coverage.py or a
/// build reads (or one the gate does not know: [`harmless_section`]), or when either side
/// cannot be read by its sections.
pub(crate) fn classify_ini(file: &str, base: Option<&str>, head: Option<&str>) -> (Class, String) {
    let sections = |text: Option<&str>| text.map_or(Ok(BTreeMap::new()), ini_sections);
    let (Ok(base), Ok(head)) = (sections(base), sections(head)) else {
        return (
            Class::TestSurface,
            format!("{file}: a line before any [section] header: cannot be classified"),
        );
    };
    let names: BTreeSet<&String> = base.keys().chain(head.keys()).collect();
    let changed: Vec<&str> = names
        .into_iter()
        .filter(|n| base.get(*n) != head.get(*n))
        .map(String::as_str)
        .collect();
    let list = |names: &[&str]| {
        names
            .iter()
            .map(|n| format!("[{n}]"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let read: Vec<&str> = changed
        .iter()
        .copied()
        .filter(|n| !harmless_section(file, n))
        .collect();
    if read.is_empty() {
        (
            Class::Product,
            format!(
                "{file}: only sections that neither configure pytest nor name dependencies \
                 changed ({})",
                list(&changed)
            ),
        )
    } else {
        (
            Class::TestSurface,
            format!(
                "{file}: the patch changes sections that pytest, coverage.py or a build reads \
                 (or that the gate does not know): {}",
                list(&read)
            ),
        )
    }
}

/// Classifies one rootdir-relative path the patch changes. `symlink`: the path is a symbolic
/// link on either side. A `pyproject.toml` is judged by [`classify_pyproject`] instead.
pub(crate) fn classify(path: &str, symlink: bool, facts: &Facts) -> (Class, String) {
    let ts = |why: String| (Class::TestSurface, why);
    let name = file_name(path);
    if path
        .split('/')
        .any(|c| c.is_empty() || c == "." || c == "..")
    {
        return ts("a path the gate cannot place (empty, `.` or `..` component)".into());
    }
    if let Some(meta) = path
        .split('/')
        .find(|c| c.ends_with(".dist-info") || c.ends_with(".egg-info"))
    {
        return ts(format!(
            "installed-distribution metadata ({meta}): entry points and .pth files it declares \
             load before the product"
        ));
    }
    if GIT_FILES.contains(&name) {
        return ts(format!(
            "{name}: git reads it while diffing and checking out (attributes decide binary, \
             line endings and filters; submodules and identities what a path is)"
        ));
    }
    if is_native(name) {
        return ts(
            "native code or an importable archive: Python can import it in place of a module, \
             and the gate cannot read it"
                .into(),
        );
    }
    if name.ends_with(".pth") {
        return ts("a .pth file: the interpreter runs it at start-up".into());
    }
    if path.split('/').any(|c| c == "__pycache__")
        || name.ends_with(".pyc")
        || name.ends_with(".pyo")
    {
        return ts(
            "compiled bytecode: Python can import it in place of the source beside it (an \
             unchecked-hash .pyc is never compared with its source)"
                .into(),
        );
    }
    if name == "sitecustomize.py" || name == "usercustomize.py" {
        return ts(format!("{name}: the interpreter imports it at start-up"));
    }
    if symlink {
        return ts("a symbolic link: the gate does not follow it to classify it".into());
    }
    if name == "conftest.py" {
        return ts("conftest.py: pytest loads it before any test".into());
    }
    if PYTEST_CONFIGS.contains(&name) {
        return ts(format!("{name}: pytest configuration"));
    }
    if name == "lanes.lock" || name.ends_with(".sha256") || name == "freeze_ledger.json" {
        return ts(format!("{name}: the lock, a sidecar or the freeze ledger"));
    }
    if facts.locked.contains(path) {
        return ts("a locked golden file or a freeze capsule".into());
    }
    if is_manifest(path) {
        return ts(
            "a dependency manifest: a new dependency can bring a pytest plugin or a .pth file"
                .into(),
        );
    }
    if facts.plugin_modules.contains(path) {
        return ts("a plugin module the pytest configuration loads".into());
    }
    if let Some(dir) = facts.test_folder(path) {
        return ts(format!("under the test folder {dir}/"));
    }
    if facts.is_test_module(path) {
        return ts("a test module (python_files)".into());
    }
    if name.ends_with(".py")
        && facts.beside_test_module(parent(path))
        && !facts.package_modules.contains(path)
    {
        return ts("a helper module beside a test module".into());
    }
    if name.ends_with(".py")
        && let Some(dir) = facts.new_top_level_name(path)
    {
        return ts(format!(
            "a new top-level module on an import path ({dir}) that the base did not have: it \
             can shadow what pytest or the product imports"
        ));
    }
    (Class::Product, "product code".into())
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn facts() -> Facts {
        let base: BTreeSet<String> = [
            "invoice.py",
            "pkg/__init__.py",
            "pkg/core.py",
            "tests/test_invoice_merge.py",
            "tests/fixtures/statement_v3.txt",
            "src/lib/test_inline.py",
            "src/lib/inline_helper.py",
            "src/lib/__init__.py",
            "src/lib/core.py",
            "README.md",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        Facts {
            head_files: base.clone(),
            base_files: base,
            python_files: vec![],
            testpaths: vec!["checks".into()],
            import_dirs: ["".to_string(), "src".to_string()].into_iter().collect(),
            locked: ["data/golden.bin".to_string()].into_iter().collect(),
            plugin_modules: ["rig_plugin.py".to_string()].into_iter().collect(),
            package_modules: [
                "src/lib/__init__.py".to_string(),
                "src/lib/core.py".to_string(),
            ]
            .into_iter()
            .collect(),
        }
    }

    /// Each path, whether it is a symlink, its class, and why.
    const CLASSIFIED: &[(&str, bool, Class, &str)] = &[
        ("invoice.py", false, Class::Product, "product"),
        ("pkg/core.py", false, Class::Product, "product"),
        ("pkg/new_module.py", false, Class::Product, "product"),
        ("README.md", false, Class::Product, "product"),
        (
            "tests/test_invoice_merge.py",
            false,
            Class::TestSurface,
            "test folder",
        ),
        (
            "tests/fixtures/statement_v3.txt",
            false,
            Class::TestSurface,
            "test folder",
        ),
        (
            "tests/helpers/util.py",
            false,
            Class::TestSurface,
            "test folder",
        ),
        (
            "checks/anything.txt",
            false,
            Class::TestSurface,
            "test folder checks",
        ),
        ("conftest.py", false, Class::TestSurface, "conftest"),
        ("pkg/conftest.py", false, Class::TestSurface, "conftest"),
        (
            "pytest.ini",
            false,
            Class::TestSurface,
            "pytest configuration",
        ),
        (
            "setup.cfg",
            false,
            Class::TestSurface,
            "pytest configuration",
        ),
        ("tox.ini", false, Class::TestSurface, "pytest configuration"),
        ("lanes.lock", false, Class::TestSurface, "the lock"),
        (
            "data/golden.bin.sha256",
            false,
            Class::TestSurface,
            "sidecar",
        ),
        ("freeze_ledger.json", false, Class::TestSurface, "ledger"),
        ("data/golden.bin", false, Class::TestSurface, "locked"),
        ("requirements.txt", false, Class::TestSurface, "manifest"),
        (
            "requirements/dev.txt",
            false,
            Class::TestSurface,
            "manifest",
        ),
        ("dev-requirements.in", false, Class::TestSurface, "manifest"),
        ("constraints.txt", false, Class::TestSurface, "manifest"),
        ("poetry.lock", false, Class::TestSurface, "manifest"),
        ("uv.lock", false, Class::TestSurface, "manifest"),
        ("setup.py", false, Class::TestSurface, "manifest"),
        ("rig_plugin.py", false, Class::TestSurface, "plugin"),
        ("evil.pth", false, Class::TestSurface, ".pth"),
        ("pkg/inner.pth", false, Class::TestSurface, ".pth"),
        (
            "rig-1.0.dist-info/entry_points.txt",
            false,
            Class::TestSurface,
            "dist-info",
        ),
        (
            "rig.egg-info/PKG-INFO",
            false,
            Class::TestSurface,
            "egg-info",
        ),
        ("sitecustomize.py", false, Class::TestSurface, "start-up"),
        (
            "pkg/usercustomize.py",
            false,
            Class::TestSurface,
            "start-up",
        ),
        (
            "pluggy.py",
            false,
            Class::TestSurface,
            "new top-level module",
        ),
        (
            "pluggy/__init__.py",
            false,
            Class::TestSurface,
            "new top-level package",
        ),
        (
            "src/attrs.py",
            false,
            Class::TestSurface,
            "new module on src",
        ),
        (
            "src/lib/test_more.py",
            false,
            Class::TestSurface,
            "test module",
        ),
        (
            "src/lib/inline_helper.py",
            false,
            Class::TestSurface,
            "helper beside",
        ),
        (
            "src/lib/core.py",
            false,
            Class::Product,
            "the package's own module beside its tests",
        ),
        (
            "src/lib/__init__.py",
            false,
            Class::Product,
            "the package's __init__ beside its tests",
        ),
        (
            "lib_test.py",
            false,
            Class::TestSurface,
            "test module *_test.py",
        ),
        ("pkg/link.py", true, Class::TestSurface, "symlink"),
        (
            "tests.py",
            false,
            Class::TestSurface,
            "new root module beside the base's tests/ folder",
        ),
        (
            "pkg.py",
            false,
            Class::TestSurface,
            "new root module beside the base's pkg/ package",
        ),
        (
            "__pycache__/invoice.cpython-312.pyc",
            false,
            Class::TestSurface,
            "committed bytecode",
        ),
        (
            "pkg/__pycache__/core.cpython-312.pyc",
            false,
            Class::TestSurface,
            "committed bytecode in a package",
        ),
        (
            "pluggy.pyc",
            false,
            Class::TestSurface,
            "sourceless bytecode",
        ),
        ("pkg/../x.py", false, Class::TestSurface, "unplaceable"),
        (
            ".gitattributes",
            false,
            Class::TestSurface,
            "git attributes",
        ),
        (
            "pkg/.gitattributes",
            false,
            Class::TestSurface,
            "git attributes",
        ),
        (".gitmodules", false, Class::TestSurface, "git submodules"),
        (".mailmap", false, Class::TestSurface, "git identities"),
        (
            "pkg/_speedups.cpython-311-x86_64-linux-gnu.so",
            false,
            Class::TestSurface,
            "compiled extension",
        ),
        ("pkg/_speedups.pyd", false, Class::TestSurface, "compiled"),
        ("vendor/libfast.so.1", false, Class::TestSurface, "library"),
        ("vendor/deps.zip", false, Class::TestSurface, "archive"),
        ("pkg/Native.DLL", false, Class::TestSurface, "library"),
        ("pkg/also.txt", false, Class::Product, "data"),
    ];

    #[test]
    fn classification_table() {
        let f = facts();
        for (path, symlink, class, what) in CLASSIFIED {
            let (got, why) = classify(path, *symlink, &f);
            assert_eq!(got, *class, "{path} ({what}): {why}");
        }
    }

    #[test]
    fn a_top_level_module_the_base_had_stays_product() {
        let f = facts();
        assert_eq!(classify("invoice.py", false, &f).0, Class::Product);
        let mut g = f.clone();
        g.base_files.remove("invoice.py");
        assert_eq!(classify("invoice.py", false, &g).0, Class::TestSurface);
    }

    #[test]
    fn python_files_patterns_are_honoured() {
        let mut f = facts();
        f.python_files = vec!["check_*.py".into()];
        assert_eq!(
            classify("pkg/check_core.py", false, &f).0,
            Class::TestSurface
        );
        // with a custom pattern, test_*.py outside test folders is an ordinary module
        assert_eq!(classify("pkg/test_core.py", false, &f).0, Class::Product);
    }

    #[test]
    fn tox_ini_and_setup_cfg_are_judged_by_their_sections() {
        let tox = "[tox]\nenvlist = py38, py39\n\n[testenv]\ndeps = pytest\n\n\
                   [pytest]\naddopts = -q\n";
        let cases: &[(&str, &str, &str, Class)] = &[
            // tox's env list and its test environments: the gate never runs tox
            ("tox.ini", tox, "envlist = py39", Class::Product),
            (
                "tox.ini",
                tox,
                "deps = pytest\n    coverage",
                Class::Product,
            ),
            // the section pytest reads, a coverage.py section, an unknown one
            (
                "tox.ini",
                tox,
                "addopts = -q -p no:randomly",
                Class::TestSurface,
            ),
            (
                "tox.ini",
                tox,
                "[coverage:run]\nomit = x.py",
                Class::TestSurface,
            ),
            ("tox.ini", tox, "[something]\nx = 1", Class::TestSurface),
            (
                "tox.ini",
                tox,
                "[flake8]\nmax-line-length = 99",
                Class::Product,
            ),
            // comments and blank lines only
            ("tox.ini", tox, "# a comment", Class::Product),
        ];
        for (file, base, edit, want) in cases {
            let head = if edit.starts_with('[') || edit.starts_with('#') {
                format!("{base}\n{edit}\n")
            } else if edit.starts_with("envlist") {
                base.replace("envlist = py38, py39", edit)
            } else if edit.starts_with("deps") {
                base.replace("deps = pytest", edit)
            } else {
                base.replace("addopts = -q", edit)
            };
            let (got, why) = classify_ini(file, Some(base), Some(&head));
            assert_eq!(got, *want, "{edit}: {why}");
        }
        let cfg = "[metadata]\nname = x\n\n[options]\ninstall_requires = attrs\n\n\
                   [tool:pytest]\naddopts = -q\n";
        let judge = |from: &str, to: &str| {
            classify_ini("setup.cfg", Some(cfg), Some(&cfg.replace(from, to)))
        };
        assert_eq!(judge("name = x", "name = y").0, Class::Product);
        let (class, why) = judge(
            "install_requires = attrs",
            "install_requires = pytest-randomly",
        );
        assert_eq!(class, Class::TestSurface);
        assert!(why.contains("[options]"), "{why}");
        assert_eq!(judge("addopts = -q", "addopts = -x").0, Class::TestSurface);
        // a new file, a removed one, and one that cannot be read by its sections
        assert_eq!(
            classify_ini("tox.ini", None, Some("[tox]\nenvlist = py3\n")).0,
            Class::Product
        );
        assert_eq!(
            classify_ini("tox.ini", Some(tox), None).0,
            Class::TestSurface
        );
        assert_eq!(
            classify_ini("setup.cfg", Some(cfg), Some("x = 1\n")).0,
            Class::TestSurface
        );
    }

    #[test]
    fn pyproject_tables() {
        let base = "[project]\nname = \"x\"\nversion = \"1\"\ndependencies = [\"a\"]\n\
                    [tool.ruff]\nline-length = 99\n";
        let cases: &[(&str, Class)] = &[
            (
                "[project]\nname = \"x\"\nversion = \"2\"\ndependencies = [\"a\"]\n\
                 [tool.ruff]\nline-length = 99\n",
                Class::Product,
            ),
            (
                "[project]\nname = \"x\"\nversion = \"1\"\ndependencies = [\"a\"]\n\
                 [tool.ruff]\nline-length = 100\n",
                Class::Product,
            ),
            (
                "[project]\nname = \"x\"\nversion = \"1\"\ndependencies = [\"a\", \"b\"]\n\
                 [tool.ruff]\nline-length = 99\n",
                Class::TestSurface,
            ),
            (
                "[project]\nname = \"x\"\nversion = \"1\"\ndependencies = [\"a\"]\n\
                 [tool.ruff]\nline-length = 99\n[tool.pytest.ini_options]\naddopts = \"-x\"\n",
                Class::TestSurface,
            ),
            (
                "[project]\nname = \"x\"\nversion = \"1\"\ndependencies = [\"a\"]\n\
                 [project.entry-points.pytest11]\nrig = \"rig\"\n[tool.ruff]\nline-length = 99\n",
                Class::TestSurface,
            ),
            (
                "[project]\nname = \"x\"\nversion = \"1\"\ndependencies = [\"a\"]\n\
                 [tool.ruff]\nline-length = 99\n[dependency-groups]\ndev = [\"rig\"]\n",
                Class::TestSurface,
            ),
            ("not = [toml", Class::TestSurface),
            // tox's own table: the gate never runs tox, and pytest does not read it
            (
                "[project]\nname = \"x\"\nversion = \"1\"\ndependencies = [\"a\"]\n\
                 [tool.ruff]\nline-length = 99\n[tool.tox]\nenv_list = [\"3.12\"]\n",
                Class::Product,
            ),
            // every build backend's table can declare entry points or what gets built
            (
                "[project]\nname = \"x\"\nversion = \"1\"\ndependencies = [\"a\"]\n\
                 [tool.ruff]\nline-length = 99\n\
                 [tool.flit.metadata.entrypoints.pytest11]\nrig = \"x\"\n",
                Class::TestSurface,
            ),
            (
                "[project]\nname = \"x\"\nversion = \"1\"\ndependencies = [\"a\"]\n\
                 [tool.ruff]\nline-length = 99\n[tool.maturin]\nfeatures = [\"y\"]\n",
                Class::TestSurface,
            ),
            (
                "[project]\nname = \"x\"\nversion = \"1\"\ndependencies = [\"a\"]\n\
                 [tool.ruff]\nline-length = 99\n[tool.lanes]\nmutants = \"off\"\n",
                Class::TestSurface,
            ),
        ];
        for (head, class) in cases {
            let (got, why) = classify_pyproject(Some(base), Some(head));
            assert_eq!(got, *class, "{head}: {why}");
        }
        // a new pyproject with build requirements is surface; removing one too
        assert_eq!(
            classify_pyproject(None, Some("[build-system]\nrequires = [\"x\"]\n")).0,
            Class::TestSurface
        );
        assert_eq!(classify_pyproject(Some(base), None).0, Class::TestSurface);
    }

    #[test]
    fn manifests_by_name() {
        for yes in [
            "requirements.txt",
            "requirements-dev.txt",
            "ci/test-requirements.txt",
            "constraints.txt",
            "Pipfile.lock",
            "pylock.toml",
            "pylock.dev.toml",
        ] {
            assert!(is_manifest(yes), "{yes}");
        }
        for no in ["requirements.md", "pkg/core.py", "docs/constraints.rst"] {
            assert!(!is_manifest(no), "{no}");
        }
    }
}
