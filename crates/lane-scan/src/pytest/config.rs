//! pytest's configuration: which file it reads, the rootdir, and the ini values lane-scan
//! needs. Follows pytest's search: from the common ancestor of the arguments upwards, in each
//! folder `pytest.toml`, `.pytest.toml` (pytest 9), `pytest.ini`, `.pytest.ini`,
//! `pyproject.toml`, `tox.ini`, `setup.cfg`.

use std::path::{Path, PathBuf};

use lane_core::Error;

use crate::pytest::ini::{self, Entries, Value};

const CONFIG_NAMES: &[&str] = &[
    "pytest.toml",
    ".pytest.toml",
    "pytest.ini",
    ".pytest.ini",
    "pyproject.toml",
    "tox.ini",
    "setup.cfg",
];

/// The configuration lane-scan follows.
#[derive(Debug, Clone)]
pub struct Config {
    pub rootdir: PathBuf,
    /// The config file pytest would use, if any.
    pub file: Option<PathBuf>,
    pub testpaths: Vec<String>,
    pub python_files: Vec<String>,
    pub python_classes: Vec<String>,
    pub python_functions: Vec<String>,
    pub norecursedirs: Vec<String>,
    /// Registered marker names.
    pub markers: Vec<String>,
    /// The config file's `addopts`, split as a shell would: the only options lane-scan reads.
    /// `PYTEST_ADDOPTS` is never read: lane-gate clears it (and `PYTEST_PLUGINS`) for its
    /// pytest runs, so the scan sees what the gate's runs see.
    pub addopts: Vec<String>,
    /// 1-based lines of `markers` and `addopts` in the config file, when known.
    pub markers_line: Option<u64>,
    pub addopts_line: Option<u64>,
    /// pytest-asyncio's `asyncio_mode` ini value and its line.
    pub asyncio_mode: Option<(String, u64)>,
    /// `empty_parameter_set_mark`: the mark pytest gives a test parametrized over an empty
    /// list (`skip`, `xfail`, `fail_at_collect`; empty: `skip`).
    pub empty_parameter_set_mark: String,
    /// pytest-lanes-gate's `lanes_doctest_lane` ini value and its line: the lane of every
    /// doctest item.
    pub doctest_lane: Option<(String, u64)>,
    /// `consider_namespace_packages` and its line: module doctest names then
    /// depend on `sys.path` at run time.
    pub consider_namespace_packages: Option<(String, u64)>,
}

impl Config {
    fn defaults(rootdir: PathBuf, file: Option<PathBuf>) -> Config {
        let words = |s: &str| s.split_whitespace().map(str::to_string).collect();
        Config {
            rootdir,
            file,
            testpaths: Vec::new(),
            python_files: words("test_*.py *_test.py"),
            python_classes: words("Test"),
            python_functions: words("test"),
            norecursedirs: words("*.egg .* _darcs build CVS dist node_modules venv {arch}"),
            markers: Vec::new(),
            addopts: Vec::new(),
            markers_line: None,
            addopts_line: None,
            asyncio_mode: None,
            empty_parameter_set_mark: String::new(),
            consider_namespace_packages: None,
            doctest_lane: None,
        }
    }
}

/// Finds the config file and rootdir for `args` (absolute or relative to `cwd`), honouring
/// `--rootdir`.
///
/// Long for a reason: pytest's search order (`--rootdir`, the config files of each folder from
/// the arguments' common ancestor upwards, the pyproject.toml fallback, the rootdir without a
/// file) read as one sequence, in the order pytest's documentation gives it.
pub fn load(args: &[PathBuf], rootdir_flag: Option<&Path>, cwd: &Path) -> Result<Config, Error> {
    let ancestor = common_ancestor(args, cwd);
    let mut found: Option<(PathBuf, Entries)> = None;
    let mut first_pyproject: Option<PathBuf> = None;
    'search: for dir in ancestor.ancestors() {
        for name in CONFIG_NAMES {
            let path = dir.join(name);
            if !path.is_file() {
                continue;
            }
            if *name == "pyproject.toml" {
                first_pyproject.get_or_insert_with(|| path.clone());
            }
            let entries = file_entries(&path)?;
            if let Some(entries) = entries {
                found = Some((path, entries));
                break 'search;
            }
        }
    }
    let (file, entries) = match found {
        Some((path, entries)) => (Some(path), entries),
        None => (None, Vec::new()),
    };
    let rootdir = match (rootdir_flag, &file) {
        (Some(flag), _) => absolute(flag, cwd),
        (None, Some(f)) => f
            .parent()
            .map(Path::to_path_buf)
            .unwrap_or_else(|| ancestor.clone()),
        (None, None) => match &first_pyproject {
            Some(p) => p
                .parent()
                .map(Path::to_path_buf)
                .unwrap_or_else(|| ancestor.clone()),
            None => ancestor
                .ancestors()
                .find(|d| d.join("setup.py").is_file())
                .map(Path::to_path_buf)
                .unwrap_or_else(|| ancestor.clone()),
        },
    };
    let shown = file
        .as_deref()
        .map(|f| f.display().to_string())
        .unwrap_or_default();
    let mut config = Config::defaults(rootdir, file);
    for (key, value, line) in entries {
        // pytest's "args" values, split as it splits them; one it cannot split stops it.
        let args = || {
            value.args().map_err(|e| {
                Error::parse(
                    &shown,
                    line as usize,
                    0,
                    format!("{key}: {e} (pytest splits this value with Python's shlex, which refuses it)"),
                )
            })
        };
        match key.as_str() {
            "testpaths" => config.testpaths = args()?,
            "python_files" => config.python_files = args()?,
            "python_classes" => config.python_classes = args()?,
            "python_functions" => config.python_functions = args()?,
            "norecursedirs" => config.norecursedirs = args()?,
            "markers" => {
                config.markers = value
                    .lines()
                    .iter()
                    .map(|l| marker_name(l).to_string())
                    .collect();
                config.markers_line = Some(line);
            }
            "addopts" => {
                config.addopts = args()?;
                config.addopts_line = Some(line);
            }
            "asyncio_mode" => config.asyncio_mode = Some((value.text(), line)),
            "consider_namespace_packages" => {
                config.consider_namespace_packages = Some((value.text(), line));
            }
            "empty_parameter_set_mark" => config.empty_parameter_set_mark = value.text(),
            "lanes_doctest_lane" => config.doctest_lane = Some((value.text(), line)),
            _ => {}
        }
    }
    Ok(config)
}

/// One ini value of the config file pytest would use (`config.file`) as pytest's "args" type
/// (shell-split string or TOML list); empty when the file or the key is absent. For lane-gate,
/// which reads `required_plugins` and `pythonpath` without importing anything.
pub fn ini_args(config: &Config, key: &str) -> Result<Vec<String>, Error> {
    let Some(path) = &config.file else {
        return Ok(Vec::new());
    };
    let entries = file_entries(path)?;
    let mut out = Vec::new();
    for (_, value, line) in entries
        .unwrap_or_default()
        .into_iter()
        .filter(|(k, _, _)| k == key)
    {
        out.extend(value.args().map_err(|e| {
            Error::parse(
                path.display().to_string(),
                line as usize,
                0,
                format!(
                    "{key}: {e} (pytest splits this value with Python's shlex, which refuses it)"
                ),
            )
        })?);
    }
    Ok(out)
}

/// The pytest entries of one config file, None when the file is not pytest's config (a
/// pyproject.toml, tox.ini or setup.cfg without a pytest section). pytest.ini and pytest.toml
/// are the config even when empty.
fn file_entries(path: &Path) -> Result<Option<Entries>, Error> {
    let text = std::fs::read(path).map_err(|e| Error::io(path, e))?;
    let text = String::from_utf8(text)
        .map_err(|_| Error::parse(path.display().to_string(), 0, 0, "not valid UTF-8"))?;
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
    Ok(match name {
        "pytest.ini" | ".pytest.ini" => {
            Some(ini::section(path, &text, "pytest")?.unwrap_or_default())
        }
        // pytest 9's own TOML file: a [pytest] table.
        "pytest.toml" | ".pytest.toml" => {
            Some(toml_section(path, &text, &["pytest"])?.unwrap_or_default())
        }
        "pyproject.toml" => match toml_section(path, &text, &["tool", "pytest", "ini_options"])? {
            Some(entries) => Some(entries),
            None => toml_section(path, &text, &["tool", "pytest"])?,
        },
        "tox.ini" => ini::section(path, &text, "pytest")?,
        "setup.cfg" => ini::section(path, &text, "tool:pytest")?,
        _ => None,
    })
}

fn absolute(path: &Path, cwd: &Path) -> PathBuf {
    let joined = if path.is_absolute() {
        path.to_path_buf()
    } else {
        cwd.join(path)
    };
    normalize(&joined)
}

/// Lexical normalization: drops `.`, folds `..`.
pub fn normalize(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in path.components() {
        match c {
            std::path::Component::CurDir => {}
            std::path::Component::ParentDir => {
                out.pop();
            }
            other => out.push(other.as_os_str()),
        }
    }
    out
}

fn common_ancestor(args: &[PathBuf], cwd: &Path) -> PathBuf {
    let mut dirs = args.iter().map(|a| {
        let abs = absolute(a, cwd);
        if abs.is_dir() {
            abs
        } else {
            abs.parent().map(Path::to_path_buf).unwrap_or(abs)
        }
    });
    let Some(mut common) = dirs.next() else {
        return normalize(cwd);
    };
    for d in dirs {
        while !d.starts_with(&common) {
            if !common.pop() {
                break;
            }
        }
    }
    common
}

/// `name: description` or `name(args): description` -> `name`.
fn marker_name(line: &str) -> &str {
    let end = line.find([':', '(']).unwrap_or(line.len());
    line[..end].trim()
}

/// The table at `keys` of a TOML config (`[tool.pytest.ini_options]`, `[tool.pytest]`, or
/// `[pytest]` in pytest.toml), None when absent.
fn toml_section(path: &Path, text: &str, keys: &[&str]) -> Result<Option<Entries>, Error> {
    let name = path.display().to_string();
    let table: toml::Table = text.parse().map_err(|e: toml::de::Error| {
        let (line, col) = e.span().map(|s| line_col(text, s.start)).unwrap_or((0, 0));
        Error::parse(&name, line, col, format!("not valid TOML: {}", e.message()))
    })?;
    let mut options = &table;
    for key in keys {
        match options.get(*key).and_then(|t| t.as_table()) {
            Some(t) => options = t,
            None => return Ok(None),
        }
    }
    let mut entries = Vec::new();
    for (key, value) in options {
        let value = match value {
            toml::Value::String(s) => Value::Text(s.clone()),
            toml::Value::Array(items) => Value::List(
                items
                    .iter()
                    .map(|v| match v {
                        toml::Value::String(s) => s.clone(),
                        other => other.to_string(),
                    })
                    .collect(),
            ),
            toml::Value::Table(_) => continue,
            other => Value::Text(other.to_string()),
        };
        let line = find_key_line(text, key);
        entries.push((key.clone(), value, line));
    }
    Ok(Some(entries))
}

fn line_col(text: &str, offset: usize) -> (usize, usize) {
    let at = lane_core::Position::of(text.as_bytes(), offset);
    (at.line, at.column)
}

/// The line where `key =` is written (first match), for locating problems in TOML configs.
fn find_key_line(text: &str, key: &str) -> u64 {
    text.lines()
        .position(|l| {
            let t = l.trim_start();
            t.strip_prefix(key)
                .is_some_and(|rest| rest.trim_start().starts_with('='))
        })
        .map(|i| i as u64 + 1)
        .unwrap_or(0)
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn toml_errors_are_located() {
        let err = toml_section(
            Path::new("pyproject.toml"),
            "[tool.pytest.ini_options]\nx = [\n",
            &["tool"],
        )
        .unwrap_err()
        .to_string();
        assert!(err.starts_with("pyproject.toml:"), "{err}");
        assert!(err.contains("not valid TOML"));
    }

    #[test]
    fn marker_names() {
        assert_eq!(marker_name("merge: votes"), "merge");
        assert_eq!(marker_name("witness(fixture=None): bytes"), "witness");
        assert_eq!(marker_name("freeze"), "freeze");
    }
}
