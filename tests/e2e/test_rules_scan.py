"""lane-scan's rules against cheating patches: the test that is checked is the test that runs, and a voter that cannot
fail does not vote. Each case is a copy of examples/invoice with a cheating patch, gated by the
real lane-gate (real pytest, real git): without --base, and with --base --ack where the patch's
own tree votes. Each names the rule that must decide, in the printed verdict."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conftest import head_ack, run_tool
from test_gate import TODAY, gate, git
from test_gate_base import ACK, WRONG_LIBRARY, based, commit, edit

MERGE = Path("tests") / "test_invoice_merge.py"
FIRST_EXAMPLE = '    assert apply_credit(Decimal("100.00"), Decimal("30.00")) == Decimal("70.00")\n'


def rebind_a_voter(repo: Path) -> None:
    # pytest runs what the name is bound to last: a function with no assertion and no lane.
    merge = repo / MERGE
    merge.write_text(merge.read_text() + "\n\ndef _passes():\n    pass\n\n\n"
                     "test_credit_examples = _passes\n")


def declare_latin1(repo: Path) -> None:
    merge = repo / MERGE
    merge.write_text("# -*- coding: latin-1 -*-\n" + merge.read_text())


def select_in_addopts(repo: Path) -> None:
    edit(repo / "pytest.ini", "addopts = --strict-markers", "addopts = --strict-markers -k round_trip")


def swallow_an_assertion(repo: Path) -> None:
    edit(repo / MERGE, FIRST_EXAMPLE,
         "    try:\n    " + FIRST_EXAMPLE + "    except AssertionError:\n        pass\n")


def assert_on_or_true(repo: Path) -> None:
    edit(repo / MERGE, FIRST_EXAMPLE, FIRST_EXAMPLE.replace(' == Decimal("70.00")',
                                                          ' == Decimal("70.00") or True'))


def assert_only_an_object(repo: Path) -> None:
    merge = repo / MERGE
    merge.write_text(merge.read_text() + '''

@pytest.mark.merge
def test_credit_is_a_value():
    """owner: billing-team"""
    assert isinstance(apply_credit(Decimal("1.00"), Decimal("2.00")), object)
''')


# Product code that gives the right answer only under test: the wrong library stays wrong
# everywhere else.
TEST_AWARE = '''

import os as _os
import sys as _sys

_apply_credit = apply_credit


def apply_credit(total, credit):
    if {condition}:
        total, credit = _money(total), _money(credit)
        return max(total - credit, Decimal("0.00"))
    return _apply_credit(total, credit)
'''


def branch_on_the_test_run(repo: Path) -> None:
    invoice = repo / "invoice.py"
    invoice.write_text(invoice.read_text() + TEST_AWARE.format(
        condition='_os.environ.get("PYTEST_CURRENT_TEST")'))


def ask_for_pytest(repo: Path) -> None:
    invoice = repo / "invoice.py"
    invoice.write_text(invoice.read_text() + TEST_AWARE.format(
        condition='"pytest" in _sys.modules'))


# The same branch with its question in a string the module evaluates: no name of the module's
# own lines says pytest, only the string eval runs does, and the scan reads it as code.
PROBE = '\n_PROBE = "__import__(\'os\').environ.get(\'PYTEST_CURRENT_TEST\')"\n'


def branch_in_an_eval_string(repo: Path) -> None:
    invoice = repo / "invoice.py"
    invoice.write_text(invoice.read_text() + PROBE + TEST_AWARE.format(
        condition="eval(_PROBE)"))


CHEATS = {
    "test-redefined": rebind_a_voter,
    "coding-cookie": declare_latin1,
    "unsafe-addopts": select_in_addopts,
    "swallowed-failure": swallow_an_assertion,
    "swallowed-failure-or": assert_on_or_true,
    "tautology": assert_only_an_object,
    "test-aware-code": branch_on_the_test_run,
    "test-aware-code-modules": ask_for_pytest,
    "test-aware-code-eval": branch_in_an_eval_string,
}


def rule_of(case: str) -> str:
    return {"swallowed-failure-or": "swallowed-failure",
            "test-aware-code-modules": "test-aware-code",
            "test-aware-code-eval": "test-aware-code"}.get(case, case)


def verdict_of(repo: Path) -> dict:
    return json.loads((repo / "out" / "lanes" / "verdict.json").read_text())


def errors(verdict: dict, rule: str) -> list[dict]:
    return [p for section in verdict.values() if isinstance(section, dict)
            for p in section.get("problems", []) if p["rule"] == rule
            and p["severity"] == "error"]


def warnings(verdict: dict, rule: str) -> list[dict]:
    return [p for section in verdict.values() if isinstance(section, dict)
            for p in section.get("problems", []) if p["rule"] == rule
            and p["severity"] == "warning"]


@pytest.mark.parametrize("case", sorted(CHEATS))
def test_a_cheating_patch_is_rejected_without_base(invoice: Path, case: str):
    # The wrong library too: the cheat is what would let it through.
    edit(invoice / "invoice.py", *WRONG_LIBRARY)
    CHEATS[case](invoice)
    proc = gate(invoice, "--today", TODAY)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    verdict = verdict_of(invoice)
    assert verdict["tally"]["decision"] == "reject"
    assert errors(verdict, rule_of(case)), json.dumps(verdict, indent=1)[:4000]
    assert rule_of(case) in proc.stdout


@pytest.mark.parametrize("case", sorted(CHEATS))
def test_a_cheating_patch_is_rejected_with_base_and_ack(invoice: Path, case: str):
    repo = based(invoice)
    edit(repo / "invoice.py", *WRONG_LIBRARY)
    CHEATS[case](repo)
    commit(repo, f"agent: {case}")
    proc = gate(repo, "--base", "HEAD~1", "--today", TODAY, "--ack", head_ack(repo, ACK))
    assert proc.returncode == 1, proc.stdout + proc.stderr
    verdict = verdict_of(repo)
    assert verdict["gate"]["voting_tree"] == "patch"
    assert errors(verdict, rule_of(case)), json.dumps(verdict, indent=1)[:4000]
    assert rule_of(case) in proc.stdout


def test_test_aware_code_is_judged_on_the_lines_the_patch_changed(invoice: Path):
    # Product code the base already had is the base's business: with --base only the patch's
    # changed lines are judged. Without --base every product file is: the variable read is
    # test-aware code (an error); the atexit handler is a capability, a warning for a maintainer
    # to read, and no test-aware code (libraries register such handlers for cleanup).
    invoice_py = invoice / "invoice.py"
    invoice_py.write_text(invoice_py.read_text()
                          + "\n\nimport atexit as _atexit\n_atexit.register(lambda: None)\n"
                          + "import os as _os\n_VERSION = _os.environ.get('PYTEST_VERSION')\n")
    repo = based(invoice)
    edit(repo / "invoice.py", '"""A small invoice module', '"""A small (patched) invoice module')
    commit(repo, "agent: a docstring")
    proc = gate(repo, "--base", "HEAD~1", "--today", TODAY)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "test-aware-code" not in proc.stdout and "capability-added" not in proc.stdout
    proc = gate(repo, "--today", TODAY)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    verdict = verdict_of(repo)
    [aware] = errors(verdict, "test-aware-code")
    assert aware["file"] == "invoice.py" and "PYTEST_VERSION" in aware["message"], aware
    assert not any("atexit" in p["message"] for p in errors(verdict, "test-aware-code"))
    [capability] = [p for p in warnings(verdict, "capability-added")
                    if "atexit.register" in p["message"]]
    assert capability["file"] == "invoice.py", capability
    assert not errors(verdict, "capability-added")


def test_test_aware_code_in_a_string_the_module_runs_is_placed_at_the_call(invoice: Path):
    # The real lane-scan on the example's tree: the finding is the string's, at the line of the
    # eval that runs it, and says so; the string literal alone is no finding.
    branch_in_an_eval_string(invoice)
    run = run_tool("lane-scan", "--all-product", cwd=invoice)
    assert run.code == 1, run.stdout + run.stderr
    [aware] = [p for p in run.json()["scan"]["problems"] if p["rule"] == "test-aware-code"]
    lines = (invoice / "invoice.py").read_text().splitlines()
    assert lines[aware["line"] - 1].strip() == "if eval(_PROBE):", aware
    assert aware["severity"] == "error"
    assert ("names pytest's environment variable PYTEST_CURRENT_TEST, in a string literal it "
            "runs with eval (line 1 of the string)") in aware["message"], aware


def test_a_version_branch_that_does_not_run_is_not_a_redefinition(invoice: Path):
    merge = invoice / MERGE
    merge.write_text("import sys\n" + merge.read_text() + '''

if sys.version_info < (3, 0):
    test_credit_examples = None
''')
    proc = gate(invoice, "--today", TODAY)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "test-redefined" not in proc.stdout


# ---- a narrowed search: informed on its own, domain-changed against the base ----

def fewer_examples(repo: Path) -> None:
    edit(repo / MERGE, "max_examples=200", "max_examples=5")


def filter_the_domain(repo: Path) -> None:
    edit(repo / MERGE, "from hypothesis import given, settings",
         "from hypothesis import assume, given, settings")
    edit(repo / MERGE, "    applied = apply_credit(total, credit)\n",
         "    assume(credit < total / 2)\n    applied = apply_credit(total, credit)\n")


def a_weak_profile(repo: Path) -> None:
    (repo / "tests" / "conftest.py").write_text(
        "from hypothesis import settings\n\n"
        "settings.register_profile(\"quick\", max_examples=10)\n"
        "settings.load_profile(\"quick\")\n")
    edit(repo / MERGE, "@settings(max_examples=200, deadline=None)\n", "@settings(deadline=None)\n")


def a_weak_profile_loaded_elsewhere(repo: Path) -> None:
    # Registered in the conftest, loaded by the test module itself.
    (repo / "tests" / "conftest.py").write_text(
        "from hypothesis import settings\n\n"
        "settings.register_profile(\"quick\", max_examples=10)\n")
    edit(repo / MERGE, "@settings(max_examples=200, deadline=None)\n", "@settings(deadline=None)\n")
    edit(repo / MERGE, "from hypothesis import given, settings\n",
         "from hypothesis import given, settings\n\nsettings.load_profile(\"quick\")\n")


def a_weak_profile_by_environment(repo: Path) -> None:
    # The name comes from the environment: any registered profile may be the one loaded.
    (repo / "tests" / "conftest.py").write_text(
        "import os\n\nfrom hypothesis import Phase, settings\n\n"
        "settings.register_profile(\"thorough\", max_examples=500)\n"
        "settings.register_profile(\"quick\", settings(phases=[Phase.explicit]))\n"
        "settings.load_profile(os.environ.get(\"HYPOTHESIS_PROFILE\", \"thorough\"))\n")


def a_narrowed_strategy(repo: Path) -> None:
    # `@given(total=amounts, ...)` as written is unchanged: the name's definition narrowed.
    edit(repo / MERGE, 'max_value="1000000.00"', 'max_value="1000.00"')


NARROWINGS = {"max-examples": fewer_examples, "assume": filter_the_domain,
              "profile": a_weak_profile, "profile-elsewhere": a_weak_profile_loaded_elsewhere,
              "profile-by-environment": a_weak_profile_by_environment}
# Not a weakened-search on its own (nothing is filtered or shortened), but a changed domain.
DOMAIN_CHANGES = {**NARROWINGS, "strategy": a_narrowed_strategy}


@pytest.mark.parametrize("case", sorted(NARROWINGS))
def test_a_narrowed_search_is_shown_in_the_verdict(invoice: Path, case: str):
    NARROWINGS[case](invoice)
    proc = gate(invoice, "--today", TODAY)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    shown = warnings(verdict_of(invoice), "weakened-search")
    assert [p["test"] for p in shown] == ["tests/test_invoice_merge.py::test_credit_round_trip"]
    assert "weakened-search" in proc.stdout
    scan = verdict_of(invoice)["scan"]
    [prop] = [t for t in scan["tests"] if t["id"].endswith("test_credit_round_trip")]
    if case == "assume":
        assert prop["attachments"]["assumes"] == ["credit < total / 2"]
    if case in ("profile", "profile-elsewhere"):
        assert prop["attachments"]["settings"] == {"deadline": "None", "max_examples": "10",
                                                   "profile": "quick"}
    if case == "profile-by-environment":
        settings = prop["attachments"]["settings"]
        assert settings["phases"] == "[Phase.explicit]", settings
        assert "the weakest is quick" in settings["profile"], settings


@pytest.mark.parametrize("case", sorted(DOMAIN_CHANGES))
def test_a_narrowed_domain_is_domain_changed_against_the_base(invoice: Path, case: str):
    repo = based(invoice)
    DOMAIN_CHANGES[case](repo)
    commit(repo, f"agent: {case}")
    proc = gate(repo, "--base", "HEAD~1", "--today", TODAY)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    verdict = verdict_of(repo)
    [changed] = errors(verdict, "domain-changed")
    assert changed["test"] == "tests/test_invoice_merge.py::test_credit_round_trip"
    assert "domain-changed" in proc.stdout
    # Acknowledged, the patch's own tree votes and the change stays listed, as a warning.
    proc = gate(repo, "--base", "HEAD~1", "--today", TODAY, "--ack", head_ack(repo, ACK))
    verdict = verdict_of(repo)
    assert not errors(verdict, "domain-changed")
    [acked] = warnings(verdict, "domain-changed")
    assert ACK in acked["message"]
    assert "domain-changed" in proc.stdout


def test_a_voter_that_stopped_asserting_is_domain_changed(invoice: Path):
    repo = based(invoice)
    text = (repo / MERGE).read_text()
    start = text.index('    assert apply_credit(Decimal("100.00")')
    (repo / MERGE).write_text(text[:start] + '    apply_credit(Decimal("100.00"), Decimal("30.00"))\n')
    commit(repo)
    proc = gate(repo, "--base", "HEAD~1", "--today", TODAY)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    [changed] = errors(verdict_of(repo), "domain-changed")
    assert changed["test"] == "tests/test_invoice_merge.py::test_credit_examples"
    assert "asserts nothing now" in changed["message"]


def test_an_unchanged_base_has_no_domain_change(invoice: Path):
    repo = based(invoice)
    git(repo, "commit", "-q", "--allow-empty", "-m", "nothing")
    proc = gate(repo, "--base", "HEAD~1", "--today", TODAY)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "domain-changed" not in proc.stdout
