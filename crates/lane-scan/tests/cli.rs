//! Runs the real `lane-scan` binary on suites written into temporary folders.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::atomic::{AtomicU32, Ordering};

use serde::Deserialize;
use serde_json::Value;

mod common;

use common::{ids as test_ids, problems};

const INI: &str =
    "[pytest]\nmarkers =\n    merge: votes\n    witness: corroborates\n    freeze: never votes\n";

static NEXT: AtomicU32 = AtomicU32::new(0);

/// A fresh folder under the system temp dir, removed on drop.
struct Suite(PathBuf);

impl Suite {
    fn new(files: &[(&str, &str)]) -> Suite {
        let n = NEXT.fetch_add(1, Ordering::SeqCst);
        let dir = std::env::temp_dir().join(format!("lane-scan-cli-{}-{n}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(&dir).unwrap();
        let suite = Suite(dir);
        for (path, text) in files {
            suite.write(path, text.as_bytes());
        }
        suite
    }
    fn with_ini(files: &[(&str, &str)]) -> Suite {
        let suite = Suite::new(files);
        suite.write("pytest.ini", INI.as_bytes());
        suite
    }
    fn write(&self, path: &str, bytes: &[u8]) {
        let p = self.0.join(path);
        fs::create_dir_all(p.parent().unwrap()).unwrap();
        fs::write(p, bytes).unwrap();
    }
    fn path(&self) -> &Path {
        &self.0
    }
}

impl Drop for Suite {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.0);
    }
}

fn run(dir: &Path, args: &[&str]) -> Output {
    lane_testkit::Cmd::new(env!("CARGO_BIN_EXE_lane-scan"))
        .args(args)
        .dir(dir)
        .output()
}

fn scan(suite: &Suite) -> (i32, Value) {
    let out = run(suite.path(), &[]);
    let code = out.status.code().unwrap();
    assert!(
        code < 2,
        "exit {code}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    (code, serde_json::from_slice(&out.stdout).unwrap())
}

fn test<'a>(doc: &'a Value, id: &str) -> &'a Value {
    doc["scan"]["tests"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["id"] == id)
        .unwrap_or_else(|| panic!("no test {id} in {doc:#}"))
}

/// Asserts exactly one problem of `rule` with this severity, line and test id.
fn expect(doc: &Value, rule: &str, severity: &str, line: u64, test: Option<&str>) {
    let found = problems(doc, rule);
    assert_eq!(found.len(), 1, "{rule}: {doc:#}");
    let p = found[0];
    assert_eq!(p["severity"], severity, "{p}");
    assert_eq!(p["line"], line, "{p}");
    match test {
        Some(t) => assert_eq!(p["test"], t, "{p}"),
        None => assert!(p.get("test").is_none(), "{p}"),
    }
}

const OK: &str = "import pytest\n\n@pytest.mark.merge\ndef test_ok():\n    \"\"\"owner: alice\"\"\"\n    assert 1 + 1 == 2\n";

/// One case per rule of DESIGN §4: (rule, severity, file text, line, test id).
#[test]
fn each_rule_is_reported_with_severity_line_and_test() {
    let f = "tests/test_case.py";
    let id = |name: &str| format!("{f}::{name}");
    let cases: Vec<(&str, &str, String, u64, Option<String>)> = vec![
        ("unmarked", "error", "def test_x():\n    assert 1 + 1 == 2\n".into(), 1, Some(id("test_x"))),
        (
            "multiple-lanes",
            "error",
            "import pytest\n@pytest.mark.merge\n@pytest.mark.freeze\ndef test_x():\n    \"\"\"owner: a\"\"\"\n    assert f() == 2\n".into(),
            4,
            Some(id("test_x")),
        ),
        (
            "param-lane-mark",
            "error",
            "import pytest\n@pytest.mark.merge\n@pytest.mark.parametrize('a', [1, pytest.param(2, marks=pytest.mark.freeze)])\ndef test_x(a):\n    \"\"\"owner: a\"\"\"\n    assert a > 0\n".into(),
            3,
            Some(id("test_x")),
        ),
        (
            "unconditional-skip",
            "error",
            "import pytest\n@pytest.mark.merge\ndef test_x():\n    \"\"\"owner: a\"\"\"\n    pytest.skip('later')\n    assert f() == 1\n".into(),
            5,
            Some(id("test_x")),
        ),
        (
            "conditional-skip",
            "warning",
            "import sys, pytest\n@pytest.mark.merge\n@pytest.mark.skipif(sys.platform == 'win32', reason='x')\ndef test_x():\n    \"\"\"owner: a\"\"\"\n    assert f() == 1\n".into(),
            3,
            Some(id("test_x")),
        ),
        (
            "xfail-in-voting-lane",
            "error",
            "import pytest\n@pytest.mark.witness(locked_on='2026-01-01')\n@pytest.mark.xfail\ndef test_x():\n    assert f() == 1\n".into(),
            3,
            Some(id("test_x")),
        ),
        (
            "retry-in-voting-lane",
            "error",
            "import pytest\n@pytest.mark.merge\n@pytest.mark.flaky(reruns=2)\ndef test_x():\n    \"\"\"owner: a\"\"\"\n    assert f() == 1\n".into(),
            3,
            Some(id("test_x")),
        ),
        (
            "unresolved-marker",
            "error",
            "import pytest\npytestmark = make_marks()\n\n@pytest.mark.merge\ndef test_x():\n    \"\"\"owner: a\"\"\"\n    assert f() == 1\n".into(),
            2,
            Some(id("test_x")),
        ),
        (
            "missing-attachment",
            "error",
            "import pytest\n@pytest.mark.merge\ndef test_x():\n    assert f() == 1\n".into(),
            3,
            Some(id("test_x")),
        ),
        (
            "missing-fixture",
            "error",
            "import pytest\n@pytest.mark.witness(fixture='data/gone.json')\ndef test_x():\n    assert f() == 1\n".into(),
            2,
            Some(id("test_x")),
        ),
        (
            "tautology",
            "error",
            "import pytest\n@pytest.mark.merge\ndef test_x():\n    \"\"\"owner: a\"\"\"\n    x = f()\n    assert x == x\n".into(),
            6,
            Some(id("test_x")),
        ),
        (
            "no-assertion",
            "warning",
            "import pytest\n@pytest.mark.merge\ndef test_x():\n    \"\"\"owner: a\"\"\"\n    f()\n".into(),
            3,
            Some(id("test_x")),
        ),
    ];
    for (rule, severity, text, line, test_id) in cases {
        // A sound merge test in another file keeps empty-merge-lane out of the way.
        let suite = Suite::with_ini(&[(f, &text), ("tests/test_ok.py", OK)]);
        let (code, doc) = scan(&suite);
        expect(&doc, rule, severity, line, test_id.as_deref());
        assert_eq!(
            code,
            if severity == "error" { 1 } else { 0 },
            "{rule}: {doc:#}"
        );
    }
}

#[test]
fn clean_suite_exits_zero_with_counts_and_attachments() {
    let suite = Suite::with_ini(&[
        ("tests/test_ok.py", OK),
        (
            "tests/test_w.py",
            "import pytest\nfrom pytest import mark as m\n\n@m.witness(fixture=['data/a.json'], locked_on='2026-01-01')\ndef test_w():\n    assert f() == 1\n",
        ),
        ("tests/data/a.json", "{}"),
        (
            "tests/test_given.py",
            "import pytest\nfrom hypothesis import given, strategies as st\nmerge = pytest.mark.merge\n\n@merge\n@given(st.integers(), y=st.text())\ndef test_g(x, y):\n    \"\"\"shrinking: minimal int\"\"\"\n    assert g(x) >= 0\n",
        ),
    ]);
    let (code, doc) = scan(&suite);
    assert_eq!(code, 0, "{doc:#}");
    let counts = &doc["scan"]["counts"];
    assert_eq!(
        (counts["merge"].as_u64(), counts["witness"].as_u64()),
        (Some(2), Some(1))
    );
    let w = test(&doc, "tests/test_w.py::test_w");
    assert_eq!(w["lane"], "witness");
    assert_eq!(w["attachments"]["fixtures"][0], "tests/data/a.json");
    assert_eq!(w["attachments"]["locked_on"], "2026-01-01");
    let g = test(&doc, "tests/test_given.py::test_g");
    assert_eq!(g["attachments"]["domain"], "st.integers(), y=st.text()");
    assert_eq!(g["attachments"]["shrinking"], "minimal int");
    let ids = test_ids(&doc);
    let mut sorted = ids.clone();
    sorted.sort();
    assert_eq!(ids, sorted);
}

#[test]
fn suite_level_rules() {
    // No merge test at all, freezes over budget, no registration, a runtime hook, retries in addopts.
    let suite = Suite::new(&[
        (
            "pytest.ini",
            "[pytest]\naddopts = --reruns 3\nmarkers =\n    merge: m\n",
        ),
        (
            "tests/conftest.py",
            "def pytest_collection_modifyitems(items):\n    pass\n",
        ),
        (
            "tests/test_f.py",
            "import pytest\n@pytest.mark.freeze\ndef test_f():\n    assert f() == 1\n",
        ),
    ]);
    let (code, doc) = scan(&suite);
    assert_eq!(code, 1);
    assert_eq!(problems(&doc, "empty-merge-lane").len(), 1, "{doc:#}");
    assert_eq!(problems(&doc, "freeze-over-budget").len(), 1, "{doc:#}");
    let unreg = problems(&doc, "unregistered-marker");
    assert_eq!(unreg.len(), 1, "{doc:#}");
    assert_eq!(unreg[0]["file"], "pytest.ini");
    let msg = unreg[0]["message"].as_str().unwrap();
    assert!(
        msg.contains("witness") && msg.contains("freeze") && !msg.contains("merge,"),
        "{msg}"
    );
    let hook = problems(&doc, "runtime-hook");
    assert_eq!(hook.len(), 1, "{doc:#}");
    assert_eq!(
        (hook[0]["severity"].as_str(), hook[0]["line"].as_u64()),
        (Some("warning"), Some(1))
    );
    assert_eq!(hook[0]["file"], "tests/conftest.py");

    // --reruns in addopts reaches a merge test.
    let suite = Suite::new(&[
        ("pytest.ini", &format!("{INI}addopts = -q --reruns=2\n")),
        ("tests/test_ok.py", OK),
    ]);
    let (code, doc) = scan(&suite);
    assert_eq!(code, 1);
    assert!(
        !problems(&doc, "retry-in-voting-lane").is_empty(),
        "{doc:#}"
    );
}

#[test]
fn parse_error_is_reported_and_the_rest_still_scanned() {
    let suite = Suite::with_ini(&[
        ("tests/test_ok.py", OK),
        ("tests/test_bad.py", "def test_x(:\n    pass\n"),
    ]);
    let (code, doc) = scan(&suite);
    assert_eq!(code, 1);
    let p = problems(&doc, "parse-error");
    assert_eq!(p.len(), 1, "{doc:#}");
    assert_eq!(p[0]["file"], "tests/test_bad.py");
    assert!(
        p[0]["message"]
            .as_str()
            .unwrap()
            .contains("tests/test_bad.py:1:"),
        "{}",
        p[0]
    );
    test(&doc, "tests/test_ok.py::test_ok");
}

#[test]
fn invalid_utf8_bom_and_crlf() {
    let suite = Suite::with_ini(&[("tests/test_ok.py", OK)]);
    suite.write(
        "tests/test_bin.py",
        b"def test_x():\n    assert '\xff\xfe' == 1\n",
    );
    suite.write(
        "tests/test_crlf.py",
        b"\xef\xbb\xbfimport pytest\r\n\r\n\r\n@pytest.mark.merge\r\ndef test_c():\r\n    \"\"\"owner: a\"\"\"\r\n    assert f() == 1\r\n",
    );
    let (_, doc) = scan(&suite);
    let p = problems(&doc, "parse-error");
    assert_eq!(p.len(), 1, "{doc:#}");
    assert_eq!(p[0]["file"], "tests/test_bin.py");
    let c = test(&doc, "tests/test_crlf.py::test_c");
    assert_eq!(c["line"], 5);
    assert_eq!(c["lane"], "merge");
}

#[test]
fn deep_nesting_is_a_problem_not_a_crash() {
    let depth = 50_000;
    let text = format!("x = {}1{}\n", "(".repeat(depth), ")".repeat(depth));
    let list = format!("y = {}{}\n", "[".repeat(depth), "]".repeat(depth));
    let suite = Suite::with_ini(&[
        ("tests/test_ok.py", OK),
        ("tests/test_deep.py", &text),
        ("tests/test_list.py", &list),
    ]);
    let (code, doc) = scan(&suite);
    assert_eq!(code, 1);
    let files: Vec<&str> = problems(&doc, "parse-error")
        .iter()
        .map(|p| p["file"].as_str().unwrap())
        .collect();
    assert!(files.contains(&"tests/test_deep.py"), "{doc:#}");
    test(&doc, "tests/test_ok.py::test_ok");
}

#[cfg(unix)]
#[test]
fn symlink_loop_does_not_hang() {
    let suite = Suite::with_ini(&[("tests/test_ok.py", OK)]);
    std::os::unix::fs::symlink(suite.path().join("tests"), suite.path().join("tests/loop"))
        .unwrap();
    std::os::unix::fs::symlink("missing", suite.path().join("tests/dangling.py")).unwrap();
    let (code, doc) = scan(&suite);
    assert_eq!(code, 0, "{doc:#}");
    assert_eq!(doc["scan"]["tests"].as_array().unwrap().len(), 1, "{doc:#}");
}

#[test]
fn bad_config_and_missing_path_exit_two() {
    let cases: [(&str, &str, &str); 4] = [
        // pytest splits "args" values with Python's shlex and cannot start on one it refuses.
        (
            "pytest.ini",
            "[pytest]\naddopts = -k \"oops\n",
            "pytest.ini:2: addopts: No closing quotation",
        ),
        (
            "pytest.ini",
            "[pytest]\ntestpaths = tests \\\n",
            "pytest.ini:2: testpaths: No escaped character",
        ),
        (
            "pyproject.toml",
            "[tool.pytest.ini_options]\nmarkers = [\n\"merge\"\nx = = 1\n",
            "pyproject.toml:",
        ),
        (
            "pytest.ini",
            "[pytest]\nthis line has no equals sign\n",
            "pytest.ini:2",
        ),
    ];
    for (name, text, want) in cases {
        let suite = Suite::new(&[(name, text), ("tests/test_ok.py", OK)]);
        let out = run(suite.path(), &[]);
        assert_eq!(out.status.code(), Some(2), "{name}");
        assert!(out.stdout.is_empty());
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.starts_with("lane-scan: error: ") && err.contains(want),
            "{err}"
        );
        assert_eq!(err.trim_end().lines().count(), 1, "{err}");
    }
    let suite = Suite::with_ini(&[("tests/test_ok.py", OK)]);
    let out = run(suite.path(), &["no/such/dir"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(out.stdout.is_empty());
    assert!(String::from_utf8_lossy(&out.stderr).contains("no/such/dir"));
}

#[test]
fn two_runs_are_byte_identical() {
    let mut files: Vec<(String, String)> = (0..40)
        .map(|i| {
            (
                format!("tests/sub{}/test_{i}.py", i % 5),
                OK.replace("test_ok", &format!("test_{i}")),
            )
        })
        .collect();
    files.push(("tests/test_bad.py".into(), "def test_(\n".into()));
    let refs: Vec<(&str, &str)> = files
        .iter()
        .map(|(a, b)| (a.as_str(), b.as_str()))
        .collect();
    let suite = Suite::with_ini(&refs);
    let a = run(suite.path(), &[]);
    let b = run(suite.path(), &[]);
    assert_eq!(a.stdout, b.stdout);
    assert!(!a.stdout.is_empty());
    assert!(!String::from_utf8_lossy(&a.stdout).contains(&*suite.path().to_string_lossy()));
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
#[allow(dead_code)]
struct DocMirror {
    version: u64,
    scan: ScanMirror,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
#[allow(dead_code)]
struct ScanMirror {
    tool: String,
    tests: Vec<TestMirror>,
    counts: CountsMirror,
    files: Vec<String>,
    problems: Vec<ProblemMirror>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
#[allow(dead_code)]
struct CountsMirror {
    merge: u64,
    witness: u64,
    freeze: u64,
    unmarked: u64,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
#[allow(dead_code)]
struct TestMirror {
    id: String,
    file: String,
    defined_in: Option<String>,
    line: u64,
    lane: Option<String>,
    lanes: Vec<String>,
    marks: Vec<String>,
    parametrized: bool,
    attachments: AttachmentsMirror,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
#[allow(dead_code)]
struct AttachmentsMirror {
    owner: Option<String>,
    owner_from: Option<String>,
    shrinking: Option<String>,
    domain: Option<String>,
    #[serde(default)]
    fixtures: Vec<String>,
    locked_on: Option<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
#[allow(dead_code)]
struct ProblemMirror {
    rule: String,
    severity: String,
    message: String,
    file: Option<String>,
    line: Option<u64>,
    test: Option<String>,
}

#[test]
fn output_matches_the_schema() {
    let suite = Suite::with_ini(&[
        ("tests/test_ok.py", OK),
        (
            "tests/test_p.py",
            "import pytest\n@pytest.mark.parametrize('a', [1, 2])\ndef test_p(a):\n    pass\n",
        ),
    ]);
    let out = run(suite.path(), &[]);
    let doc: DocMirror = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc.scan.tool, "lane-scan");
    assert_eq!(doc.scan.files, ["tests/test_ok.py", "tests/test_p.py"]);
    let p = doc
        .scan
        .tests
        .iter()
        .find(|t| t.id == "tests/test_p.py::test_p")
        .unwrap();
    assert!(p.parametrized);
    assert_eq!(p.marks, ["parametrize"]);
    assert_eq!(doc.scan.counts.unmarked, 1);
    assert!(doc.scan.problems.iter().any(|p| p.rule == "unmarked"));
}

#[test]
fn input_document_sections_are_kept() {
    let suite = Suite::with_ini(&[("tests/test_ok.py", OK)]);
    suite.write("in.json", br#"{"version": 1, "other": {"x": 1}}"#);
    let out = run(suite.path(), &["--input", "in.json", "tests"]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["other"]["x"], 1);
    assert_eq!(doc["scan"]["tests"][0]["id"], "tests/test_ok.py::test_ok");
}

#[test]
fn explain_prints_the_rule() {
    let suite = Suite::new(&[]);
    let out = run(suite.path(), &["--explain", "unconditional-skip"]);
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("unconditional-skip") && text.to_lowercase().contains("skip"),
        "{text}"
    );
    let out = run(suite.path(), &["--explain", "no-such-rule"]);
    assert_eq!(out.status.code(), Some(2));
}

mod fuzz {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]
        #[test]
        fn arbitrary_bytes_as_a_python_file_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..400)) {
            let suite = Suite::with_ini(&[("tests/test_ok.py", OK)]);
            suite.write("tests/test_fuzz.py", &bytes);
            let out = run(suite.path(), &[]);
            prop_assert!(matches!(out.status.code(), Some(0 | 1)), "{}", String::from_utf8_lossy(&out.stderr));
        }
    }
}

#[test]
fn testpaths_entries_are_globs() {
    let suite = Suite::new(&[
        ("pytest.ini", &format!("{INI}testpaths = area_*\n")),
        ("area_a/test_a.py", OK),
        ("area_b/test_b.py", OK),
        ("archive/test_old.py", OK),
    ]);
    let (_, doc) = scan(&suite);
    let ids = test_ids(&doc);
    assert_eq!(
        ids,
        ["area_a/test_a.py::test_ok", "area_b/test_b.py::test_ok"]
    );
}

#[test]
fn pytestmark_list_concatenation_resolves_and_a_tuple_is_refused() {
    let suite = Suite::with_ini(&[
        (
            "tests/test_cat.py",
            "import pytest\nSMOKE = [pytest.mark.smoke]\n\nclass TestC:\n    pytestmark = SMOKE + [pytest.mark.merge]\n\n    def test_c(self):\n        \"\"\"owner: a\"\"\"\n        assert f() == 1\n",
        ),
        (
            "tests/test_tuple.py",
            "import pytest\npytestmark = (pytest.mark.merge,)\n\ndef test_t():\n    \"\"\"owner: a\"\"\"\n    assert f() == 1\n",
        ),
    ]);
    let (code, doc) = scan(&suite);
    assert_eq!(code, 1);
    let c = test(&doc, "tests/test_cat.py::TestC::test_c");
    assert_eq!(c["lane"], "merge");
    assert_eq!(c["marks"], serde_json::json!(["merge", "smoke"]));
    let p = problems(&doc, "unresolved-marker");
    assert_eq!(p.len(), 1, "{doc:#}");
    assert_eq!(
        (p[0]["file"].as_str(), p[0]["line"].as_u64()),
        (Some("tests/test_tuple.py"), Some(2))
    );
}

#[test]
fn star_imports_and_dotted_submodules_reach_marks() {
    let suite = Suite::with_ini(&[
        (
            "tests/starmarks.py",
            "import pytest\nstar_merge = pytest.mark.merge\n_hidden = pytest.mark.witness\nSTAR_W = pytest.mark.witness\n__all__ = ['star_merge']\n",
        ),
        ("tests/pkg/__init__.py", ""),
        (
            "tests/pkg/marks.py",
            "import pytest\nwitness = pytest.mark.witness(locked_on='2026-01-01')\n",
        ),
        (
            "tests/test_star.py",
            "import pkg.marks\nfrom starmarks import *\n\n@star_merge\ndef test_a():\n    \"\"\"owner: a\"\"\"\n    assert f() == 1\n\n@STAR_W\ndef test_b():\n    assert f() == 1\n\n@pkg.marks.witness\ndef test_c():\n    assert f() == 1\n",
        ),
    ]);
    let (_, doc) = scan(&suite);
    assert_eq!(test(&doc, "tests/test_star.py::test_a")["lane"], "merge");
    // Not in __all__: a star import does not bind it.
    assert_eq!(
        test(&doc, "tests/test_star.py::test_b")["lane"],
        Value::Null
    );
    let c = test(&doc, "tests/test_star.py::test_c");
    assert_eq!(c["lane"], "witness");
    assert_eq!(c["attachments"]["locked_on"], "2026-01-01");
}

#[test]
fn abstract_classes_are_not_collected() {
    let suite = Suite::with_ini(&[
        ("tests/test_ok.py", OK),
        (
            "tests/test_abc.py",
            "import abc\nimport pytest\n\n@pytest.mark.merge\nclass TestAbstract(abc.ABC):\n    @abc.abstractmethod\n    def helper(self): ...\n\n    def test_a(self):\n        \"\"\"owner: a\"\"\"\n        assert self.helper() == 1\n\nclass TestConcrete(TestAbstract):\n    def helper(self):\n        return 1\n",
        ),
    ]);
    let (_, doc) = scan(&suite);
    let ids = test_ids(&doc);
    assert_eq!(
        ids,
        [
            "tests/test_abc.py::TestConcrete::test_a",
            "tests/test_ok.py::test_ok"
        ]
    );
}

#[test]
fn imported_test_classes_and_functions_are_collected_where_imported() {
    let suite = Suite::with_ini(&[
        (
            "tests/shared.py",
            "import pytest\n\n@pytest.mark.merge\nclass TestShared:\n    def test_s(self):\n        \"\"\"owner: a\"\"\"\n        assert f() == 1\n\n@pytest.mark.witness(locked_on='2026-01-01')\ndef test_shared():\n    assert f() == 1\n\nclass Helper:\n    def test_h(self):\n        pass\n",
        ),
        (
            "tests/test_use.py",
            "from shared import TestShared, test_shared, Helper\n",
        ),
    ]);
    let (_, doc) = scan(&suite);
    let ids = test_ids(&doc);
    assert_eq!(
        ids,
        [
            "tests/test_use.py::TestShared::test_s",
            "tests/test_use.py::test_shared"
        ]
    );
    assert_eq!(
        test(&doc, "tests/test_use.py::TestShared::test_s")["lane"],
        "merge"
    );
    assert_eq!(
        test(&doc, "tests/test_use.py::test_shared")["lane"],
        "witness"
    );
}

/// Thousands of tests (many batches of the parallel writer), an input document with
/// sections before and after `scan` and a stale `scan` of its own: stdout is the canonical
/// document (serde_json's pretty form of itself, byte for byte), `--output` holds the same
/// bytes, the stale section is replaced, the others pass through, the tests come sorted by
/// id; `--format markdown` and `github` show the problems.
/// 60 modules of 100 merge tests in seven folders (path order differs from id order), a
/// helper module, and one unmarked test: 6,001 tests, about 2 MB of scan section.
fn large_suite() -> Suite {
    let mut files: Vec<(String, String)> = Vec::new();
    for f in 0..60 {
        let mut text = String::from("import pytest\n\npytestmark = pytest.mark.merge\n");
        for t in 0..100 {
            text.push_str(&format!(
                "\n\ndef test_{t}():\n    \"\"\"owner: team-{f}\"\"\"\n    assert {t} + 1 > {t}\n"
            ));
        }
        // Folders and names whose path order differs from their string order.
        files.push((format!("tests/p{}/test_{f}.py", f % 7), text));
    }
    files.push(("tests/p1.py".into(), "x = 1\n".into()));
    files.push((
        "tests/test_unmarked.py".into(),
        "def test_lonely():\n    assert 1 + 1 == 2\n".into(),
    ));
    let refs: Vec<(&str, &str)> = files
        .iter()
        .map(|(a, b)| (a.as_str(), b.as_str()))
        .collect();
    Suite::with_ini(&refs)
}

#[test]
fn large_scan_is_canonical_on_stdout_and_in_output_file() {
    let suite = large_suite();
    // In canonical form itself: passed-through sections keep their bytes as they came.
    let input = serde_json::json!({
        "version": 1, "aaa": {"x": [1, "\n"]}, "scan": {"stale": true}, "zzz": {}
    });
    suite.write(
        "in.json",
        serde_json::to_string_pretty(&input).unwrap().as_bytes(),
    );
    let out = run(
        suite.path(),
        &["--input", "in.json", "--output", "out.json", "tests"],
    );
    assert_eq!(
        out.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let written = fs::read(suite.path().join("out.json")).unwrap();
    assert_eq!(written, out.stdout);
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    let canonical = serde_json::to_string_pretty(&doc).unwrap() + "\n";
    assert!(
        canonical.as_bytes() == out.stdout.as_slice(),
        "stdout is not in canonical form"
    );
    assert_eq!(doc["aaa"]["x"][1], "\n");
    assert_eq!(doc["zzz"], serde_json::json!({}));
    assert!(doc["scan"].get("stale").is_none());
    let ids = test_ids(&doc);
    assert_eq!(ids.len(), 60 * 100 + 1);
    assert!(
        ids.windows(2).all(|w| w[0] < w[1]),
        "tests not sorted by id"
    );
    assert_eq!(doc["scan"]["counts"]["merge"], 6000);

    // DESIGN.md: non-JSON formats go to stdout instead of the document; --output still
    // gets the document.
    let markdown = run(
        suite.path(),
        &["--format", "markdown", "--output", "md.json", "tests"],
    );
    let in_file: Value =
        serde_json::from_slice(&fs::read(suite.path().join("md.json")).unwrap()).unwrap();
    assert_eq!(test_ids(&in_file), ids);
    let text = String::from_utf8(markdown.stdout).unwrap();
    assert!(text.contains("unmarked"), "{text}");
    assert!(
        text.contains("tests/test_unmarked.py::test_lonely"),
        "{text}"
    );
    let github = run(suite.path(), &["--format", "github", "tests"]);
    let text = String::from_utf8(github.stdout).unwrap();
    assert_eq!(text.lines().count(), 1, "{text}");
    assert!(
        text.starts_with("::error file=tests/test_unmarked.py,line=1"),
        "{text}"
    );
}

/// DESIGN.md: a broken pipe is not an error. The reader stops after a few bytes of a 2 MB
/// document: lane-scan still exits with the scan's own status (1: one unmarked test), and
/// says nothing on stderr.
#[test]
fn closed_stdout_pipe_is_not_an_error() {
    use std::io::Read;
    let suite = large_suite();
    let mut child = Command::new(env!("CARGO_BIN_EXE_lane-scan"))
        .current_dir(suite.path())
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdout = child.stdout.take().unwrap();
    let mut head = [0u8; 100];
    stdout.read_exact(&mut head).unwrap();
    assert!(head.starts_with(b"{\n  \"scan\": {"), "{head:?}");
    drop(stdout);
    let out = child.wait_with_output().unwrap();
    assert_eq!(
        out.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        out.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Pytest's xunit1 `file` of an inherited method is the base class's module; the
/// scan records it as `defined_in` (only when it differs from `file`).
#[test]
fn an_inherited_test_records_the_file_that_defines_it() {
    let suite = Suite::with_ini(&[
        ("tests/__init__.py", ""),
        (
            "tests/base_mod.py",
            "import pytest\nclass Base:\n    @pytest.mark.merge\n    def test_inh(self):\n        \"\"\"owner: a\"\"\"\n        assert 1 + 1 == 2\n",
        ),
        (
            "tests/test_child.py",
            "import pytest\nfrom tests.base_mod import Base\nclass TestChild(Base):\n    @pytest.mark.merge\n    def test_own(self):\n        \"\"\"owner: a\"\"\"\n        assert 1 + 1 == 2\n",
        ),
    ]);
    let out = run(suite.path(), &[]);
    let doc: DocMirror = serde_json::from_slice(&out.stdout).unwrap();
    let by_id = |id: &str| doc.scan.tests.iter().find(|t| t.id == id).unwrap();
    let inherited = by_id("tests/test_child.py::TestChild::test_inh");
    assert_eq!(inherited.file, "tests/test_child.py");
    assert_eq!(inherited.defined_in.as_deref(), Some("tests/base_mod.py"));
    let own = by_id("tests/test_child.py::TestChild::test_own");
    assert_eq!(own.defined_in, None);
    let raw: Value = serde_json::from_slice(&out.stdout).unwrap();
    let tests = raw["scan"]["tests"].as_array().unwrap();
    let own_raw = tests
        .iter()
        .find(|t| t["id"] == "tests/test_child.py::TestChild::test_own")
        .unwrap();
    assert!(
        own_raw.get("defined_in").is_none(),
        "additive: absent when it is `file`"
    );
}

/// Folders the scan cannot list stop it (exit 2), naming the one a sorted walk meets first
/// (the least path), whatever order the file system lists them in. As root the scan runs as
/// `nobody`, for whom the folders really are unreadable.
#[cfg(unix)]
#[test]
fn of_unlisted_folders_the_least_path_is_named() {
    use std::os::unix::fs::{MetadataExt, PermissionsExt};
    let locked = [
        "tests/a/m/locked",
        "tests/a/z/locked",
        "tests/b",
        "tests/c/locked",
        "tests/a.b",
        "tests/d/e/f",
    ];
    let mut files: Vec<(String, &str)> = locked
        .iter()
        .map(|dir| (format!("{dir}/test_x.py"), OK))
        .collect();
    files.push(("tests/a/test_ok.py".to_string(), OK));
    let refs: Vec<(&str, &str)> = files.iter().map(|(p, t)| (p.as_str(), *t)).collect();
    let suite = Suite::with_ini(&refs);
    let as_root = fs::metadata(suite.path()).unwrap().uid() == 0;
    let prefix: &[&str] = if as_root {
        &[
            "setpriv",
            "--reuid=65534",
            "--regid=65534",
            "--clear-groups",
        ]
    } else {
        &["env"]
    };
    let mode = |dir: &str, m: u32| {
        fs::set_permissions(suite.path().join(dir), fs::Permissions::from_mode(m)).unwrap();
    };
    // Listed in reverse (on many file systems the order of creation, or its reverse, is the
    // listing order).
    for dir in locked.iter().rev() {
        mode(dir, 0o000);
    }
    let out = Command::new(prefix[0])
        .args(&prefix[1..])
        .arg(env!("CARGO_BIN_EXE_lane-scan"))
        .current_dir(suite.path())
        .stdin(Stdio::null())
        .output()
        .unwrap();
    for dir in locked {
        mode(dir, 0o755);
    }
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(out.stdout.is_empty());
    assert!(
        stderr.contains("tests/a/m/locked: cannot list this folder of the test tree"),
        "{stderr}"
    );
}
