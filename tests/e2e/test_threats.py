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
import re
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


def skipif_string_true(t: Path) -> None:
    edit(t / MERGE, "@pytest.mark.merge\ndef test_credit_examples", "@pytest.mark.merge\n@pytest.mark.skipif(\"True\", reason='later')\ndef test_credit_examples")


def skipif_no_condition(t: Path) -> None:
    edit(t / MERGE, "@pytest.mark.merge\ndef test_credit_examples", "@pytest.mark.merge\n@pytest.mark.skipif(reason='later')\ndef test_credit_examples")


def module_skip(t: Path) -> None:
    edit(t / "invoice.py", "return applied + credit", "return applied")
    edit(t / MERGE, "from invoice import apply_credit, invert_credit\n",
         "from invoice import apply_credit, invert_credit\n\n"
         "pytest.skip('slow on CI', allow_module_level=True)\n")


def expected_failure_voter(t: Path) -> None:
    edit(t / "invoice.py", "return applied + credit", "return applied")
    (t / "tests/test_invoice_unittest.py").write_text(
        "import unittest\nfrom decimal import Decimal\n\nimport pytest\n\n"
        "from invoice import invert_credit\n\n\n"
        "@pytest.mark.merge\n"
        "class TestInvert(unittest.TestCase):\n"
        "    @unittest.expectedFailure\n"
        "    def test_invert(self):\n"
        '        """owner: billing-team"""\n'
        "        self.assertEqual(invert_credit(Decimal('70.00'), Decimal('30.00')), "
        "Decimal('100.00'))\n", encoding="utf-8")


def xfail_witness(t: Path) -> None:
    edit(t / "invoice.py", "out.append(f\"{'due':<20}", "out.append(f\"{'amount due':<20}")
    edit(t / WITNESS, '@pytest.mark.witness(fixture="fixtures/statement_v3.txt")\n',
         '@pytest.mark.witness(fixture="fixtures/statement_v3.txt")\n'
         '@pytest.mark.xfail(reason="layout in flux")\n')


def tautological_property(t: Path) -> None:
    edit(t / MERGE, '    applied = apply_credit(total, credit)\n'
         '    assert Decimal("0.00") <= applied <= total\n'
         '    if credit <= total:\n'
         '        assert invert_credit(applied, credit) == total\n'
         '    else:\n'
         '        assert applied == Decimal("0.00")',
         '    applied = apply_credit(total, credit)\n    assert applied == applied')


def assert_true(t: Path) -> None:
    edit(t / MERGE, '    assert apply_credit(Decimal("100.00"), Decimal("30.00")) == Decimal("70.00")\n'
         '    assert apply_credit(Decimal("19.99"), Decimal("20.00")) == Decimal("0.00")\n'
         '    assert invert_credit(Decimal("70.00"), Decimal("30.00")) == Decimal("100.00")\n'
         '    with pytest.raises(ValueError):\n'
         '        apply_credit(Decimal("-1.00"), Decimal("0.00"))',
         '    apply_credit(Decimal("100.00"), Decimal("30.00"))\n    assert True')


def merge_to_witness(t: Path) -> None:
    edit(t / MERGE, "@pytest.mark.merge\ndef test_credit_examples",
         "@pytest.mark.witness(locked_on=\"2026-11-02\")\ndef test_credit_examples")


def rerun_in_config(t: Path) -> None:
    edit(t / "pytest.ini", "addopts = --strict-markers", "addopts = --strict-markers --reruns 2")


def flaky_mark(t: Path) -> None:
    edit(t / MERGE, "@pytest.mark.merge\ndef test_credit_examples",
         "@pytest.mark.merge\n@pytest.mark.flaky(reruns=3)\ndef test_credit_examples")


def renew_ticket(t: Path) -> None:
    renewed = run_tool("freeze-ledger", "renew",
                       "tests/test_invoice_freeze.py::test_fx_table_refresh_replays",
                       "--expires", "2027-02-01", "--replay-job",
                       "https://ci.example.invalid/invoice/jobs/9000", "--today", TODAY, cwd=t)
    assert renewed.code == 0, renewed.stderr


def change_ticket_seed(t: Path) -> None:
    edit(t / "freeze_ledger.json", '"seed": 1742219', '"seed": 42')


def computed_pytestmark(t: Path) -> None:
    edit(t / MERGE, "amounts = st.decimals(",
         "def make_marks():\n    return [pytest.mark.merge]\n\n\n"
         "pytestmark = make_marks()\n\namounts = st.decimals(")


@dataclass
class Threat:
    id: str
    row: int  # the row of docs/threats.md this case backs
    name: str
    patch: Callable[[Path], None]
    caught_by: set[str]
    base: bool = False
    changed: tuple[str, ...] = ()
    lane_args: dict | None = None
    today: str = TODAY


THREATS = [
    Threat("skip-voter", 1, "unconditional skip on a voter", skip_voter, {"unconditional-skip"}),
    Threat("skipif-true", 2, "skipif(True) on a voter", skipif_true, {"unconditional-skip"}),
    Threat("skipif-string-true", 2, 'skipif("True") on a voter', skipif_string_true,
           {"unconditional-skip"}),
    Threat("skipif-no-condition", 2, "skipif() without a condition", skipif_no_condition,
           {"unconditional-skip"}),
    Threat("body-skip", 3, "pytest.skip() in a voter's body", body_skip, {"unconditional-skip"}),
    Threat("module-skip", 3, "pytest.skip() at module level", module_skip,
           {"unconditional-skip"}),
    Threat("xfail-voter", 4, "xfail on a broken voter", xfail_voter, {"xfail-in-voting-lane"}),
    Threat("expected-failure-voter", 4, "unittest.expectedFailure on a broken voter",
           expected_failure_voter, {"xfail-in-voting-lane"}),
    Threat("xfail-witness", 4, "xfail on a witness whose golden file no longer matches",
           xfail_witness, {"xfail-in-voting-lane"}),
    Threat("tautology", 5, "tautological merge test", tautology, {"tautology"}),
    Threat("tautological-property", 5, "tautological property (assert x == x under @given)",
           tautological_property, {"tautology"}),
    Threat("assert-true", 5, "merge test reduced to assert True", assert_true, {"tautology"}),
    Threat("merge-to-freeze", 6, "merge test turned freeze", merge_to_freeze,
           {"lane-changed", "missing-ticket"}, base=True, changed=(MERGE,)),
    Threat("merge-to-witness", 6, "merge test turned witness", merge_to_witness,
           {"lane-changed"}, base=True, changed=(MERGE,)),
    Threat("delete-voter", 7, "failing voter deleted", delete_voter, {"merge-test-removed"},
           base=True, changed=(MERGE,)),
    Threat("rename-voter", 8, "failing voter renamed and skipped at run time", rename_voter,
           {"merge-test-removed", "merge-skipped"}, base=True, changed=(MERGE, "invoice.py")),
    Threat("relock-golden", 9, "golden file re-locked with the behaviour change", relock_golden,
           {"lock-batched-with-behavior", "lock-entry-moved"}, base=True,
           changed=("invoice.py", "tests/fixtures/statement_v3.txt", "lanes.lock")),
    Threat("deselect-hook", 10, "conftest hook deselects a failing voter", deselect_hook,
           {"missing-vote"}),
    Threat("wider-selection", 11, "merge report produced with a wider -m", wider_selection,
           {"lane-mismatch"}, lane_args={"merge": ["-m", "merge or witness"]}),
    Threat("rerun-flaky", 12, "flaky voter rescued by reruns", rerun_flaky, {"flaky-voter"},
           lane_args={"merge": ["-m", "merge", "--reruns", "2"]}),
    Threat("rerun-in-config", 12, "reruns in the config's addopts", rerun_in_config,
           {"retry-in-voting-lane"}),
    Threat("flaky-mark", 12, "a flaky mark on a voter", flaky_mark, {"retry-in-voting-lane"}),
    Threat("new-freeze-ticket", 13, "freeze ticket written by the patch", new_freeze_ticket,
           {"ticket-added"}, base=True,
           changed=("tests/test_invoice_frozen_too.py", "freeze_ledger.json")),
    Threat("renew-ticket", 13, "freeze ticket renewed by the patch", renew_ticket,
           {"ticket-renewed"}, base=True, changed=("freeze_ledger.json",)),
    Threat("change-ticket", 13, "freeze ticket's seed changed by the patch", change_ticket_seed,
           {"ticket-changed"}, base=True, changed=("freeze_ledger.json",)),
    Threat("expire-ticket", 14, "freeze ticket left to expire", lambda t: None,
           {"expired-ticket"}, today="2027-01-16"),
    Threat("unmarked-test", 15, "unmarked test", unmarked_test, {"unmarked"}),
    Threat("runtime-marks", 21, "marks computed at run time", runtime_marks,
           {"unresolved-marker"}),
    Threat("computed-pytestmark", 21, "pytestmark = make_marks()", computed_pytestmark,
           {"unresolved-marker"}),
    Threat("generated-test", 22, "a test lane-scan never saw", generated_test, {"unknown-test"}),
]


@pytest.fixture(scope="module")
def baseline(tmp_path_factory) -> Gate:
    work = tmp_path_factory.mktemp("baseline")
    tree = copy_tree(REPO / "examples" / "invoice", work / "invoice")
    return run_gate(tree)


def test_the_unpatched_example_is_approved(baseline: Gate):
    assert baseline.code == 0, baseline.doc["tally"]["reasons"]
    assert baseline.doc["tally"]["decision"] == "approve"


@pytest.mark.parametrize("threat", THREATS, ids=[t.id for t in THREATS])
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


def test_a_stale_report_of_the_same_tests_is_caught(tmp_path: Path):
    """Row 17: a merge report from an earlier run of the same tests, left in the out folder of
    a run on broken code, no longer votes: lane-gate's run manifest binds every report to the
    evidence of its run, which covers the checkout's tracked files."""
    from test_gate import gate, git
    tree = copy_tree(REPO / "examples" / "invoice", tmp_path / "invoice")
    git(tree, "init", "-q")
    git(tree, "add", "-A")
    git(tree, "commit", "-q", "-m", "base")
    earlier = gate(tree, "--today", TODAY, "--out", "run-1")
    assert earlier.returncode == 0, earlier.stderr
    edit(tree / "invoice.py", "return applied + credit", "return applied")
    fresh = gate(tree, "--today", TODAY, "--out", "run-2")
    assert fresh.returncode == 1  # the break is real: a fresh run catches it
    shutil.copy(tree / "run-1" / "merge.xml", tree / "run-2" / "merge.xml")
    junit = [f"--junit={lane}=run-2/{lane}.xml" for lane in ("merge", "witness", "freeze")]
    tally = run_tool("lane-tally", "--input", "run-2/evidence.json", *junit, cwd=tree)
    assert tally.code == 1, tally.stdout + tally.stderr
    reasons = {r["rule"] for r in json.loads(tally.stdout)["tally"]["reasons"]}
    assert {"stale-report", "missing-vote"} <= reasons, reasons


# ---- the honest limits: rows of docs/threats.md the gate does not catch, pinned -----------
# Each test shows the patch getting through. If one starts failing because the gate now
# rejects, move its row to "caught" in docs/threats.md.

def test_a_narrowed_domain_is_not_caught(tmp_path: Path):
    """Row 19: the property's domain shrunk to one point, so it cannot reach the bug."""
    tree = copy_tree(REPO / "examples" / "invoice", tmp_path / "invoice")
    edit(tree / "invoice.py", "    return max(total - credit, Decimal(\"0.00\"))",
         "    if total > 10000:\n        credit += CENT\n"
         "    return max(total - credit, Decimal(\"0.00\"))")
    full = run_gate(copy_tree(tree, tmp_path / "full"))
    assert "merge-failed" in full.reasons()  # the full domain finds the bug
    edit(tree / MERGE, "@given(total=amounts, credit=amounts)",
         "@given(total=st.just(Decimal(\"0.00\")), credit=st.just(Decimal(\"0.00\")))")
    gate = run_gate(tree)
    assert gate.doc["tally"]["decision"] == "approve", gate.reasons()
    domain = {t["id"]: t["attachments"].get("domain") for t in gate.doc["scan"]["tests"]}
    assert "st.just" in domain[f"{MERGE}::test_credit_round_trip"]  # shown to the reviewer


def test_a_wrong_golden_file_locked_by_a_human_is_not_caught(tmp_path: Path):
    """Row 20: a digest pins bytes, not meaning."""
    tree = copy_tree(REPO / "examples" / "invoice", tmp_path / "invoice")
    edit(tree / "invoice.py", "out.append(f\"{'credit':<20}{-_money(credit):>12}\")",
         "out.append(f\"{'credit':<20}{_money(credit):>12}\")")  # the sign is lost
    golden = tree / "tests/fixtures/statement_v3.txt"
    edit(golden, "-100.00", " 100.00")
    locked = run_tool("lane-lock", "lock", "tests/fixtures/statement_v3.txt", "--today", TODAY,
                      cwd=tree)
    assert locked.code == 0, locked.stderr
    gate = run_gate(tree)
    assert gate.doc["tally"]["decision"] == "approve", gate.reasons()


def test_a_rewritten_oracle_is_not_caught(tmp_path: Path):
    """Row 23: the patch changes behaviour and the human-written expected values with it."""
    tree = copy_tree(REPO / "examples" / "invoice", tmp_path / "invoice")
    edit(tree / "invoice.py", "    if total < 0 or credit < 0:\n        raise ValueError("
         "\"amounts must not be negative\")\n    return max(total - credit",
         "    return max(total - credit")
    broken = run_gate(copy_tree(tree, tmp_path / "broken"))
    assert "merge-failed" in broken.reasons()  # the oracle catches the change as written
    edit(tree / MERGE, "    with pytest.raises(ValueError):\n"
         "        apply_credit(Decimal(\"-1.00\"), Decimal(\"0.00\"))",
         "    assert apply_credit(Decimal(\"-1.00\"), Decimal(\"0.00\")) == Decimal(\"0.00\")")
    gate = run_gate(tree)
    assert gate.doc["tally"]["decision"] == "approve", gate.reasons()


# ---- docs/threats.md, row by row ----------------------------------------------------------

# Tests other than THREATS cases that back a row, with the rules they show.
BACKING = {
    "test_a_deselecting_hook_is_also_flagged_at_scan_time": {"runtime-hook"},
    "test_a_result_rewriting_hook_is_only_a_warning": {"runtime-hook"},
    "test_a_stale_report_missing_a_new_voter_is_caught": {"missing-vote"},
    "test_a_stale_report_of_the_same_tests_is_caught": {"stale-report"},
    "test_a_narrowed_domain_is_not_caught": set(),
    "test_a_wrong_golden_file_locked_by_a_human_is_not_caught": set(),
    "test_a_rewritten_oracle_is_not_caught": set(),
}


def catalogue() -> list[dict]:
    rows = []
    for line in (REPO / "docs" / "threats.md").read_text(encoding="utf-8").splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 6 and cells[0].isdigit():
            rows.append({"row": int(cells[0]), "caught": cells[2], "rules": set(
                re.findall(r"`([a-z]+(?:-[a-z]+)+)`", cells[3])),
                "cases": re.findall(r"`([\w-]+)`", cells[5])})
    return rows


def test_every_catalogue_row_is_backed_by_its_cases():
    rows = catalogue()
    assert [r["row"] for r in rows] == list(range(1, len(rows) + 1))
    by_id = {t.id: t for t in THREATS}
    listed = set()
    for r in rows:
        assert r["cases"], f"row {r['row']} names no test"
        shown: set[str] = set()
        for case in r["cases"]:
            if case in by_id:
                assert by_id[case].row == r["row"], (case, r["row"])
                assert r["caught"] == "caught", f"row {r['row']}: a caught case backs it"
                shown |= by_id[case].caught_by
                listed.add(case)
            else:
                assert case in BACKING and callable(globals().get(case)), case
                shown |= BACKING[case]
        if r["caught"] == "caught":
            assert any(c in by_id for c in r["cases"]) or \
                any(c.endswith("_is_caught") for c in r["cases"]), r
            missing = r["rules"] - shown
            assert not missing, f"row {r['row']} names rules no test shows: {missing}"
        else:
            assert r["caught"] in ("**not caught**", "**warning only**"), r
            assert any(c.endswith("_not_caught") or c.endswith("_only_a_warning")
                       for c in r["cases"]), r
    assert listed == set(by_id), f"cases no row names: {set(by_id) - listed}"
