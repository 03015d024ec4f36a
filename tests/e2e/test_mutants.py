"""unpinned-change (DESIGN §12) through the real lane-gate, real git and real pytest on
examples/invoice: the mutants of each changed product statement the voters ran run on the voting
tests that ran it, and a statement the voters would not notice going wrong rejects, with the
surviving mutant shown, until a maintainer acknowledges it. Each class of wrong change that runs
every changed line under the base's tests (an arithmetic bug only beyond the property's bounds,
the untaken half of a one-line conditional, a branch only an unchecked side computation runs, a
change that goes wrong after many calls) is rejected; an honest change of the same shape, which
the voters pin, is approved. The budget in the base's [tool.lanes] is kept, and what it leaves
unrun is reported; `--mutants off` is named in the verdict."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conftest import head_ack
from test_gate import TODAY, gate, git

INVOICE = "invoice.py"
ROUND_TRIP_RETURN = "    return applied + credit\n"
CLAMP_RETURN = '    return max(total - credit, Decimal("0.00"))\n'


def based(invoice: Path, base_edit=None) -> Path:
    """examples/invoice as a git repository: the base commit (`base_edit` applied first)."""
    if base_edit is not None:
        base_edit(invoice)
    git(invoice, "init", "-q")
    git(invoice, "add", "-A")
    git(invoice, "commit", "-q", "-m", "base")
    return invoice


def change(repo: Path, *edits: tuple[str, str]) -> None:
    path = repo / INVOICE
    text = path.read_text(encoding="utf-8")
    for old, new in edits:
        assert old in text, old
        text = text.replace(old, new, 1)
    path.write_text(text, encoding="utf-8")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "agent: change")


def judged(repo: Path, *args: str) -> tuple[int, dict]:
    proc = gate(repo, "--base", "HEAD~1", "--today", TODAY, *args)
    assert proc.returncode in (0, 1), proc.stdout + proc.stderr
    return proc.returncode, json.loads((repo / "out" / "lanes" / "verdict.json").read_text())


def found(v: dict, rule: str = "unpinned-change") -> list[dict]:
    return [p for p in v["gate"]["problems"] if p["rule"] == rule]


def reasons(v: dict) -> set[str]:
    return {r["rule"] for r in v["tally"]["reasons"]}


def line_of(repo: Path, text: str) -> int:
    lines = (repo / INVOICE).read_text(encoding="utf-8").splitlines()
    return next(i for i, line in enumerate(lines, 1) if line == text.rstrip("\n"))


BEYOND_BOUNDS = "    return applied + credit + CENT * (applied // 100000000)\n"


def test_one_pinned_and_one_unpinned_line_the_survivor_shown(invoice: Path):
    repo = based(invoice)
    # an honest rewrite of the clamp (every mutant killed) and a cent added only beyond the
    # property's bounds (the added term can go and no voter notices)
    change(repo, (CLAMP_RETURN, '    return max(Decimal("0.00"), total - credit)\n'),
           (ROUND_TRIP_RETURN, BEYOND_BOUNDS))
    code, v = judged(repo)
    assert code == 1
    assert reasons(v) == {"unpinned-change"}
    problems = found(v)
    assert [(p["file"], p["line"]) for p in problems] == [
        (INVOICE, line_of(repo, BEYOND_BOUNDS))], problems
    message = problems[0]["message"]
    assert ("no voting test fails if this line is wrong: "
            "`return applied + credit + CENT * (applied // 100000000)` -> "
            "`return (applied + credit)` (operand dropped) survived") in message, message
    assert "survived every voting test; seen run by " \
           "tests/test_invoice_merge.py::test_credit_round_trip" in message, message
    # the markdown verdict and the SARIF log carry it at its line
    md = (repo / "out" / "lanes" / "verdict.md").read_text()
    assert "`return (applied + credit)`" in md
    # and lists the unpinned lines per file, after the gate's section
    listed = md[md.index("Changed lines no voting test would notice going wrong:"):]
    assert listed.startswith(
        f"Changed lines no voting test would notice going wrong:\n\n`{INVOICE}`\n\n"
        f"- line {line_of(repo, BEYOND_BOUNDS)}: no voting test fails if this line is wrong: "), listed
    sarif = json.loads((repo / "out" / "lanes" / "verdict.sarif").read_text())
    results = [r for r in sarif["runs"][0]["results"] if r["ruleId"] == "unpinned-change"]
    assert [r["locations"][0]["physicalLocation"]["region"]["startLine"] for r in results] == [
        line_of(repo, BEYOND_BOUNDS)]
    # a maintainer who read the line acknowledges the commit: a warning, approved
    code, v = judged(repo, "--ack", head_ack(repo, "approving review by @maintainer"))
    assert code == 0, v["tally"]["reasons"]
    assert [p["severity"] for p in found(v)] == ["warning"]


# Each class of wrong change, and an honest change of the same shape the voters pin.
CLASSES = {
    # an arithmetic bug folded into an expression with no branch, beyond the property's bounds
    "beyond-the-bounds": ((ROUND_TRIP_RETURN, BEYOND_BOUNDS),),
    # the untaken half of a one-line conditional
    "untaken-half": ((ROUND_TRIP_RETURN,
                      "    return applied + credit if applied < 100000000 else applied\n"),),
    # a branch that only a side computation, whose result nobody checks, runs
    "side-computation": (
        ("def apply_credit(",
         "def _fee(total):\n    if total > 100:\n        return total * 2\n    return total\n\n\n"
         "def apply_credit("),
        (CLAMP_RETURN, "    _fee(total)\n" + CLAMP_RETURN),
    ),
    # a change that goes wrong only after many calls
    "after-many-calls": (
        ("def invert_credit(", "_CALLS = [0]\n\n\ndef invert_credit("),
        (ROUND_TRIP_RETURN,
         "    _CALLS[0] += 1\n    if _CALLS[0] > 50000:\n        return applied\n"
         + ROUND_TRIP_RETURN),
    ),
}

CONTROLS = {
    "beyond-the-bounds": ((ROUND_TRIP_RETURN, "    return credit + applied\n"),),
    "untaken-half": ((CLAMP_RETURN,
                      '    return total - credit if credit <= total else Decimal("0.00")\n'),),
}


@pytest.mark.parametrize("case", sorted(CLASSES))
def test_each_class_of_unpinned_change_is_rejected(invoice: Path, case: str):
    repo = based(invoice)
    change(repo, *CLASSES[case])
    code, v = judged(repo)
    assert code == 1
    assert "unpinned-change" in reasons(v), v["tally"]["reasons"]
    assert found(v)[0]["severity"] == "error"


@pytest.mark.parametrize("case", sorted(CONTROLS))
def test_the_same_shape_pinned_by_the_voters_is_approved(invoice: Path, case: str):
    repo = based(invoice)
    change(repo, *CONTROLS[case])
    code, v = judged(repo)
    assert code == 0, v["tally"]["reasons"]
    assert found(v) == []


def test_the_base_s_budget_holds_and_what_it_leaves_unrun_is_reported(invoice: Path):
    def budget(tree: Path) -> None:
        (tree / "pyproject.toml").write_text("[tool.lanes]\nmutant-seconds = 0\n")

    repo = based(invoice, budget)
    change(repo, (CLAMP_RETURN, '    return max(Decimal("0.00"), total - credit)\n'))
    code, v = judged(repo)
    assert code == 1
    assert reasons(v) == {"unpinned-change"}
    [problem] = found(v)
    assert "not judged:" in problem["message"]
    assert "the mutant budget (0 s, [tool.lanes] mutant-seconds) ran out" in problem["message"]
    # the patch cannot give itself a budget: [tool.lanes] is test surface
    (repo / "pyproject.toml").write_text("[tool.lanes]\nmutant-seconds = 600\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "agent: budget")
    proc = gate(repo, "--base", "HEAD~2", "--today", TODAY)
    assert proc.returncode == 1
    v = json.loads((repo / "out" / "lanes" / "verdict.json").read_text())
    assert {"test-surface-changed", "unpinned-change"} <= reasons(v)


def test_mutants_off_is_named_in_the_verdict(invoice: Path):
    repo = based(invoice)
    change(repo, (ROUND_TRIP_RETURN, BEYOND_BOUNDS))
    code, v = judged(repo, "--mutants", "off")
    assert code == 0, v["tally"]["reasons"]
    assert found(v) == []
    [off] = found(v, "mutants-off")
    assert off["severity"] == "warning"
    assert "--mutants off" in (repo / "out" / "lanes" / "verdict.md").read_text()
