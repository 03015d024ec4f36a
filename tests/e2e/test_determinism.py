"""Determinism: the same inputs give the same bytes, whatever the run, the folder the tools are
started from, or the locale."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from conftest import PYTHON, REPO, copy_tree, run_pytest, run_tool

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
        proc = run_pytest("--strict-markers", "-m", lane, f"--junitxml=out/{lane}.xml", cwd=tree,
                          env=env)
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
    # Report paths are recorded relative to the rootdir, however they were given (here
    # `invoice/out/merge.xml` from outside, `out/merge.xml` from inside).
    assert inside_verdict == outside_verdict
    reports = json.loads(inside_verdict)["tally"]["reports"]
    assert [r["path"] for r in reports] == ["out/merge.xml", "out/witness.xml", "out/freeze.xml"]


@pytest.fixture(scope="module")
def turkish(tmp_path_factory) -> dict:
    """A real tr_TR.UTF-8 locale (dotless i, decimal comma), compiled into a private LOCPATH so
    the test does not depend on the locales a machine happens to have installed."""
    if shutil.which("localedef") is None:
        pytest.skip("localedef is not installed: cannot build a non-C locale")
    loc = tmp_path_factory.mktemp("locale")
    proc = subprocess.run(["localedef", "-i", "tr_TR", "-f", "UTF-8", str(loc / "tr_TR.UTF-8")],
                          capture_output=True, text=True)
    if not (loc / "tr_TR.UTF-8").exists():
        pytest.skip(f"localedef could not build tr_TR.UTF-8: {proc.stderr.strip()}")
    env = {"LOCPATH": str(loc), "LC_ALL": "tr_TR.UTF-8", "LANG": "tr_TR.UTF-8",
           "TZ": "Asia/Tokyo"}
    check = subprocess.run([PYTHON, "-c", "import locale; locale.setlocale(locale.LC_ALL, '');"
                            "print(locale.localeconv()['decimal_point'])"],
                           capture_output=True, text=True, env={**os.environ, **env})
    assert check.stdout.strip() == ",", check.stderr  # the locale is really in effect
    return env


def test_the_locale_does_not_change_the_bytes(tmp_path: Path, turkish: dict):
    tree = copy_tree(REPO / "examples" / "invoice", tmp_path / "invoice")
    c = pipeline(tree, tree, env={"LC_ALL": "C", "LANG": "C"})
    utf8 = pipeline(tree, tree, env={"LC_ALL": "C.UTF-8", "LANG": "C.UTF-8"})
    other = pipeline(tree, tree, env=turkish)
    assert c == utf8 == other


# ---- lane-gate, --base and all, as a CI job runs it ----

GATE_OUT = ("evidence.json", "base-evidence.json", "verdict.json", "verdict.md", "pytest-status",
            "capture.json")


def gated(tmp_path: Path, name: str, env: dict | None = None) -> tuple[int, str, dict]:
    """The agent patch on a fresh git copy of the example, gated with --base; returns the status,
    the printed verdict and the bytes of every document the gate leaves."""
    from test_gate import gate, patched_repo
    repo = patched_repo(copy_tree(REPO / "examples" / "invoice", tmp_path / name / "invoice"))
    proc = gate(repo, "--base", "HEAD~1", "--today", "2026-12-01", **(env or {}))
    out = repo / "out" / "lanes"
    return proc.returncode, proc.stdout, {f: (out / f).read_bytes() for f in GATE_OUT}


def test_the_gate_twice_gives_identical_bytes(tmp_path: Path):
    first = gated(tmp_path, "one")
    assert first[0] == 1, first[1]
    assert gated(tmp_path, "two") == first


def test_the_gate_in_another_locale_gives_identical_bytes(tmp_path: Path, turkish: dict):
    # the gate pins TZ=UTC for pytest itself; the tools and git run in the caller's locale
    assert gated(tmp_path, "c", {"LC_ALL": "C", "LANG": "C"}) == gated(tmp_path, "tr", turkish)
