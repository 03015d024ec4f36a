"""The red-team suite: every case of redteam_cases.py, a patch with a wrong library,
through the real `lane-gate --base` with real git and real pytest, on the default path (the
base's test surface votes) and on the acknowledged path (the patch's own tree votes). Before the
gate runs, a separate interpreter outside pytest checks that the library really is wrong, so no
case can pass by breaking nothing. docs/threats.md's red-team table is generated from the table
(`LANES_BLESS=1` rewrites it; a test fails when it drifts)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from conftest import PYTHON, REPO, head_ack
from redteam_cases import BREAKS, CASES, ROUND_TRIP, STATEMENT, Case, Expect, edit
from test_gate import TODAY, gate, git

ACK = "approving review by @maintainer on #7"
THREATS = REPO / "docs" / "threats.md"
BEGIN = "<!-- red-team table: generated from tests/e2e/redteam_cases.py (LANES_BLESS=1) -->"
END = "<!-- end of the red-team table -->"

# A separate interpreter, isolated (-I: no PYTHON* variables, no user site, not the current
# folder), with its bytecode cache in a fresh folder, loads a copy of the library's source and
# says which of the two behaviours it gets right.
CHECK = r'''
import importlib.util, json, sys
from decimal import Decimal as D
# the golden text is read before the library loads: a library may wrap open() at import
with open(sys.argv[2], encoding="utf-8") as f:
    golden = f.read()
spec = importlib.util.spec_from_file_location("invoice_under_check", sys.argv[1])
m = importlib.util.module_from_spec(spec)
spec.loader.exec_module(m)
pairs = [("5000.00", "1.00"), ("100.00", "30.00"), ("1000000.00", "0.01"), ("19.99", "20.00")]
rt = all(str(m.invert_credit(m.apply_credit(D(t), D(c)), D(c))) == str(D(t))
         for t, c in pairs if D(c) <= D(t))
lines = [("consulting", D("1200.00")), ("travel", D("245.50"))]
st = str(m.render_statement("c-1044", lines, D("100.00"))) == golden
print(json.dumps({"round-trip": rt, "statement": st}), flush=True)
'''


def library_behaviour(repo: Path, scratch: Path) -> dict[str, bool]:
    scratch.mkdir()
    shutil.copy2(repo / "invoice.py", scratch / "invoice.py")
    golden = REPO / "examples" / "invoice" / "tests" / "fixtures" / "statement_v3.txt"
    # outside the gate, as a user runs the library: none of lanes' variables, nor the gate's
    # pinned hash seed and zone, nor a shell's folder
    env = {k: v for k, v in os.environ.items()
           if not k.startswith("LANES_") and k not in ("PYTHONHASHSEED", "TZ", "PWD")}
    proc = subprocess.run([PYTHON, "-I", "-X", f"pycache_prefix={scratch / 'pycache'}", "-c",
                           CHECK, str(scratch / "invoice.py"), str(golden)], cwd=scratch,
                          capture_output=True, text=True, timeout=60, env=env)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


@pytest.fixture(scope="session")
def base_repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The example as a git repository with one commit: built once per worker, copied per case."""
    repo = tmp_path_factory.mktemp("redteam") / "base"
    shutil.copytree(REPO / "examples" / "invoice", repo,
                    ignore=shutil.ignore_patterns("__pycache__", ".hypothesis", ".pytest_cache",
                                                  "out"))
    git(repo, "init", "-q")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "base")
    assert library_behaviour(repo, repo.parent / "check") == {"round-trip": True,
                                                             "statement": True}
    return repo


def patched(base_repo: Path, tmp_path: Path, case: Case) -> Path:
    repo = tmp_path / "repo"
    shutil.copytree(base_repo, repo, symlinks=True)
    edit(repo / "invoice.py", *BREAKS[case.wrong])
    case.patch(repo)
    git(repo, "add", "-A", "--force")
    git(repo, "commit", "-q", "-m", f"agent: {case.id}")
    # the library is wrong, and wrong the way the case says, outside pytest
    seen = library_behaviour(repo, tmp_path / "check")
    assert seen[case.wrong] is False, (case.id, seen)
    assert seen[STATEMENT if case.wrong == ROUND_TRIP else ROUND_TRIP] is True, (case.id, seen)
    return repo


def problems(verdict: dict) -> list[dict]:
    return [p for section in verdict.values() if isinstance(section, dict)
            for p in section.get("problems", [])]


class RuleMissing(AssertionError):
    """The rule a path names is not in the verdict: the only failure a pending path (its rule not
    in the catalogue yet) may show; anything else fails the strict xfail for real."""


def params(path: str):
    for case in CASES:
        expect: Expect = getattr(case, path)
        marks = [pytest.mark.xfail(strict=True, raises=RuleMissing,
                                   reason=f"pending rule: {expect.rule}")] \
            if expect.pending else []
        yield pytest.param(case, id=f"{case.id}-{path}", marks=marks)


def judged(repo: Path, acknowledged: bool) -> tuple[subprocess.CompletedProcess, dict]:
    args = ["--base", "HEAD~1", "--today", TODAY, "--lane-timeout", "300"]
    if acknowledged:
        args += ["--ack", head_ack(repo, ACK)]
    proc = gate(repo, *args)
    assert proc.returncode in (0, 1), proc.stdout + proc.stderr
    verdict = json.loads((repo / "out" / "lanes" / "verdict.json").read_text())
    return proc, verdict


def check(case: Case, expect: Expect, proc: subprocess.CompletedProcess, verdict: dict) -> None:
    reasons = {r["rule"] for r in verdict["tally"]["reasons"]}
    decision = verdict["tally"]["decision"]
    if expect.kind == "reject":
        if expect.rule not in reasons:
            raise RuleMissing(case.id, expect.rule, sorted(reasons))
        assert proc.returncode == 1 and decision == "reject", (case.id, reasons)
        assert f"`{expect.rule}`" in proc.stdout  # the printed verdict names it
    elif expect.kind == "shown":
        acked = [p for p in problems(verdict) if p["rule"] == expect.rule
                 and p["severity"] == "warning" and ACK in p["message"]]
        if not acked:
            raise RuleMissing(case.id, expect.rule, sorted(reasons))
        assert expect.rule not in reasons
    else:
        assert expect.kind == "through"
        assert proc.returncode == 0 and decision == "approve", (case.id, sorted(reasons))
    assert expect.rule != "test-surface-changed" or expect.kind == "through", case.id


@pytest.mark.parametrize("case", list(params("default")))
def test_the_base_s_tests_vote_and_reject(base_repo: Path, tmp_path: Path, case: Case):
    repo = patched(base_repo, tmp_path, case)
    proc, verdict = judged(repo, acknowledged=False)
    assert verdict["gate"]["voting_tree"] == "base-test-surface"
    reasons = {r["rule"] for r in verdict["tally"]["reasons"]}
    # a test-surface change is its own finding; a product-only patch has none
    assert ("test-surface-changed" in reasons) == case.surface, (case.id, sorted(reasons))
    check(case, case.default, proc, verdict)


@pytest.mark.parametrize("case", list(params("ack")))
def test_acknowledged_the_patch_s_own_tree_votes(base_repo: Path, tmp_path: Path, case: Case):
    repo = patched(base_repo, tmp_path, case)
    proc, verdict = judged(repo, acknowledged=True)
    assert verdict["gate"]["voting_tree"] == "patch"
    assert verdict["gate"]["ack"] == head_ack(repo, ACK)
    assert f"Acknowledged: {ACK}" in proc.stdout
    reasons = {r["rule"] for r in verdict["tally"]["reasons"]}
    assert "test-surface-changed" not in reasons  # acknowledged: a warning with the text
    if case.surface:
        assert any(p["rule"] == "test-surface-changed" and ACK in p["message"]
                   for p in problems(verdict)), case.id
    check(case, case.ack, proc, verdict)


def test_the_table_covers_every_origin_and_both_breaks():
    ids = [c.id for c in CASES]
    assert len(ids) == len(set(ids)) and len(ids) >= 40, len(ids)
    assert {c.wrong for c in CASES} == {ROUND_TRIP, STATEMENT}
    assert {c.origin for c in CASES} == {"threat", "design", "accident", "product"}
    for c in CASES:
        for path in ("default", "ack"):
            e: Expect = getattr(c, path)
            assert e.kind in ("reject", "shown", "through"), c.id
            assert e.kind != "through" or c.why, f"{c.id}: a path that gets through says why"
            assert e.rule != "test-surface-changed" or e.kind == "through", c.id


# ---- docs/threats.md, generated ----------------------------------------------------------------

def _cell(e: Expect) -> str:
    rule = "—" if e.rule == "—" else f"`{e.rule}`"
    if e.kind == "reject":
        text = f"rejected: {rule}"
    elif e.kind == "shown":
        text = f"acknowledged: {rule} listed with the text"
    else:
        text = "**not caught**"
    return text + (" (**pending**)" if e.pending else "")


def render() -> str:
    rows = [BEGIN, "",
            "| case | what the patch does | library | default path (base's tests vote) "
            "| acknowledged path (`--ack`: the patch's tree votes) | why it gets through |",
            "|---|---|---|---|---|---|"]
    for c in CASES:
        why = c.why if "through" in (c.default.kind, c.ack.kind) else ""
        rows.append(f"| `{c.id}` | {c.klass} | {c.wrong} | {_cell(c.default)} | {_cell(c.ack)} "
                    f"| {why} |")
    pending = sorted({e.rule for c in CASES for e in (c.default, c.ack) if e.pending})
    rows += ["", f"{len(CASES)} cases, each run on both paths by `tests/e2e/test_redteam.py`. "
             "A path marked pending is a strict xfail naming the rule that will catch "
             f"it ({', '.join(f'`{r}`' for r in pending)}); until then the gate rejects "
             "it on that path for other reasons or not at all.", "", END]
    return "\n".join(rows) + "\n"


def test_threats_md_is_generated_from_the_red_team_table():
    text = THREATS.read_text(encoding="utf-8")
    assert text.count(BEGIN) == 1 and text.count(END) == 1, "markers missing in docs/threats.md"
    head, rest = text.split(BEGIN, 1)
    current, tail = rest.split(END, 1)
    current = BEGIN + current + END + "\n"
    tail = tail[1:] if tail.startswith("\n") else tail
    expected = render()
    if os.environ.get("LANES_BLESS") == "1" and current != expected:
        THREATS.write_text(head + expected + tail, encoding="utf-8")
        current = expected
    assert current == expected, "docs/threats.md drifted: rerun with LANES_BLESS=1"
