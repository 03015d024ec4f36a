//! The interpreter the lanes run in, read without importing product code: its version and
//! site-packages (`python -I -S`), the pytest plugins its installed distributions declare
//! (their `entry_points.txt`, read as files), the distributions the base's manifests name, and
//! where the product modules the tests import resolve (`importlib.util.find_spec` in a
//! `python -P` process: a spec is found, nothing is executed).

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::GateError;

/// What the probe found.
#[derive(Debug, Clone)]
pub(crate) struct Interpreter {
    pub(crate) command: PathBuf,
    /// What lane-scan decides version and platform conditions for.
    pub(crate) target: lane_python::Target,
    pub(crate) version: (u64, u64, u64),
    pub(crate) implementation: String,
    pub(crate) site: Vec<PathBuf>,
}

/// One pytest plugin an installed distribution declares (`[pytest11]`).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub(crate) struct Plugin {
    /// The distribution's normalized name.
    pub(crate) distribution: String,
    /// The entry point's name.
    pub(crate) name: String,
    /// The module it loads (what `-p` is given).
    pub(crate) module: String,
}

/// PEP 503 normalization: lower case, runs of `-`, `_`, `.` as one `-`.
pub(crate) fn normalize(name: &str) -> String {
    let mut out = String::new();
    let mut sep = false;
    for c in name.trim().chars() {
        if matches!(c, '-' | '_' | '.') {
            sep = true;
        } else {
            if sep && !out.is_empty() {
                out.push('-');
            }
            sep = false;
            out.push(c.to_ascii_lowercase());
        }
    }
    out
}

/// The distribution name at the start of a requirement (`pytest-xdist[psutil]>=3; python_version
/// > "3"` -> `pytest-xdist`), or None for options, URLs and blanks.
pub(crate) fn requirement_name(line: &str) -> Option<String> {
    let line = line.split(" #").next().unwrap_or(line).trim();
    if line.is_empty() || line.starts_with('#') || line.starts_with('-') {
        return None;
    }
    let name: String = line
        .chars()
        .take_while(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
        .collect();
    (!name.is_empty()).then(|| normalize(&name))
}

impl Interpreter {
    /// lane-python's probe of `command` (`python -I -S`: nothing of the project or the
    /// installed packages runs), which must be CPython 3.11 or newer.
    pub(crate) fn probe(command: &Path) -> Result<Interpreter, GateError> {
        use lane_python::ProbeError;
        let shown = command.display();
        let probed = lane_python::Interpreter::probe(command).map_err(|e| {
            GateError::Interpreter(match e {
                ProbeError::Spawn { source, .. } => {
                    format!("cannot run {shown} (--python): {source}")
                }
                ProbeError::Failed { stderr, .. } => format!(
                    "{shown} (--python) could not report its version and site-packages: {stderr}"
                ),
                ProbeError::Garbled { .. } => {
                    format!("{shown} (--python) printed something other than the probe's answer")
                }
            })
        })?;
        let interp = Interpreter {
            command: command.to_path_buf(),
            target: probed.target(),
            version: probed.version,
            implementation: probed.implementation,
            site: probed.sysconfig_site.unwrap_or_default(),
        };
        if interp.implementation != "cpython" || interp.version < (3, 11, 0) {
            return Err(GateError::Interpreter(format!(
                "{} is {} {}.{}.{}: lane-gate needs CPython 3.11 or newer (python -P keeps the \
                 current folder off sys.path)",
                command.display(),
                interp.implementation,
                interp.version.0,
                interp.version.1,
                interp.version.2
            )));
        }
        Ok(interp)
    }

    /// Every installed distribution (normalized name -> its version), and every pytest plugin
    /// the distributions declare, read from the `*.dist-info` folders of site-packages and of
    /// the folders its `.pth` files add to `sys.path` (a venv that sees another's packages).
    pub(crate) fn installed(&self) -> Result<(BTreeMap<String, String>, Vec<Plugin>), GateError> {
        let mut dists = BTreeMap::new();
        let mut plugins = Vec::new();
        for site in &with_pth_folders(&self.site) {
            for info in sorted_entries(site, "dist-info", Path::is_dir) {
                let (name, version) = dist_name(&info);
                if dists.contains_key(&name) {
                    continue; // the first site folder wins, as on sys.path
                }
                dists.insert(name.clone(), version);
                let eps = info.join("entry_points.txt");
                if let Ok(text) = std::fs::read_to_string(&eps) {
                    for (ep, module) in pytest11(&text) {
                        plugins.push(Plugin {
                            distribution: name.clone(),
                            name: ep,
                            module,
                        });
                    }
                }
            }
        }
        plugins.sort();
        Ok((dists, plugins))
    }
}

/// The entries of folder `dir` named `*.EXT` that are `kind` (a folder, a file), in name
/// order; none when the folder cannot be read.
fn sorted_entries(dir: &Path, ext: &str, kind: fn(&Path) -> bool) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut found: Vec<PathBuf> = entries
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == ext) && kind(p))
        .collect();
    found.sort();
    found
}

/// The site folders, each followed by the folders its `.pth` files name (in the files' name
/// order), as Python's `site` module puts them on `sys.path`: a line that is blank, a comment
/// or an `import` statement names none, a relative path is the site folder's, and a folder
/// that does not exist or is already listed is left out.
fn with_pth_folders(sites: &[PathBuf]) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = Vec::new();
    for site in sites {
        if !out.contains(site) {
            out.push(site.clone());
        }
        for pth in sorted_entries(site, "pth", Path::is_file) {
            let Ok(text) = std::fs::read_to_string(&pth) else {
                continue;
            };
            for line in text.lines() {
                let line = line.trim_end();
                if line.is_empty()
                    || line.starts_with('#')
                    || line.starts_with("import ")
                    || line.starts_with("import\t")
                {
                    continue;
                }
                let folder = site.join(line);
                if folder.is_dir() && !out.contains(&folder) {
                    out.push(folder);
                }
            }
        }
    }
    out
}

/// A dist-info folder's distribution name (from METADATA, else from the folder's name) and
/// version.
fn dist_name(info: &Path) -> (String, String) {
    let stem = info
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let (mut name, mut version) = match stem.split_once('-') {
        Some((n, v)) => (normalize(n), v.to_string()),
        None => (normalize(&stem), String::new()),
    };
    if let Ok(meta) = std::fs::read_to_string(info.join("METADATA")) {
        for line in meta.lines().take_while(|l| !l.is_empty()) {
            if let Some(n) = line.strip_prefix("Name:") {
                name = normalize(n);
            } else if let Some(v) = line.strip_prefix("Version:") {
                version = v.trim().to_string();
            }
        }
    }
    (name, version)
}

/// The `[pytest11]` entries of an entry_points.txt: (name, module).
pub(crate) fn pytest11(text: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut inside = false;
    for line in text.lines() {
        let line = line.trim();
        if line.starts_with('[') {
            inside = line == "[pytest11]";
            continue;
        }
        if !inside || line.is_empty() || line.starts_with('#') || line.starts_with(';') {
            continue;
        }
        if let Some((name, value)) = line.split_once('=') {
            let module = value.split(':').next().unwrap_or(value).trim();
            let module = module.split_whitespace().next().unwrap_or(module);
            out.push((name.trim().to_string(), module.to_string()));
        }
    }
    out
}

/// The distributions the base's dependency manifests name (normalized), read from the base's
/// rootdir: requirements and constraints files (top level and a `requirements/` folder),
/// pyproject.toml's dependency tables, setup.cfg's install_requires and extras.
pub(crate) fn named_distributions(root: &Path) -> BTreeSet<String> {
    let mut names = BTreeSet::new();
    let mut files: Vec<PathBuf> = Vec::new();
    for dir in [root.to_path_buf(), root.join("requirements")] {
        if let Ok(entries) = std::fs::read_dir(&dir) {
            for e in entries.filter_map(Result::ok) {
                let p = e.path();
                let n = e.file_name().to_string_lossy().to_ascii_lowercase();
                let in_req_dir = dir != root;
                if p.is_file()
                    && (n.ends_with(".txt") || n.ends_with(".in"))
                    && (in_req_dir || n.contains("requirements") || n.contains("constraints"))
                {
                    files.push(p);
                }
            }
        }
    }
    files.sort();
    for f in files {
        if let Ok(text) = std::fs::read_to_string(&f) {
            names.extend(text.lines().filter_map(requirement_name));
        }
    }
    if let Ok(text) = std::fs::read_to_string(root.join("pyproject.toml"))
        && let Ok(doc) = text.parse::<toml::Table>()
    {
        let mut reqs: Vec<String> = Vec::new();
        let strings = |v: Option<&toml::Value>, out: &mut Vec<String>| {
            if let Some(arr) = v.and_then(toml::Value::as_array) {
                out.extend(arr.iter().filter_map(|s| s.as_str().map(str::to_string)));
            }
        };
        let project = doc.get("project");
        strings(project.and_then(|p| p.get("dependencies")), &mut reqs);
        for table in [
            project.and_then(|p| p.get("optional-dependencies")),
            doc.get("dependency-groups"),
        ]
        .into_iter()
        .flatten()
        {
            if let Some(t) = table.as_table() {
                for v in t.values() {
                    strings(Some(v), &mut reqs);
                }
            }
        }
        if let Some(poetry) = doc.get("tool").and_then(|t| t.get("poetry")) {
            for key in ["dependencies", "dev-dependencies"] {
                if let Some(t) = poetry.get(key).and_then(toml::Value::as_table) {
                    reqs.extend(t.keys().cloned());
                }
            }
            if let Some(groups) = poetry.get("group").and_then(toml::Value::as_table) {
                for g in groups.values() {
                    if let Some(t) = g.get("dependencies").and_then(toml::Value::as_table) {
                        reqs.extend(t.keys().cloned());
                    }
                }
            }
        }
        names.extend(reqs.iter().filter_map(|r| requirement_name(r)));
    }
    if let Ok(text) = std::fs::read_to_string(root.join("setup.cfg")) {
        let mut section = String::new();
        let mut collecting = false;
        for line in text.lines() {
            let trimmed = line.trim();
            if trimmed.starts_with('[') {
                section = trimmed.to_string();
                collecting = false;
                continue;
            }
            let value = if line.starts_with(char::is_whitespace) {
                if !collecting {
                    continue;
                }
                trimmed
            } else {
                let Some((key, value)) = trimmed.split_once('=') else {
                    collecting = false;
                    continue;
                };
                collecting = (section == "[options]" && key.trim() == "install_requires")
                    || section == "[options.extras_require]";
                if !collecting {
                    continue;
                }
                value
            };
            names.extend(requirement_name(value));
        }
    }
    names.remove("python");
    names
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn requirement_names() {
        let cases = [
            ("pytest==9.2.0", Some("pytest")),
            (
                "pytest_xdist[psutil] >= 3 ; python_version > '3'",
                Some("pytest-xdist"),
            ),
            ("Hypothesis", Some("hypothesis")),
            ("# a comment", None),
            ("-r other.txt", None),
            ("", None),
            ("zope.interface", Some("zope-interface")),
        ];
        for (line, want) in cases {
            assert_eq!(requirement_name(line).as_deref(), want, "{line}");
        }
    }

    #[test]
    fn pth_files_add_their_folders_after_their_site_folder() {
        let root = std::env::temp_dir().join(format!("lanes-pth-{}", std::process::id()));
        let (site, other, shared) = (root.join("site"), root.join("other"), root.join("shared"));
        for d in [&site, &other, &shared] {
            std::fs::create_dir_all(d).unwrap();
        }
        std::fs::write(
            site.join("b.pth"),
            format!(
                "# a comment\n\nimport sys; sys.x = 1\n{}\nmissing\n",
                shared.display()
            ),
        )
        .unwrap();
        std::fs::write(site.join("a.pth"), "../other\n").unwrap();
        let got = with_pth_folders(std::slice::from_ref(&site));
        assert_eq!(
            got,
            vec![site.clone(), site.join("../other"), shared.clone()]
        );
        std::fs::remove_dir_all(&root).unwrap();
    }

    #[test]
    fn pytest11_entries() {
        let text = "[console_scripts]\nx = y:main\n\n[pytest11]\nxdist.plugin = xdist.plugin\n\
                    looponfail = xdist.looponfail\nrig = rig.plugin:hooks\n[other]\nz = w\n";
        assert_eq!(
            pytest11(text),
            vec![
                ("xdist.plugin".to_string(), "xdist.plugin".to_string()),
                ("looponfail".to_string(), "xdist.looponfail".to_string()),
                ("rig".to_string(), "rig.plugin".to_string()),
            ]
        );
    }

    #[test]
    fn manifests_name_distributions() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("requirements.txt"),
            "pytest==9\nhypothesis\n",
        )
        .unwrap();
        std::fs::write(
            dir.path().join("pyproject.toml"),
            "[project]\nname='x'\ndependencies=['attrs>=1']\n[project.optional-dependencies]\n\
             test=['pytest-xdist']\n[dependency-groups]\ndev=['Pytest_Rerunfailures']\n",
        )
        .unwrap();
        std::fs::write(dir.path().join("notes.txt"), "not-a-dep\n").unwrap();
        let names = named_distributions(dir.path());
        let want: BTreeSet<String> = [
            "attrs",
            "hypothesis",
            "pytest",
            "pytest-rerunfailures",
            "pytest-xdist",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        assert_eq!(names, want);
    }
}
