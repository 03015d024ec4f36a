//! From a JUnit case (classname + name) back to a scanned test id.
//!
//! pytest derives a case from the node id: the path with `/` turned into `.` and `.py`
//! dropped, then the classes joined by `.`, form `classname`; the function name with its
//! `[params]` is `name`. The resolver computes that key for every scanned id once, so each
//! case costs two hash lookups on borrowed strings and no allocation.

use std::collections::HashMap;

use lane_core::scan::ScanTest;

/// `(classname, name)` pytest writes for a test id without parameters; `None` when the id is
/// not a pytest node id (`path::name`).
pub fn junit_key(id: &str) -> Option<(String, String)> {
    let mut parts = id.split("::");
    let path = parts.next()?;
    let rest: Vec<&str> = parts.collect();
    let (name, classes) = rest.split_last()?;
    if path.is_empty() || name.is_empty() {
        return None;
    }
    let mut classname = module_of(path);
    for class in classes {
        classname.push('.');
        classname.push_str(class);
    }
    Some((classname, (*name).to_string()))
}

/// `tests/sub/test_a.py` -> `tests.sub.test_a`, as pytest's JUnit writer spells a module.
pub(crate) fn module_of(path: &str) -> String {
    let dotted = path.replace('/', ".");
    match dotted.strip_suffix(".py") {
        Some(m) => m.to_string(),
        None => dotted,
    }
}

/// A case name split into the function and its parameters (`test_x[1-a]` -> `test_x`, `[1-a]`).
pub(crate) fn split_params(name: &str) -> (&str, &str) {
    match name.find('[') {
        Some(i) => (&name[..i], &name[i..]),
        None => (name, ""),
    }
}

/// What a case is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Resolved<'a> {
    /// A scanned test (its index in the scan's list) and the case's parameters (`""` or
    /// `[...]`).
    Test { index: u32, params: &'a str },
    /// A module-level case (empty classname): pytest reports collection errors and
    /// module-level skips this way. `file` is the root-relative module file.
    Module { file: String },
    /// Matches no scanned test; `why` says how. `claimed`: the tests whose classname and
    /// name it carries although it ran from another file (an impostor's claim).
    Unknown { why: String, claimed: Vec<u32> },
}

/// The scan's tests keyed the way JUnit names them.
#[derive(Debug, Default)]
pub(crate) struct Resolver<'s> {
    tests: &'s [ScanTest],
    by_class: HashMap<String, HashMap<String, Vec<u32>>>,
    modules: HashMap<String, String>,
}

impl<'s> Resolver<'s> {
    pub(crate) fn new(tests: &'s [ScanTest], files: &[String]) -> Self {
        let mut by_class: HashMap<String, HashMap<String, Vec<u32>>> = HashMap::new();
        let mut modules = HashMap::new();
        for (i, test) in tests.iter().enumerate() {
            let Ok(index) = u32::try_from(i) else { break };
            if let Some((classname, name)) = junit_key(&test.id) {
                by_class
                    .entry(classname)
                    .or_default()
                    .entry(name)
                    .or_default()
                    .push(index);
            }
            modules
                .entry(module_of(&test.file))
                .or_insert_with(|| test.file.clone());
        }
        for file in files {
            modules
                .entry(module_of(file))
                .or_insert_with(|| file.clone());
        }
        Resolver {
            tests,
            by_class,
            modules,
        }
    }

    /// The scanned file a classname's module part names (the longest known dotted prefix),
    /// to place a problem about a case that matches no test.
    pub(crate) fn file_of_classname(&self, classname: &str) -> Option<&str> {
        let mut end = classname.len();
        loop {
            if let Some(file) = self.modules.get(&classname[..end]) {
                return Some(file);
            }
            end = classname[..end].rfind('.')?;
        }
    }

    /// What the case `classname` / `name` (with the xunit1 `file` attribute, when present)
    /// is. A case carrying `file` is bound to it: it is a test only when that file defines
    /// the test function (the collecting module, or the base class's module for an inherited
    /// method, as pytest writes it). Without `file` (xunit2) classname and name decide.
    pub(crate) fn resolve<'c>(
        &self,
        classname: &str,
        name: &'c str,
        file: Option<&str>,
    ) -> Resolved<'c> {
        if classname.is_empty() {
            let file = match self.modules.get(name) {
                Some(f) => f.clone(),
                None => format!("{}.py", name.replace('.', "/")),
            };
            return Resolved::Module { file };
        }
        let (base, params) = split_params(name);
        let Some(candidates) = self.by_class.get(classname).and_then(|m| m.get(base)) else {
            return Resolved::Unknown {
                why: "no scanned test has this classname and name".to_string(),
                claimed: Vec::new(),
            };
        };
        let ids = |list: &[u32]| -> String {
            list.iter()
                .map(|&i| self.tests[i as usize].id.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        };
        let bound: Vec<u32> = match file {
            Some(f) => candidates
                .iter()
                .copied()
                .filter(|&i| self.tests[i as usize].defining_file() == f)
                .collect(),
            None => candidates.clone(),
        };
        match (bound.as_slice(), file) {
            ([one], _) => Resolved::Test {
                index: *one,
                params,
            },
            ([], Some(f)) => {
                let defined: Vec<String> = candidates
                    .iter()
                    .map(|&i| {
                        let t = &self.tests[i as usize];
                        format!("{} is defined in {}", t.id, t.defining_file())
                    })
                    .collect();
                Resolved::Unknown {
                    why: format!(
                        "it ran from {f}, but {}: the case is bound to the file it ran from",
                        defined.join(", ")
                    ),
                    claimed: candidates.clone(),
                }
            }
            (many, _) => Resolved::Unknown {
                why: format!("ambiguous: it could be any of {}", ids(many)),
                claimed: Vec::new(),
            },
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use lane_core::scan::{Attachments, Lane};

    fn test(id: &str) -> ScanTest {
        ScanTest {
            id: id.to_string(),
            defined_in: None,
            empty_params: None,
            file: id.split("::").next().unwrap_or("").to_string(),
            line: 1,
            lane: Some(Lane::Merge),
            lanes: vec![Lane::Merge],
            marks: vec!["merge".into()],
            parametrized: false,
            attachments: Attachments::default(),
        }
    }

    #[test]
    fn keys_table() {
        let table = [
            ("tests/test_a.py::test_x", Some(("tests.test_a", "test_x"))),
            (
                "tests/test_invoice.py::TestCredit::test_round_trip",
                Some(("tests.test_invoice.TestCredit", "test_round_trip")),
            ),
            (
                "test_a.py::TestK::TestInner::test_m",
                Some(("test_a.TestK.TestInner", "test_m")),
            ),
            ("pkg/mod.pyx.py::t", Some(("pkg.mod.pyx", "t"))),
            ("no_separator", None),
            ("::t", None),
        ];
        for (id, expected) in table {
            let got = junit_key(id);
            let expected = expected.map(|(c, n)| (c.to_string(), n.to_string()));
            assert_eq!(got, expected, "{id}");
        }
    }

    #[test]
    fn resolution_table() {
        let tests = vec![
            test("tests/test_a.py::test_x"),
            test("tests/test_a.py::TestC::test_y"),
            test("a/b.py::C::t"),
            test("a/b/C.py::t"),
        ];
        let files = vec!["tests/test_broken.py".to_string()];
        let r = Resolver::new(&tests, &files);
        let table: &[(&str, &str, &str, Option<&str>, Resolved<'_>)] = &[
            (
                "plain",
                "tests.test_a",
                "test_x",
                None,
                Resolved::Test {
                    index: 0,
                    params: "",
                },
            ),
            (
                "parametrized folds",
                "tests.test_a",
                "test_x[1-a b]",
                None,
                Resolved::Test {
                    index: 0,
                    params: "[1-a b]",
                },
            ),
            (
                "brackets inside params",
                "tests.test_a",
                "test_x[a[1]::b]",
                None,
                Resolved::Test {
                    index: 0,
                    params: "[a[1]::b]",
                },
            ),
            (
                "class",
                "tests.test_a.TestC",
                "test_y",
                None,
                Resolved::Test {
                    index: 1,
                    params: "",
                },
            ),
            (
                "file disambiguates",
                "a.b.C",
                "t",
                Some("a/b/C.py"),
                Resolved::Test {
                    index: 3,
                    params: "",
                },
            ),
            (
                "known module",
                "",
                "tests.test_broken",
                None,
                Resolved::Module {
                    file: "tests/test_broken.py".into(),
                },
            ),
            (
                "unknown module is guessed",
                "",
                "pkg.test_z",
                None,
                Resolved::Module {
                    file: "pkg/test_z.py".into(),
                },
            ),
        ];
        for (name, classname, case, file, expected) in table {
            assert_eq!(&r.resolve(classname, case, *file), expected, "{name}");
        }
        let unknown = [
            ("tests.test_a", "test_nope"),
            ("tests.test_b", "test_x"),
            ("a.b.C", "t"),
            ("tests.test_a.TestC", "test_x"),
        ];
        assert_eq!(
            r.file_of_classname("tests.test_a.TestC"),
            Some("tests/test_a.py")
        );
        assert_eq!(r.file_of_classname("tests.test_a"), Some("tests/test_a.py"));
        assert_eq!(r.file_of_classname("tests.test_b.X"), None);
        for (classname, case) in unknown {
            assert!(
                matches!(r.resolve(classname, case, None), Resolved::Unknown { .. }),
                "{classname} {case}"
            );
        }
    }
}
