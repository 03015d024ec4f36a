"""The threat catalogue (docs/threats.md), end to end: each way a patch can try to pass the gate,
applied to a copy of examples/invoice, run through the whole gate with real pytest, and the rule
that catches it.

Each case is a patch an agent might write. The gate sees the patched tree (and, for the
patch-aware checks, the base tree): lane-scan | lane-lock verify | freeze-ledger check, then
merge, witness and freeze as three pytest runs, then lane-tally (with --base when the case has a
base). A case passes when the gate rejects and the expected rules are among its reasons.
"""

from __future__ import annotations

import json
import shutil
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

import pytest

from conftest import REPO, copy_tree, run_pytest, run_tool

TODAY = "2026-12-01"
MERGE = "tests/test_invoice_merge.py"
WITNESS = "tests/test_invoice_witness.py"
FREEZE = "tests/test_invoice_freeze.py"


def edit(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert old in text, f"{old!r} not in {path}"
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


@dataclass
class Gate:
    code: int
    doc: dict
    base_doc: dict | None = None
    side: dict = field(default_factory=dict)

    def reasons(self) -> set[str]:
        return {r["rule"] for r in self.doc["tally"]["reasons"]}

    def warnings(self) -> set[str]:
        out = set()
        for name, section in self.doc.items():
            if isinstance(section, dict):
                out |= {p["rule"] for p in section.get("problems", [])
                        if p["severity"] == "warning"}
        return out


def pre_pytest(tree: Path, today: str = TODAY) -> dict:
    scan = run_tool("lane-scan", cwd=tree)
    assert scan.code in (0, 1), scan.stderr
    lock = run_tool("lane-lock", "verify", stdin=scan.stdout, cwd=tree)
    assert lock.code in (0, 1), lock.stderr
    ledger = run_tool("freeze-ledger", "check", "--today", today, stdin=lock.stdout, cwd=tree)
    assert ledger.code in (0, 1), ledger.stderr
    return json.loads(ledger.stdout)


def run_gate(tree: Path, base: Path | None = None, lane_args: dict | None = None,
             today: str = TODAY, changed: list[str] | None = None) -> Gate:
    """The whole gate on `tree`; `base` adds lane-lock diff, freeze-ledger diff and --base."""
    doc = pre_pytest(tree, today)
    base_doc = None
    if base is not None:
        base_doc = pre_pytest(base, today)
        changed_file = tree.parent / "changed.txt"
        changed_file.write_text("\n".join(changed or []) + "\n")
        diff = run_tool("lane-lock", "diff", str(base / "lanes.lock"), str(tree / "lanes.lock"),
                        "--changed", str(changed_file), stdin=json.dumps(doc), cwd=tree)
        assert diff.code in (0, 1), diff.stderr
        ldiff = run_tool("freeze-ledger", "diff", str(base / "freeze_ledger.json"),
                         str(tree / "freeze_ledger.json"), stdin=diff.stdout, cwd=tree)
        assert ldiff.code in (0, 1), ldiff.stderr
        doc = json.loads(ldiff.stdout)
        (tree.parent / "base.json").write_text(json.dumps(base_doc))
    junit = []
    for lane in ("merge", "witness", "freeze"):
        report = tree.parent / f"{lane}.xml"
        args = (lane_args or {}).get(lane, ["-m", lane])
        proc = run_pytest("--strict-markers", *args, f"--junitxml={report}", cwd=tree)
        assert proc.returncode in (0, 1, 5), proc.stdout + proc.stderr
        junit += ["--junit", f"{lane}={report}"]
    extra = ["--base", str(tree.parent / "base.json")] if base is not None else []
    tally = run_tool("lane-tally", *junit, *extra, stdin=json.dumps(doc), cwd=tree)
    assert tally.code in (0, 1), tally.stderr
    return Gate(tally.code, json.loads(tally.stdout), base_doc)


# ---- the patches ------------------------------------------------------------------------

def skip_voter(t: Path) -> None:
    edit(t / MERGE, "@pytest.mark.merge\n@settings", "@pytest.mark.merge\n@pytest.mark.skip(reason='flaky')\n@settings")


def skipif_true(t: Path) -> None:
    edit(t / MERGE, "@pytest.mark.merge\ndef test_credit_examples", "@pytest.mark.merge\n@pytest.mark.skipif(True, reason='later')\ndef test_credit_examples")


def xfail_voter(t: Path) -> None:
    edit(t / "invoice.py", "return applied + credit", "return applied")
    edit(t / MERGE, "@pytest.mark.merge\n@settings", "@pytest.mark.merge\n@pytest.mark.xfail(reason='known')\n@settings")


def tautology(t: Path) -> None:
    edit(t / MERGE, '''    assert apply_credit(Decimal("100.00"), Decimal("30.00")) == Decimal("70.00")
    assert apply_credit(Decimal("19.99"), Decimal("20.00")) == Decimal("0.00")
    assert invert_credit(Decimal("70.00"), Decimal("30.00")) == Decimal("100.00")
    with pytest.raises(ValueError):
        apply_credit(Decimal("-1.00"), Decimal("0.00"))''', '''    applied = apply_credit(Decimal("100.00"), Decimal("30.00"))
    assert applied == applied''')


def merge_to_freeze(t: Path) -> None:
    edit(t / MERGE, "@pytest.mark.merge\ndef test_credit_examples", "@pytest.mark.freeze\ndef test_credit_examples")


def delete_voter(t: Path) -> None:
    text = (t / MERGE).read_text(encoding="utf-8")
    (t / MERGE).write_text(text[: text.index("@pytest.mark.merge\ndef test_credit_examples")],
                           encoding="utf-8")


def rename_voter(t: Path) -> None:
    edit(t / MERGE, "def test_credit_round_trip(", "def test_credit_round_trip_fast(")
    edit(t / "invoice.py", "return applied + credit", "return applied")
    edit(t / MERGE, "@pytest.mark.merge\n@settings", "@pytest.mark.merge\n@pytest.mark.skipif('sys.platform != \"nowhere\"')\n@settings")


def relock_golden(t: Path) -> None:
    edit(t / "invoice.py", "out.append(f\"{'due':<20}", "out.append(f\"{'amount due':<20}")
    golden = t / "tests/fixtures/statement_v3.txt"
    edit(golden, "due     ", "amount due")
    locked = run_tool("lane-lock", "lock", "tests/fixtures/statement_v3.txt", "--today", TODAY,
                      cwd=t)
    assert locked.code == 0, locked.stderr


def deselect_hook(t: Path) -> None:
    (t / "tests/conftest.py").write_text(
        "def pytest_collection_modifyitems(config, items):\n"
        "    keep = [i for i in items if 'test_credit_examples' not in i.nodeid]\n"
        "    config.hook.pytest_deselected(items=[i for i in items if i not in keep])\n"
        "    items[:] = keep\n", encoding="utf-8")
    edit(t / "invoice.py", "return max(total - credit", "return max(total + credit")


def wider_selection(t: Path) -> None:
    pass


def rerun_flaky(t: Path) -> None:
    (t / "tests/test_invoice_flaky.py").write_text(
        "from pathlib import Path\n\nimport pytest\n\n\n"
        "@pytest.mark.merge\n"
        "def test_settles_on_second_try(tmp_path_factory):\n"
        '    """Fails on the first run of the session, passes on the rerun.\n\n'
        '    owner: agent\n    """\n'
        "    marker = Path(__file__).with_name('.ran-once')\n"
        "    first = not marker.exists()\n"
        "    marker.write_text('x')\n"
        "    assert not first\n", encoding="utf-8")


def new_freeze_ticket(t: Path) -> None:
    (t / "tests/test_invoice_frozen_too.py").write_text(
        "import pytest\n\n\n@pytest.mark.freeze\ndef test_rounding_drifts():\n    assert round(2.675, 2) == 2.67\n",
        encoding="utf-8")
    added = run_tool("freeze-ledger", "add", "tests/test_invoice_frozen_too.py::test_rounding_drifts",
                     "--seed", "7", "--input-sha256", "a" * 64, "--expires", "2027-01-10",
                     "--replay-job", "https://ci.example.invalid/jobs/1", "--today", TODAY, cwd=t)
    assert added.code == 0, added.stderr


def body_skip(t: Path) -> None:
    edit(t / MERGE, '    """Worked examples', '    pytest.skip("flaky on CI")\n    """Worked examples')


def runtime_marks(t: Path) -> None:
    edit(t / MERGE, "@pytest.mark.merge\ndef test_credit_examples",
         "@getattr(pytest.mark, 'mer' + 'ge')\ndef test_credit_examples")


def generated_test(t: Path) -> None:
    (t / "tests/test_invoice_generated.py").write_text(
        "import pytest\n\n\ndef _make():\n    def check():\n        assert True\n"
        "    return pytest.mark.merge(check)\n\n\nglobals()['test_generated'] = _make()\n",
        encoding="utf-8")


def unmarked_test(t: Path) -> None:
    (t / "tests/test_invoice_extra.py").write_text(
        "from decimal import Decimal\n\nfrom invoice import apply_credit\n\n\n"
        "def test_zero_credit():\n    assert apply_credit(Decimal('5'), Decimal('0')) == Decimal('5.00')\n",
        encoding="utf-8")


@dataclass
class Threat:
    name: str
    patch: Callable[[Path], None]
    caught_by: set[str]
    base: bool = False
    changed: tuple[str, ...] = ()
    lane_args: dict | None = None
    today: str = TODAY


THREATS = [
    Threat("unconditional skip on a voter", skip_voter, {"unconditional-skip"}),
    Threat("skipif(True) on a voter", skipif_true, {"unconditional-skip"}),
    Threat("xfail on a broken voter", xfail_voter, {"xfail-in-voting-lane"}),
    Threat("tautological merge test", tautology, {"tautology"}),
    Threat("merge test turned freeze", merge_to_freeze, {"lane-changed", "missing-ticket"},
           base=True, changed=(MERGE,)),
    Threat("failing voter deleted", delete_voter, {"merge-test-removed"}, base=True,
           changed=(MERGE,)),
    Threat("failing voter renamed and skipped at run time", rename_voter,
           {"merge-test-removed", "merge-skipped"}, base=True, changed=(MERGE, "invoice.py")),
    Threat("golden file re-locked with the behaviour change", relock_golden,
           {"lock-batched-with-behavior", "lock-entry-moved"}, base=True,
           changed=("invoice.py", "tests/fixtures/statement_v3.txt", "lanes.lock")),
    Threat("conftest hook deselects a failing voter", deselect_hook, {"missing-vote"}),
    Threat("merge report produced with a wider -m", wider_selection, {"lane-mismatch"},
           lane_args={"merge": ["-m", "merge or witness"]}),
    Threat("flaky voter rescued by reruns", rerun_flaky, {"flaky-voter"},
           lane_args={"merge": ["-m", "merge", "--reruns", "2"]}),
    Threat("freeze ticket written by the patch", new_freeze_ticket, {"ticket-added"}, base=True,
           changed=("tests/test_invoice_frozen_too.py", "freeze_ledger.json")),
    Threat("freeze ticket left to expire", lambda t: None, {"expired-ticket"}, today="2027-01-16"),
    Threat("unmarked test", unmarked_test, {"unmarked"}),
    Threat("pytest.skip() in a voter's body", body_skip, {"unconditional-skip"}),
    Threat("marks computed at run time", runtime_marks, {"unresolved-marker"}),
    Threat("a test lane-scan never saw", generated_test, {"unknown-test"}),
]


@pytest.fixture(scope="module")
def baseline(tmp_path_factory) -> Gate:
    work = tmp_path_factory.mktemp("baseline")
    tree = copy_tree(REPO / "examples" / "invoice", work / "invoice")
    return run_gate(tree)


def test_the_unpatched_example_is_approved(baseline: Gate):
    assert baseline.code == 0, baseline.doc["tally"]["reasons"]
    assert baseline.doc["tally"]["decision"] == "approve"


@pytest.mark.parametrize("threat", THREATS, ids=[t.name for t in THREATS])
def test_threat_is_caught(threat: Threat, tmp_path: Path, baseline: Gate):
    base = copy_tree(REPO / "examples" / "invoice", tmp_path / "base")
    tree = copy_tree(REPO / "examples" / "invoice", tmp_path / "head" / "invoice")
    threat.patch(tree)
    gate = run_gate(tree, base if threat.base else None, threat.lane_args, threat.today,
                    list(threat.changed))
    assert gate.code == 1, f"{threat.name} was approved"
    assert gate.doc["tally"]["decision"] == "reject"
    missing = threat.caught_by - gate.reasons()
    assert not missing, f"{threat.name}: expected {sorted(missing)} among {sorted(gate.reasons())}"


def test_a_deselecting_hook_is_also_flagged_at_scan_time(tmp_path: Path):
    tree = copy_tree(REPO / "examples" / "invoice", tmp_path / "invoice")
    deselect_hook(tree)
    doc = pre_pytest(tree)
    hooks = [p for p in doc["scan"]["problems"] if p["rule"] == "runtime-hook"]
    assert hooks and hooks[0]["file"] == "tests/conftest.py" and hooks[0]["severity"] == "warning"


def test_a_result_rewriting_hook_is_only_a_warning(tmp_path: Path):
    """Not caught: a conftest hook that turns failures into passes writes a clean report.

    The gate shows the hook as a runtime-hook warning, and that is all it can do without
    running pytest itself (docs/threats.md says so). This test pins that honest limit: if it
    starts failing because the gate now rejects, update the catalogue.
    """
    tree = copy_tree(REPO / "examples" / "invoice", tmp_path / "invoice")
    edit(tree / "invoice.py", "return applied + credit", "return applied")
    (tree / "tests/conftest.py").write_text(
        "import pytest\n\n\n@pytest.hookimpl(hookwrapper=True)\n"
        "def pytest_runtest_makereport(item, call):\n"
        "    outcome = yield\n    report = outcome.get_result()\n"
        "    if report.failed:\n        report.outcome = 'passed'\n", encoding="utf-8")
    gate = run_gate(tree)
    assert "runtime-hook" in gate.warnings()
    assert gate.doc["tally"]["decision"] == "approve"


def test_a_stale_report_missing_a_new_voter_is_caught(tmp_path: Path):
    """A JUnit file from an earlier run is only caught when the tests changed since."""
    tree = copy_tree(REPO / "examples" / "invoice", tmp_path / "invoice")
    stale = tmp_path / "stale-merge.xml"
    proc = run_pytest("--strict-markers", "-m", "merge", f"--junitxml={stale}", cwd=tree)
    assert proc.returncode == 0, proc.stdout
    (tree / "tests/test_invoice_new.py").write_text(
        "import pytest\n\n\n@pytest.mark.merge\ndef test_new_oracle():\n"
        '    """owner: billing-team"""\n    assert 1 + 1 == 3\n', encoding="utf-8")
    doc = pre_pytest(tree)
    reports = []
    for lane in ("witness", "freeze"):
        report = tmp_path / f"{lane}.xml"
        run_pytest("--strict-markers", "-m", lane, f"--junitxml={report}", cwd=tree)
        reports += ["--junit", f"{lane}={report}"]
    tally = run_tool("lane-tally", "--junit", f"merge={stale}", *reports, stdin=json.dumps(doc),
                     cwd=tree)
    assert tally.code == 1, tally.stderr
    rules = {r["rule"]: r for r in json.loads(tally.stdout)["tally"]["reasons"]}
    assert rules["missing-vote"]["test"] == "tests/test_invoice_new.py::test_new_oracle"
