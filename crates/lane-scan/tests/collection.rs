//! Lane-scan collects what pytest collects: conftest `collect_ignore` and `collect_ignore_glob`,
//! test-class bases from installed packages, doctest text files, methods under `if` and `try` in a
//! class body, pytest-asyncio's marks. Runs the real binary on suites written to temporary folders;
//! the same constructs are checked against real pytest in tests/e2e/test_scan_oracle.py.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::{found, ids};
use serde_json::Value;

const INI: &str = common::LANES_INI;

const TEST: &str = "import pytest\n\n@pytest.mark.merge\ndef test_a():\n    assert 1\n";

/// Scans a suite made of `files` (plus a pytest.ini registering the lanes) with `args`.
/// Version conditions are decided for the python3 on PATH (any Python 3 is >= 3.8).
fn scan_args(name: &str, files: &[(&str, &str)], args: &[&str]) -> Value {
    common::doc(
        name,
        &common::run("collect-more", name, files, Some(INI), args),
    )
}

fn scan(name: &str, files: &[(&str, &str)]) -> Value {
    scan_args(name, files, &[])
}

/// The test files every collect_ignore case shares.
fn tree_with(conftest: &'static str) -> Vec<(&'static str, &'static str)> {
    vec![
        ("tests/conftest.py", conftest),
        ("tests/test_gone.py", TEST),
        ("tests/test_kept.py", TEST),
        ("tests/sub/test_old.py", TEST),
        ("tests/sub/test_new.py", TEST),
        ("tests/skipdir/test_a.py", TEST),
        ("tests/globbed/test_a_x.py", TEST),
        ("tests/globbed/test_b.py", TEST),
    ]
}

#[test]
fn collect_ignore_literal_lists_leave_files_and_folders_out() {
    let conftest = "import sys\ncollect_ignore = ['test_gone.py']\ncollect_ignore += ['skipdir']\n\
        if sys.version_info >= (3, 8):\n    collect_ignore.append('sub/test_old.py')\n\
        else:\n    collect_ignore.append('test_kept.py')\n\
        collect_ignore_glob = ['globbed/*_x.py']\n";
    let doc = scan("ignore-literal", &tree_with(conftest));
    assert_eq!(
        ids(&doc),
        [
            "tests/globbed/test_b.py::test_a",
            "tests/sub/test_new.py::test_a",
            "tests/test_kept.py::test_a"
        ],
        "{doc:#}"
    );
    assert!(
        found(&doc, "unresolved-collect-ignore").is_empty(),
        "{doc:#}"
    );
    // The scan's list of test files leaves them out too.
    let files: Vec<&str> = doc["scan"]["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f.as_str().unwrap())
        .collect();
    assert!(!files.contains(&"tests/test_gone.py"), "{files:?}");

    // Concatenations, .extend and a glob list built from the path list.
    let conftest = "collect_ignore = ['test_gone.py'] + ['skipdir']\ncollect_ignore.extend(('sub',))\n\
        collect_ignore_glob = collect_ignore + ['glob*/test_a_*']\n";
    let doc = scan("ignore-concat", &tree_with(conftest));
    assert_eq!(
        ids(&doc),
        [
            "tests/globbed/test_b.py::test_a",
            "tests/test_kept.py::test_a"
        ],
        "{doc:#}"
    );
}

#[test]
fn the_nearest_conftest_defining_the_list_decides() {
    // tests/sub/conftest.py defines its own collect_ignore: the outer list no longer applies
    // below it (pytest takes the nearest conftest that has the attribute).
    let mut files = tree_with("collect_ignore = ['test_gone.py', 'sub/test_new.py']\n");
    files.push((
        "tests/sub/conftest.py",
        "collect_ignore = ['test_old.py']\n",
    ));
    let doc = scan("ignore-nearest", &files);
    let got = ids(&doc);
    assert!(got.contains(&"tests/sub/test_new.py::test_a"), "{got:?}");
    assert!(!got.contains(&"tests/sub/test_old.py::test_a"), "{got:?}");
    assert!(!got.contains(&"tests/test_gone.py::test_a"), "{got:?}");
}

#[test]
fn a_path_given_as_an_argument_is_collected_even_if_listed() {
    let files = tree_with("collect_ignore = ['test_gone.py', 'skipdir']\n");
    let doc = scan_args(
        "ignore-args",
        &files,
        &["tests/test_gone.py", "tests/skipdir"],
    );
    assert_eq!(
        ids(&doc),
        [
            "tests/skipdir/test_a.py::test_a",
            "tests/test_gone.py::test_a"
        ],
        "{doc:#}"
    );
}

#[test]
fn computed_ignore_lists_are_errors_naming_the_line() {
    // (name, conftest, line, words)
    let cases: &[(&str, &str, u64, &str)] = &[
        (
            "call",
            "import glob\ncollect_ignore = glob.glob('x*')\n",
            2,
            "collect_ignore is set or changed by a value computed at run time (`glob.glob('x*')`)",
        ),
        (
            "comprehension",
            "collect_ignore_glob = [p for p in ['a']]\n",
            1,
            "collect_ignore_glob is set or changed by a value computed",
        ),
        (
            "import-may-fail",
            "collect_ignore = []\ntry:\n    import numpy\nexcept ImportError:\n    collect_ignore.append('test_np.py')\n",
            2,
            "`try:`",
        ),
        (
            "env-condition",
            "import os\ncollect_ignore = []\nif os.environ.get('CI'):\n    collect_ignore.append('test_gone.py')\n",
            4,
            "is changed under a condition lane-scan cannot decide",
        ),
        (
            "in-a-function",
            "collect_ignore = []\ndef pytest_configure(config):\n    collect_ignore.append('test_gone.py')\n",
            2,
            "`def pytest_configure(config):`",
        ),
        (
            "append-variable",
            "name = 'test_gone.py'\ncollect_ignore = []\ncollect_ignore.append(name)\n",
            3,
            "collect_ignore.append(name)",
        ),
    ];
    for (name, conftest, line, words) in cases {
        let doc = scan(
            name,
            &[
                ("tests/conftest.py", conftest),
                ("tests/test_kept.py", TEST),
            ],
        );
        let got = found(&doc, "unresolved-collect-ignore");
        assert_eq!(got.len(), 1, "{name}: {doc:#}");
        let (file, at, message) = &got[0];
        assert_eq!(
            (file.as_str(), *at),
            ("tests/conftest.py", *line),
            "{name}: {message}"
        );
        assert!(message.contains(words), "{name}: {message}");
        assert!(message.contains("under tests/"), "{name}: {message}");
    }
    // Plain code that does not touch the lists is not flagged.
    let doc = scan(
        "untouched",
        &[
            (
                "tests/conftest.py",
                "import os\nCOLLECT = os.environ.get('X')\n# collect_ignore\n",
            ),
            ("tests/test_kept.py", TEST),
        ],
    );
    assert!(
        found(&doc, "unresolved-collect-ignore").is_empty(),
        "{doc:#}"
    );
}

/// A venv made by the real `venv` module (no pip), with `files` written into its
/// site-packages; returns its interpreter.
fn venv_with(dir: &std::path::Path, files: &[(&str, &str)]) -> std::path::PathBuf {
    let python = std::env::var("LANES_PYTHON").unwrap_or_else(|_| "python3".to_string());
    let venv = dir.join("venv");
    let made = std::process::Command::new(&python)
        .args(["-m", "venv", "--without-pip"])
        .arg(&venv)
        .status()
        .unwrap();
    assert!(made.success(), "{python} -m venv failed");
    let lib = venv.join("lib");
    let py = std::fs::read_dir(&lib)
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| {
            p.file_name()
                .unwrap()
                .to_string_lossy()
                .starts_with("python")
        })
        .unwrap();
    for (path, text) in files {
        let p = py.join("site-packages").join(path);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    }
    venv.join("bin").join("python")
}

const LIBRARY: &[(&str, &str)] = &[
    (
        "libbase/__init__.py",
        "from .cases import AppTestCase as AppTestCase\nfrom . import cases\n",
    ),
    (
        "libbase/cases.py",
        "import unittest\nfrom unittest import TestCase as _TC\n\n\
         class _Mixin:\n    def helper(self):\n        return 1\n\n\
         class AppTestCase(_Mixin, _TC):\n    def setUp(self):\n        pass\n\n\
         class NotCollected:\n    __test__ = False\n\n\
         class WithInit:\n    def __init__(self):\n        pass\n\n\
         class HasTests(unittest.TestCase):\n    def test_from_library(self):\n        pass\n\n\
         class Plain:\n    pass\n",
    ),
];

const USES_LIBRARY: &str = "import pytest\nimport libbase\nfrom libbase import AppTestCase\n\
from libbase.cases import NotCollected, WithInit, HasTests, Plain\n\n\
@pytest.mark.merge\nclass Derived(AppTestCase):\n    def test_a(self):\n        assert 1\n\n\
class AlsoDerived(libbase.cases.AppTestCase):\n    pytestmark = pytest.mark.merge\n\n    def test_b(self):\n        assert 1\n\n\
class TestOff(NotCollected):\n    def test_c(self):\n        assert 1\n\n\
class TestInit(WithInit):\n    def test_d(self):\n        assert 1\n\n\
@pytest.mark.merge\nclass TestPlain(Plain):\n    def test_e(self):\n        assert 1\n";

#[test]
fn bases_from_installed_packages_are_read_from_site_packages() {
    let dir = lane_testkit::Scratch::new("collect-more-installed");
    let python = venv_with(dir.path(), LIBRARY);
    let suite = dir.path().join("suite");
    std::fs::create_dir_all(suite.join("tests")).unwrap();
    std::fs::write(suite.join("pytest.ini"), INI).unwrap();
    std::fs::write(suite.join("tests/test_inst.py"), USES_LIBRARY).unwrap();
    let run = |args: &[&str]| -> Value {
        let run = lane_testkit::Cmd::new(env!("CARGO_BIN_EXE_lane-scan"))
            .dir(&suite)
            .args(args)
            .run();
        assert!(run.code < 2, "exit {}: {}", run.code, run.stderr);
        serde_json::from_str(&run.stdout).unwrap()
    };
    let doc = run(&["--python", python.to_str().unwrap()]);
    // unittest classes through a re-export and a private alias of TestCase; __test__ = False
    // and __init__ inherited from installed classes; a plain installed base.
    assert_eq!(
        ids(&doc),
        [
            "tests/test_inst.py::AlsoDerived::test_b",
            "tests/test_inst.py::Derived::test_a",
            "tests/test_inst.py::TestPlain::test_e"
        ],
        "{doc:#}"
    );
    assert!(found(&doc, "unresolved-test-base").is_empty(), "{doc:#}");

    // An installed base that holds tests of its own is not collected from: still an error.
    std::fs::write(
        suite.join("tests/test_more.py"),
        "from libbase.cases import HasTests\nfrom libbase.missing import Gone\n\n\
         class TestHas(HasTests):\n    def test_f(self):\n        assert 1\n\n\
         class TestGone(Gone):\n    def test_g(self):\n        assert 1\n",
    )
    .unwrap();
    let doc = run(&["--python", python.to_str().unwrap()]);
    let got = found(&doc, "unresolved-test-base");
    let lines: Vec<u64> = got.iter().map(|(_, l, _)| *l).collect();
    assert_eq!(lines, [4, 8], "{got:?}");
}

const DOCTEST: &str = "Prose.\n\n    >>> 1 + 1\n    2\n";

#[test]
fn doctest_text_files_are_tests_without_a_lane() {
    let files = [
        ("tests/test_guide.txt", DOCTEST),
        ("tests/test_prose.txt", "No example here.\n"),
        ("tests/guide.txt", DOCTEST),
        ("tests/guide.rst", DOCTEST),
        ("tests/test_m.py", TEST),
    ];
    let doc = scan("doctest-default", &files);
    assert_eq!(
        ids(&doc),
        [
            "tests/test_guide.txt::test_guide.txt",
            "tests/test_m.py::test_a"
        ],
        "{doc:#}"
    );
    let unmarked = found(&doc, "unmarked");
    assert_eq!(unmarked.len(), 1, "{doc:#}");
    assert_eq!(
        (unmarked[0].0.as_str(), unmarked[0].1),
        ("tests/test_guide.txt", 3)
    );
    assert!(
        unmarked[0]
            .2
            .contains("doctest tests/test_guide.txt::test_guide.txt has no lane")
    );
    assert_eq!(doc["scan"]["counts"]["unmarked"], 1, "{doc:#}");

    // --doctest-glob replaces the default; with --doctest-modules the modules' docstrings are
    // read (tests/doctest_modules.rs), and a module without examples gives no item.
    let ini = format!("{INI}addopts = --doctest-glob=*.rst --doctest-glob guide.*\n");
    let mut with_ini = files.to_vec();
    with_ini.push(("pytest.ini", &ini));
    let doc = scan("doctest-glob", &with_ini);
    assert_eq!(
        ids(&doc),
        [
            "tests/guide.rst::guide.rst",
            "tests/guide.txt::guide.txt",
            "tests/test_m.py::test_a"
        ],
        "{doc:#}"
    );
    assert!(found(&doc, "unseen-doctests").is_empty(), "{doc:#}");
    let ini = format!("{INI}addopts = --doctest-modules\n");
    let mut with_ini = files.to_vec();
    with_ini.push(("pytest.ini", &ini));
    let doc = scan("doctest-modules", &with_ini);
    assert!(found(&doc, "unseen-doctests").is_empty(), "{doc:#}");
    assert_eq!(
        ids(&doc),
        [
            "tests/test_guide.txt::test_guide.txt",
            "tests/test_m.py::test_a"
        ],
        "{doc:#}"
    );
}

/// Methods defined under `if` / `try` in a class body are the class's (pyasn1, simplejson).
#[test]
fn methods_under_if_and_try_in_a_class_body_are_collected() {
    let body = "import sys\nimport unittest\nimport pytest\n\n@pytest.mark.merge\nclass TestV(unittest.TestCase):\n\
        \x20   if sys.version_info[0] > 2:\n        def test_new(self):\n            assert 1\n\
        \x20   else:\n        def test_old(self):\n            assert 1\n\
        \x20   try:\n        import json\n    except ImportError:\n        pass\n    else:\n        def test_json(self):\n            assert json\n";
    let doc = scan("class-if", &[("tests/test_m.py", body)]);
    let got = ids(&doc);
    // The class-level `if` is decided for the target interpreter: the
    // branch not taken defines nothing.
    for want in [
        "tests/test_m.py::TestV::test_json",
        "tests/test_m.py::TestV::test_new",
    ] {
        assert!(got.contains(&want), "{want} missing: {doc:#}");
    }
    assert!(
        !got.contains(&"tests/test_m.py::TestV::test_old"),
        "{doc:#}"
    );
    assert!(found(&doc, "undecided-test-branch").is_empty(), "{doc:#}");
}

const ASYNC_TESTS: &str = "import unittest\nimport pytest\n\n\
@pytest.mark.merge\nasync def test_coro():\n    assert 1\n\n\
@pytest.mark.merge\ndef test_sync():\n    assert 1\n\n\
@pytest.mark.merge\nclass TestC:\n    async def test_method(self):\n        assert 1\n\n\
@pytest.mark.merge\nclass TestU(unittest.IsolatedAsyncioTestCase):\n    async def test_unit(self):\n        assert 1\n";

/// The marks of each test, by id.
fn marks_by_id(doc: &Value) -> Vec<(String, Vec<String>)> {
    doc["scan"]["tests"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| {
            let marks = t["marks"].as_array().unwrap();
            (
                t["id"].as_str().unwrap().to_string(),
                marks
                    .iter()
                    .map(|m| m.as_str().unwrap().to_string())
                    .collect(),
            )
        })
        .collect()
}

/// Scans `tests/test_async.py` with `config` (a file name and its text) and `python`.
fn scan_async(
    dir: &std::path::Path,
    config: (&str, &str),
    python: &std::path::Path,
) -> (i32, Value, String) {
    let suite = dir.join("suite");
    let _ = std::fs::remove_dir_all(&suite);
    std::fs::create_dir_all(suite.join("tests")).unwrap();
    std::fs::write(suite.join(config.0), config.1).unwrap();
    std::fs::write(suite.join("tests/test_async.py"), ASYNC_TESTS).unwrap();
    let run = lane_testkit::Cmd::new(env!("CARGO_BIN_EXE_lane-scan"))
        .dir(&suite)
        .args(["--python", python.to_str().unwrap()])
        .run();
    let doc = serde_json::from_str(&run.stdout).unwrap_or(Value::Null);
    (run.code, doc, run.stderr)
}

fn asyncio_marked(doc: &Value) -> Vec<String> {
    marks_by_id(doc)
        .into_iter()
        .filter(|(_, m)| m.iter().any(|m| m == "asyncio"))
        .map(|(id, _)| id)
        .collect()
}

#[test]
fn pytest_asyncio_auto_mode_marks_async_tests() {
    let dir = lane_testkit::Scratch::new("collect-more-asyncio");
    let with = venv_with(dir.path(), &[("pytest_asyncio/__init__.py", "")]);
    let ini_auto = format!("{INI}asyncio_mode = auto\n");
    // Auto mode, plugin installed: async pytest functions and methods, not unittest's.
    let (code, doc, err) = scan_async(dir.path(), ("pytest.ini", &ini_auto), &with);
    assert!(code < 2, "{err}");
    assert_eq!(
        asyncio_marked(&doc),
        [
            "tests/test_async.py::TestC::test_method",
            "tests/test_async.py::test_coro"
        ],
        "{doc:#}"
    );
    // The ids do not change.
    assert_eq!(ids(&doc).len(), 4, "{doc:#}");
    // Strict mode (the default), or the plugin turned off: no mark is added.
    let (_, doc, _) = scan_async(dir.path(), ("pytest.ini", INI), &with);
    assert!(asyncio_marked(&doc).is_empty(), "{doc:#}");
    let strict = format!("{INI}asyncio_mode = strict\n");
    let (_, doc, _) = scan_async(dir.path(), ("pytest.ini", &strict), &with);
    assert!(asyncio_marked(&doc).is_empty(), "{doc:#}");
    let off = format!("{INI}asyncio_mode = auto\naddopts = -p no:asyncio\n");
    let (_, doc, _) = scan_async(dir.path(), ("pytest.ini", &off), &with);
    assert!(asyncio_marked(&doc).is_empty(), "{doc:#}");
    // addopts' --asyncio-mode overrides the ini value (pyproject.toml here).
    let toml = "[tool.pytest.ini_options]\nmarkers = [\"merge: votes\"]\n\
                asyncio_mode = \"strict\"\naddopts = \"--asyncio-mode=auto\"\n";
    let (_, doc, _) = scan_async(dir.path(), ("pyproject.toml", toml), &with);
    assert_eq!(asyncio_marked(&doc).len(), 2, "{doc:#}");
    // A mode pytest-asyncio refuses is a usage error naming the config line.
    let bad = format!("{INI}asyncio_mode = sometimes\n");
    let (code, _, err) = scan_async(dir.path(), ("pytest.ini", &bad), &with);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("pytest.ini:6") && err.contains("\"sometimes\""),
        "{err}"
    );
}

#[test]
fn asyncio_mode_without_the_plugin_adds_nothing() {
    let dir = lane_testkit::Scratch::new("collect-more-asyncio-absent");
    let without = venv_with(dir.path(), &[]);
    let ini_auto = format!("{INI}asyncio_mode = auto\n");
    let (code, doc, err) = scan_async(dir.path(), ("pytest.ini", &ini_auto), &without);
    assert!(code < 2, "{err}");
    assert!(asyncio_marked(&doc).is_empty(), "{doc:#}");
    // required_plugins names it: pytest refuses to run without it, so it is loaded.
    let required = format!("{INI}asyncio_mode = auto\nrequired_plugins = pytest-asyncio>=1\n");
    let (_, doc, _) = scan_async(dir.path(), ("pytest.ini", &required), &without);
    assert_eq!(asyncio_marked(&doc).len(), 2, "{doc:#}");
}
