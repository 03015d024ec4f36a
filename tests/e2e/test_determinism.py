"""Determinism: the same inputs give the same bytes, whatever the run, the folder the tools are
started from, or the locale."""

from __future__ import annotations

import json
from pathlib import Path

from conftest import REPO, copy_tree, run_pytest, run_tool

TODAY = "2026-12-01"


def pipeline(tree: Path, cwd: Path, env: dict | None = None) -> tuple[bytes, bytes]:
    """Runs the whole gate on `tree` with the tools started in `cwd`; returns the evidence
    document before pytest and the verdict document."""
    rel = lambda p: str(Path(p).relative_to(cwd)) if Path(p).is_relative_to(cwd) else str(p)
    root = rel(tree)
    scan = run_tool("lane-scan", root, cwd=cwd, env=env)
    assert scan.code == 0, scan.stderr
    lock = run_tool("lane-lock", "verify", "--rootdir", root, stdin=scan.stdout, cwd=cwd, env=env)
    assert lock.code == 0, lock.stderr
    ledger = run_tool("freeze-ledger", "check", "--rootdir", root, "--today", TODAY,
                      stdin=lock.stdout, cwd=cwd, env=env)
    assert ledger.code == 0, ledger.stderr
    out = tree / "out"
    out.mkdir(exist_ok=True)
    junit = []
    for lane in ("merge", "witness", "freeze"):
        proc = run_pytest("--strict-markers", "-m", lane, f"--junitxml=out/{lane}.xml", cwd=tree)
        assert proc.returncode == 0, proc.stdout
        junit += ["--junit", f"{lane}={rel(out / (lane + '.xml'))}"]
    tally = run_tool("lane-tally", *junit, "--rootdir", root, stdin=ledger.stdout, cwd=cwd, env=env)
    assert tally.code == 0, tally.stderr
    return ledger.stdout.encode(), tally.stdout.encode()


def test_two_runs_give_identical_bytes(tmp_path: Path):
    first = copy_tree(REPO / "examples" / "invoice", tmp_path / "a" / "invoice")
    second = copy_tree(REPO / "examples" / "invoice", tmp_path / "b" / "elsewhere")
    assert pipeline(first, first) == pipeline(second, second)


def test_the_current_folder_does_not_change_the_evidence(tmp_path: Path):
    tree = copy_tree(REPO / "examples" / "invoice", tmp_path / "invoice")
    inside_evidence, inside_verdict = pipeline(tree, tree)
    outside_evidence, outside_verdict = pipeline(tree, tmp_path)
    assert inside_evidence == outside_evidence
    inside, outside = json.loads(inside_verdict), json.loads(outside_verdict)
    # Report paths are recorded as given on the command line; everything else is equal.
    for doc in (inside, outside):
        doc["tally"].pop("reports")
    assert inside == outside


def test_the_locale_does_not_change_the_bytes(tmp_path: Path):
    tree = copy_tree(REPO / "examples" / "invoice", tmp_path / "invoice")
    c = pipeline(tree, tree, env={"LC_ALL": "C", "LANG": "C"})
    utf8 = pipeline(tree, tree, env={"LC_ALL": "C.UTF-8", "LANG": "C.UTF-8"})
    other = pipeline(tree, tree, env={"LC_ALL": "tr_TR.UTF-8", "LANG": "tr_TR.UTF-8", "TZ": "Asia/Tokyo"})
    assert c == utf8 == other
