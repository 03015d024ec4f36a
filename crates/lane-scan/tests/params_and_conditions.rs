//! Parameter sets and conditions: what pytest collects that a plain reading of the test module
//! misses: marks of a parametrized fixture's params, empty and computed parameter sets, aliases of
//! pytest bound through an import call, class-body conditions decided for the target interpreter.
//! Runs the real binary on suites written to temporary folders; tests/suites/fixture_params checks
//! the same against real pytest (tests/e2e/test_scan_oracle.py).
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::{ids, problems};
use serde_json::Value;

const INI: &str = "[pytest]\nmarkers =\n    merge: votes\n    witness: corroborates\n    freeze: never votes\n    slow: slow\n    network: network\n";

fn scan(name: &str, files: &[(&str, &str)]) -> Value {
    common::doc(name, &common::run("fidelity", name, files, Some(INI), &[]))
}

/// A scan of `files` whose pytest.ini is [`INI`] with `empty_parameter_set_mark = MARK`.
fn with_empty_set_mark(name: &str, mark: &str, files: &[(&str, &str)]) -> Value {
    let ini = format!("{INI}empty_parameter_set_mark = {mark}\n");
    let mut all = files.to_vec();
    all.push(("pytest.ini", &ini));
    scan(&format!("{name}-{mark}"), &all)
}

/// The scan's record of the test `id` (a failure when it is not listed).
fn record<'d>(doc: &'d Value, id: &str) -> &'d Value {
    doc["scan"]["tests"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["id"] == id)
        .unwrap_or_else(|| panic!("{id} not listed: {doc:#}"))
}

/// The test's marks and whether it is parametrized.
fn test<'d>(doc: &'d Value, id: &str) -> (Vec<&'d str>, bool) {
    let t = record(doc, id);
    let marks = t["marks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m.as_str().unwrap())
        .collect();
    (marks, t["parametrized"].as_bool().unwrap())
}

const CONFTEST: &str = "import pytest\n\n\
SETS = [1, pytest.param(2, marks=pytest.mark.slow)]\n\n\
@pytest.fixture(params=SETS)\ndef backend(request):\n    return request.param\n\n\
@pytest.fixture\ndef store(backend):\n    return backend\n\n\
@pytest.fixture(params=[pytest.param(0, marks=[pytest.mark.network])], autouse=False)\n\
def remote(request):\n    return request.param\n";

#[test]
fn fixture_param_marks_reach_every_test_using_the_fixture() {
    let module = "import pytest\n\n\
@pytest.mark.merge\ndef test_direct(backend):\n    assert backend\n\n\
@pytest.mark.merge\ndef test_through(store):\n    assert store\n\n\
@pytest.mark.merge\n@pytest.mark.usefixtures('remote')\ndef test_use():\n    assert 1\n\n\
@pytest.mark.merge\n@pytest.mark.parametrize('backend', [5])\ndef test_overridden(backend):\n    assert backend\n\n\
@pytest.mark.merge\ndef test_none():\n    assert 1\n\n\
@pytest.mark.merge\nclass TestK:\n    def test_m(self, store):\n        assert store\n";
    let sub = "import pytest\n\n\
@pytest.fixture(autouse=True, params=['a', pytest.param('b', marks=pytest.mark.network)])\n\
def everywhere(request):\n    return request.param\n";
    let doc = scan(
        "fixture-params",
        &[
            ("tests/conftest.py", CONFTEST),
            ("tests/test_a.py", module),
            ("tests/deep/conftest.py", sub),
            (
                "tests/deep/test_b.py",
                "import pytest\n\n@pytest.mark.merge\ndef test_auto():\n    assert 1\n",
            ),
        ],
    );
    let has = |id: &str, mark: &str| test(&doc, id).0.contains(&mark);
    assert!(has("tests/test_a.py::test_direct", "slow"), "{doc:#}");
    assert!(has("tests/test_a.py::test_through", "slow"));
    assert!(has("tests/test_a.py::TestK::test_m", "slow"));
    assert!(has("tests/test_a.py::test_use", "network"));
    assert!(!has("tests/test_a.py::test_overridden", "slow"));
    assert!(!has("tests/test_a.py::test_none", "slow"));
    assert!(!test(&doc, "tests/test_a.py::test_none").1);
    assert!(test(&doc, "tests/test_a.py::test_through").1);
    // The autouse fixture of tests/deep/conftest.py reaches its folder only.
    assert!(has("tests/deep/test_b.py::test_auto", "network"));
    assert!(!has("tests/test_a.py::test_none", "network"));
    assert!(problems(&doc, "unresolved-marker").is_empty(), "{doc:#}");
}

#[test]
fn unreadable_fixture_params_are_an_error_naming_the_fixture() {
    let conftest = "import pytest\n\ndef cases():\n    return [pytest.param(1, marks=pytest.mark.slow)]\n\n\
@pytest.fixture(params=cases())\ndef made(request):\n    return request.param\n";
    let doc = scan(
        "fixture-params-unread",
        &[
            ("tests/conftest.py", conftest),
            (
                "tests/test_a.py",
                "import pytest\n\n@pytest.mark.merge\ndef test_x(made):\n    assert made\n\n@pytest.mark.merge\ndef test_y():\n    assert 1\n",
            ),
        ],
    );
    let found = problems(&doc, "unresolved-marker");
    assert_eq!(found.len(), 1, "{doc:#}");
    let p = found[0];
    assert_eq!(p["file"], "tests/conftest.py");
    assert_eq!(p["line"], 7);
    assert_eq!(p["test"], "tests/test_a.py::test_x");
    assert!(
        p["message"].as_str().unwrap().contains("fixture made"),
        "{p}"
    );
}

#[test]
fn anyio_marked_async_tests_use_the_anyio_backend_fixture() {
    let conftest = "import pytest\n\n\
@pytest.fixture(params=['asyncio', pytest.param('trio', marks=pytest.mark.slow)])\n\
def anyio_backend(request):\n    return request.param\n";
    let module = "import pytest\n\npytestmark = [pytest.mark.anyio, pytest.mark.merge]\n\n\
async def test_async():\n    assert 1\n\ndef test_sync():\n    assert 1\n";
    let doc = scan(
        "anyio",
        &[("tests/conftest.py", conftest), ("tests/test_a.py", module)],
    );
    let (marks, parametrized) = test(&doc, "tests/test_a.py::test_async");
    assert!(marks.contains(&"slow") && parametrized, "{doc:#}");
    let (marks, parametrized) = test(&doc, "tests/test_a.py::test_sync");
    assert!(!marks.contains(&"slow") && !parametrized, "{doc:#}");
}

#[test]
fn pytest_bound_through_an_import_call_keeps_its_marks() {
    let support = "import importlib\n\ndef import_or_skip(name):\n    try:\n        return importlib.import_module(name)\n    except ImportError:\n        raise RuntimeError(name)\n";
    let a = "import pytest\npytest = pytest.importorskip('pytest')\n\n@pytest.mark.merge\n@pytest.mark.slow\ndef test_a():\n    assert 1\n";
    let b = "from tests._support import import_or_skip\npt = import_or_skip('pytest')\n\n@pt.mark.merge\n@pt.mark.slow\ndef test_b():\n    assert 1\n";
    let c = "import os\nx = os.environ.get('X')\n\n@x.mark.merge\ndef test_c():\n    assert 1\n";
    let doc = scan(
        "importorskip",
        &[
            ("tests/__init__.py", ""),
            ("tests/_support.py", support),
            ("tests/test_a.py", a),
            ("tests/test_b.py", b),
            ("tests/test_c.py", c),
        ],
    );
    for id in ["tests/test_a.py::test_a", "tests/test_b.py::test_b"] {
        let (marks, _) = test(&doc, id);
        assert_eq!(marks, ["merge", "slow"], "{id}: {doc:#}");
    }
    // A mark through a name lane-scan cannot resolve is reported, never read as no mark.
    let unresolved = problems(&doc, "unresolved-marker");
    assert!(
        unresolved
            .iter()
            .any(|p| p["file"] == "tests/test_c.py" && p["line"] == 4),
        "{doc:#}"
    );
}

#[test]
fn class_body_conditions_are_decided_or_reported() {
    let module = "import os\nimport sys\nimport pytest\n\n@pytest.mark.merge\nclass TestV:\n\
\x20   if sys.version_info < (3, 0):\n        def test_py2(self):\n            assert 1\n\
\x20   elif sys.platform == 'no-such-platform':\n        def test_other(self):\n            assert 1\n\
\x20   else:\n        def test_here(self):\n            assert 1\n\
\x20   if os.environ.get('FAST'):\n        def test_env(self):\n            assert 1\n\
\x20       def helper(self):\n            pass\n";
    let doc = scan("class-if", &[("tests/test_v.py", module)]);
    let ids = ids(&doc);
    assert!(
        ids.contains(&"tests/test_v.py::TestV::test_here"),
        "{doc:#}"
    );
    assert!(
        !ids.contains(&"tests/test_v.py::TestV::test_py2"),
        "{doc:#}"
    );
    assert!(
        !ids.contains(&"tests/test_v.py::TestV::test_other"),
        "{doc:#}"
    );
    // Undecidable: kept, and reported at the method's line (not for the helper).
    assert!(ids.contains(&"tests/test_v.py::TestV::test_env"), "{doc:#}");
    let undecided = problems(&doc, "undecided-test-branch");
    assert_eq!(undecided.len(), 1, "{doc:#}");
    assert_eq!(undecided[0]["file"], "tests/test_v.py");
    assert_eq!(undecided[0]["line"], 17);
    assert_eq!(undecided[0]["severity"], "error");
}

#[test]
fn module_level_conditions_are_decided_or_reported() {
    let module = "import os\nimport sys\nimport pytest\n\n\
if sys.version_info < (3, 0):\n    @pytest.mark.merge\n    def test_py2():\n        assert 1\n\
elif os.name == 'no-such-os':\n    @pytest.mark.merge\n    class TestOther:\n        def test_o(self):\n            assert 1\n\
else:\n    @pytest.mark.merge\n    def test_here():\n        assert 1\n\n\
@pytest.mark.merge\ndef test_one():\n    assert 1\n\n\
if sys.platform == 'no-such-platform':\n    def test_one():\n        assert 1\n\n\
if os.environ.get('FAST'):\n    @pytest.mark.merge\n    def test_env():\n        assert 1\n\n\
\x20   @pytest.mark.merge\n    class TestEnv:\n        def test_e(self):\n            assert 1\n\n\
\x20   def helper():\n        pass\n";
    let doc = scan("module-if", &[("tests/test_m.py", module)]);
    let ids = ids(&doc);
    assert_eq!(
        ids,
        [
            "tests/test_m.py::TestEnv::test_e",
            "tests/test_m.py::test_env",
            "tests/test_m.py::test_here",
            "tests/test_m.py::test_one",
        ],
        "{doc:#}"
    );
    // The branch not taken does not replace the earlier definition: its lane mark stays.
    let (marks, _) = test(&doc, "tests/test_m.py::test_one");
    assert_eq!(marks, ["merge"], "{doc:#}");
    // Undecidable: kept, and reported at each test's line (not for the helper).
    let undecided = problems(&doc, "undecided-test-branch");
    let lines: Vec<u64> = undecided
        .iter()
        .map(|p| p["line"].as_u64().unwrap())
        .collect();
    assert_eq!(lines, [29, 32], "{doc:#}");
    assert!(undecided.iter().all(|p| p["file"] == "tests/test_m.py"));
}

/// The interpreter's own names are decided for the target the scan asks (this machine's
/// python3, CPython): `sys.builtin_module_names` as it reports them, and the implementation's
/// name, compared or looked up in a tuple, written in the module or through a name.
#[test]
fn builtin_modules_and_the_implementation_are_decided() {
    let module = "import sys\nimport pytest\n\n\
IS_PYPY = '__pypy__' in sys.builtin_module_names\n\n\
if '__pypy__' not in sys.builtin_module_names:\n    @pytest.mark.merge\n    def test_not_pypy():\n        assert 1\n\n\
if '__pypy__' in sys.builtin_module_names:\n    @pytest.mark.merge\n    def test_pypy():\n        assert 1\n\n\
if 'sys' in sys.builtin_module_names:\n    @pytest.mark.merge\n    def test_sys_built_in():\n        assert 1\n\n\
if sys.implementation.name in ('pypy', 'graalpy'):\n    @pytest.mark.merge\n    def test_other_implementation():\n        assert 1\n\n\
if not IS_PYPY:\n    @pytest.mark.merge\n    def test_named():\n        assert 1\n\n\
if 'x' in sys.modules:\n    @pytest.mark.merge\n    def test_modules():\n        assert 1\n";
    let doc = scan("builtins-if", &[("tests/test_b.py", module)]);
    let ids = ids(&doc);
    assert_eq!(
        ids,
        [
            "tests/test_b.py::test_modules",
            "tests/test_b.py::test_named",
            "tests/test_b.py::test_not_pypy",
            "tests/test_b.py::test_sys_built_in",
        ],
        "{doc:#}"
    );
    // Only what the scan cannot know stays undecided.
    let undecided = problems(&doc, "undecided-test-branch");
    let lines: Vec<u64> = undecided
        .iter()
        .map(|p| p["line"].as_u64().unwrap())
        .collect();
    assert_eq!(lines, [33], "{doc:#}");
}

/// A name a condition reads is followed to the module it comes from and
/// decided there when its value is built from what the scan decides; anything else stays
/// `undecided-test-branch` at the test's line.
#[test]
fn names_in_conditions_are_followed_or_reported() {
    let compat = "import os\nimport sys\n\n\
PY3 = sys.version_info[0] == 3\n\
NOT_PY3 = not PY3\n\
if os.environ.get('X'):\n    SAME = True\nelse:\n    SAME = True\n\
if os.environ.get('X'):\n    DIFFERS = True\nelse:\n    DIFFERS = False\n\
try:\n    import json\n    HAS_JSON = True\nexcept ImportError:\n    HAS_JSON = False\n\
CALLED = bool(os.environ.get('Y'))\n\
for _ in range(2):\n    LOOPED = True\n";
    let module = "import pytest\nfrom helpers import compat as c\n\
from helpers.compat import DIFFERS, HAS_JSON, NOT_PY3, SAME\n\n\
if c.PY3 and SAME:\n    @pytest.mark.merge\n    def test_followed():\n        assert 1\n\n\
if NOT_PY3:\n    @pytest.mark.merge\n    def test_not_taken():\n        assert 1\n\n\
if DIFFERS:\n    @pytest.mark.merge\n    def test_differs():\n        assert 1\n\n\
if HAS_JSON:\n    @pytest.mark.merge\n    def test_try():\n        assert 1\n\n\
if c.CALLED or c.LOOPED:\n    @pytest.mark.merge\n    def test_called():\n        assert 1\n\n\
if LATER:\n    @pytest.mark.merge\n    def test_later():\n        assert 1\n\n\
LATER = True\n\n\
@pytest.mark.merge\nclass TestShadow:\n    PY3 = False\n\
\x20   if c.PY3:\n        def test_attr(self):\n            assert 1\n\
\x20   if PY3:\n        def test_shadowed(self):\n            assert 1\n";
    let doc = scan(
        "names",
        &[
            ("tests/helpers/__init__.py", ""),
            ("tests/helpers/compat.py", compat),
            ("tests/test_n.py", module),
        ],
    );
    let ids = ids(&doc);
    assert_eq!(
        ids,
        [
            "tests/test_n.py::TestShadow::test_attr",
            "tests/test_n.py::TestShadow::test_shadowed",
            "tests/test_n.py::test_called",
            "tests/test_n.py::test_differs",
            "tests/test_n.py::test_followed",
            "tests/test_n.py::test_later",
            "tests/test_n.py::test_try",
        ],
        "{doc:#}"
    );
    let undecided = problems(&doc, "undecided-test-branch");
    let lines: Vec<u64> = undecided
        .iter()
        .map(|p| p["line"].as_u64().unwrap())
        .collect();
    // test_differs, test_try, test_called, test_later (read above its binding), and the class
    // body's `PY3`, which is the class's own name, not the module's.
    assert_eq!(lines, [17, 22, 27, 32, 44], "{doc:#}");
}

/// A conftest's ignore list changed under a condition on an imported name.
#[test]
fn collect_ignore_conditions_follow_imported_names() {
    let conftest = "from helpers.compat import PY3, UNKNOWN\n\
collect_ignore = []\n\
if PY3:\n    collect_ignore.append('test_py2.py')\n\
if UNKNOWN:\n    collect_ignore.append('test_maybe.py')\n";
    let compat =
        "import os\nimport sys\nPY3 = sys.version_info >= (3,)\nUNKNOWN = os.environ.get('Z')\n";
    let test = "import pytest\n\n@pytest.mark.merge\ndef test_a():\n    assert 1\n";
    let doc = scan(
        "names-ignore",
        &[
            ("tests/conftest.py", conftest),
            ("tests/helpers/__init__.py", ""),
            ("tests/helpers/compat.py", compat),
            ("tests/test_py2.py", test),
            ("tests/test_maybe.py", test),
            ("tests/test_kept.py", test),
        ],
    );
    let ids = ids(&doc);
    assert!(!ids.contains(&"tests/test_py2.py::test_a"), "{doc:#}");
    assert!(ids.contains(&"tests/test_kept.py::test_a"), "{doc:#}");
    let unsure = problems(&doc, "unresolved-collect-ignore");
    assert_eq!(unsure.len(), 1, "{doc:#}");
    assert_eq!(unsure[0]["file"], "tests/conftest.py");
    assert_eq!(unsure[0]["line"], 6);
}

/// A parametrize over a literal empty list gets the mark of
/// `empty_parameter_set_mark` (xfail here), or fails the module's collection.
#[test]
fn empty_parameter_sets_follow_the_ini_key() {
    let module = "import pytest\n\n@pytest.mark.merge\n@pytest.mark.parametrize('a', [])\n\
def test_empty(a):\n    assert a\n\n@pytest.mark.merge\n@pytest.mark.parametrize('a', CASES)\n\
def test_computed(a):\n    assert a\n\nCASES = []\n";
    for (mark, want) in [("xfail", Some("xfail")), ("fail_at_collect", None)] {
        let doc = with_empty_set_mark("empty", mark, &[("tests/test_e.py", module)]);
        let (marks, parametrized) = test(&doc, "tests/test_e.py::test_empty");
        assert!(parametrized);
        assert_eq!(marks.contains(&"xfail"), want.is_some(), "{mark}: {doc:#}");
        assert!(!marks.contains(&"skip"), "{mark}: {doc:#}");
        // A name is not read (often filled later): no mark, no problem of its own.
        let (computed, _) = test(&doc, "tests/test_e.py::test_computed");
        assert_eq!(computed, ["merge", "parametrize"], "{mark}: {doc:#}");
        let failing = problems(&doc, "empty-parameter-set");
        if want.is_some() {
            assert!(failing.is_empty(), "{doc:#}");
            assert_eq!(problems(&doc, "xfail-in-voting-lane").len(), 1, "{doc:#}");
        } else {
            assert_eq!(failing.len(), 1, "{doc:#}");
            assert_eq!(failing[0]["line"], 4);
            assert_eq!(failing[0]["severity"], "error");
        }
    }
}

/// The `empty_params` record of a test (null when absent).
fn empty_params<'d>(doc: &'d Value, id: &str) -> &'d Value {
    &record(doc, id)["empty_params"]
}

/// Parameter sets computed at run time (a call, a name bound to `[]`, a
/// fixture's computed `params=`) are recorded with their places and the mark an empty one would
/// get; sets that cannot be empty (literals, a name bound to a non-empty list) are not; a
/// fixture whose `params=` is written empty is modelled like an empty parametrize.
#[test]
fn computed_parameter_sets_are_recorded_with_the_empty_set_mark() {
    let conftest = "import pytest\n\n@pytest.fixture(params=[])\ndef none(request):\n    \
return request.param\n\n@pytest.fixture(params=range(N))\ndef counted(request):\n    \
return request.param\n\n@pytest.fixture(params=[1, 2])\ndef two(request):\n    \
return request.param\n\nN = 0\n";
    let module = "import pytest\n\nCASES = []\nFULL = [1]\n\n@pytest.mark.merge\n\
@pytest.mark.parametrize('a', load())\ndef test_call(a):\n    assert a\n\n@pytest.mark.merge\n\
@pytest.mark.parametrize('a', CASES)\ndef test_empty_name(a):\n    assert a\n\n\
@pytest.mark.merge\n@pytest.mark.parametrize('a', FULL + CASES)\ndef test_full(a):\n    assert a\n\n\
@pytest.mark.merge\n@pytest.mark.parametrize('a', [1, 2])\ndef test_literal(a):\n    assert a\n\n\
@pytest.mark.merge\ndef test_counted(counted, two):\n    assert counted\n\n\
@pytest.mark.merge\ndef test_none(none):\n    assert none\n\ndef load():\n    return []\n";
    for mark in ["skip", "xfail", "fail_at_collect"] {
        let files = [("tests/conftest.py", conftest), ("tests/test_c.py", module)];
        let doc = with_empty_set_mark("computed", mark, &files);
        let m = "tests/test_c.py::";
        for (name, place) in [
            ("test_call", "tests/test_c.py:7"),
            ("test_empty_name", "tests/test_c.py:12"),
            ("test_counted", "tests/conftest.py:8"),
        ] {
            let got = empty_params(&doc, &format!("{m}{name}"));
            assert_eq!(
                got["computed"],
                serde_json::json!([place]),
                "{mark} {name}: {doc:#}"
            );
            assert_eq!(got["mark"], mark, "{mark} {name}: {doc:#}");
            // The mark is not the test's: pytest adds it only if the set comes out empty.
            let (marks, parametrized) = test(&doc, &format!("{m}{name}"));
            assert!(parametrized && !marks.contains(&"skip") && !marks.contains(&"xfail"));
        }
        for name in ["test_full", "test_literal", "test_none"] {
            assert!(
                empty_params(&doc, &format!("{m}{name}")).is_null(),
                "{name}: {doc:#}"
            );
        }
        // params=[] written: one item with the ini key's mark, judged as the parametrize's is.
        let (marks, parametrized) = test(&doc, &format!("{m}test_none"));
        assert!(parametrized);
        let at = |rule: &str| -> Vec<(String, u64)> {
            problems(&doc, rule)
                .iter()
                .filter(|p| p["test"] == format!("{m}test_none"))
                .map(|p| {
                    (
                        p["file"].as_str().unwrap().to_string(),
                        p["line"].as_u64().unwrap(),
                    )
                })
                .collect()
        };
        let place = vec![("tests/conftest.py".to_string(), 4)];
        match mark {
            "skip" => {
                assert!(marks.contains(&"skip"), "{doc:#}");
                assert_eq!(at("unconditional-skip"), place, "{doc:#}");
            }
            "xfail" => {
                assert!(marks.contains(&"xfail"), "{doc:#}");
                assert_eq!(at("xfail-in-voting-lane"), place, "{doc:#}");
            }
            _ => {
                assert!(!marks.contains(&"skip") && !marks.contains(&"xfail"));
                assert_eq!(at("empty-parameter-set"), place, "{doc:#}");
                assert!(at("unconditional-skip").is_empty(), "{doc:#}");
            }
        }
    }
}
