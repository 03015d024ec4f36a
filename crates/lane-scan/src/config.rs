//! pytest's configuration: which file it reads, the rootdir, and the ini values lane-scan
//! needs. Follows pytest's search: from the common ancestor of the arguments upwards, in each
//! folder `pytest.toml`, `.pytest.toml` (pytest 9), `pytest.ini`, `.pytest.ini`,
//! `pyproject.toml`, `tox.ini`, `setup.cfg`.

use std::path::{Path, PathBuf};

use lane_core::Error;

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
    pub addopts: Vec<String>,
    /// 1-based lines of `markers` and `addopts` in the config file, when known.
    pub markers_line: Option<u64>,
    pub addopts_line: Option<u64>,
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
        }
    }
}

/// One ini value: a plain string (ini files, TOML strings) or a list (TOML arrays).
#[derive(Debug, Clone)]
enum Value {
    Text(String),
    List(Vec<String>),
}

impl Value {
    /// pytest's "args" type: a shell-split string, or the list as it is.
    fn args(&self) -> Vec<String> {
        match self {
            Value::Text(s) => shell_split(s),
            Value::List(l) => l.clone(),
        }
    }

    /// pytest's "linelist" type: non-empty stripped lines.
    fn lines(&self) -> Vec<String> {
        match self {
            Value::Text(s) => s
                .lines()
                .map(str::trim)
                .filter(|l| !l.is_empty())
                .map(str::to_string)
                .collect(),
            Value::List(l) => l.iter().map(|s| s.trim().to_string()).collect(),
        }
    }
}

/// Key, value and the 1-based line of the key.
type Entries = Vec<(String, Value, u64)>;

/// Finds the config file and rootdir for `args` (absolute or relative to `cwd`), honouring
/// `--rootdir`.
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
            let text = std::fs::read(&path).map_err(|e| Error::io(&path, e))?;
            let text = String::from_utf8(text)
                .map_err(|_| Error::parse(path.display().to_string(), 0, 0, "not valid UTF-8"))?;
            let entries = match *name {
                "pytest.ini" | ".pytest.ini" => {
                    // pytest.ini is the config even without a [pytest] section.
                    Some(ini_section(&path, &text, "pytest")?.unwrap_or_default())
                }
                "pytest.toml" | ".pytest.toml" => {
                    // pytest 9's own TOML file: a [pytest] table, the config even when empty.
                    Some(toml_section(&path, &text, &["pytest"])?.unwrap_or_default())
                }
                "pyproject.toml" => {
                    first_pyproject.get_or_insert_with(|| path.clone());
                    match toml_section(&path, &text, &["tool", "pytest", "ini_options"])? {
                        Some(entries) => Some(entries),
                        None => toml_section(&path, &text, &["tool", "pytest"])?,
                    }
                }
                "tox.ini" => ini_section(&path, &text, "pytest")?,
                "setup.cfg" => ini_section(&path, &text, "tool:pytest")?,
                _ => None,
            };
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
    let mut config = Config::defaults(rootdir, file);
    for (key, value, line) in entries {
        match key.as_str() {
            "testpaths" => config.testpaths = value.args(),
            "python_files" => config.python_files = value.args(),
            "python_classes" => config.python_classes = value.args(),
            "python_functions" => config.python_functions = value.args(),
            "norecursedirs" => config.norecursedirs = value.args(),
            "markers" => {
                config.markers = value
                    .lines()
                    .iter()
                    .map(|l| marker_name(l).to_string())
                    .collect();
                config.markers_line = Some(line);
            }
            "addopts" => {
                config.addopts = value.args();
                config.addopts_line = Some(line);
            }
            _ => {}
        }
    }
    Ok(config)
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

/// Splits like a POSIX shell (quotes and backslashes), as pytest's "args" ini type does.
pub fn shell_split(s: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut in_word = false;
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\'' => {
                in_word = true;
                for q in chars.by_ref() {
                    if q == '\'' {
                        break;
                    }
                    cur.push(q);
                }
            }
            '"' => {
                in_word = true;
                while let Some(q) = chars.next() {
                    match q {
                        '"' => break,
                        '\\' => {
                            if let Some(n) = chars.next() {
                                cur.push(n);
                            }
                        }
                        _ => cur.push(q),
                    }
                }
            }
            '\\' => {
                in_word = true;
                if let Some(n) = chars.next() {
                    cur.push(n);
                }
            }
            c if c.is_whitespace() => {
                if in_word {
                    out.push(std::mem::take(&mut cur));
                    in_word = false;
                }
            }
            c => {
                in_word = true;
                cur.push(c);
            }
        }
    }
    if in_word {
        out.push(cur);
    }
    out
}

/// Parses an ini file the way pytest's iniconfig does and returns the entries of `section`
/// (None when the file has no such section). Malformed lines are an error with their line.
fn ini_section(path: &Path, text: &str, section: &str) -> Result<Option<Entries>, Error> {
    let name = path.display().to_string();
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut current: Option<String> = None;
    let mut result: Option<Entries> = None;
    let mut seen_section = false;
    for (i, raw) in text.lines().enumerate() {
        let lineno = i as u64 + 1;
        let line = raw.trim_end_matches('\r');
        let trimmed = line.trim();
        if trimmed.is_empty() || trimmed.starts_with('#') || trimmed.starts_with(';') {
            continue;
        }
        if line.starts_with([' ', '\t']) {
            // A continuation line of the previous value.
            let Some(cur) = &current else {
                return Err(Error::parse(
                    &name,
                    lineno as usize,
                    1,
                    "unexpected indented line: expected a section header or 'name = value'",
                ));
            };
            if result.is_some()
                && cur == section
                && let Some(entries) = result.as_mut()
            {
                if let Some((_, Value::Text(v), _)) = entries.last_mut() {
                    v.push('\n');
                    v.push_str(trimmed);
                } else if entries.is_empty() {
                    return Err(Error::parse(
                        &name,
                        lineno as usize,
                        1,
                        "unexpected indented line: expected 'name = value'",
                    ));
                }
            }
            continue;
        }
        if let Some(rest) = trimmed.strip_prefix('[') {
            let Some(header) = rest.strip_suffix(']') else {
                return Err(Error::parse(
                    &name,
                    lineno as usize,
                    1,
                    "expected a section header like [pytest]",
                ));
            };
            let header = header.trim().to_string();
            if header == section {
                if seen_section {
                    return Err(Error::parse(
                        &name,
                        lineno as usize,
                        1,
                        format!("duplicate section [{section}]"),
                    ));
                }
                seen_section = true;
                result = Some(Vec::new());
            }
            current = Some(header);
            continue;
        }
        let Some(pos) = line.find(['=', ':']) else {
            return Err(Error::parse(
                &name,
                lineno as usize,
                1,
                "expected 'name = value', a [section] header or a comment",
            ));
        };
        if current.is_none() {
            return Err(Error::parse(
                &name,
                lineno as usize,
                1,
                "a value before any [section] header",
            ));
        }
        if current.as_deref() == Some(section) {
            let key = line[..pos].trim().to_string();
            let value = line[pos + 1..].trim().to_string();
            if let Some(entries) = result.as_mut() {
                entries.push((key, Value::Text(value), lineno));
            }
        }
    }
    Ok(result)
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

/// pytest's matching for `python_classes` / `python_functions`: an entry with glob characters
/// is an fnmatch pattern, any other entry a prefix.
pub fn matches_prefix_or_glob(patterns: &[String], name: &str) -> bool {
    patterns.iter().any(|p| {
        if p.contains(['*', '?', '[']) {
            fnmatch(p, name)
        } else {
            name.starts_with(p.as_str())
        }
    })
}

/// fnmatch on a name: `*`, `?`, `[seq]`, `[!seq]`.
pub fn fnmatch(pattern: &str, name: &str) -> bool {
    let p: Vec<char> = pattern.chars().collect();
    let n: Vec<char> = name.chars().collect();
    fn go(p: &[char], n: &[char]) -> bool {
        let (mut pi, mut ni) = (0, 0);
        let (mut star_p, mut star_n) = (usize::MAX, 0);
        while ni < n.len() {
            if pi < p.len() {
                match p[pi] {
                    '*' => {
                        star_p = pi;
                        star_n = ni;
                        pi += 1;
                        continue;
                    }
                    '?' => {
                        pi += 1;
                        ni += 1;
                        continue;
                    }
                    '[' => {
                        if let Some((matched, next)) = class(&p[pi..], n[ni]) {
                            if matched {
                                pi += next;
                                ni += 1;
                                continue;
                            }
                        } else if n[ni] == '[' {
                            pi += 1;
                            ni += 1;
                            continue;
                        }
                    }
                    c if c == n[ni] => {
                        pi += 1;
                        ni += 1;
                        continue;
                    }
                    _ => {}
                }
            }
            if star_p != usize::MAX {
                pi = star_p + 1;
                star_n += 1;
                ni = star_n;
                continue;
            }
            return false;
        }
        p[pi..].iter().all(|&c| c == '*')
    }
    /// Matches a `[...]` class at the start of `p`: (matched, length of the class).
    fn class(p: &[char], c: char) -> Option<(bool, usize)> {
        let mut i = 1;
        let negate = p.get(1) == Some(&'!');
        if negate {
            i += 1;
        }
        let start = i;
        let mut matched = false;
        while i < p.len() {
            if p[i] == ']' && i > start {
                return Some((matched != negate, i + 1));
            }
            if p.get(i + 1) == Some(&'-') && p.get(i + 2).is_some_and(|&e| e != ']') {
                if p[i] <= c && c <= p[i + 2] {
                    matched = true;
                }
                i += 3;
            } else {
                if p[i] == c {
                    matched = true;
                }
                i += 1;
            }
        }
        None
    }
    go(&p, &n)
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn fnmatch_cases() {
        let cases = [
            ("test_*.py", "test_a.py", true),
            ("test_*.py", "a_test.py", false),
            ("*_test.py", "a_test.py", true),
            ("*.egg", "x.egg", true),
            (".*", ".git", true),
            (".*", "git", false),
            ("{arch}", "{arch}", true),
            ("check_*", "check_it", true),
            ("t?st", "test", true),
            ("[ab]c", "bc", true),
            ("[!ab]c", "bc", false),
        ];
        for (p, n, want) in cases {
            assert_eq!(fnmatch(p, n), want, "{p} vs {n}");
        }
    }

    #[test]
    fn prefix_or_glob() {
        let pats = vec!["Test".to_string(), "*Suite".to_string()];
        assert!(matches_prefix_or_glob(&pats, "Testing"));
        assert!(matches_prefix_or_glob(&pats, "InvoiceSuite"));
        assert!(!matches_prefix_or_glob(&pats, "Invoice"));
    }

    #[test]
    fn shell_split_quotes() {
        assert_eq!(
            shell_split("-ra  --reruns=2 'a b' \"c d\""),
            vec!["-ra", "--reruns=2", "a b", "c d"]
        );
    }

    #[test]
    fn ini_errors_are_located() {
        let p = Path::new("tox.ini");
        let err = ini_section(
            p,
            "[pytest]\nmarkers =\n  merge\nthis is not ini\n",
            "pytest",
        )
        .unwrap_err()
        .to_string();
        assert!(err.starts_with("tox.ini:4:"), "{err}");
        let ok = ini_section(
            p,
            "[other]\nx=1\n[pytest]\nmarkers =\n  merge: votes\n  witness\n",
            "pytest",
        )
        .unwrap()
        .unwrap();
        assert_eq!(ok[0].0, "markers");
        assert_eq!(ok[0].1.lines(), vec!["merge: votes", "witness"]);
        assert_eq!(ok[0].2, 4);
    }

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
