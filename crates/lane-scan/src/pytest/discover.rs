//! Walking the tree as pytest does: which files are test modules, which are conftest.py, which
//! folders are never entered. Symlinked folders are not followed (no loops, nothing outside the
//! tree); symlinked files that point at regular files are read.

use std::path::{Path, PathBuf};

use lane_core::Error;

use crate::pytest::config::Config;
use crate::pytest::fnmatch::fnmatch;

#[derive(Debug, Default)]
pub struct Found {
    /// Test modules (absolute paths), sorted, unique.
    pub test_files: Vec<PathBuf>,
    /// conftest.py files in the walked folders and their ancestors up to the rootdir.
    pub conftests: Vec<PathBuf>,
    /// Text files pytest collects as doctests (`--doctest-glob`, default `test*.txt`, or a
    /// `.txt` / `.rst` file given as an argument), sorted, unique.
    pub doctest_files: Vec<PathBuf>,
    /// With `--doctest-modules`: every Python file pytest imports for its docstring examples
    /// (conftest.py included; not `__main__.py` or a setuptools `setup.py`), sorted, unique
    ///.
    pub doctest_modules: Vec<PathBuf>,
}

/// `--ignore` / `--ignore-glob` from addopts, made absolute against the invocation folder.
struct Ignores {
    paths: Vec<PathBuf>,
    globs: Vec<String>,
}

impl Ignores {
    fn from_addopts(addopts: &[String], cwd: &Path) -> Ignores {
        let mut out = Ignores {
            paths: Vec::new(),
            globs: Vec::new(),
        };
        let mut it = addopts.iter();
        while let Some(opt) = it.next() {
            let (flag, value) = match opt.split_once('=') {
                Some((f, v)) => (f, Some(v.to_string())),
                None => (opt.as_str(), None),
            };
            if flag != "--ignore" && flag != "--ignore-glob" {
                continue;
            }
            let Some(value) = value.or_else(|| it.next().cloned()) else {
                continue;
            };
            let abs = crate::pytest::config::normalize(&cwd.join(&value));
            if flag == "--ignore" {
                out.paths.push(abs);
            } else {
                out.globs.push(abs.to_string_lossy().into_owned());
            }
        }
        out
    }

    fn ignored(&self, path: &Path) -> bool {
        if self.paths.iter().any(|p| p == path) {
            return true;
        }
        if self.globs.is_empty() {
            return false;
        }
        let full = path.to_string_lossy();
        self.globs.iter().any(|g| fnmatch(g, &full))
    }
}

/// Finds test modules and conftest files under `args` (absolute paths); `cwd` is the folder
/// pytest would be invoked from (addopts' `--ignore` paths are relative to it).
pub fn discover(config: &Config, args: &[PathBuf], cwd: &Path) -> Result<Found, Error> {
    let mut found = Found::default();
    let ignores = Ignores::from_addopts(&config.addopts, cwd);
    let doctest_globs = crate::pytest::doctest::globs(&config.addopts);
    let doctest_modules = crate::pytest::doctest::modules_enabled(config);
    for arg in args {
        let meta = std::fs::metadata(arg).map_err(|e| Error::io(arg, e))?;
        if meta.is_file() {
            if arg.extension().is_some_and(|e| e == "txt" || e == "rst") {
                found.doctest_files.push(arg.clone());
            }
            // An explicit file is collected whatever python_files says, as pytest does.
            if arg.extension().is_some_and(|e| e == "py") {
                let name = arg
                    .file_name()
                    .map(|n| n.to_string_lossy())
                    .unwrap_or_default();
                if doctest_modules && !crate::pytest::doctest::skipped_module(arg, &name) {
                    found.doctest_modules.push(arg.clone());
                }
                if arg.file_name().is_some_and(|n| n == "conftest.py") {
                    found.conftests.push(arg.clone());
                } else {
                    found.test_files.push(arg.clone());
                }
            }
            if let Some(parent) = arg.parent() {
                ancestor_conftests(config, parent, &mut found.conftests);
            }
            continue;
        }
        if !meta.is_dir() {
            return Err(Error::usage(format!(
                "{}: not a file or folder",
                arg.display()
            )));
        }
        ancestor_conftests(config, arg, &mut found.conftests);
        let mut visit = |path: &Path, name: &str, file_type: std::fs::FileType| {
            if doctest_globs
                .iter()
                .any(|g| crate::pytest::doctest::matches(g, path, name))
                && file_type.is_file()
            {
                found.doctest_files.push(path.to_path_buf());
                return;
            }
            if !name.ends_with(".py") {
                return;
            }
            let is_file = if file_type.is_symlink() {
                std::fs::metadata(path)
                    .map(|m| m.is_file())
                    .unwrap_or(false)
            } else {
                file_type.is_file()
            };
            if !is_file {
                return;
            }
            if doctest_modules && !crate::pytest::doctest::skipped_module(path, name) {
                found.doctest_modules.push(path.to_path_buf());
            }
            if name == "conftest.py" {
                found.conftests.push(path.to_path_buf());
            } else if config
                .python_files
                .iter()
                .any(|p| matches_file(p, path, name))
            {
                found.test_files.push(path.to_path_buf());
            }
        };
        let enter = |path: &Path| keep_dir(config, path);
        walk(arg, &ignores, &enter, &mut visit).map_err(|(path, e)| {
            let name = lane_core::paths::relative_to(&path, &config.rootdir)
                .unwrap_or_else(|| lane_core::paths::to_slash(&path));
            Error::usage(format!(
                "{name}: cannot list this folder of the test tree ({e}); the tests in it would \
                 go unseen"
            ))
        })?;
    }
    found.test_files.sort();
    found.test_files.dedup();
    found.conftests.sort();
    found.conftests.dedup();
    found.doctest_files.sort();
    found.doctest_files.dedup();
    found.doctest_modules.sort();
    found.doctest_modules.dedup();
    Ok(found)
}

/// Walks the folder `dir` as pytest does: depth first, each folder's entries in name order,
/// links to folders not followed (no loops, nothing outside the tree), entries `ignores`
/// names left out, and only folders `enter` keeps entered. Calls `visit` with every other
/// entry (path, name, type as listed: a link stays a link). A folder that cannot be listed
/// may hold tests nobody would see: pytest stops with an error there, and so does the walk,
/// at the first such folder in that order.
fn walk(
    dir: &Path,
    ignores: &Ignores,
    enter: &impl Fn(&Path) -> bool,
    visit: &mut impl FnMut(&Path, &str, std::fs::FileType),
) -> Result<(), (PathBuf, std::io::Error)> {
    let fail = |e| (dir.to_path_buf(), e);
    let mut entries = Vec::new();
    for entry in std::fs::read_dir(dir).map_err(fail)? {
        let entry = entry.map_err(fail)?;
        let file_type = entry.file_type().map_err(|e| (entry.path(), e))?;
        entries.push((entry.file_name(), file_type));
    }
    // Names compared as bytes, as a sort by file name does (no path parsing per comparison).
    entries.sort_unstable_by(|a, b| a.0.cmp(&b.0));
    for (name, file_type) in entries {
        let path = dir.join(&name);
        if ignores.ignored(&path) {
            continue;
        }
        if file_type.is_dir() {
            if enter(&path) {
                walk(&path, ignores, enter, visit)?;
            }
        } else {
            visit(&path, &name.to_string_lossy(), file_type);
        }
    }
    Ok(())
}

/// A python_files pattern with a `/` matches the end of the path; otherwise the file name.
pub(crate) fn matches_file(pattern: &str, path: &Path, name: &str) -> bool {
    if pattern.contains('/') {
        let full = path.to_string_lossy().replace('\\', "/");
        fnmatch(&format!("*{pattern}"), &full)
    } else {
        fnmatch(pattern, name)
    }
}

/// pytest does not enter folders matching norecursedirs, nor virtualenvs.
pub(crate) fn keep_dir(config: &Config, path: &Path) -> bool {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    if name == "__pycache__" {
        return false;
    }
    // As pytest's fnmatch_ex: a pattern with a `/` is matched against the whole path (a
    // relative one as `*/PATTERN`), any other against the folder's name.
    let full = path.to_string_lossy().replace('\\', "/");
    let matches = |p: &String| {
        if !p.contains('/') {
            fnmatch(p, &name)
        } else if p.starts_with('/') {
            fnmatch(p, &full)
        } else {
            fnmatch(&format!("*/{p}"), &full)
        }
    };
    if config.norecursedirs.iter().any(matches) {
        return false;
    }
    !path.join("pyvenv.cfg").is_file()
}

fn ancestor_conftests(config: &Config, from: &Path, out: &mut Vec<PathBuf>) {
    for dir in from.ancestors() {
        if !dir.starts_with(&config.rootdir) {
            break;
        }
        let candidate = dir.join("conftest.py");
        if candidate.is_file() {
            out.push(candidate);
        }
    }
}
