"""A pytest plugin that records what pytest itself collects, as the oracle for lane-scan.

Load it with `-p collect_plugin` (this folder on PYTHONPATH), run `pytest --collect-only`, and
set COLLECT_PLUGIN_OUT to the JSON file to write. The file holds one entry per test, keyed by
its node id without parametrization brackets:

    {"rootdir": "...", "tests": {"tests/test_a.py::TestX::test_y":
        {"marks": ["merge", "parametrize"], "lanes": ["merge"], "lane": "merge",
         "file": "tests/test_a.py", "line": 12, "parametrized": true}},
     "errors": ["tests/test_broken.py"]}

`marks` is the union of `item.iter_markers()` names over every parametrized instance, `lanes`
the marks among merge/witness/freeze, `lane` the single lane or null; `file` and `line` (1-based)
say where pytest found the function (for an inherited method: where the base defines it);
`parametrized` is true when pytest expanded it into instances (it has a callspec); `empty_set`
(present only when true) says that every instance is the item pytest makes for an empty
parameter set (a parameter whose value is pytest's NOTSET sentinel, id `[NOTSET]`), whose marks
include the empty_parameter_set_mark; `errors` are the collectors that failed or were skipped
whole (scripts/fidelity leaves their tests out).

The snapshot is taken in an outermost `pytest_collection_modifyitems` wrapper, before any other
implementation (a suite's own conftest hooks included) runs: hooks that deselect, reorder, add
marks or stop the session cannot change or hide what was statically collected.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from _pytest.compat import NOTSET

LANES = ("merge", "witness", "freeze")
ENV = "COLLECT_PLUGIN_OUT"
# Node ids of collectors that failed or were skipped whole (`pytest.importorskip`): their tests
# are unknown to pytest, so a comparison leaves them out.
ERRORS: list[str] = []


def plain_node_id(item: pytest.Item) -> str:
    """The node id without the `[...]` parametrization part."""
    original = getattr(item, "originalname", None)
    if original and item.parent is not None and item.name != original:
        return f"{item.parent.nodeid}::{original}"
    nodeid = item.nodeid
    last = nodeid.rfind("::")
    bracket = nodeid.find("[", last if last >= 0 else 0)
    return nodeid[:bracket] if bracket >= 0 else nodeid


def snapshot(items: list[pytest.Item]) -> dict[str, dict]:
    marks: dict[str, set[str]] = {}
    places: dict[str, tuple[str, int | None]] = {}
    parametrized: set[str] = set()
    # Per test: whether each of its items so far is an empty parameter set's item.
    empty_set: dict[str, bool] = {}
    for item in items:
        tid = plain_node_id(item)
        callspec = getattr(item, "callspec", None)
        if callspec is not None:
            parametrized.add(tid)
        notset = callspec is not None and any(v is NOTSET for v in callspec.params.values())
        empty_set[tid] = empty_set.get(tid, True) and notset
        names = marks.setdefault(tid, set())
        names.update(mark.name for mark in item.iter_markers())
        if tid not in places:
            path, lineno, _ = item.location
            places[tid] = (path.replace(os.sep, "/"), None if lineno is None else lineno + 1)
    tests = {}
    for tid in sorted(marks):
        lanes = sorted(name for name in marks[tid] if name in LANES)
        tests[tid] = {
            "marks": sorted(marks[tid]),
            "lanes": lanes,
            "lane": lanes[0] if len(lanes) == 1 else None,
            "file": places[tid][0],
            "line": places[tid][1],
            "parametrized": tid in parametrized,
        }
        if empty_set[tid]:
            tests[tid]["empty_set"] = True
    return tests


def pytest_collectreport(report: pytest.CollectReport) -> None:
    if report.failed or report.skipped:
        ERRORS.append(report.nodeid)


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_collection_modifyitems(session: pytest.Session, config: pytest.Config,
                                  items: list[pytest.Item]):
    out = os.environ.get(ENV)
    if out:
        document = {"rootdir": str(config.rootpath), "tests": snapshot(list(items)),
                    "errors": sorted(set(ERRORS))}
        Path(out).write_text(json.dumps(document, indent=1, sort_keys=True) + "\n",
                             encoding="utf-8")
    return (yield)
