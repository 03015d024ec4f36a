"""lane-gate's one pytest process for the three lanes, run for real: the lanes in order with
every fixture torn down between them, one collection, the same verdict as one process per lane,
and one process per lane whenever one run cannot stand for three."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from test_gate import TODAY, gate, patched_repo

# A conftest that logs the session start, each session fixture's setup and teardown, and each
# test's lane, into a file named by the environment (outside the tree).
CONFTEST = '''import os

import pytest

LOG = os.environ["E2E_ORDER_LOG"]


def _log(text):
    with open(LOG, "a", encoding="utf-8") as f:
        f.write(text + "\\n")


def pytest_sessionstart(session):
    _log("session")


@pytest.fixture(scope="session")
def shared():
    _log("setup")
    yield
    _log("teardown")
'''

# Collected witness first, merge next (file order), the example's freeze test before its own
# merge tests; each logs its lane.
LOGGED = "    with open(os.environ['E2E_ORDER_LOG'], 'a', encoding='utf-8') as f:\n" \
         "        f.write('{lane}\\n')\n"


def ordered_suite(invoice: Path) -> None:
    tests = invoice / "tests"
    (tests / "conftest.py").write_text(CONFTEST)
    (tests / "test_b_witness.py").write_text(
        "import os\n\nimport pytest\n\n\n@pytest.mark.witness(locked_on=\"2026-11-02\")\n"
        "def test_b_witness(shared):\n" + LOGGED.format(lane="witness"))
    (tests / "test_c_merge.py").write_text(
        "import os\n\nimport pytest\n\n\n@pytest.mark.merge\ndef test_c_merge(shared):\n"
        "    \"\"\"A logged example.\n\n    owner: billing-team\n    \"\"\"\n"
        + LOGGED.format(lane="merge") + "    assert os.path.isfile(os.environ['E2E_ORDER_LOG'])\n")
    freeze = tests / "test_invoice_freeze.py"
    text = freeze.read_text()
    text = text.replace("import json\n", "import json\nimport os\n", 1)
    text = text.replace("def test_fx_table_refresh_replays(record_property):",
                        "def test_fx_table_refresh_replays(record_property, shared):")
    text += LOGGED.format(lane="freeze")
    freeze.write_text(text)


@pytest.mark.parametrize("separate", [False, True], ids=["one-process", "one-per-lane"])
def test_lanes_run_in_order_and_no_fixture_outlives_its_lane(invoice: Path, tmp_path: Path,
                                                             separate: bool):
    ordered_suite(invoice)
    log = tmp_path / "order.log"
    env = {"E2E_ORDER_LOG": str(log)}
    if separate:
        env["LANES_GATE_SEPARATE"] = "1"
    proc = gate(invoice, "--today", TODAY, **env)
    verdict = json.loads((invoice / "out" / "lanes" / "verdict.json").read_text())
    assert verdict["tally"]["decision"] == "approve", proc.stdout + proc.stderr
    events = log.read_text().split()
    # merge tests first, then witness tests, then freeze tests, whatever the file order; each
    # lane sets the session fixture up and tears it down, as a process of its own would
    assert [e for e in events if e != "session"] == [
        "setup", "merge", "teardown", "setup", "witness", "teardown", "setup", "freeze",
        "teardown"], events
    # one collection for the three lanes, or one per lane when asked
    assert events.count("session") == (3 if separate else 1), events
    assert "one pytest process per lane" not in proc.stderr
    out = invoice / "out" / "lanes"
    for lane in ("merge", "witness", "freeze"):
        report = (out / f"{lane}.xml").read_text()
        assert f"lanes-run v1 lane={lane} shard=1/1" in report
        assert 'name="test_' in report


def normalized(path: Path, out: str) -> str:
    return path.read_text().replace(out, "OUT")


@pytest.mark.parametrize("base", [False, True], ids=["working-tree", "base"])
def test_one_process_gives_the_same_verdict_as_one_per_lane(invoice: Path, base: bool):
    args = ["--today", TODAY, "--format", "json"]
    if base:
        patched_repo(invoice)
        args += ["--base", "HEAD~1"]
    one = gate(invoice, *args, "--out", "out/one")
    sep = gate(invoice, *args, "--out", "out/sep", LANES_GATE_SEPARATE="1")
    assert one.returncode == sep.returncode, one.stderr + sep.stderr
    assert one.returncode == (1 if base else 0), one.stdout[-2000:] + one.stderr
    assert "one pytest process per lane" not in one.stderr
    for name in ("verdict.json", "verdict.md", "pytest-status"):
        assert normalized(invoice / "out" / "one" / name, "out/one") == \
            normalized(invoice / "out" / "sep" / name, "out/sep"), name


@pytest.mark.parametrize("arg", ["-x", "--maxfail=2"])
def test_a_session_wide_stop_runs_one_process_per_lane(invoice: Path, arg: str):
    # `-x` in one process would let a failing merge test stop the witness and freeze lanes
    invoice_py = invoice / "invoice.py"
    invoice_py.write_text(invoice_py.read_text().replace("return applied + credit",
                                                         "return applied"))
    proc = gate(invoice, "--today", TODAY, "--", arg)
    assert "running one pytest process per lane" in proc.stderr, proc.stderr
    out = invoice / "out" / "lanes"
    assert (out / "pytest-status").read_text() == "merge 1\nwitness 0\nfreeze 0\n"
    assert proc.returncode == 1


# A merge test that writes where the bytecode of a standard-library module, of pytest and of the
# tree's own module was looked up, into a file named by the environment (outside the tree).
CACHED_TEST = '''import json
import os
import sys

import pytest

import invoice


@pytest.mark.merge
def test_d_cached():
    """Where bytecode is read from.

    owner: billing-team
    """
    import xml.dom.minidom as stdlib
    with open(os.environ["E2E_CACHED_LOG"], "w", encoding="utf-8") as f:
        json.dump({"prefix": sys.pycache_prefix, "stdlib": stdlib.__cached__,
                   "pytest": pytest.__cached__, "tree": invoice.__cached__}, f)
    assert stdlib.__file__.endswith("minidom.py")
'''


def test_the_interpreters_bytecode_is_read_and_the_trees_never(invoice: Path, tmp_path: Path):
    """In the checkout itself, the standard library and site-packages read their own
    `__pycache__` (no cold compile on every run); the tree's modules only the fresh prefix."""
    (invoice / "tests" / "test_d_cached.py").write_text(CACHED_TEST)
    log = tmp_path / "cached.json"
    proc = gate(invoice, "--today", TODAY, E2E_CACHED_LOG=str(log))
    verdict = json.loads((invoice / "out" / "lanes" / "verdict.json").read_text())
    assert verdict["tally"]["decision"] == "approve", proc.stdout + proc.stderr
    seen = json.loads(log.read_text())
    prefix = seen["prefix"]
    assert prefix and not prefix.startswith(str(invoice)), seen
    for outside in ("stdlib", "pytest"):
        cached = Path(seen[outside])
        assert cached.parent.name == "__pycache__", seen
        assert not seen[outside].startswith(prefix), seen
    assert seen["tree"].startswith(prefix), seen
    assert "__pycache__" not in Path(seen["tree"]).parts, seen
