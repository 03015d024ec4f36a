"""pytest-asyncio, the real plugin, against lane-scan.

lane-scan models pytest-asyncio's modes (crates/lane-scan/src/pytest/asyncio.rs): in `auto` mode the
plugin marks every `async def` test `asyncio` as it collects it, and an async generator test
also `xfail(run=False)` (it never runs); in `strict` mode only the tests the `asyncio` mark
reaches are its own. Here real pytest with the real plugin (a venv of this test's own, built
once from requirements-pytest-asyncio.txt and shared by the xdist workers) collects a suite of
plain, marked and unmarked async tests, class-level and module-level `pytestmark`, `loop_scope=`,
async fixtures, an async generator named test_* and a parametrized async test, in both modes;
lane-scan must report the same ids and every mark pytest sees. Then the gate, running pytest
with that interpreter, rejects a patch under which a merge async test fails.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from conftest import run_pytest, run_tool
from test_gate import TODAY, gate, git, reason_rules
from test_scan_oracle import disagreements
from test_snapshot_libraries import own_venv

E2E = Path(__file__).resolve().parent
REQUIREMENTS = "requirements-pytest-asyncio.txt"

INI = """\
[pytest]
testpaths = tests
pythonpath = .
asyncio_mode = {mode}
asyncio_default_fixture_loop_scope = function
markers =
    merge: votes on the patch
    witness: hash-locked bytes
    freeze: a known flake with a ledger ticket
"""

PRODUCT = '''\
import asyncio


async def total(items):
    await asyncio.sleep(0)
    return sum(items)
'''

PLAIN = '''\
"""owner: qa"""
import pytest
import pytest_asyncio

from shop import total


@pytest_asyncio.fixture
async def prices():
    return [1, 2]


@pytest.fixture
async def plain_async_fixture():
    return [3]


@pytest.mark.merge
async def test_unmarked():
    assert await total([1, 2]) == 3


@pytest.mark.merge
@pytest.mark.asyncio
async def test_marked(prices):
    assert await total(prices) == 3


@pytest.mark.merge
@pytest.mark.asyncio(loop_scope="module")
async def test_loop_scope():
    assert await total([2]) == 2


@pytest.mark.merge
@pytest.mark.asyncio
@pytest.mark.parametrize("n", [1, 2])
async def test_parametrized(n):
    assert await total([n]) == n


@pytest.mark.freeze
async def test_async_generator():
    yield await total([1])


@pytest.mark.freeze
@pytest.mark.asyncio
async def test_marked_async_generator():
    yield await total([2])


@pytest.mark.merge
def test_sync():
    assert sum([1]) == 1


@pytest.mark.merge
class TestClassMarked:
    pytestmark = pytest.mark.asyncio

    async def test_in_class(self):
        assert await total([4]) == 4

    def test_sync_in_class(self):
        assert total is not None
'''

MODULE_MARK = '''\
"""owner: qa"""
import pytest

from shop import total

pytestmark = [pytest.mark.merge, pytest.mark.asyncio(loop_scope="module")]


async def test_module_marked():
    assert await total([5]) == 5


def test_sync_module():
    assert total is not None
'''


def python() -> str:
    return own_venv(REQUIREMENTS)


def project(root: Path, mode: str) -> Path:
    (root / "tests").mkdir(parents=True)
    (root / "pytest.ini").write_text(INI.format(mode=mode))
    (root / "requirements.txt").write_text(
        "".join(f"{line}\n" for line in (E2E / REQUIREMENTS).read_text().splitlines()
                if line and not line.startswith("#")))
    (root / "shop.py").write_text(PRODUCT)
    (root / "tests" / "test_plain.py").write_text(PLAIN)
    (root / "tests" / "test_module_mark.py").write_text(MODULE_MARK)
    (root / "freeze_ledger.json").write_text("[]\n")
    return root


def pytest_view(root: Path, out: Path) -> dict:
    env = {"PYTHONPATH": os.pathsep.join(p for p in (str(E2E), os.environ.get("PYTHONPATH", ""))
                                         if p),
           "COLLECT_PLUGIN_OUT": str(out)}
    proc = run_pytest("--collect-only", "-q", "-p", "collect_plugin", cwd=root, env=env,
                      python=python())
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return json.loads(out.read_text())["tests"]


def scan_view(root: Path) -> dict:
    run = run_tool("lane-scan", "--python", python(), cwd=root)
    assert run.code in (0, 1), run.stderr
    return run.json()["scan"]


@pytest.mark.parametrize("mode", ["strict", "auto"])
def test_lane_scan_agrees_with_real_pytest_asyncio(mode: str, tmp_path: Path):
    root = project(tmp_path / "p", mode)
    expected = pytest_view(root, tmp_path / "pytest.json")
    scan = scan_view(root)
    actual = {t["id"]: t for t in scan["tests"]}
    assert len(expected) == 11
    assert disagreements(expected, actual) == []
    p = "tests/test_plain.py::"
    marks = {tid: set(t["marks"]) for tid, t in actual.items()}
    # The plugin's own marks, as pytest shows them: auto mode owns every async test.
    assert ("asyncio" in expected[p + "test_unmarked"]["marks"]) == (mode == "auto")
    assert ("asyncio" in marks[p + "test_unmarked"]) == (mode == "auto")
    assert "asyncio" not in marks[p + "test_sync"]
    # An async generator test never runs under the plugin: xfail(run=False).
    assert ("xfail" in expected[p + "test_async_generator"]["marks"]) == (mode == "auto")
    assert ("xfail" in marks[p + "test_async_generator"]) == (mode == "auto")
    # The asyncio mark makes it the plugin's in either mode.
    assert "xfail" in expected[p + "test_marked_async_generator"]["marks"]
    assert "xfail" in marks[p + "test_marked_async_generator"]
    # pytestmark reaches sync tests too (pytest-asyncio only warns about them at run time).
    assert "asyncio" in marks["tests/test_module_mark.py::test_sync_module"]
    assert "asyncio" in marks[p + "TestClassMarked::test_sync_in_class"]


def test_an_async_generator_in_a_voting_lane_is_refused_in_auto_mode(tmp_path: Path):
    root = project(tmp_path / "p", "auto")
    plain = root / "tests" / "test_plain.py"
    plain.write_text(plain.read_text().replace(
        "@pytest.mark.freeze\nasync def test_async_generator", 
        "@pytest.mark.merge\nasync def test_async_generator"))
    problems = [p for p in scan_view(root)["problems"] if p["rule"] == "xfail-in-voting-lane"]
    assert [(p["test"], p["file"], p["line"]) for p in problems] == [
        ("tests/test_plain.py::test_async_generator", "tests/test_plain.py", 43)], problems


def test_the_gate_rejects_a_patch_that_breaks_a_merge_async_test(tmp_path: Path):
    root = project(tmp_path / "p", "auto")
    # The async generators are freeze tests, which would need ledger tickets: not this case.
    plain = root / "tests" / "test_plain.py"
    text = plain.read_text()
    start = text.index("@pytest.mark.freeze\n")
    end = text.index("@pytest.mark.merge\ndef test_sync")
    plain.write_text(text[:start] + text[end:])
    git(root, "init", "-q")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "base")
    proc = gate(root, "--today", TODAY, "--python", python())
    assert proc.returncode == 0, proc.stdout + proc.stderr
    git(root, "clean", "-qfdx")
    shop = root / "shop.py"
    shop.write_text(shop.read_text().replace("return sum(items)", "return sum(items) + 1"))
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "agent")
    proc = gate(root, "--base", "HEAD~1", "--today", TODAY, "--python", python())
    assert proc.returncode == 1, proc.stdout + proc.stderr
    verdict = json.loads((root / "out" / "lanes" / "verdict.json").read_text())
    failed = {p["test"] for p in verdict["tally"]["reasons"] if p["rule"] == "merge-failed"}
    assert "merge-failed" in reason_rules(verdict)
    assert "tests/test_plain.py::test_unmarked" in failed
    assert "tests/test_module_mark.py::test_module_marked" in failed
