"""Snapshot libraries are witnesses: real syrupy writes its snapshot file with real
pytest, lane-scan gives the witness test that file as a fixture, lane-lock locks it, and
lane-gate rejects a patch that rewrites the snapshot without a lock edit."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conftest import run_pytest, run_tool
from test_gate import TODAY, gate, git, reason_rules

pytest.importorskip("syrupy", reason="syrupy is pinned in requirements-dev.txt")

PRODUCT = '''\
def render(items):
    """A report of (name, cents) pairs."""
    return {"lines": [f"{n}: {c / 100:.2f}" for n, c in items],
            "total": sum(c for _, c in items)}
'''

MERGE = '''\
import pytest

from report import render


@pytest.mark.merge
def test_total_is_the_sum():
    """owner: billing-team"""
    assert render([("a", 1), ("b", 2)])["total"] == 3
'''

WITNESS = '''\
import pytest

from report import render


@pytest.mark.witness
def test_report_layout(snapshot):
    assert render([("tea", 250), ("cake", 1175)]) == snapshot


class TestRounding:
    @pytest.mark.witness
    def test_cents(self, snapshot):
        assert render([("x", 5)])["lines"] == snapshot
'''

INI = """\
[pytest]
pythonpath = .
testpaths = tests
addopts = --strict-markers
markers =
    merge: votes on the patch
    witness(fixture=None, locked_on=None): hash-locked bytes
    freeze: a known flake with a ledger ticket
"""

AMBR = "tests/__snapshots__/test_report_witness.ambr"


def project(root: Path) -> Path:
    (root / "tests").mkdir(parents=True)
    (root / "pytest.ini").write_text(INI)
    (root / "requirements.txt").write_text("pytest==9.2.0\nsyrupy==7.0.3\n")
    (root / "report.py").write_text(PRODUCT)
    (root / "tests" / "test_report_merge.py").write_text(MERGE)
    (root / "tests" / "test_report_witness.py").write_text(WITNESS)
    (root / "freeze_ledger.json").write_text("[]\n")
    update = run_pytest("--snapshot-update", "-q", cwd=root)
    assert update.returncode == 0, update.stdout + update.stderr
    assert (root / AMBR).is_file(), update.stdout
    return root


def scan(root: Path) -> dict:
    run = run_tool("lane-scan", ".", cwd=root)
    assert run.code == 0, run.stdout + run.stderr
    return json.loads(run.stdout)


def locked(root: Path) -> Path:
    run = run_tool("lane-lock", "lock", AMBR, "--today", TODAY, cwd=root)
    assert run.code == 0, run.stdout + run.stderr
    return root


def verify(root: Path) -> tuple[int, dict]:
    run = run_tool("lane-lock", "verify", stdin=json.dumps(scan(root)), cwd=root)
    assert run.code in (0, 1), run.stderr
    return run.code, json.loads(run.stdout)


def rules(section: dict) -> set[str]:
    return {p["rule"] for p in section["problems"]}


def test_a_syrupy_snapshot_is_the_witness_tests_fixture(tmp_path: Path):
    root = project(tmp_path / "p")
    tests = {t["id"]: t for t in scan(root)["scan"]["tests"]}
    for tid in ("tests/test_report_witness.py::test_report_layout",
                "tests/test_report_witness.py::TestRounding::test_cents"):
        assert tests[tid]["attachments"]["fixtures"] == [AMBR], tests[tid]
    # a merge test has no fixtures; the snapshot is listed as one the scan found
    assert "fixtures" not in tests["tests/test_report_merge.py::test_total_is_the_sum"][
        "attachments"]
    assert scan(root)["scan"]["snapshots"] == [AMBR]
    # unlocked, the snapshot is an unlocked fixture; locked, verify is clean
    code, doc = verify(root)
    assert code == 1 and rules(doc["lock"]) == {"unlocked-fixture"}, doc["lock"]
    code, doc = verify(locked(root))
    assert code == 0 and doc["lock"]["problems"] == [], doc["lock"]


def test_a_snapshot_file_no_witness_test_uses_is_reported(tmp_path: Path):
    root = locked(project(tmp_path / "p"))
    stale = root / "tests" / "__snapshots__" / "test_renamed_away.ambr"
    stale.write_text((root / AMBR).read_text())
    code, doc = verify(root)
    orphans = [p for p in doc["lock"]["problems"] if p["rule"] == "orphan-snapshot"]
    assert [p["file"] for p in orphans] == ["tests/__snapshots__/test_renamed_away.ambr"]
    assert orphans[0]["severity"] == "warning" and code == 0


def base_repo(tmp_path: Path) -> Path:
    root = locked(project(tmp_path / "p"))
    git(root, "init", "-q")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "base")
    proc = gate(root, "--today", TODAY)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    git(root, "clean", "-qfdx")
    return root


def test_the_gate_rejects_a_patch_that_rewrites_a_snapshot_without_a_lock_edit(tmp_path: Path):
    root = base_repo(tmp_path)
    # The agent changes the output and regenerates the snapshot to match, lock untouched.
    report = root / "report.py"
    report.write_text(report.read_text().replace(":.2f", ":.3f"))
    update = run_pytest("--snapshot-update", "-q", cwd=root)
    assert update.returncode == 0, update.stdout + update.stderr
    assert git(root, "status", "--porcelain", AMBR).strip(), "the snapshot was rewritten"
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "agent")
    proc = gate(root, "--base", "HEAD~1", "--today", TODAY)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    verdict = json.loads((root / "out" / "lanes" / "verdict.json").read_text())
    assert "digest-moved" in reason_rules(verdict), verdict["tally"]["reasons"]
    moved = [p for p in verdict["tally"]["reasons"] if p["rule"] == "digest-moved"]
    assert moved and {p.get("file") for p in moved} == {AMBR}, moved


def test_the_snapshot_witness_fails_a_patch_that_changes_the_output(tmp_path: Path):
    root = base_repo(tmp_path)
    report = root / "report.py"
    report.write_text(report.read_text().replace(":.2f", ":.3f"))
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "agent")
    proc = gate(root, "--base", "HEAD~1", "--today", TODAY)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    verdict = json.loads((root / "out" / "lanes" / "verdict.json").read_text())
    failed = [r for r in verdict["tally"]["reasons"] if r["rule"] == "witness-failed"]
    assert {r["test"] for r in failed} == {
        "tests/test_report_witness.py::test_report_layout",
        "tests/test_report_witness.py::TestRounding::test_cents"}, verdict["tally"]["reasons"]
