"""Module doctests under the gate: a tiny project with `--doctest-modules` and
`lanes_doctest_lane = merge`, in real git, run by real pytest with pytest-lanes-gate installed
(it marks every doctest item with the configured lane), judged by lane-scan, lane-tally and
lane-gate as any test of that lane."""

from __future__ import annotations

import json
from pathlib import Path

from conftest import PYTHON, head_ack, run_tool
from test_gate import git
from test_plugin import cases, gate, plugin_python, pytest_run, write  # noqa: F401

INI = ("[pytest]\naddopts = --doctest-modules\n"
       "markers =\n    merge: votes\n    witness: locked bytes\n    freeze: known flakes\n"
       "lanes_doctest_lane = merge\n")
OPS = '''"""Arithmetic.

owner: team-calc
"""


def double(x):
    """Twice x.

    >>> double(21)
    42
    """
    return 2 * x


def half(x):
    """No example: no doctest item."""
    return x / 2
'''
PROJECT = {
    "pytest.ini": INI,
    "calc/__init__.py": "",
    "calc/ops.py": OPS,
    "tests/test_ops.py": (
        "import pytest\n\nfrom calc.ops import half\n\n\n"
        "@pytest.mark.merge\n"
        "def test_half():\n"
        "    \"\"\"owner: team-calc\"\"\"\n"
        "    assert half(8) == 4\n"
    ),
}
DOCTEST_ID = "calc/ops.py::calc.ops.double"
ACK = "approving review by @maintainer on #18"


def project(tmp_path: Path, files: dict[str, str] = PROJECT) -> Path:
    root = write(tmp_path / "calc-project", files)
    git(root, "init", "-q")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "base")
    return root


def commit(root: Path, path: str, old: str, new: str) -> None:
    file = root / path
    text = file.read_text()
    assert old in text, (path, old)
    file.write_text(text.replace(old, new, 1))
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "patch")


def verdict_of(root: Path) -> dict:
    return json.loads((root / "out" / "lanes" / "verdict.json").read_text())


def reasons(verdict: dict) -> list[dict]:
    return verdict["tally"]["reasons"]


def test_a_passing_doctest_votes_and_the_gate_approves(tmp_path, plugin_python):
    root = project(tmp_path)
    proc = gate(root, plugin_python)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    verdict = verdict_of(root)
    assert verdict["tally"]["decision"] == "approve", reasons(verdict)
    scan = {t["id"]: t for t in verdict["scan"]["tests"]}
    assert scan[DOCTEST_ID]["lane"] == "merge"
    assert scan[DOCTEST_ID]["attachments"]["owner"] == "team-calc"
    # The doctest ran in the merge lane, with the mark the plugin gave it at collection.
    merge = cases(root / "out" / "lanes" / "merge.xml")
    assert merge["calc.ops.double"]["failure"] is None
    assert merge["calc.ops.double"]["props"]["lanes_marks"] == "merge"
    assert merge["calc.ops.double"]["props"]["lanes_test"] == DOCTEST_ID
    assert "lane-drift" not in {p["rule"] for p in verdict["tally"].get("problems", [])}


def test_a_patch_that_breaks_the_documented_function_is_rejected(tmp_path, plugin_python):
    root = project(tmp_path)
    commit(root, "calc/ops.py", "return 2 * x", "return 2 * x + 1")
    proc = gate(root, plugin_python, "--base", "HEAD~1")
    assert proc.returncode == 1, proc.stdout + proc.stderr
    verdict = verdict_of(root)
    assert verdict["tally"]["decision"] == "reject"
    failed = [r for r in reasons(verdict) if r["rule"] == "merge-failed"]
    assert [r.get("test") for r in failed] == [DOCTEST_ID], reasons(verdict)


def test_a_patch_that_rewrites_the_doctest_with_the_function_is_rejected(tmp_path,
                                                                          plugin_python):
    root = project(tmp_path)
    # The expected output follows the broken code: the doctest passes, but it is a test the
    # patch rewrote in a product file.
    (root / "calc" / "ops.py").write_text(OPS.replace("    42\n", "    43\n"))
    commit(root, "calc/ops.py", "return 2 * x", "return 2 * x + 1")
    proc = gate(root, plugin_python, "--base", "HEAD~1")
    assert proc.returncode == 1, proc.stdout + proc.stderr
    verdict = verdict_of(root)
    problems = [p for p in verdict["scan"]["problems"] if p["rule"] == "doctest-changed"]
    assert [(p["file"], p["line"], p["test"]) for p in problems] == [
        ("calc/ops.py", 11, DOCTEST_ID)], verdict["scan"]["problems"]
    assert "merge-failed" not in {r["rule"] for r in reasons(verdict)}
    # A maintainer's acknowledgment turns it into a reviewed warning.
    proc = gate(root, plugin_python, "--base", "HEAD~1", "--ack", head_ack(root, ACK))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    acked = [p for p in verdict_of(root)["scan"]["problems"] if p["rule"] == "doctest-changed"]
    assert [p["severity"] for p in acked] == ["warning"]


def test_without_the_key_the_gate_rejects_naming_each_doctest_item(tmp_path, plugin_python):
    files = dict(PROJECT, **{"pytest.ini": INI.replace("lanes_doctest_lane = merge\n", "")})
    root = project(tmp_path, files)
    proc = gate(root, plugin_python)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    unmarked = [p for p in verdict_of(root)["scan"]["problems"] if p["rule"] == "unmarked"]
    assert [(p["file"], p["line"], p["test"]) for p in unmarked] == [
        ("calc/ops.py", 8, DOCTEST_ID)], unmarked
    assert "lanes_doctest_lane" in unmarked[0]["message"]


def test_a_patch_moving_the_doctests_out_of_merge_is_not_silent(tmp_path, plugin_python):
    root = project(tmp_path)
    # The patch breaks the function and moves every doctest item to freeze (which never
    # votes), so that the failing doctest would no longer count.
    (root / "freeze_ledger.json").write_text(json.dumps([{
        "test_id": DOCTEST_ID, "seed": 1, "input_sha256": "0" * 64,
        "expires_on": "2027-01-15", "last_replay_job": "https://ci.example.invalid/jobs/1"}]) + "\n")
    (root / "calc" / "ops.py").write_text(OPS.replace("return 2 * x", "return 2 * x + 1"))
    commit(root, "pytest.ini", "lanes_doctest_lane = merge", "lanes_doctest_lane = freeze")
    proc = gate(root, plugin_python, "--base", "HEAD~1")
    assert proc.returncode == 1, proc.stdout + proc.stderr
    verdict = verdict_of(root)
    rules = {r["rule"] for r in reasons(verdict)}
    # The config is test surface: the base's config votes, the doctest stays merge and fails.
    assert {"test-surface-changed", "merge-failed"} <= rules, reasons(verdict)
    # Acknowledged, the patch's own tree votes, and the verdict still names the doctest that
    # left the merge lane (lane-changed, acknowledged), beside the failing freeze case.
    proc = gate(root, plugin_python, "--base", "HEAD~1", "--ack", head_ack(root, ACK))
    assert proc.returncode == 1, proc.stdout + proc.stderr
    verdict = verdict_of(root)
    tally = verdict["tally"]
    changed = [r for r in tally["reasons"] + tally["problems"] if r["rule"] == "lane-changed"]
    assert [(r.get("test"), r["severity"]) for r in changed] == [(DOCTEST_ID, "warning")], tally
    assert ACK in changed[0]["message"]
    scan = {t["id"]: t for t in verdict["scan"]["tests"]}
    assert scan[DOCTEST_ID]["lane"] == "freeze"


def test_lane_tally_counts_doctest_items_like_any_test_of_their_lane(tmp_path, plugin_python):
    root = project(tmp_path)
    scan = run_tool("lane-scan", "--python", str(plugin_python), cwd=root)
    assert scan.code == 0, scan.stdout + scan.stderr
    document = scan.stdout
    junits = []
    for lane in ("merge", "witness", "freeze"):
        report = tmp_path / f"{lane}.xml"
        proc = pytest_run(plugin_python, root, "-m", lane, "-o", "junit_family=xunit1",
                          f"--junitxml={report}")
        assert proc.returncode in (0, 5), proc.stdout + proc.stderr
        junits += ["--junit", f"{lane}={report}"]
    tally = run_tool("lane-tally", *junits, stdin=document, cwd=root)
    assert tally.code == 0, tally.stdout + tally.stderr
    verdict = json.loads(tally.stdout)["tally"]
    assert verdict["decision"] == "approve"
    # Without the plugin the doctest item carries no lane mark, so `-m merge` leaves it out:
    # the scan's merge doctest has no vote, and the tally says so.
    plain = []
    for lane in ("merge", "witness", "freeze"):
        report = tmp_path / f"plain-{lane}.xml"
        proc = pytest_run(PYTHON, root, "-m", lane, "-o", "junit_family=xunit1",
                          f"--junitxml={report}", "-o", "markers=merge\nwitness\nfreeze")
        assert proc.returncode in (0, 5), proc.stdout + proc.stderr
        plain += ["--junit", f"{lane}={report}"]
    blind = run_tool("lane-tally", *plain, stdin=document, cwd=root)
    assert blind.code == 1, blind.stdout
    missing = [r for r in json.loads(blind.stdout)["tally"]["reasons"]
               if r["rule"] == "missing-vote"]
    assert [r.get("test") for r in missing] == [DOCTEST_ID], blind.stdout


def test_the_plugin_refuses_an_invalid_lane(tmp_path, plugin_python):
    files = dict(PROJECT, **{"pytest.ini": INI.replace("= merge", "= voting")})
    root = write(tmp_path / "bad", files)
    proc = pytest_run(plugin_python, root, "--collect-only", "-q")
    assert proc.returncode == 4, proc.stdout + proc.stderr
    assert "lanes_doctest_lane is 'voting'" in proc.stderr
    scan = run_tool("lane-scan", cwd=root)
    assert scan.code == 2, scan.stdout
    assert "pytest.ini:7" in scan.stderr
