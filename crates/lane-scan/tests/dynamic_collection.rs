//! Dynamic collection: lane-scan names the module and line that make it unsure it has every test or
//! every mark (runtime-test-definition, item-creating-hook, unresolved-test-base), and stays quiet
//! on what it can read. Runs the real binary on suites written to temporary folders.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::ids;
use serde_json::Value;

const INI: &str = common::LANES_INI;

/// Scans a suite made of `files` (plus a pytest.ini registering the lanes unless one is given)
/// and returns the document.
fn scan(name: &str, files: &[(&str, &str)]) -> Value {
    common::doc(name, &common::run("unsure", name, files, Some(INI), &[]))
}

/// (file, line, message) of each problem of `rule`, every one an error.
fn found(doc: &Value, rule: &str) -> Vec<(String, u64, String)> {
    for p in common::problems(doc, rule) {
        assert_eq!(p["severity"], "error", "{p}");
    }
    common::found(doc, rule)
}

const HEAD: &str = "import pytest\nimport sys\nimport unittest\n\n";

/// One test module, tests/test_m.py: [`HEAD`], then `body`.
fn scan_module(name: &str, body: &str) -> Value {
    scan(name, &[("tests/test_m.py", &format!("{HEAD}{body}"))])
}

#[test]
fn runtime_definitions_are_errors_naming_module_and_line() {
    // (name, body after HEAD, line of the construct, words the message must hold)
    let cases: &[(&str, &str, u64, &str)] = &[
        (
            "type-call",
            "TestMade = type('TestMade', (object,), {'test_a': lambda self: None})\n",
            5,
            "type(name, bases, namespace)",
        ),
        (
            "class-in-loop",
            "for n in range(3):\n    class TestLoop:\n        def test_a(self): pass\n",
            6,
            "TestLoop is defined in a loop",
        ),
        (
            "def-in-loop",
            "for n in range(3):\n    def test_n(): pass\n",
            6,
            "test_n is defined in a loop",
        ),
        (
            "globals-subscript",
            "def make(n):\n    def t(): pass\n    globals()['test_%d' % n] = t\n",
            7,
            "globals() writes names",
        ),
        (
            "globals-update",
            "globals().update({'test_x': lambda: None})\n",
            5,
            "globals() writes names",
        ),
        (
            "locals-update-module",
            "locals().update(test_y=lambda: None)\n",
            5,
            "locals() writes names",
        ),
        (
            "locals-in-class-body",
            "class TestL:\n    for n in range(2):\n        locals()['test_%d' % n] = lambda self: None\n",
            7,
            "locals() writes names",
        ),
        (
            "setattr-module",
            "setattr(sys.modules[__name__], 'test_z', lambda: None)\n",
            5,
            "setattr on sys.modules",
        ),
        (
            "setattr-class",
            "class TestS:\n    pass\n\nsetattr(TestS, 'test_q', lambda self: None)\n",
            8,
            "setattr on class TestS",
        ),
        (
            "bound-from-call",
            "def factory():\n    class C:\n        def test_a(self): pass\n    return C\n\nTestFromFactory = factory()\n",
            10,
            "TestFromFactory is bound to a call of factory",
        ),
        (
            "metaclass",
            "class Meta(type):\n    pass\n\nclass TestMeta(metaclass=Meta):\n    def test_a(self): pass\n",
            8,
            "metaclass Meta",
        ),
    ];
    for (name, body, line, words) in cases {
        let doc = scan_module(name, body);
        let got = found(&doc, "runtime-test-definition");
        assert_eq!(got.len(), 1, "{name}: {doc:#}");
        let (file, at, message) = &got[0];
        assert_eq!(
            (file.as_str(), *at),
            ("tests/test_m.py", *line),
            "{name}: {message}"
        );
        assert!(message.contains(words), "{name}: {message}");
        assert!(
            message.starts_with(&format!("tests/test_m.py:{line}: ")),
            "{message}"
        );
    }
}

#[test]
fn static_definitions_are_not_flagged() {
    let cases: &[(&str, &str)] = &[
        // A loop that defines nothing, a class inside a function never bound to the module.
        (
            "loop-without-definitions",
            "for n in range(3):\n    print(n)\n\ndef helper():\n    class Inner:\n        pass\n    return Inner\n\ndef test_a():\n    helper()\n",
        ),
        // locals() and vars() inside a function are a copy; a 2-argument setattr on an object.
        (
            "function-locals",
            "def test_a():\n    locals().update(x=1)\n    vars()['y'] = 2\n    setattr(obj, 'a', 1)\n",
        ),
        // type(x) with one argument; test-named data and aliases of a class read statically.
        (
            "literals-and-aliases",
            "kind = type(1)\ntest_cases = [1, 2]\nclass TestA:\n    def test_a(self): pass\nTestB = TestA\n",
        ),
        // type(name, bases, ns) in a test's own body makes a local class while the test runs,
        // after collection (zipp's test_inheritance).
        (
            "type-call-in-a-test",
            "class TestT:\n    def test_made(self):\n        cls = type('Child', (object,), {})\n        assert cls\n\ndef test_local():\n    assert type('X', (), {})\n",
        ),
        // abc.ABCMeta is modelled; a metaclass on a class that is not a test class.
        (
            "abc-meta",
            "import abc\nclass Meta(type):\n    pass\nclass Helper(metaclass=Meta):\n    pass\nclass TestAbc(metaclass=abc.ABCMeta):\n    def test_a(self): pass\n",
        ),
    ];
    for (name, body) in cases {
        let doc = scan_module(name, body);
        assert!(
            found(&doc, "runtime-test-definition").is_empty(),
            "{name}: {doc:#}"
        );
        assert!(
            found(&doc, "unresolved-test-base").is_empty(),
            "{name}: {doc:#}"
        );
    }
}

#[test]
fn a_class_bound_to_a_second_test_name_is_collected_under_both() {
    let body = "class TestA:\n    def test_a(self): pass\nTestB = TestA\n_Private = TestA\n";
    let doc = scan_module("alias", body);
    assert_eq!(
        ids(&doc),
        [
            "tests/test_m.py::TestA::test_a",
            "tests/test_m.py::TestB::test_a"
        ]
    );
}

#[test]
fn unresolved_bases_of_test_classes_are_errors() {
    let body = "from somelib.testing import LibCase\n\
                class TestFromLib(LibCase):\n    def test_a(self): pass\n\
                class HelperFromLib(LibCase):\n    pass\n\
                class ByMethods(LibCase):\n    def test_b(self): pass\n\
                class TestPlain(object):\n    def test_c(self): pass\n\
                class TestErr(ValueError, unittest.TestCase):\n    def test_d(self): pass\n";
    let doc = scan_module("bases", body);
    let got = found(&doc, "unresolved-test-base");
    let lines: Vec<u64> = got.iter().map(|g| g.1).collect();
    // TestFromLib (by its name) and ByMethods (by its test method); not the helper, not the
    // classes whose bases are builtins or unittest.TestCase.
    assert_eq!(lines, [6, 10], "{doc:#}");
    assert!(got[0].2.contains("derives from LibCase"), "{}", got[0].2);
    // What can be read is still collected.
    assert!(
        ids(&doc).contains(&"tests/test_m.py::TestFromLib::test_a"),
        "{doc:#}"
    );
}

#[test]
fn a_base_from_another_tree_module_is_followed_and_named_where_collected() {
    let doc = scan(
        "imported-base",
        &[
            (
                "tests/base.py",
                "from elsewhere import Unknown\nclass Base(Unknown):\n    def test_inherited(self): pass\n",
            ),
            (
                "tests/test_m.py",
                "from base import Base\nclass TestChild(Base):\n    def test_own(self): pass\n",
            ),
        ],
    );
    let got = found(&doc, "unresolved-test-base");
    assert_eq!(got.len(), 1, "{doc:#}");
    assert_eq!(got[0].0, "tests/test_m.py");
    assert!(
        got[0]
            .2
            .contains("tests/base.py:2 (collected in tests/test_m.py)"),
        "{}",
        got[0].2
    );
    assert!(
        ids(&doc).contains(&"tests/test_m.py::TestChild::test_inherited"),
        "{doc:#}"
    );
}

#[test]
fn item_creating_hooks_are_errors_other_hooks_warnings() {
    let doc = scan(
        "hooks",
        &[
            (
                "tests/conftest.py",
                "import pytest\n\ndef pytest_collect_file(parent, file_path):\n    return None\n\n\
                 def pytest_collection_modifyitems(items):\n    pass\n",
            ),
            ("tests/test_a.py", "def test_a(): pass\n"),
        ],
    );
    let got = found(&doc, "item-creating-hook");
    assert_eq!(got.len(), 1, "{doc:#}");
    assert_eq!((got[0].0.as_str(), got[0].1), ("tests/conftest.py", 3));
    assert!(got[0].2.contains("pytest_collect_file") && got[0].2.contains("under tests/"));
    let warnings: Vec<&Value> = doc["scan"]["problems"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|p| p["rule"] == "runtime-hook")
        .collect();
    assert_eq!(warnings.len(), 1, "{doc:#}");
    assert_eq!(warnings[0]["line"], 6);
}

#[test]
fn hooks_in_plugin_modules_the_config_loads_are_checked() {
    let ini = format!("{INI}addopts = -p myplugin -p no:cacheprovider\n");
    let doc = scan(
        "plugins",
        &[
            ("pytest.ini", &ini),
            (
                "myplugin.py",
                "def pytest_pycollect_makeitem(collector, name, obj):\n    return None\n",
            ),
            (
                "tests/conftest.py",
                "pytest_plugins = ['tests.helpers.plug']\n",
            ),
            ("tests/__init__.py", ""),
            ("tests/helpers/__init__.py", ""),
            (
                "tests/helpers/plug.py",
                "def pytest_collection_modifyitems(items):\n    pass\n",
            ),
            ("tests/test_a.py", "def test_a(): pass\n"),
            // Not loaded by anything: its hooks are not pytest's.
            (
                "unused.py",
                "def pytest_collect_file(parent, file_path):\n    pass\n",
            ),
        ],
    );
    let items = found(&doc, "item-creating-hook");
    assert_eq!(items.len(), 1, "{doc:#}");
    assert_eq!((items[0].0.as_str(), items[0].1), ("myplugin.py", 1));
    assert!(items[0].2.contains("loaded as a plugin"), "{}", items[0].2);
    let hook: Vec<&Value> = doc["scan"]["problems"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|p| p["rule"] == "runtime-hook")
        .collect();
    assert_eq!(hook.len(), 1, "{doc:#}");
    assert_eq!(hook[0]["file"], "tests/helpers/plug.py");
    // Plugin modules are not test files.
    assert_eq!(ids(&doc), ["tests/test_a.py::test_a"]);
}

#[test]
fn computed_pytest_plugins_is_an_error() {
    let doc = scan(
        "computed-plugins",
        &[
            (
                "conftest.py",
                "import os\npytest_plugins = os.environ.get('PLUGINS', '').split()\n",
            ),
            ("test_a.py", "def test_a(): pass\n"),
        ],
    );
    let got = found(&doc, "item-creating-hook");
    assert_eq!(got.len(), 1, "{doc:#}");
    assert_eq!((got[0].0.as_str(), got[0].1), ("conftest.py", 2));
    assert!(got[0].2.contains("every file of the tree"), "{}", got[0].2);
}

#[test]
fn every_new_rule_has_an_explanation() {
    for rule in [
        "runtime-test-definition",
        "item-creating-hook",
        "unresolved-test-base",
        "undecided-test-branch",
    ] {
        let run = lane_testkit::Cmd::new(env!("CARGO_BIN_EXE_lane-scan"))
            .args(["--explain", rule])
            .run();
        assert_eq!(run.code, 0, "{rule}: {}", run.stderr);
        assert!(run.stdout.contains("Fix:"), "{rule}: {}", run.stdout);
    }
}

#[test]
fn a_tree_decorator_that_applies_marks_is_unresolved() {
    let doc = scan(
        "mark-decorator",
        &[
            (
                "tests/helpers.py",
                "import pytest\n\ndef unix_only(f):\n    for mark in [pytest.mark.skipif(True, reason='x')]:\n        f = mark(f)\n    return f\n\ndef plain(f):\n    return f\n",
            ),
            (
                "tests/test_m.py",
                "import pytest\nfrom helpers import unix_only, plain\n\n@unix_only\n@pytest.mark.merge\ndef test_a(): assert f()\n\n@plain\n@pytest.mark.merge\ndef test_b(): assert f()\n",
            ),
        ],
    );
    let got: Vec<(String, u64)> = doc["scan"]["problems"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|p| p["rule"] == "unresolved-marker")
        .map(|p| {
            (
                p["test"].as_str().unwrap().to_string(),
                p["line"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(got, [("tests/test_m.py::test_a".to_string(), 4)], "{doc:#}");
}

#[test]
fn a_class_named_like_its_imported_base_derives_from_the_import() {
    let doc = scan(
        "rebind",
        &[
            (
                "tests/base.py",
                "class TestThing:\n    def test_inherited(self): pass\n",
            ),
            (
                "tests/test_m.py",
                "from base import TestThing\n\nclass TestThing(TestThing):\n    def test_own(self): pass\n",
            ),
        ],
    );
    assert_eq!(
        ids(&doc),
        [
            "tests/test_m.py::TestThing::test_inherited",
            "tests/test_m.py::TestThing::test_own"
        ]
    );
    // A class naming itself as base with no import of that name stays unresolved.
    let doc = scan(
        "self-base",
        &[(
            "tests/test_m.py",
            "class TestSelf(TestSelf):\n    def test_a(self): pass\n",
        )],
    );
    assert_eq!(found(&doc, "unresolved-test-base").len(), 1, "{doc:#}");
}

#[test]
fn run_test_is_collected_only_without_test_methods() {
    let body = "class Once(unittest.TestCase):\n    def runTest(self): pass\n\
                class Both(unittest.TestCase):\n    def runTest(self): pass\n    def test_x(self): pass\n\
                class TestPlain:\n    def runTest(self): pass\n";
    let doc = scan_module("run-test", body);
    assert_eq!(
        ids(&doc),
        [
            "tests/test_m.py::Both::test_x",
            "tests/test_m.py::Once::runTest"
        ]
    );
}

#[test]
fn norecursedirs_patterns_with_a_slash_match_the_path() {
    let ini = format!("{INI}norecursedirs = .* tests/skip/deep\n");
    let doc = scan(
        "norecurse",
        &[
            ("pytest.ini", &ini),
            ("tests/skip/deep/test_a.py", "def test_a(): pass\n"),
            ("tests/keep/deep/test_b.py", "def test_b(): pass\n"),
            ("tests/skip/test_c.py", "def test_c(): pass\n"),
        ],
    );
    assert_eq!(
        ids(&doc),
        [
            "tests/keep/deep/test_b.py::test_b",
            "tests/skip/test_c.py::test_c"
        ]
    );
}

/// `test_x = helper` re-binds a function the scan has read: pytest collects it
/// under the new name with the function's own marks; that is not a run-time definition. A call
/// of the function, or a name the scan cannot resolve, still is.
#[test]
fn a_function_rebound_to_a_test_name_is_collected_with_its_marks() {
    let body = "@pytest.mark.witness\ndef check():\n    pass\n\ntest_again = check\n";
    let doc = scan_module("fn-alias", body);
    assert!(found(&doc, "runtime-test-definition").is_empty(), "{doc:#}");
    let tests = doc["scan"]["tests"].as_array().unwrap();
    assert_eq!(ids(&doc), ["tests/test_m.py::test_again"], "{doc:#}");
    assert_eq!(tests[0]["lane"], "witness", "{doc:#}");

    // From another tree module, through `import` and attribute access.
    let doc = scan(
        "fn-alias-imported",
        &[
            (
                "tests/helpers.py",
                "import pytest\n\n@pytest.mark.merge\ndef shared():\n    pass\n",
            ),
            (
                "tests/test_m.py",
                "import helpers\nfrom helpers import shared\n\ntest_one = shared\ntest_two = helpers.shared\n",
            ),
        ],
    );
    assert!(found(&doc, "runtime-test-definition").is_empty(), "{doc:#}");
    assert_eq!(
        ids(&doc),
        ["tests/test_m.py::test_one", "tests/test_m.py::test_two"],
        "{doc:#}"
    );

    // A call of a read function, or an unknown name: still unknowable.
    for (name, body, words) in [
        (
            "fn-call",
            "def make():\n    pass\n\ntest_made = make()\n",
            "test_made is bound to a call of make",
        ),
        (
            "fn-unknown",
            "test_lost = somewhere.thing\n",
            "test_lost is bound to somewhere.thing",
        ),
    ] {
        let doc = scan_module(name, body);
        let got = found(&doc, "runtime-test-definition");
        assert_eq!(got.len(), 1, "{name}: {doc:#}");
        assert!(got[0].2.contains(words), "{name}: {}", got[0].2);
    }
}

/// test-redefined in a class body: a method bound again is named with its class; a name only
/// ever bound to values there is no test, however often.
#[test]
fn a_method_bound_twice_in_its_class_is_test_redefined() {
    let body = "class TestA:\n    @pytest.mark.merge\n    def test_x(self):\n        assert 1\n\n    test_x = None\n    test_data = 1\n    test_data = 2\n";
    let doc = scan_module("rebound-method", body);
    let found = found(&doc, "test-redefined");
    assert_eq!(found.len(), 1, "{doc:#}");
    let (file, line, message) = &found[0];
    assert_eq!((file.as_str(), *line), ("tests/test_m.py", 10), "{doc:#}");
    assert!(
        message.starts_with("test_x is bound 2 times in tests/test_m.py::TestA (lines 7, 10)"),
        "{message}"
    );
}

/// `def test_x` then `test_x = helper`: pytest runs the later binding, the helper with its own
/// marks (none here: unmarked); test-redefined names the pair.
#[test]
fn a_test_rebound_to_a_function_runs_the_later_binding() {
    let body = "@pytest.mark.merge\ndef test_x():\n    assert 1\n\ndef _passes():\n    pass\n\ntest_x = _passes\n";
    let doc = scan_module("rebound-def", body);
    let tests = doc["scan"]["tests"].as_array().unwrap();
    assert_eq!(ids(&doc), ["tests/test_m.py::test_x"], "{doc:#}");
    assert_eq!(tests[0]["line"], 9, "{doc:#}");
    assert!(tests[0]["lane"].is_null(), "{doc:#}");
    let rules: Vec<&str> = doc["scan"]["problems"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["rule"].as_str().unwrap())
        .collect();
    assert!(rules.contains(&"test-redefined"), "{rules:?}");
    assert!(rules.contains(&"unmarked"), "{rules:?}");
    assert!(!rules.contains(&"runtime-test-definition"), "{rules:?}");
}
