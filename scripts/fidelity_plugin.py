"""pytest plugin for scripts/fidelity: records what pytest collects, as the truth lane-scan is
measured against.

Loaded with `-p fidelity_plugin` (scripts/ on PYTHONPATH) under `pytest --collect-only`; writes
FIDELITY_OUT (JSON): every item's node id without the parametrization part, with the union of
its marks over its instances, and the node ids of collectors that failed to collect or were
skipped whole (`pytest.importorskip` of a package not installed): their tests are unknown to
pytest and left out of the comparison.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

ENV = "FIDELITY_OUT"
ERRORS: list[str] = []


def plain_node_id(item: pytest.Item) -> str:
    original = getattr(item, "originalname", None)
    if original and item.parent is not None and item.name != original:
        return f"{item.parent.nodeid}::{original}"
    nodeid = item.nodeid
    last = nodeid.rfind("::")
    bracket = nodeid.find("[", last if last >= 0 else 0)
    return nodeid[:bracket] if bracket >= 0 else nodeid


def pytest_collectreport(report):
    if report.failed or report.skipped:
        ERRORS.append(report.nodeid)


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_collection_modifyitems(session, config, items):
    out = os.environ.get(ENV)
    if out:
        marks: dict[str, set[str]] = {}
        for item in items:
            marks.setdefault(plain_node_id(item), set()).update(
                m.name for m in item.iter_markers())
        document = {
            "rootdir": str(config.rootpath),
            "tests": {tid: sorted(names) for tid, names in sorted(marks.items())},
            "errors": sorted(set(ERRORS)),
        }
        Path(out).write_text(json.dumps(document, indent=1, sort_keys=True) + "\n",
                             encoding="utf-8")
    return (yield)
