//! With `--doctest-modules`, every module's docstring examples are tests under
//! pytest's ids, in the lane `lanes_doctest_lane` gives them; what lane-scan cannot read
//! statically is `unseen-doctests` naming the module and line. Runs the real binary on suites
//! written to temporary folders; the ids are checked against real pytest in
//! tests/e2e/test_scan_oracle.py (tests/suites/doctest_modules).
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::found;
use serde_json::Value;

const MARKERS: &str =
    "markers =\n    merge: votes\n    witness: corroborates\n    freeze: never votes\n";

fn ini(extra: &str) -> String {
    format!("[pytest]\naddopts = --doctest-modules\n{extra}{MARKERS}")
}

/// Exit code, stdout document (when any) and stderr of a scan of `files`.
fn run(name: &str, files: &[(&str, &str)]) -> (i32, Option<Value>, String) {
    let run = common::run("doctest-modules", name, files, None, &[]);
    (run.code, serde_json::from_str(&run.stdout).ok(), run.stderr)
}

fn scan(name: &str, files: &[(&str, &str)]) -> Value {
    let (code, doc, stderr) = run(name, files);
    assert!(code < 2, "{name}: exit {code}: {stderr}");
    doc.unwrap()
}

fn tests(doc: &Value) -> Vec<(String, Option<String>)> {
    doc["scan"]["tests"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| {
            (
                t["id"].as_str().unwrap().to_string(),
                t["lane"].as_str().map(str::to_string),
            )
        })
        .collect()
}

fn ids(doc: &Value) -> Vec<String> {
    tests(doc).into_iter().map(|(id, _)| id).collect()
}

const MODULE: &str = r#""""A module.

owner: team-a

>>> 1 + 1
2
"""
from os.path import join


def documented():
    """
    >>> documented()
    3
    """
    return 3


def plain():
    """No example."""


class Thing:
    """No example in the class docstring."""

    def method(self):
        """
        >>> Thing().method()
        'm'
        """
        return "m"
"#;

#[test]
fn module_doctests_get_ids_and_the_configured_lane() {
    let ini = ini("lanes_doctest_lane = merge\n");
    let files = [
        ("pytest.ini", ini.as_str()),
        ("pkg/__init__.py", ""),
        ("pkg/mod.py", MODULE),
        ("pkg/__main__.py", "\"\"\"\n>>> 1\n1\n\"\"\"\n"),
        ("setup.py", "\"\"\"\n>>> 1\n1\n\"\"\"\nimport setuptools\n"),
        ("tests/test_guide.txt", "owner: team-b\n\n>>> 2\n2\n"),
    ];
    let doc = scan("lane", &files);
    let merge = Some("merge".to_string());
    assert_eq!(
        tests(&doc),
        [
            ("pkg/mod.py::pkg.mod".to_string(), merge.clone()),
            (
                "pkg/mod.py::pkg.mod.Thing.method".to_string(),
                merge.clone()
            ),
            ("pkg/mod.py::pkg.mod.documented".to_string(), merge.clone()),
            (
                "tests/test_guide.txt::test_guide.txt".to_string(),
                merge.clone()
            ),
        ],
        "{doc:#}"
    );
    assert_eq!(doc["scan"]["counts"]["merge"], 4, "{doc:#}");
    // The module docstring's owner covers the items in it; the text file names its own.
    assert!(found(&doc, "missing-attachment").is_empty(), "{doc:#}");
    assert!(found(&doc, "unmarked").is_empty(), "{doc:#}");
    assert!(found(&doc, "unseen-doctests").is_empty(), "{doc:#}");
    let method = &doc["scan"]["tests"][1];
    assert_eq!(method["attachments"]["owner"], "team-a", "{doc:#}");
    assert_eq!(method["marks"], serde_json::json!(["merge"]));
}

#[test]
fn without_the_key_every_doctest_item_is_unmarked_at_its_line() {
    let ini = ini("");
    let files = [("pytest.ini", ini.as_str()), ("mod.py", MODULE)];
    let doc = scan("unmarked", &files);
    assert_eq!(
        tests(&doc),
        [
            ("mod.py::mod".to_string(), None),
            ("mod.py::mod.Thing.method".to_string(), None),
            ("mod.py::mod.documented".to_string(), None),
        ]
    );
    let unmarked = found(&doc, "unmarked");
    let places: Vec<(&str, u64)> = unmarked.iter().map(|(f, l, _)| (f.as_str(), *l)).collect();
    assert_eq!(
        places,
        [("mod.py", 1), ("mod.py", 12), ("mod.py", 27)],
        "{doc:#}"
    );
    assert!(unmarked[0].2.contains("lanes_doctest_lane"), "{doc:#}");
    assert!(unmarked[0].2.contains("pytest.ini"), "{doc:#}");
    assert_eq!(doc["scan"]["counts"]["unmarked"], 3);
}

#[test]
fn an_invalid_lane_is_a_usage_error_naming_the_config_line() {
    let ini = ini("lanes_doctest_lane = vote\n");
    let (code, _, stderr) = run("invalid-ini", &[("pytest.ini", &ini), ("mod.py", MODULE)]);
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("pytest.ini:3"), "{stderr}");
    assert!(stderr.contains("\"vote\""), "{stderr}");
    let toml = "[project]\nname = \"x\"\n\n[tool.pytest.ini_options]\naddopts = \"--doctest-modules\"\nlanes_doctest_lane = \"Merge\"\n";
    let (code, _, stderr) = run(
        "invalid-toml",
        &[("pyproject.toml", toml), ("mod.py", MODULE)],
    );
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("pyproject.toml:6"), "{stderr}");
    // Valid in a pyproject.toml and in setup.cfg too.
    let toml = toml.replace("\"Merge\"", "\"freeze\"");
    let doc = scan("toml", &[("pyproject.toml", &toml), ("mod.py", MODULE)]);
    assert_eq!(doc["scan"]["counts"]["freeze"], 3, "{doc:#}");
    let cfg = "[tool:pytest]\naddopts = --doctest-modules\nlanes_doctest_lane = freeze\n";
    let doc = scan("cfg", &[("setup.cfg", cfg), ("mod.py", MODULE)]);
    assert_eq!(doc["scan"]["counts"]["freeze"], 3, "{doc:#}");
}

#[test]
fn each_lane_asks_what_it_asks_of_any_test() {
    // merge: an owner (none here); witness: locked bytes a doctest cannot carry; freeze:
    // nothing at scan time (its ledger ticket is freeze-ledger's); every example skipped is a
    // skip in any lane.
    let module = "def f():\n    \"\"\"\n    >>> f()  # doctest: +SKIP\n    1\n    \"\"\"\n\n\ndef g():\n    \"\"\"\n    >>> g()\n    2\n    \"\"\"\n";
    for (lane, rule, count) in [
        ("merge", "missing-attachment", 2),
        ("witness", "missing-attachment", 2),
        ("freeze", "missing-attachment", 0),
    ] {
        let ini = ini(&format!("lanes_doctest_lane = {lane}\n"));
        let doc = scan(lane, &[("pytest.ini", &ini), ("m.py", module)]);
        assert_eq!(found(&doc, rule).len(), count, "{lane}: {doc:#}");
        let skips = found(&doc, "unconditional-skip");
        assert_eq!(skips.len(), 1, "{lane}: {doc:#}");
        assert_eq!((skips[0].0.as_str(), skips[0].1), ("m.py", 2), "{doc:#}");
        assert!(skips[0].2.contains("m.py::m.f"), "{doc:#}");
    }
}

#[test]
fn dict_order_and_aliases_decide_names_as_doctest_does() {
    let module = r#"g = None


def f():
    """
    >>> 1
    1
    """


g = f
h = f


class C:
    """
    >>> 2
    2
    """

    m = f
    p = property(lambda self: 1, doc="""
    >>> 3
    3
    """)


__test__ = {"again": f, "text": """
>>> 4
4
"""}
"#;
    let ini = ini("lanes_doctest_lane = freeze\n");
    let doc = scan("order", &[("pytest.ini", &ini), ("m.py", module)]);
    // `g` is first in the module's dict and names f's object: the item is m.g, met once.
    assert_eq!(
        ids(&doc),
        [
            "m.py::m.C",
            "m.py::m.C.p",
            "m.py::m.__test__.text",
            "m.py::m.g"
        ],
        "{doc:#}"
    );
    assert!(found(&doc, "unseen-doctests").is_empty(), "{doc:#}");
}

/// One unsure construct per module: (file, its source, the line the problem names, a word
/// of the message).
const UNSURE: &[(&str, &str, u64, &str)] = &[
    (
        "runtime_doc.py",
        "def f():\n    pass\n\n\nf.__doc__ = make()\n",
        5,
        "__doc__",
    ),
    ("module_doc.py", "__doc__ = PREFIX + \"x\"\n", 1, "__doc__"),
    (
        "set_doc.py",
        "def f():\n    pass\n\n\nsetattr(f, \"__doc__\", TEXT)\n",
        5,
        "setattr",
    ),
    (
        "decorated.py",
        "import functools\n\n\n@register\ndef f():\n    \"\"\"\n    >>> 1\n    1\n    \"\"\"\n",
        4,
        "register",
    ),
    (
        "cached_prop.py",
        "import functools\n\n\nclass C:\n    @functools.cached_property\n    def p(self):\n        \"\"\"\n        >>> 1\n        1\n        \"\"\"\n",
        5,
        "functools.cached_property",
    ),
    (
        "conditional.py",
        "import sys\n\nif sys.platform == 'win32':\n    def f():\n        \"\"\"\n        >>> 1\n        1\n        \"\"\"\n",
        4,
        "line 3",
    ),
    (
        "replaced.py",
        "def f():\n    \"\"\"\n    >>> 1\n    1\n    \"\"\"\n\n\ntry:\n    from _speedups import f\nexcept ImportError:\n    pass\n",
        9,
        "run time",
    ),
    (
        "factory.py",
        "def make():\n    def inner():\n        \"\"\"\n        >>> 1\n        1\n        \"\"\"\n    return inner\n\n\nmade = make()\n",
        3,
        "nested",
    ),
    (
        "wrapped.py",
        "def f():\n    \"\"\"\n    >>> 1\n    1\n    \"\"\"\n\n\ng = wrap(f)\n",
        8,
        "`g` is made at run time from `f`",
    ),
    (
        "made_class.py",
        "C = type(\"C\", (), {\"__doc__\": TEXT})\n",
        1,
        "type(",
    ),
    (
        "test_dict.py",
        "from other import helper\n\n__test__ = {\"h\": helper}\n",
        3,
        "helper",
    ),
    ("test_dict_made.py", "__test__ = build()\n", 1, "__test__"),
];

#[test]
fn what_cannot_be_read_statically_is_reported_at_its_line() {
    let ini = ini("lanes_doctest_lane = merge\n");
    let mut files: Vec<(&str, &str)> = vec![("pytest.ini", &ini)];
    files.extend(UNSURE.iter().map(|(f, s, _, _)| (*f, *s)));
    let doc = scan("unsure", &files);
    let unseen = found(&doc, "unseen-doctests");
    for (file, _, line, word) in UNSURE {
        assert!(
            unseen
                .iter()
                .any(|(f, l, m)| f == file && l == line && m.contains(word)),
            "{file}:{line} ({word}) not reported: {unseen:#?}"
        );
        let module = file.trim_end_matches(".py");
        assert!(
            unseen
                .iter()
                .filter(|(f, _, _)| f == file)
                .all(|(_, _, m)| m.contains(&format!("of module {module}"))),
            "{unseen:#?}"
        );
    }
    // Only the modules above, each once or more; none other is named.
    let files_named: std::collections::BTreeSet<&str> =
        unseen.iter().map(|(f, _, _)| f.as_str()).collect();
    assert_eq!(files_named.len(), UNSURE.len(), "{unseen:#?}");
}

#[test]
fn readable_modules_are_not_flagged() {
    // Decorators without examples beneath them, imports, values made by calls from objects
    // without examples, conditions around objects without examples, `if TYPE_CHECKING`.
    let module = r#"import functools
from typing import TYPE_CHECKING

import click

if TYPE_CHECKING:
    from os import PathLike

logger = make_logger(__name__)


@click.command()
def cli():
    """Runs the tool."""


def helper():
    """Help.

    >>> helper()
    """


partial_helper = functools.partial(print)
PROMPT = "> "


class Model:
    @functools.cached_property
    def size(self):
        """No example."""
        return 1

    @property
    def name(self):
        """
        >>> Model().name
        'm'
        """
        return "m"

    @name.setter
    def name(self, value):
        pass
"#;
    let ini = ini("lanes_doctest_lane = freeze\n");
    let doc = scan("readable", &[("pytest.ini", &ini), ("m.py", module)]);
    assert!(found(&doc, "unseen-doctests").is_empty(), "{doc:#}");
    assert_eq!(
        ids(&doc),
        ["m.py::m.Model.name", "m.py::m.helper"],
        "{doc:#}"
    );
}

#[test]
fn ignored_paths_and_norecursedirs_hold_no_doctest_items() {
    let ini = format!(
        "[pytest]\naddopts = --doctest-modules --ignore=skipped.py\nnorecursedirs = vendor\nlanes_doctest_lane = freeze\n{MARKERS}"
    );
    let item = "\"\"\"\n>>> 1\n1\n\"\"\"\n";
    let files = [
        ("pytest.ini", ini.as_str()),
        ("kept.py", item),
        ("skipped.py", item),
        ("vendor/lib.py", item),
        ("sub/conftest.py", "collect_ignore = [\"old.py\"]\n"),
        ("sub/old.py", item),
        ("sub/new.py", item),
    ];
    let doc = scan("ignored", &files);
    assert_eq!(ids(&doc), ["kept.py::kept", "sub/new.py::new"], "{doc:#}");
}

/// `consider_namespace_packages = true` makes a module's doctest names depend
/// on `sys.path` at run time (`python -m pytest` names `ns/pkg/mod.py`'s items `ns.pkg.mod.f`,
/// the `pytest` script `pkg.mod.f`): unseen-doctests at the ini line; false, or no doctest
/// modules, says nothing.
#[test]
fn namespace_packages_make_doctest_names_unknowable() {
    let module = "def f():\n    \"\"\"\n    >>> 1\n    1\n    \"\"\"\n";
    for (value, flagged) in [("true", true), ("1", true), ("False", false), ("no", false)] {
        let config = ini(&format!("consider_namespace_packages = {value}\n"));
        let doc = scan(
            &format!("namespace-{value}"),
            &[
                ("pytest.ini", config.as_str()),
                ("ns/pkg/__init__.py", ""),
                ("ns/pkg/mod.py", module),
            ],
        );
        let got = found(&doc, "unseen-doctests");
        if flagged {
            assert_eq!(got.len(), 1, "{value}: {got:?}");
            assert_eq!((got[0].0.as_str(), got[0].1), ("pytest.ini", 3), "{got:?}");
            assert!(got[0].2.contains("consider_namespace_packages"), "{got:?}");
        } else {
            assert!(got.is_empty(), "{value}: {got:?}");
        }
        // The ids stay the prepend mode's (the `pytest` script's).
        assert_eq!(ids(&doc), ["ns/pkg/mod.py::pkg.mod.f"], "{value}");
    }
    let without = "[pytest]\nconsider_namespace_packages = true\n".to_string() + MARKERS;
    let doc = scan(
        "namespace-no-doctests",
        &[("pytest.ini", without.as_str()), ("ns/pkg/mod.py", module)],
    );
    assert!(found(&doc, "unseen-doctests").is_empty());
}
