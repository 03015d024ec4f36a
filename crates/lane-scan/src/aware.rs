//! The product code test-aware-code judges (the rule is rules/test_aware_code.rs): the lines a
//! patch changed (`--changed DIFF`, a unified diff), or every product file ([`Changed::All`],
//! what lane-gate judges without `--base`).
//!
//! A product file is a Python file of the rootdir that is not a test module, not a conftest.py,
//! not in a test folder (`tests`, `test`, `testing`, a `testpaths` entry, the folder of a test
//! module or conftest other than the rootdir), not in a folder pytest does not enter (hidden,
//! `norecursedirs`, a virtualenv) and not a root-level build script (setup.py, noxfile.py ...).

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use lane_core::rule::SOURCE_MAX_BYTES;
use lane_core::{Error, Problem};
use lane_python::capability::{Found, Use};
use lane_python::product::{Reach, Reached};

use crate::rules::{ProductFile, ScanFacts, Unjudged};

use crate::pytest::config::Config;

/// Folder names that hold tests, not product code.
pub(crate) const TEST_FOLDERS: &[&str] = &["tests", "test", "testing"];

/// Root-level scripts that build, package or drive the project; never imported by its tests.
const BUILD_SCRIPTS: &[&str] = &[
    "setup.py",
    "noxfile.py",
    "toxfile.py",
    "fabfile.py",
    "tasks.py",
];

/// Root-level folders of documentation (Sphinx's conf.py and examples), not product code.
const DOC_FOLDERS: &[&str] = &["docs", "doc"];

/// Line ranges (1-based, inclusive) of a file.
pub(crate) type Ranges = Vec<(u64, u64)>;

/// Which product code is judged.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Changed {
    /// Every product file of the tree (no diff to judge by: fail closed).
    All,
    /// These root-relative files, on these 1-based inclusive line ranges of the new text.
    Lines(BTreeMap<String, Vec<(u64, u64)>>),
}

/// Reads a unified diff (`git diff -U0`, any context size; `a/` `b/` prefixes or none) into the
/// lines of the new side each file had changed. A file deleted by the diff has no lines; a hunk
/// that only deletes marks the lines on both sides of the cut (what was between them changed).
/// `name` names the diff in errors.
pub fn parse_diff(text: &str, name: &str) -> Result<BTreeMap<String, Vec<(u64, u64)>>, Error> {
    let mut out: BTreeMap<String, Vec<(u64, u64)>> = BTreeMap::new();
    let mut current: Option<String> = None;
    // Lines of the hunk still to read (old side, new side): hunk bodies are skipped by count,
    // so a removed line that reads `--- x` is never taken for a header.
    let mut left = (0u64, 0u64);
    let bad = |line: usize, what: &str| Error::parse(name, line + 1, 1, what.to_string());
    for (i, line) in text.lines().enumerate() {
        if left.0 > 0 || left.1 > 0 {
            match line.as_bytes().first() {
                Some(b'+') => left.1 = left.1.saturating_sub(1),
                Some(b'-') => left.0 = left.0.saturating_sub(1),
                Some(b' ') | None => {
                    left.0 = left.0.saturating_sub(1);
                    left.1 = left.1.saturating_sub(1);
                }
                Some(b'\\') => {}
                Some(_) => {
                    return Err(bad(
                        i,
                        "expected a hunk line (' ', '+', '-' or '\\'): the hunk is shorter than its header says",
                    ));
                }
            }
            continue;
        }
        if let Some(rest) = line.strip_prefix("+++ ") {
            let path = rest.split('\t').next().unwrap_or(rest).trim_end();
            let path = unquote(path).ok_or_else(|| bad(i, "a quoted path that does not end"))?;
            current = if path == "/dev/null" {
                None
            } else {
                let path = path.strip_prefix("b/").unwrap_or(&path).to_string();
                out.entry(path.clone()).or_default();
                Some(path)
            };
        } else if let Some(rest) = line.strip_prefix("@@ ") {
            let (old, new) = hunk_header(rest)
                .ok_or_else(|| bad(i, "expected a hunk header `@@ -A[,B] +C[,D] @@`"))?;
            left = (old.1, new.1);
            let Some(file) = &current else {
                // A hunk of a deleted file (`+++ /dev/null`) changes no product line.
                if new.1 == 0 {
                    continue;
                }
                return Err(bad(i, "a hunk before any `+++ FILE` line"));
            };
            let (start, count) = new;
            let range = if count == 0 {
                (start.max(1), start + 1)
            } else {
                (start, start + count - 1)
            };
            out.entry(file.clone()).or_default().push(range);
        }
    }
    if left.0 > 0 || left.1 > 0 {
        return Err(Error::parse(
            name,
            text.lines().count(),
            1,
            "the diff ends inside a hunk (it is shorter than its header says)",
        ));
    }
    Ok(out)
}

/// `-A[,B] +C[,D] @@ ...` as ((A, B), (C, D)), B and D 1 when absent.
fn hunk_header(rest: &str) -> Option<((u64, u64), (u64, u64))> {
    let mut parts = rest.split_whitespace();
    let old = parts.next()?.strip_prefix('-')?;
    let new = parts.next()?.strip_prefix('+')?;
    if parts.next()? != "@@" {
        return None;
    }
    let range = |s: &str| -> Option<(u64, u64)> {
        match s.split_once(',') {
            Some((a, b)) => Some((a.parse().ok()?, b.parse().ok()?)),
            None => Some((s.parse().ok()?, 1)),
        }
    };
    Some((range(old)?, range(new)?))
}

/// A path as git writes it: as is, or in double quotes with C escapes (octal bytes included).
fn unquote(path: &str) -> Option<String> {
    let Some(inner) = path.strip_prefix('"') else {
        return Some(path.to_string());
    };
    let inner = inner.strip_suffix('"')?;
    let mut bytes = Vec::new();
    let mut it = inner.bytes().peekable();
    while let Some(b) = it.next() {
        if b != b'\\' {
            bytes.push(b);
            continue;
        }
        match it.next()? {
            b'n' => bytes.push(b'\n'),
            b't' => bytes.push(b'\t'),
            b'a' => bytes.push(7),
            b'b' => bytes.push(8),
            b'f' => bytes.push(12),
            b'v' => bytes.push(11),
            b'r' => bytes.push(b'\r'),
            d @ b'0'..=b'7' => {
                let mut v = u32::from(d - b'0');
                for _ in 0..2 {
                    match it.peek() {
                        Some(&n @ b'0'..=b'7') => {
                            v = v * 8 + u32::from(n - b'0');
                            it.next();
                        }
                        _ => break,
                    }
                }
                bytes.push(u8::try_from(v).ok()?);
            }
            other => bytes.push(other),
        }
    }
    String::from_utf8(bytes).ok()
}

/// What decides which files are product files.
pub(crate) struct Scope<'a> {
    pub(crate) config: &'a Config,
    /// Test modules and conftest.py files the scan found (absolute).
    pub(crate) test_files: &'a [PathBuf],
    pub(crate) conftests: &'a [PathBuf],
    /// Where the build configuration that makes the project a pytest plugin is read (None:
    /// the rootdir).
    pub(crate) plugin_root: Option<&'a Path>,
}

impl Scope<'_> {
    /// Whether root-relative `rel` is a product file.
    pub(crate) fn is_product(&self, rel: &str) -> bool {
        if !rel.ends_with(".py") || rel.split('/').any(|c| c.is_empty() || c == "..") {
            return false;
        }
        let parts: Vec<&str> = rel.split('/').collect();
        let (dirs, name) = parts.split_at(parts.len() - 1);
        let name = name[0];
        if name == "conftest.py" || (dirs.is_empty() && BUILD_SCRIPTS.contains(&name)) {
            return false;
        }
        if dirs.first().is_some_and(|d| DOC_FOLDERS.contains(d)) {
            return false;
        }
        if dirs
            .iter()
            .any(|d| TEST_FOLDERS.contains(d) || d.starts_with('.') || *d == "__pycache__")
        {
            return false;
        }
        let abs = self.config.rootdir.join(rel);
        if self
            .config
            .python_files
            .iter()
            .any(|p| crate::pytest::discover::matches_file(p, &abs, name))
        {
            return false;
        }
        let under = |dir: &Path| dir != self.config.rootdir && abs.starts_with(dir);
        if self.config.testpaths.iter().any(|t| {
            let d = crate::pytest::config::normalize(&self.config.rootdir.join(t));
            !t.contains(['*', '?', '[']) && under(&d)
        }) {
            return false;
        }
        // Beside a test module or a conftest (a test folder by what it holds).
        if self
            .test_files
            .iter()
            .chain(self.conftests)
            .filter_map(|f| f.parent())
            .any(|d| d != self.config.rootdir && abs.parent() == Some(d))
        {
            return false;
        }
        // A folder on the way pytest would not enter.
        let mut dir = abs.parent();
        while let Some(d) = dir {
            if d == self.config.rootdir || !d.starts_with(&self.config.rootdir) {
                break;
            }
            if !crate::pytest::discover::keep_dir(self.config, d) {
                return false;
            }
            dir = d.parent();
        }
        true
    }

    /// Every product file of the tree, root-relative, sorted.
    pub(crate) fn all_product_files(&self) -> Vec<String> {
        let root = &self.config.rootdir;
        let mut out: Vec<String> = walkdir::WalkDir::new(root)
            .follow_links(false)
            .sort_by_file_name()
            .into_iter()
            .filter_entry(|e| {
                e.depth() == 0
                    || !e.file_type().is_dir()
                    || (!e.file_name().to_string_lossy().starts_with('.')
                        && crate::pytest::discover::keep_dir(self.config, e.path()))
            })
            .filter_map(Result::ok)
            .filter(|e| e.file_type().is_file())
            .filter_map(|e| lane_core::paths::relative_to(e.path(), root))
            .filter(|rel| self.is_product(rel))
            .collect();
        out.sort();
        out
    }
}

/// Whether the project at `root` is itself a pytest plugin: a `pytest11` entry point in its
/// pyproject.toml (`[project.entry-points.pytest11]`, which setuptools, hatch, pdm and flit
/// read; poetry's plugins tables; flit's older `entrypoints`), setup.cfg
/// (`[options.entry_points]`) or setup.py (a string literal starting `pytest11`).
pub(crate) fn is_pytest_plugin(root: &Path) -> bool {
    let read = |name: &str| -> Option<String> {
        let bytes =
            lane_core::io::read_file_capped(&root.join(name), SOURCE_MAX_BYTES, name).ok()?;
        String::from_utf8(bytes).ok()
    };
    if let Some(text) = read("pyproject.toml")
        && let Ok(doc) = text.parse::<toml::Table>()
    {
        let get = |path: &[&str]| -> bool {
            let mut v: Option<&toml::Value> = None;
            let mut table = Some(&doc);
            for key in path {
                v = table.and_then(|t| t.get(*key));
                table = v.and_then(|v| v.as_table());
            }
            v.is_some()
        };
        if get(&["project", "entry-points", "pytest11"])
            || get(&["tool", "poetry", "plugins", "pytest11"])
            || get(&["tool", "flit", "entrypoints", "pytest11"])
            || get(&["tool", "flit", "metadata", "entrypoints", "pytest11"])
        {
            return true;
        }
    }
    if let Some(text) = read("setup.cfg")
        && let Ok(Some(entries)) =
            crate::pytest::ini::section(&root.join("setup.cfg"), &text, "options.entry_points")
        && entries.iter().any(|(k, _, _)| k == "pytest11")
    {
        return true;
    }
    if let Some(text) = read("setup.py") {
        return lane_python::product::names_entry_point_group(&text, "pytest11");
    }
    false
}

/// Judges the product files `changed` names (or all of them) and returns their problems.
pub(crate) fn check(scope: &Scope, changed: &Changed) -> Vec<Problem> {
    let root = &scope.config.rootdir;
    let plugin = is_pytest_plugin(scope.plugin_root.unwrap_or(root));
    let files: Vec<(String, Option<&Ranges>)> = match changed {
        Changed::All => scope
            .all_product_files()
            .into_iter()
            .map(|f| (f, None))
            .collect(),
        Changed::Lines(map) => map
            .iter()
            .filter(|(f, lines)| !lines.is_empty() && scope.is_product(f))
            .map(|(f, lines)| (f.clone(), Some(lines)))
            .collect(),
    };
    let extra_test_dirs: Vec<String> = scope
        .config
        .testpaths
        .iter()
        .filter_map(|t| {
            t.trim_start_matches("./")
                .split('/')
                .next()
                .map(str::to_string)
        })
        .filter(|t| !t.is_empty() && !t.contains(['*', '?', '[']))
        .collect();
    let project = project_modules(root, files.iter().map(|(f, _)| f.as_str()));
    let is_project = |m: &str| project.contains(m);
    let mut read: Vec<Read> = Vec::new();
    for (rel, changed) in files {
        let abs = root.join(&rel);
        if !abs.is_file() {
            continue;
        }
        let text = lane_core::io::read_file_capped(&abs, SOURCE_MAX_BYTES, "a Python file")
            .ok()
            .and_then(|b| String::from_utf8(b).ok());
        let (reached, uses) = match text {
            Some(text) => (
                lane_python::product::reaches(&text).map_err(Unjudged::DoesNotParse),
                lane_python::capability::uses(&text, &is_project).unwrap_or_default(),
            ),
            None => (Err(Unjudged::NotText), Vec::new()),
        };
        read.push((rel, changed, reached, uses));
    }
    let base_imports = match changed {
        Changed::All => None,
        Changed::Lines(map) => Some(base_imports(scope, map, &read)),
    };
    let mut problems = Vec::new();
    for (rel, changed, reached, uses) in &read {
        let file = ProductFile {
            file: rel,
            changed: *changed,
            reached,
            plugin,
            test_dirs: &extra_test_dirs,
            uses,
            base_imports: base_imports.as_ref(),
        };
        crate::rules::judge(&ScanFacts::Product(&file), &mut problems);
    }
    problems
}

/// One judged file: its path, changed lines, what it reaches for, its uses beyond plain
/// computation.
type Read<'r> = (
    String,
    Option<&'r Ranges>,
    Result<Vec<Reach>, Unjudged>,
    Vec<Use>,
);

/// The top-level modules the project defines: the packages and modules at the rootdir and
/// under `src/`, and the first folder of every judged file.
fn project_modules<'f>(root: &Path, judged: impl Iterator<Item = &'f str>) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for dir in [root.to_path_buf(), root.join("src")] {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for e in entries.flatten() {
            let name = e.file_name().to_string_lossy().into_owned();
            let path = e.path();
            if path.is_dir() && !name.starts_with('.') {
                out.insert(name);
            } else if let Some(stem) = name.strip_suffix(".py") {
                out.insert(stem.to_string());
            }
        }
    }
    for rel in judged {
        let rel = rel.strip_prefix("src/").unwrap_or(rel);
        let first = rel.split('/').next().unwrap_or(rel);
        out.insert(first.strip_suffix(".py").unwrap_or(first).to_string());
    }
    out
}

/// The third-party modules the base's product code imports, as far as the patch's own uses
/// need it: those of the judged files' unchanged lines, and when a changed line uses one they
/// do not import, those of every other product file (which the patch did not change).
fn base_imports(
    scope: &Scope,
    map: &BTreeMap<String, Vec<(u64, u64)>>,
    read: &[Read],
) -> BTreeSet<String> {
    let inside = |ranges: Option<&Ranges>, u: &Use| {
        ranges.is_some_and(|r| r.iter().any(|&(c, d)| u.first <= d && c <= u.last))
    };
    let mut known = BTreeSet::new();
    let mut needed = BTreeSet::new();
    for (_, changed, _, uses) in read {
        for u in uses {
            if let Found::ThirdParty(top) = &u.found {
                if inside(*changed, u) {
                    needed.insert(top.clone());
                } else {
                    known.insert(top.clone());
                }
            }
        }
    }
    if needed.is_subset(&known) {
        return known;
    }
    for rel in scope.all_product_files() {
        if map.contains_key(&rel) {
            continue;
        }
        let Some(text) = lane_core::io::read_file_capped(
            &scope.config.rootdir.join(&rel),
            SOURCE_MAX_BYTES,
            "a Python file",
        )
        .ok()
        .and_then(|b| String::from_utf8(b).ok()) else {
            continue;
        };
        for r in lane_python::product::reaches(&text).unwrap_or_default() {
            if let Reached::Import(m) = r.what {
                known.insert(m.split('.').next().unwrap_or(&m).to_string());
            }
        }
    }
    known
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn a_unified_diff_gives_the_new_sides_lines() {
        let diff = "diff --git a/pkg/m.py b/pkg/m.py\n\
                    index 1..2 100644\n\
                    --- a/pkg/m.py\n\
                    +++ b/pkg/m.py\n\
                    @@ -3,0 +4,2 @@ def f():\n\
                    +import atexit\n\
                    +atexit.register(print)\n\
                    @@ -10 +12 @@\n\
                    -x = 1\n\
                    +x = 2\n\
                    @@ -20,2 +21,0 @@\n\
                    --- a removed line that looks like a header\n\
                    -+++ b/not/a/file.py\n\
                    diff --git a/gone.py b/gone.py\n\
                    --- a/gone.py\n\
                    +++ /dev/null\n\
                    @@ -1 +0,0 @@\n\
                    -x = 1\n\
                    --- \"a/sp\\303\\244ce.py\"\n\
                    +++ \"b/sp\\303\\244ce.py\"\t2026-01-01\n\
                    @@ -0,0 +1 @@\n\
                    +y = 1\n";
        let got = parse_diff(diff, "p.diff").unwrap();
        let want: BTreeMap<String, Vec<(u64, u64)>> = [
            ("pkg/m.py".to_string(), vec![(4, 5), (12, 12), (21, 22)]),
            ("sp\u{e4}ce.py".to_string(), vec![(1, 1)]),
        ]
        .into_iter()
        .collect();
        assert_eq!(got, want);
    }

    #[test]
    fn a_malformed_diff_is_an_error_with_its_line() {
        let err = parse_diff("+++ b/m.py\n@@ -1 +x @@\n", "p.diff").unwrap_err();
        assert!(err.to_string().contains("p.diff:2"), "{err}");
        let err = parse_diff("+++ b/m.py\n@@ -1,3 +1,3 @@\n x\n", "p.diff").unwrap_err();
        assert!(err.to_string().contains("ends inside a hunk"), "{err}");
        let err = parse_diff("@@ -1 +1 @@\n+x\n", "p.diff").unwrap_err();
        assert!(err.to_string().contains("before any"), "{err}");
    }
}
