"""The lane-tally and lane-lock rules a cheating patch meets: real git, real pytest,
copies of examples/invoice. Each case commits the cheating patch on top of the example and runs
`lane-gate` without --base and/or with --base (and --ack, where the patch's own tree votes)."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from conftest import head_ack, run_tool
from test_gate import TODAY, gate, git, reason_rules

ACK = "approving review by @maintainer on #16"

# A root-level tests.py whose class spells the classname pytest writes for the real merge
# module (tests/test_invoice_merge.py -> "tests.test_invoice_merge"), and a conftest hook that
# runs it: under xunit2 its case is indistinguishable from the real test's.
IMPOSTOR = '''import pytest


@pytest.mark.merge
class test_invoice_merge:
    def test_credit_examples(self):
        assert True
'''
HOOK = '''import pathlib

import pytest


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(session, config, items):
    module = pytest.Module.from_parent(session, path=pathlib.Path(str(config.rootpath)) / "tests.py")
    impostors = list(pytest.Class.from_parent(module, name="test_invoice_merge").collect())
    {keep}
    items[:] = kept + impostors
'''
DROP_REAL = 'kept = [i for i in items if i.name != "test_credit_examples"]'
KEEP_REAL = "kept = list(items)"


def based(repo: Path) -> Path:
    git(repo, "init", "-q")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "base")
    return repo


def commit(repo: Path) -> None:
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "patch")


def edit(path: Path, old: str, new: str) -> None:
    text = path.read_text()
    assert old in text, (path, old)
    path.write_text(text.replace(old, new, 1))


def verdict_of(repo: Path) -> dict:
    return json.loads((repo / "out" / "lanes" / "verdict.json").read_text())


def problems(verdict: dict, rule: str) -> list[dict]:
    return [p for section in verdict.values() if isinstance(section, dict)
            for p in section.get("problems", []) if p["rule"] == rule]


def printed(proc, rule: str) -> bool:
    return f"`{rule}`" in proc.stdout


# ---- lane-tally: a case is bound to the file it ran from ----

@pytest.mark.parametrize("how", ["no-base", "base-ack"])
def test_a_root_tests_py_impostor_is_an_unknown_test(invoice: Path, how: str):
    repo = based(invoice)
    (repo / "tests.py").write_text(IMPOSTOR)
    (repo / "conftest.py").write_text(HOOK.format(keep=DROP_REAL))
    commit(repo)
    args = ["--base", "HEAD~1", "--ack", head_ack(repo, ACK)] if how == "base-ack" else []
    proc = gate(repo, "--today", TODAY, *args)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    verdict = verdict_of(repo)
    rules = reason_rules(verdict)
    assert {"unknown-test", "missing-vote"} <= rules, rules
    assert printed(proc, "unknown-test")
    unknown = problems(verdict, "unknown-test")
    assert any("it ran from tests.py" in p["message"]
               and "defined in tests/test_invoice_merge.py" in p["message"]
               for p in unknown), unknown
    # pytest really ran the impostor, under the real module's classname, from tests.py
    report = (repo / "out" / "lanes" / "merge.xml").read_text()
    assert 'classname="tests.test_invoice_merge" name="test_credit_examples" file="tests.py"' \
        in report, report


@pytest.mark.parametrize("how", ["no-base", "base-ack"])
def test_an_impostor_beside_the_real_test_is_an_identity_collision(invoice: Path, how: str):
    repo = based(invoice)
    (repo / "tests.py").write_text(IMPOSTOR)
    (repo / "conftest.py").write_text(HOOK.format(keep=KEEP_REAL))
    commit(repo)
    args = ["--base", "HEAD~1", "--ack", head_ack(repo, ACK)] if how == "base-ack" else []
    proc = gate(repo, "--today", TODAY, *args)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    verdict = verdict_of(repo)
    assert "identity-collision" in reason_rules(verdict), verdict["tally"]["reasons"]
    assert printed(proc, "identity-collision")
    (collision,) = problems(verdict, "identity-collision")
    assert collision["test"] == "tests/test_invoice_merge.py::test_credit_examples"
    assert "(tests.py, tests/test_invoice_merge.py)" in collision["message"]


def test_an_inherited_merge_test_votes_from_its_base_class_module(invoice: Path):
    # The negative case: pytest writes the base class's module as `file`; the scan records it.
    (invoice / "tests" / "__init__.py").write_text("")
    (invoice / "tests" / "credit_base.py").write_text('''from decimal import Decimal

import pytest

from invoice import apply_credit


class CreditBase:
    @pytest.mark.merge
    def test_full_credit_clears(self):
        """owner: billing-team"""
        assert apply_credit(Decimal("5.00"), Decimal("5.00")) == Decimal("0.00")
''')
    (invoice / "tests" / "test_invoice_inherited.py").write_text(
        "from tests.credit_base import CreditBase\n\n\nclass TestCredit(CreditBase):\n    pass\n")
    proc = gate(invoice, "--today", TODAY)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    verdict = verdict_of(invoice)
    test = next(t for t in verdict["scan"]["tests"]
                if t["id"] == "tests/test_invoice_inherited.py::TestCredit::test_full_credit_clears")
    assert test["defined_in"] == "tests/credit_base.py"
    assert 'file="tests/credit_base.py"' in (invoice / "out" / "lanes" / "merge.xml").read_text()


@pytest.mark.parametrize("replay", ["absolute-inside", "absolute-outside", "xfail"])
def test_freeze_xfail_records_and_absolute_replays_are_judged_by_place(invoice: Path,
                                                                        tmp_path: Path,
                                                                        replay: str):
    freeze = invoice / "tests" / "test_invoice_freeze.py"
    if replay == "xfail":
        edit(freeze, "@pytest.mark.freeze\n",
             "@pytest.mark.freeze\n@pytest.mark.xfail(strict=True, reason=\"FX stutter\")\n")
    else:
        outside = tmp_path / "elsewhere" / "fx_table.json"
        outside.parent.mkdir()
        outside.write_bytes((invoice / "tests" / "capsules" / "fx_table.json").read_bytes())
        value = "str(ROOT / CAPSULE)" if replay == "absolute-inside" else repr(str(outside))
        edit(freeze, 'record_property("replay", CAPSULE)', f'record_property("replay", {value})')
    edit(freeze, "assert all(0.5 <= r <= 1.5 for r in rates)",
         "assert all(0.5 <= r <= 1.5 for r in rates)\n    assert False, \"the stutter\"")
    proc = gate(invoice, "--today", TODAY)
    verdict = verdict_of(invoice)
    if replay == "absolute-outside":
        assert proc.returncode == 1, proc.stdout + proc.stderr
        assert reason_rules(verdict) == {"missing-replay-artifact"}, verdict["tally"]["reasons"]
    else:
        assert proc.returncode == 0, proc.stdout + proc.stderr
        assert not problems(verdict, "missing-freeze-run")
        assert not problems(verdict, "missing-replay-artifact")


# ---- lane-lock: additions are lock edits too ----

NEW_WITNESS = '''

@pytest.mark.witness(fixture="fixtures/statement_credit.txt")
def test_statement_with_credit_matches_golden_file():
    golden = (HERE / "fixtures" / "statement_credit.txt").read_text(encoding="utf-8")
    assert render_statement("c-9", LINES, Decimal("0.00")) == golden
'''


def add_locked_golden(repo: Path, how: str) -> None:
    """The cheat: a new golden file written from the patch's own output, locked by the patch."""
    witness = repo / "tests" / "test_invoice_witness.py"
    witness.write_text(witness.read_text() + NEW_WITNESS)
    golden = repo / "tests" / "fixtures" / "statement_credit.txt"
    golden.write_text("whatever the patched code prints\n")
    if how == "lock":
        out = run_tool("lane-lock", "lock", "tests/fixtures/statement_credit.txt",
                       "--today", TODAY, cwd=repo)
        assert out.code == 0, out.stderr
    else:
        digest = hashlib.sha256(golden.read_bytes()).hexdigest()
        (golden.parent / "statement_credit.txt.sha256").write_text(digest + "\n")


@pytest.mark.parametrize("how", ["lock", "sidecar"])
def test_a_newly_locked_golden_file_is_a_lock_edit(invoice: Path, how: str):
    repo = based(invoice)
    add_locked_golden(repo, how)
    commit(repo)
    proc = gate(repo, "--today", TODAY, "--base", "HEAD~1")
    assert proc.returncode == 1, proc.stdout + proc.stderr
    verdict = verdict_of(repo)
    assert "lock-entry-added" in reason_rules(verdict), verdict["tally"]["reasons"]
    assert printed(proc, "lock-entry-added")
    path = ("tests/fixtures/statement_credit.txt" if how == "lock"
            else "tests/fixtures/statement_credit.txt.sha256")
    assert [p["file"] for p in problems(verdict, "lock-entry-added")] == [path]
    # Acknowledged, the patch's own tree votes: the addition is still listed for the reviewer.
    proc = gate(repo, "--today", TODAY, "--base", "HEAD~1", "--ack", head_ack(repo, ACK))
    verdict = verdict_of(repo)
    assert printed(proc, "lock-entry-added")
    (added,) = problems(verdict, "lock-entry-added")
    assert added["severity"] == "warning" and ACK in added["message"], added


def test_a_sidecar_edited_beside_code_is_batched(invoice: Path):
    # The base locks the golden file with a sidecar; the patch changes the code, the bytes and
    # the sidecar together, so the witness passes on whatever the code prints now.
    repo = invoice
    (repo / "lanes.lock").write_text('{\n  "version": 1,\n  "files": []\n}\n')
    golden = repo / "tests" / "fixtures" / "statement_v3.txt"
    sidecar = golden.parent / "statement_v3.txt.sha256"
    sidecar.write_text(hashlib.sha256(golden.read_bytes()).hexdigest() + "\n")
    based(repo)
    edit(repo / "invoice.py", 'out = [f"STATEMENT {customer_id:>22}"',
         'out = [f"Statement {customer_id:>22}"')
    golden.write_text(golden.read_text().replace("STATEMENT", "Statement"))
    sidecar.write_text(hashlib.sha256(golden.read_bytes()).hexdigest() + "\n")
    commit(repo)
    proc = gate(repo, "--today", TODAY, "--base", "HEAD~1")
    assert proc.returncode == 1, proc.stdout + proc.stderr
    verdict = verdict_of(repo)
    rules = reason_rules(verdict)
    assert {"lock-entry-moved", "lock-batched-with-behavior"} <= rules, rules
    (moved,) = problems(verdict, "lock-entry-moved")
    assert moved["file"] == "tests/fixtures/statement_v3.txt.sha256"
    assert verdict["lock_diff"]["sidecars"] == [
        {"path": "tests/fixtures/statement_v3.txt.sha256", "change": "changed"}]


def remove_witness(repo: Path) -> None:
    witness = repo / "tests" / "test_invoice_witness.py"
    text = witness.read_text()
    start = text.index('@pytest.mark.witness(fixture="fixtures/statement_v3.txt")')
    end = text.index("@pytest.mark.witness(locked_on=")
    witness.write_text(text[:start] + text[end:])


def repoint_witness(repo: Path) -> None:
    witness = repo / "tests" / "test_invoice_witness.py"
    edit(witness, 'fixture="fixtures/statement_v3.txt"', 'fixture="fixtures/statement_v4.txt"')
    edit(witness, '"statement_v3.txt").read_text', '"statement_v4.txt").read_text')
    fixtures = repo / "tests" / "fixtures"
    (fixtures / "statement_v4.txt").write_bytes((fixtures / "statement_v3.txt").read_bytes())
    out = run_tool("lane-lock", "lock", "tests/fixtures/statement_v4.txt", "--today", TODAY,
                   cwd=repo)
    assert out.code == 0, out.stderr


@pytest.mark.parametrize("cheat,rule", [(remove_witness, "witness-test-removed"),
                                        (repoint_witness, "witness-fixture-changed")],
                         ids=["removed", "fixture-changed"])
def test_a_dropped_or_repointed_witness_is_seen_against_the_base(invoice: Path, cheat, rule):
    repo = based(invoice)
    edit(repo / "invoice.py", 'out = [f"STATEMENT {customer_id:>22}"',
         'out = [f"Statement {customer_id:>22}"')
    cheat(repo)
    commit(repo)
    proc = gate(repo, "--today", TODAY, "--base", "HEAD~1")
    assert proc.returncode == 1, proc.stdout + proc.stderr
    verdict = verdict_of(repo)
    rules = reason_rules(verdict)
    assert {rule, "orphan-lock"} <= rules, rules
    assert printed(proc, rule)
    (found,) = problems(verdict, rule)
    assert found["test"] == "tests/test_invoice_witness.py::test_statement_matches_golden_file"
    # Acknowledged: the witness change is a warning for the reviewer, but the golden bytes
    # the base's witness guarded are still locked and unwatched: orphan-lock rejects.
    proc = gate(repo, "--today", TODAY, "--base", "HEAD~1", "--ack", head_ack(repo, ACK))
    assert proc.returncode == 1, proc.stdout + proc.stderr
    verdict = verdict_of(repo)
    assert "orphan-lock" in reason_rules(verdict), verdict["tally"]["reasons"]
    assert rule not in reason_rules(verdict)
    assert printed(proc, rule) and printed(proc, "orphan-lock")
    orphan = [p for p in problems(verdict, "orphan-lock") if p["severity"] == "error"]
    assert [p["file"] for p in orphan] == ["tests/fixtures/statement_v3.txt"], orphan


def test_an_unchanged_witness_lane_meets_none_of_these(invoice: Path):
    # The negative case: a product-only patch with the base's witness lane as it was.
    repo = based(invoice)
    edit(repo / "invoice.py", '"""A plain-text statement', '"""A plain-text statement (v3)')
    commit(repo)
    proc = gate(repo, "--today", TODAY, "--base", "HEAD~1")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    verdict = verdict_of(repo)
    for rule in ("witness-test-removed", "witness-fixture-changed", "lock-entry-added",
                 "identity-collision", "unknown-test"):
        assert not problems(verdict, rule), rule
    assert not [p for p in problems(verdict, "orphan-lock") if p["severity"] == "error"]
