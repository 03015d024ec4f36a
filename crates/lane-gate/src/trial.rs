//! Product code on trial (DESIGN §9.6): what a run's outcome channel carried, read into the
//! facts the rules judge: each test's outcome as pytest reported it, the run's exit status as
//! pytest's session ended it, where each of the project's modules was loaded from (and whether
//! those are the vote tree's bytes), and the identities changed while the run went on.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use lane_tally::junit::Outcome;
use serde::Deserialize;

use crate::GateError;
use crate::pytest::Ended;

/// One record of the channel, as the bootstrap writes it.
#[derive(Debug, Deserialize)]
#[serde(tag = "k", rename_all = "lowercase")]
enum Record {
    Start {},
    Origin {
        module: String,
        origin: Option<String>,
        kind: String,
    },
    Report {
        id: String,
        when: String,
        outcome: String,
    },
    Collect {},
    /// A mutant's run: the bootstrap compiled the mutated source in place of the file.
    Mutant {},
    Tamper {
        #[serde(rename = "where")]
        at: String,
        what: Vec<String>,
    },
    Tracer {
        #[serde(rename = "where")]
        at: String,
    },
    Forged {
        #[serde(rename = "where")]
        at: String,
        what: Vec<String>,
    },
    Session {
        status: i32,
    },
    End {
        status: i32,
    },
    Fatal {
        what: String,
    },
}

/// How a test went, as the channel or the report says it: the worst of its phases.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Went {
    Passed,
    Skipped,
    Failed,
}

impl Went {
    fn of_report(outcome: Outcome) -> Went {
        match outcome {
            Outcome::Passed => Went::Passed,
            Outcome::Skipped | Outcome::XFail => Went::Skipped,
            Outcome::Failed | Outcome::Error => Went::Failed,
        }
    }

    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Went::Passed => "passed",
            Went::Skipped => "was skipped",
            Went::Failed => "failed",
        }
    }
}

/// Where one module of the project was loaded from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Origin {
    pub(crate) module: String,
    pub(crate) origin: Option<String>,
    /// `source`, `extension`, `sourceless`, `namespace` or `other`.
    pub(crate) kind: String,
}

/// Identities the bootstrap saw changed, and where (a test id, the collection, the end).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Tamper {
    pub(crate) at: String,
    pub(crate) what: Vec<String>,
}

/// What one run's channel carried.
#[derive(Debug, Clone, Default)]
pub(crate) struct Stream {
    pub(crate) started: bool,
    /// pytest's exit status as the session ended it, and as the bootstrap returned it.
    pub(crate) session: Option<i32>,
    pub(crate) end: Option<i32>,
    /// Each test by its `(classname, name)` in the JUnit report.
    pub(crate) tests: BTreeMap<(String, String), (String, Went)>,
    /// What the channel carried that is no record of the bootstrap, or a second record where
    /// the first is final.
    pub(crate) garbled: Vec<String>,
    pub(crate) origins: Vec<Origin>,
    pub(crate) tampered: Vec<Tamper>,
    /// Where the tracer was seen switched off or replaced.
    pub(crate) tracer: Vec<String>,
    /// Comparisons a changed product class answered otherwise than its value type, by test.
    pub(crate) forged: Vec<Tamper>,
    /// What the bootstrap could not set up.
    pub(crate) fatal: Option<String>,
    /// A mutant's run: the mutated module was loaded.
    pub(crate) mutated: bool,
}

/// The channel's bytes read into a [`Stream`]. The first record of a test's phase is final.
pub(crate) fn read(bytes: &[u8]) -> Stream {
    let mut stream = Stream::default();
    let mut phases: BTreeMap<(String, String), ()> = BTreeMap::new();
    for line in bytes.split(|&b| b == b'\n').filter(|l| !l.is_empty()) {
        let Ok(record) = serde_json::from_slice::<Record>(line) else {
            let shown: String = String::from_utf8_lossy(line).chars().take(80).collect();
            stream
                .garbled
                .push(format!("a line that is no record of the gate's ({shown})"));
            continue;
        };
        match record {
            Record::Start {} if stream.started => {
                stream.garbled.push("a second start record".into());
            }
            Record::Start {} => stream.started = true,
            Record::Origin {
                module,
                origin,
                kind,
            } => stream.origins.push(Origin {
                module,
                origin,
                kind,
            }),
            // pytest-rerunfailures reports each attempt but the last as a rerun
            Record::Report { outcome, .. } if outcome == "rerun" => {}
            Record::Report { id, when, outcome } => {
                if phases.insert((id.clone(), when.clone()), ()).is_some() {
                    stream
                        .garbled
                        .push(format!("a second {when} record for {id}"));
                    continue;
                }
                let went = match outcome.as_str() {
                    "passed" => Went::Passed,
                    "skipped" => Went::Skipped,
                    _ => Went::Failed,
                };
                let Some(key) = junit_key(&id) else {
                    stream
                        .garbled
                        .push(format!("a record of {id}, which is no test id"));
                    continue;
                };
                let entry = stream.tests.entry(key).or_insert((id, went));
                entry.1 = entry.1.max(went);
            }
            Record::Collect {} => {}
            Record::Mutant {} => stream.mutated = true,
            Record::Tracer { at } => stream.tracer.push(at),
            Record::Forged { at, what } => stream.forged.push(Tamper { at, what }),
            Record::Tamper { at, what } => stream.tampered.push(Tamper { at, what }),
            Record::Session { status } => {
                if stream.session.replace(status).is_some() {
                    stream.garbled.push("a second session record".into());
                }
            }
            Record::End { status } => {
                if stream.end.replace(status).is_some() {
                    stream.garbled.push("a second end record".into());
                }
            }
            Record::Fatal { what } => stream.fatal = Some(what),
        }
    }
    stream
}

/// The `(classname, name)` pytest's JUnit writer gives a node id; parameters stay with the
/// name whatever they hold (`test_x[a::b]`).
fn junit_key(id: &str) -> Option<(String, String)> {
    let (head, params) = id.split_at(id.find('[').unwrap_or(id.len()));
    let (classname, name) = lane_tally::junit::junit_key(head)?;
    Some((classname, name + params))
}

/// A JUnit report's cases by `(classname, name)`, each the worst of its elements; None when
/// the report does not read (the tally refuses it then, with its line and column).
pub(crate) fn report_cases(report: &Path) -> Option<BTreeMap<(String, String), Went>> {
    let mut cases: BTreeMap<(String, String), Went> = BTreeMap::new();
    lane_tally::junit::read_path(report, "report", |case| {
        let went = Went::of_report(case.outcome);
        let entry = cases
            .entry((case.classname.to_string(), case.name.to_string()))
            .or_insert(went);
        *entry = (*entry).max(went);
    })
    .ok()?;
    Some(cases)
}

/// A product module loaded from other bytes than the vote tree's.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Foreign {
    pub(crate) module: String,
    /// Where it was loaded from.
    pub(crate) origin: String,
    /// Its file in the vote tree, tree-relative, when the tree has one.
    pub(crate) counterpart: Option<String>,
    /// How it was loaded: `source`, `sourceless` (bytecode without its source) or `extension`.
    pub(crate) kind: String,
}

/// The files a module of the tree could be (`a/b.py`, `a/b/__init__.py`), under each folder
/// product modules import from; the first that exists, tree-relative.
fn counterpart(module: &str, tree: &Path, dirs: &[String]) -> Option<String> {
    let stem = module.replace('.', "/");
    for dir in dirs {
        for file in [format!("{stem}.py"), format!("{stem}/__init__.py")] {
            let rel = if dir.is_empty() {
                file
            } else {
                format!("{dir}/{file}")
            };
            if tree.join(&rel).is_file() {
                return Some(rel);
            }
        }
    }
    None
}

/// The product modules loaded from other bytes than the vote tree's (`tree`, its import
/// folders `dirs` tree-relative). A module the tree has no file for (one the build generates,
/// `_version.py`) is not the tree's product code. A compiled product module (mypyc, Cython)
/// inside the tree with no source beside it cannot be judged: an error.
pub(crate) fn foreign(
    origins: &[Origin],
    tree: &Path,
    dirs: &[String],
) -> Result<Vec<Foreign>, GateError> {
    let canon = |p: &Path| std::fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf());
    let root = canon(tree);
    let mut found = Vec::new();
    for o in origins {
        let Some(origin) = o.origin.as_deref().filter(|_| o.kind != "namespace") else {
            continue;
        };
        let path = PathBuf::from(origin);
        if !path.is_absolute() {
            // frozen or built-in: not loaded from a file
            continue;
        }
        let inside = canon(&path).starts_with(&root);
        let twin = counterpart(&o.module, tree, dirs);
        let differs = match o.kind.as_str() {
            "source" | "other" => {
                if inside {
                    false
                } else {
                    match &twin {
                        None => false,
                        Some(rel) => {
                            std::fs::read(&path).ok() != std::fs::read(tree.join(rel)).ok()
                        }
                    }
                }
            }
            "extension" if inside && twin.is_none() => {
                return Err(GateError::Checkout(format!(
                    "the product module '{}' is compiled ({origin}): the gate cannot judge code \
                     it cannot trace to its source; build the project without compiling its \
                     modules for the vote",
                    o.module
                )));
            }
            _ => inside || twin.is_some(),
        };
        if differs {
            let mut shown = origin.to_string();
            if let Ok(rel) = canon(&path).strip_prefix(&root) {
                shown = rel.display().to_string();
            }
            found.push(Foreign {
                module: o.module.clone(),
                origin: shown,
                counterpart: twin,
                kind: o.kind.clone(),
            });
        }
    }
    found.sort_by(|a, b| a.module.cmp(&b.module));
    found.dedup();
    Ok(found)
}

/// What one pytest run showed of the code on trial, for the rules.
#[derive(Debug, Clone)]
pub(crate) struct TrialFacts {
    /// The run, as a message names it ("the merge lane's pytest run").
    pub(crate) run: String,
    pub(crate) ended: Ended,
    pub(crate) stream: Stream,
    /// The report's cases; None when there is no report or it does not read.
    pub(crate) report: Option<BTreeMap<(String, String), Went>>,
    pub(crate) foreign: Vec<Foreign>,
}

/// The facts of one finished run: `bytes` its channel, `report` its JUnit (when written).
pub(crate) fn facts(
    run: String,
    ended: Ended,
    bytes: &[u8],
    report: Option<&Path>,
    tree: &Path,
    dirs: &[String],
) -> Result<TrialFacts, GateError> {
    let stream = read(bytes);
    let foreign = foreign(&stream.origins, tree, dirs)?;
    Ok(TrialFacts {
        run,
        ended,
        report: report.and_then(report_cases),
        stream,
        foreign,
    })
}

/// The project's product modules: the top-level modules and packages of the folders product
/// code imports from (the root, `src/`, the configured `pythonpath`), no test module, no
/// `conftest`/`setup`/`noxfile`. Returns the names and the folders (tree-relative).
pub(crate) fn product(tree: &Path) -> Result<(Vec<String>, Vec<String>), GateError> {
    let config =
        lane_scan::config::load(&[], None, tree).map_err(crate::error::from_tool("lane-scan"))?;
    let mut dirs = vec![String::new()];
    if tree.join("src").is_dir() {
        dirs.push("src".into());
    }
    for p in lane_scan::config::ini_args(&config, "pythonpath")
        .map_err(crate::error::from_tool("lane-scan"))?
    {
        let p = lane_scan::config::normalize(&tree.join(p));
        if let Ok(rel) = p.strip_prefix(tree) {
            let rel = rel.to_string_lossy().into_owned();
            if !dirs.contains(&rel) {
                dirs.push(rel);
            }
        }
    }
    let mut names = std::collections::BTreeSet::new();
    for dir in &dirs {
        let Ok(read) = std::fs::read_dir(tree.join(dir)) else {
            continue;
        };
        for entry in read.filter_map(Result::ok) {
            let name = entry.file_name().to_string_lossy().into_owned();
            let path = entry.path();
            let module = match name.strip_suffix(".py") {
                Some(stem) => (path.is_file()
                    && !matches!(stem, "conftest" | "setup" | "noxfile")
                    && !crate::surface::is_test_module_name(&name, &config.python_files))
                .then(|| stem.to_string()),
                None => path.join("__init__.py").is_file().then_some(name),
            };
            if let Some(m) = module.filter(|m| {
                !m.is_empty() && m.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
            }) {
                names.insert(m);
            }
        }
    }
    Ok((names.into_iter().collect(), dirs))
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn the_first_record_of_a_phase_is_final() {
        let bytes = br#"{"k":"start","pid":1}
{"k":"report","id":"tests/test_a.py::test_x","when":"setup","outcome":"passed","xfail":false}
{"k":"report","id":"tests/test_a.py::test_x","when":"call","outcome":"failed","xfail":false}
{"k":"report","id":"tests/test_a.py::test_x","when":"call","outcome":"passed","xfail":false}
{"k":"report","id":"tests/test_a.py::C::test_y[1]","when":"call","outcome":"rerun","xfail":false}
{"k":"report","id":"tests/test_a.py::C::test_y[1]","when":"call","outcome":"skipped","xfail":true}
{"k":"report","id":"tests/test_a.py::test_z[a::b, c]","when":"call","outcome":"passed","xfail":false}
not json
{"k":"session","status":1}
{"k":"end","status":1}
"#;
        let s = read(bytes);
        assert!(s.started);
        assert_eq!((s.session, s.end), (Some(1), Some(1)));
        let x = &s.tests[&("tests.test_a".to_string(), "test_x".to_string())];
        assert_eq!(x.1, Went::Failed);
        let y = &s.tests[&("tests.test_a.C".to_string(), "test_y[1]".to_string())];
        assert_eq!(
            y,
            &("tests/test_a.py::C::test_y[1]".to_string(), Went::Skipped)
        );
        // parameters keep their `::`
        let z = ("tests.test_a".to_string(), "test_z[a::b, c]".to_string());
        assert_eq!(s.tests[&z].1, Went::Passed);
        assert_eq!(
            s.garbled,
            [
                "a second call record for tests/test_a.py::test_x",
                "a line that is no record of the gate's (not json)"
            ]
        );
    }

    #[test]
    fn a_module_loaded_from_other_bytes_is_foreign() {
        let tree = tempfile::tempdir().unwrap();
        let site = tempfile::tempdir().unwrap();
        let t = tree.path();
        std::fs::create_dir_all(t.join("src/pkg")).unwrap();
        std::fs::write(t.join("src/pkg/__init__.py"), "").unwrap();
        std::fs::write(t.join("src/pkg/core.py"), "X = 2\n").unwrap();
        std::fs::create_dir_all(site.path().join("pkg")).unwrap();
        let installed = |name: &str, text: &str| {
            let p = site.path().join("pkg").join(name);
            std::fs::write(&p, text).unwrap();
            p.display().to_string()
        };
        let origin = |module: &str, origin: String, kind: &str| Origin {
            module: module.into(),
            origin: Some(origin),
            kind: kind.into(),
        };
        let dirs = vec![String::new(), "src".to_string()];
        let origins = vec![
            // the same bytes as the tree's: the tree's code
            origin("pkg", installed("__init__.py", ""), "source"),
            // other bytes
            origin("pkg.core", installed("core.py", "X = 1\n"), "source"),
            // generated by the build, not in the tree
            origin(
                "pkg._version",
                installed("_version.py", "v = 1\n"),
                "source",
            ),
            // loaded from the tree itself
            origin(
                "pkg.core",
                t.join("src/pkg/core.py").display().to_string(),
                "source",
            ),
            // bytecode without its source, in the tree
            origin(
                "pkg.fast",
                t.join("src/pkg/fast.pyc").display().to_string(),
                "sourceless",
            ),
        ];
        let found = foreign(&origins, t, &dirs).unwrap();
        let names: Vec<_> = found
            .iter()
            .map(|f| (f.module.as_str(), f.kind.as_str()))
            .collect();
        assert_eq!(names, [("pkg.core", "source"), ("pkg.fast", "sourceless")]);
        assert_eq!(found[0].counterpart.as_deref(), Some("src/pkg/core.py"));
        assert_eq!(found[1].origin, "src/pkg/fast.pyc");
        // a compiled module of the tree without source cannot be judged
        let so = origin(
            "pkg.ext",
            t.join("src/pkg/ext.so").display().to_string(),
            "extension",
        );
        let err = foreign(&[so], t, &dirs).unwrap_err().to_string();
        assert!(err.contains("'pkg.ext' is compiled"), "{err}");
    }

    #[test]
    fn product_modules_are_found_in_the_root_and_src() {
        let tree = tempfile::tempdir().unwrap();
        let t = tree.path();
        for f in [
            "src/pkg/__init__.py",
            "tool.py",
            "conftest.py",
            "test_x.py",
            "tests/test_a.py",
            "setup.py",
        ] {
            std::fs::create_dir_all(t.join(f).parent().unwrap()).unwrap();
            std::fs::write(t.join(f), "").unwrap();
        }
        let (names, dirs) = product(t).unwrap();
        assert_eq!(names, ["pkg", "tool"]);
        assert_eq!(dirs, ["", "src"]);
    }
}
