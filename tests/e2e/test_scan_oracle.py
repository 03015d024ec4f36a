"""pytest is the oracle: lane-scan must find the tests pytest collects, in the lanes pytest sees.

For each suite under tests/suites/ and for examples/invoice, real pytest collects with
collect_plugin.py (node ids without parametrization, every mark reaching each test) and lane-scan
scans the same folder without importing anything. The two must agree test for test: the same set
of ids, the same lane (and set of lanes), the same `parametrized` flag, and lane-scan's marks must
include every mark pytest sees. A failure prints a readable diff, one line per disagreement.

Set SCAN_ORACLE_REPORT=FILE to also append every disagreement to FILE.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from conftest import PYTHON, REPO, run_pytest, run_tool

E2E = Path(__file__).resolve().parent
SUITES_DIR = REPO / "tests" / "suites"
PLUGIN_DIR = REPO / "python" / "pytest-lanes-gate"
# The suites this oracle must cover; a missing one fails (never skips).
REQUIRED = tuple(f"tests/suites/{name}" for name in (
    "tricky", "ini_style", "cfg_style", "toml_native", "pytest_ini", "pytest_toml",
    "addopts_ignore", "dot_pytest_ini", "collect_order", "collect_ignore",
    "doctest_text", "fixture_params", "module_branches", "cond_names", "empty_params",
    "doctest_modules", "computed_params")) + ("examples/invoice",)


def suite_dirs() -> list[str]:
    found = {f"tests/suites/{p.name}" for p in SUITES_DIR.iterdir() if p.is_dir()} \
        if SUITES_DIR.is_dir() else set()
    return sorted(found | set(REQUIRED))


def pytest_view(suite: Path, out: Path) -> dict:
    """What the real pytest collects in `suite`, through collect_plugin."""
    # pytest-lanes-gate is loaded as lane-gate loads it (recording only): it gives doctest
    # items the lane of `lanes_doctest_lane`, which lane-scan reads from the same config.
    pythonpath = os.pathsep.join(p for p in (str(E2E), str(PLUGIN_DIR),
                                             os.environ.get("PYTHONPATH", "")) if p)
    proc = run_pytest("--collect-only", "-q", "-p", "collect_plugin", "-p", "pytest_lanes_gate",
                      "--lanes-contract=record", cwd=suite,
                      env={"PYTHONPATH": pythonpath, "COLLECT_PLUGIN_OUT": str(out)})
    assert proc.returncode == 0, (
        f"pytest could not collect {suite} cleanly (exit {proc.returncode}):\n"
        f"{proc.stdout[-4000:]}\n{proc.stderr[-2000:]}")
    assert out.is_file(), f"collect_plugin wrote nothing for {suite}:\n{proc.stdout[-2000:]}"
    document = json.loads(out.read_text(encoding="utf-8"))
    assert Path(document["rootdir"]).resolve() == suite.resolve(), (
        f"pytest chose rootdir {document['rootdir']} for {suite}: the suite needs its own config")
    return document["tests"]


def scan_view(suite: Path) -> dict:
    """What lane-scan reports for `suite`, by test id."""
    # The interpreter pytest runs on decides `if sys.version_info ...` and finds the installed
    # plugins.
    run = run_tool("lane-scan", "--python", PYTHON, cwd=suite)
    assert run.code in (0, 1), f"lane-scan exit {run.code} in {suite}:\n{run.stderr}"
    try:
        document = run.json()
    except ValueError as err:
        pytest.fail(f"lane-scan (exit {run.code}) wrote no JSON document in {suite}: {err}\n"
                    f"stdout: {run.stdout[:300]!r}\nstderr: {run.stderr[:1000]}")
    assert "scan" in document, f"lane-scan wrote no scan section: {run.stdout[:500]}"
    tests = {}
    for test in document["scan"]["tests"]:
        assert test["id"] not in tests, f"lane-scan reports {test['id']} twice"
        tests[test["id"]] = test
    return tests


def where(test: dict) -> str:
    line = test.get("line")
    return f"{test.get('file')}:{line}" if line else str(test.get("file"))


def empty_set_mark(want: dict, got: dict) -> set[str]:
    """The mark pytest's empty parameter set gave a test, when lane-scan states it: every item
    pytest made for the test is the empty set's `[NOTSET]` item, and lane-scan's `empty_params`
    names the mark such an item carries. Nothing else is forgiven."""
    stated = (got.get("empty_params") or {}).get("mark")
    if want.get("empty_set") and stated in ("skip", "xfail"):
        return {stated}
    return set()


def disagreements(expected: dict, actual: dict) -> list[str]:
    """One readable line per way lane-scan (`actual`) differs from pytest (`expected`)."""
    lines = []
    for tid in sorted(expected.keys() - actual.keys()):
        t = expected[tid]
        lines.append(f"only pytest collects {tid} (lane {t['lane']}, marks {t['marks']}, "
                     f"defined at {where(t)})")
    for tid in sorted(actual.keys() - expected.keys()):
        t = actual[tid]
        lines.append(f"only lane-scan reports {tid} (lane {t.get('lane')}, marks "
                     f"{t.get('marks')}, at {where(t)}); pytest does not collect it")
    for tid in sorted(expected.keys() & actual.keys()):
        want, got = expected[tid], actual[tid]
        if want["lane"] != got.get("lane") or want["lanes"] != sorted(got.get("lanes") or []):
            lines.append(f"lane of {tid}: pytest says {want['lane']} (lanes {want['lanes']}), "
                         f"lane-scan says {got.get('lane')} (lanes {got.get('lanes')}) "
                         f"at {where(got)}")
        if want["parametrized"] != got.get("parametrized"):
            lines.append(f"parametrized of {tid}: pytest says {want['parametrized']}, lane-scan "
                         f"says {got.get('parametrized')} at {where(got)}")
        missing = sorted(set(want["marks"]) - set(got.get("marks") or [])
                         - empty_set_mark(want, got))
        if missing:
            lines.append(f"marks of {tid}: pytest sees {want['marks']}, lane-scan's marks "
                         f"{got.get('marks')} lack {missing} at {where(got)}")
    return lines


def report(suite: str, lines: list[str]) -> None:
    path = os.environ.get("SCAN_ORACLE_REPORT")
    if path and lines:
        with open(path, "a", encoding="utf-8") as f:
            f.write(f"## {suite}\n")
            f.writelines(f"{line}\n" for line in lines)


@pytest.mark.parametrize("suite", suite_dirs())
def test_lane_scan_agrees_with_pytest(suite: str, tmp_path: Path):
    folder = REPO / suite
    assert folder.is_dir(), f"{suite} is missing: the oracle must cover it"
    expected = pytest_view(folder, tmp_path / "pytest.json")
    assert expected, f"pytest collects no test in {suite}"
    actual = scan_view(folder)
    lines = disagreements(expected, actual)
    report(suite, lines)
    assert not lines, (f"lane-scan disagrees with pytest on {len(lines)} point(s) in {suite} "
                       f"({len(expected)} tests per pytest, {len(actual)} per lane-scan):\n  "
                       + "\n  ".join(lines))


def test_tricky_suite_is_legal(tmp_path: Path):
    """Every test of the tricky suite sits in exactly one lane, so the comparison means something."""
    tests = pytest_view(SUITES_DIR / "tricky", tmp_path / "pytest.json")
    illegal = sorted(tid for tid, t in tests.items() if t["lane"] is None)
    assert not illegal, f"tests without exactly one lane: {illegal}"
    assert len(tests) >= 70


def test_plugin_sees_tests_a_conftest_hook_drops(tmp_path: Path):
    """The tricky suite's conftest removes test_hidden_by_hook at run time; the oracle keeps it."""
    tests = pytest_view(SUITES_DIR / "tricky", tmp_path / "pytest.json")
    assert tests["tests/test_aliases.py::test_hidden_by_hook"]["lane"] == "merge"
    plain = run_pytest("--collect-only", "-q", cwd=SUITES_DIR / "tricky")
    assert "test_hidden_by_hook" not in plain.stdout


def test_plugin_folds_parametrized_ids(tmp_path: Path):
    tests = pytest_view(SUITES_DIR / "tricky", tmp_path / "pytest.json")
    assert not [tid for tid in tests if "[" in tid]
    odd = tests["tests/test_params.py::test_ids_with_odd_characters"]
    assert odd["lane"] == "witness" and "parametrize" in odd["marks"]
    assert "slow" in tests["tests/test_params.py::test_param_with_non_lane_marks"]["marks"]


def test_disagreements_name_every_difference():
    pytest_side = {
        "a.py::test_same": {"lane": "merge", "lanes": ["merge"], "marks": ["merge"],
                            "file": "a.py", "line": 3, "parametrized": False},
        "a.py::test_lane": {"lane": "merge", "lanes": ["merge"], "marks": ["merge", "slow"],
                            "file": "a.py", "line": 7, "parametrized": True},
        "a.py::test_only_pytest": {"lane": None, "lanes": [], "marks": [], "file": "a.py",
                                   "line": 9, "parametrized": False},
    }
    scan_side = {
        "a.py::test_same": {"lane": "merge", "lanes": ["merge"], "marks": ["merge", "x"],
                            "parametrized": False},
        "a.py::test_lane": {"lane": "witness", "lanes": ["witness"], "marks": ["witness"],
                            "parametrized": False},
        "a.py::test_only_scan": {"lane": "merge", "lanes": ["merge"], "marks": ["merge"],
                                 "parametrized": False},
    }
    lines = disagreements(pytest_side, scan_side)
    assert len(lines) == 5, lines
    assert any(line.startswith("parametrized of a.py::test_lane") for line in lines)
    assert any(line.startswith("only pytest collects a.py::test_only_pytest") for line in lines)
    assert any(line.startswith("only lane-scan reports a.py::test_only_scan") for line in lines)
    assert any(line.startswith("lane of a.py::test_lane") for line in lines)
    assert any("lack ['merge', 'slow']" in line for line in lines)
    assert disagreements(pytest_side, {k: dict(v) for k, v in pytest_side.items()}) == []


def test_only_a_stated_empty_set_forgives_its_mark():
    """pytest's empty-set item carries a skip lane-scan cannot know; it is forgiven only where
    lane-scan states that mark for that test and pytest's items are all the empty set's."""
    want = {"lane": "merge", "lanes": ["merge"], "marks": ["merge", "parametrize", "skip"],
            "file": "a.py", "line": 3, "parametrized": True, "empty_set": True}
    got = {"lane": "merge", "lanes": ["merge"], "marks": ["merge", "parametrize"],
           "parametrized": True, "empty_params": {"computed": ["a.py:2"], "mark": "skip"}}
    assert disagreements({"a.py::t": want}, {"a.py::t": got}) == []
    for changed in ({"empty_params": {"computed": ["a.py:2"], "mark": "xfail"}},
                    {"empty_params": None}):
        lines = disagreements({"a.py::t": want}, {"a.py::t": {**got, **changed}})
        assert len(lines) == 1 and "lack ['skip']" in lines[0], lines
    not_empty = {k: v for k, v in want.items() if k != "empty_set"}
    lines = disagreements({"a.py::t": not_empty}, {"a.py::t": got})
    assert len(lines) == 1 and "lack ['skip']" in lines[0], lines
