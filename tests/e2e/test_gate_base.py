"""lane-gate --base: the base's tests vote on the patch's code. Real git, real pytest, copies of
examples/invoice; each test names the rule that must decide."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from conftest import PYTHON, REPO, copy_tree, head_ack, run_tool
from test_gate import PATCH, TODAY, gate, git, patched_repo, reason_rules

ACK = "approving review by @maintainer on #12"
WRONG_LIBRARY = ("return max(total - credit, Decimal(\"0.00\"))",
                 "return max(_money(total - credit * Decimal(\"1.02\")), Decimal(\"0.00\"))")
NEW_ORACLE = '''

@pytest.mark.merge
def test_credit_of_zero_changes_nothing():
    """owner: billing-team"""
    assert apply_credit(Decimal("10.00"), Decimal("0.00")) == Decimal("10.00")
'''


def based(repo: Path) -> Path:
    git(repo, "init", "-q")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "base")
    return repo


def commit(repo: Path, message: str = "patch") -> None:
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", message)


def edit(path: Path, old: str, new: str) -> None:
    text = path.read_text()
    assert old in text, (path, old)
    path.write_text(text.replace(old, new, 1))


def verdict_of(repo: Path) -> dict:
    return json.loads((repo / "out" / "lanes" / "verdict.json").read_text())


def surface(verdict: dict) -> dict[str, dict]:
    return {e["path"]: e for e in verdict["gate"]["surface"] if e["class"] == "test-surface"}


def warnings(verdict: dict, rule: str) -> list[dict]:
    return [p for name, section in verdict.items() if isinstance(section, dict)
            for p in section.get("problems", []) if p["rule"] == rule
            and p["severity"] == "warning"]


def add_oracle(repo: Path) -> None:
    merge = repo / "tests" / "test_invoice_merge.py"
    merge.write_text(merge.read_text() + NEW_ORACLE)


# ---- a test-only patch ----

def test_a_test_only_patch_is_rejected_for_its_test_surface_alone(invoice: Path):
    repo = based(invoice)
    add_oracle(repo)
    commit(repo)
    proc = gate(repo, "--base", "HEAD~1", "--today", TODAY)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    verdict = verdict_of(repo)
    assert reason_rules(verdict) == {"test-surface-changed"}, verdict["tally"]["reasons"]
    assert surface(verdict)["tests/test_invoice_merge.py"]["change"] == "changed"
    # the base's two merge tests voted; the patch's third ran as a candidate, not counted
    assert verdict["tally"]["lanes"]["merge"]["tests"] == 2
    files = verdict["gate"]["candidates"]["files"]
    assert files == [{"file": "tests/test_invoice_merge.py", "passed": 3, "failed": 0,
                      "errors": 0, "skipped": 0}], files
    assert (repo / "out" / "lanes" / "candidates.xml").stat().st_size > 0
    # the base's voters passed: nothing looks like an intended change of behaviour
    assert "intended change" not in proc.stdout


@pytest.mark.parametrize("how", ["flag", "env", "reason-alias"])
def test_an_acknowledged_test_only_patch_is_judged_on_its_own_tree(invoice: Path, how: str):
    repo = based(invoice)
    add_oracle(repo)
    commit(repo)
    ack = head_ack(repo, ACK)
    args, env = {"flag": (["--ack", ack], {}), "env": ([], {"LANES_ACK": ack}),
                 "reason-alias": (["--reason", ack], {})}[how]
    proc = gate(repo, "--base", "HEAD~1", "--today", TODAY, *args, **env)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    verdict = verdict_of(repo)
    assert verdict["gate"]["voting_tree"] == "patch"
    assert verdict["gate"]["ack"] == ack
    # its own three merge tests voted
    assert verdict["tally"]["lanes"]["merge"]["tests"] == 3
    assert verdict["tally"]["lanes"]["merge"]["passed"] == 3
    acked = warnings(verdict, "test-surface-changed")
    assert acked and all(ACK in p["message"] for p in acked)
    assert f"Acknowledged: {ACK}" in proc.stdout
    assert "`test-surface-changed`" in proc.stdout  # listed, as a warning


def test_an_acknowledgment_covers_the_commit_it_names_and_not_the_next_push(invoice: Path):
    repo = based(invoice)
    add_oracle(repo)
    commit(repo)
    ack = head_ack(repo, ACK)
    assert gate(repo, "--base", "HEAD~1", "--today", TODAY,
                "--ack", ack).returncode == 0
    # The agent pushes again (a test edit no maintainer has read): the same text, given by a
    # label that outlives the push or a stale variable, names the previous commit and is ignored.
    merge = repo / "tests" / "test_invoice_merge.py"
    merge.write_text(merge.read_text() + NEW_ORACLE.replace("zero_changes", "zero_still_changes"))
    commit(repo, "agent: one more push")
    for text in (ack, "label lanes-ack on #12", ack.split(" at ")[1][:11]):
        proc = gate(repo, "--base", "HEAD~2", "--today", TODAY, "--ack", text)
        assert proc.returncode == 1, proc.stdout + proc.stderr
        verdict = verdict_of(repo)
        # the run votes as if no acknowledgment were given: the base's tests, the surface error
        assert verdict["gate"]["voting_tree"] == "base-test-surface", text
        assert not verdict["gate"].get("ack"), verdict["gate"]
        assert "test-surface-changed" in reason_rules(verdict), text
        [ignored] = warnings(verdict, "ack-for-another-commit")
        assert text in ignored["message"] and "HEAD " in ignored["message"], ignored
        assert "`ack-for-another-commit`" in proc.stdout
        assert "ignored" in proc.stderr
    # Named by a 12-digit prefix of the new head, it covers the new head.
    head = git(repo, "rev-parse", "HEAD").strip()
    proc = gate(repo, "--base", "HEAD~2", "--today", TODAY, "--ack", f"review at {head[:12]}")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert not warnings(verdict_of(repo), "ack-for-another-commit")


def test_an_acknowledgment_does_not_cover_a_broken_invariant(tmp_path: Path):
    # The agent patch, acknowledged: its own tree votes, and its skip and expired ticket still
    # reject; the lock edit and ticket renewal are warnings carrying the text.
    repo = patched_repo(copy_tree(REPO / "examples" / "invoice", tmp_path / "invoice"))
    proc = gate(repo, "--base", "HEAD~1", "--today", TODAY, "--ack", head_ack(repo, ACK))
    assert proc.returncode == 1, proc.stdout + proc.stderr
    verdict = verdict_of(repo)
    rules = reason_rules(verdict)
    assert {"unconditional-skip", "expired-ticket", "merge-failed"} <= rules, rules
    assert not rules & {"test-surface-changed", "lock-entry-moved", "lock-batched-with-behavior",
                        "ticket-renewed"}, rules
    for rule in ("lock-entry-moved", "ticket-renewed", "test-surface-changed"):
        assert warnings(verdict, rule), rule


# ---- the base's property votes ----

def test_a_wrong_library_that_also_weakens_the_property_fails_the_base_s_property(invoice: Path):
    repo = based(invoice)
    edit(repo / "invoice.py", *WRONG_LIBRARY)
    merge = repo / "tests" / "test_invoice_merge.py"
    # the patch's property no longer checks anything, and its oracle is gone
    text = merge.read_text()
    text = text.replace("    assert ", "    pass  # ")
    merge.write_text(text)
    commit(repo, "agent: bonus, and a 'flaky' property quietened")
    # the library really is wrong: a separate interpreter, outside pytest
    check = subprocess.run([PYTHON, "-c", "from decimal import Decimal as D; import invoice; "
                            "print(invoice.invert_credit(invoice.apply_credit(D('10.00'), "
                            "D('5.00')), D('5.00')))"], cwd=repo, capture_output=True, text=True)
    assert check.stdout.strip() != "10.00", check
    proc = gate(repo, "--base", "HEAD~1", "--today", TODAY)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    verdict = verdict_of(repo)
    failed = {r["test"] for r in verdict["tally"]["reasons"] if r["rule"] == "merge-failed"}
    assert "tests/test_invoice_merge.py::test_credit_round_trip" in failed, failed
    assert verdict["gate"]["voting_tree"] == "base-test-surface"
    # in the patch's own tree its tests pass: they are candidates, shown and not counted
    assert all(f["failed"] == 0 for f in verdict["gate"]["candidates"]["files"])
    # the verdict says what that pattern looks like, and what an acknowledgment would change,
    # without taking a side: the decision stays the base's
    said = " ".join(proc.stdout.split())
    assert "this looks like an intended change of behaviour" in said
    assert "lets the patch's own tests vote instead; otherwise the patch broke" in said
    assert verdict["tally"]["decision"] == "reject"


def test_a_removed_voter_is_named_even_though_the_base_s_copy_votes(invoice: Path):
    repo = based(invoice)
    merge = repo / "tests" / "test_invoice_merge.py"
    text = merge.read_text()
    merge.write_text(text[:text.index("@pytest.mark.merge\ndef test_credit_examples")])
    commit(repo, "drop the oracle")
    proc = gate(repo, "--base", "HEAD~1", "--today", TODAY)
    assert proc.returncode == 1
    verdict = verdict_of(repo)
    assert {"merge-test-removed", "test-surface-changed"} <= reason_rules(verdict)
    assert verdict["tally"]["lanes"]["merge"]["passed"] == 2  # the base's two voted


def test_a_product_file_made_to_look_like_test_surface_is_still_the_patch_s(invoice: Path):
    # The patch names its own product module in python_files: listed as test surface, but the
    # vote tree keeps the patch's version, so the base's tests judge the wrong library.
    repo = based(invoice)
    edit(repo / "invoice.py", *WRONG_LIBRARY)
    edit(repo / "pytest.ini", "testpaths = tests", "testpaths = tests\npython_files = test_*.py invoice.py")
    commit(repo, "agent: bonus, and invoice.py is a test module now")
    proc = gate(repo, "--base", "HEAD~1", "--today", TODAY)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    verdict = verdict_of(repo)
    assert {"invoice.py", "pytest.ini"} <= set(surface(verdict))
    assert "merge-failed" in reason_rules(verdict), verdict["tally"]["reasons"]


# ---- real CI shapes ----

def test_a_detached_head_is_gated_like_a_branch(tmp_path: Path):
    repo = patched_repo(copy_tree(REPO / "examples" / "invoice", tmp_path / "invoice"))
    git(repo, "checkout", "-q", "--detach", "HEAD")
    proc = gate(repo, "--base", "HEAD~1", "--today", TODAY)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert {"merge-failed", "test-surface-changed"} <= reason_rules(verdict_of(repo))


def test_a_binary_golden_file_is_restored_byte_for_byte(invoice: Path):
    golden = invoice / "tests" / "fixtures" / "logo.bin"
    golden.write_bytes(bytes(range(256)) * 4)
    assert run_tool("lane-lock", "lock", "tests/fixtures/logo.bin", "--today", TODAY,
                    cwd=invoice).code == 0
    repo = based(invoice)
    golden.write_bytes(b"\x00\xff" * 100)
    assert run_tool("lane-lock", "lock", "tests/fixtures/logo.bin", "--today", TODAY,
                    cwd=repo).code == 0
    commit(repo, "new logo")
    proc = gate(repo, "--base", "HEAD~1", "--today", TODAY)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    verdict = verdict_of(repo)
    # the vote tree carried the base's bytes and lock: nothing moved there
    assert not [p for p in verdict["lock"]["problems"] if p["severity"] == "error"]
    assert {"tests/fixtures/logo.bin", "lanes.lock"} <= set(surface(verdict))
    assert "lock-entry-moved" in reason_rules(verdict)


def test_a_renamed_test_folder_is_a_finding(invoice: Path):
    repo = based(invoice)
    git(repo, "mv", "tests", "checks")
    edit(repo / "pytest.ini", "testpaths = tests", "testpaths = checks")
    commit(repo, "rename the test folder")
    proc = gate(repo, "--base", "HEAD~1", "--today", TODAY)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    verdict = verdict_of(repo)
    s = surface(verdict)
    assert s["checks/test_invoice_merge.py"]["change"] == "renamed"
    assert s["checks/test_invoice_merge.py"]["from"] == "tests/test_invoice_merge.py"
    assert s["tests/test_invoice_merge.py"]["change"] == "removed"
    assert "pytest.ini" in s
    # the base's tests, in their base folder, voted and passed
    assert verdict["tally"]["lanes"]["merge"]["passed"] == 2
    assert "test-surface-changed" in reason_rules(verdict)


def test_the_gate_s_own_out_folder_and_hypothesis_database_stay_out(tmp_path: Path):
    repo = patched_repo(copy_tree(REPO / "examples" / "invoice", tmp_path / "invoice"))
    (repo / ".hypothesis" / "examples").mkdir(parents=True)
    (repo / ".hypothesis" / "examples" / "junk").write_bytes(b"\x00junk")
    first = gate(repo, "--base", "HEAD~1", "--today", TODAY)
    first_bytes = (repo / "out" / "lanes" / "verdict.json").read_bytes()
    second = gate(repo, "--base", "HEAD~1", "--today", TODAY)
    assert first.returncode == second.returncode == 1, second.stderr
    assert (repo / "out" / "lanes" / "verdict.json").read_bytes() == first_bytes
    paths = [e["path"] for e in verdict_of(repo)["gate"]["surface"]]
    assert not [p for p in paths if p.startswith(("out/", ".hypothesis/"))], paths


def test_an_untracked_conftest_does_not_vote(invoice: Path):
    repo = based(invoice)
    edit(repo / "invoice.py", *WRONG_LIBRARY)
    commit(repo, "agent")
    # left in the checkout by a build step: it would turn every failure into a pass
    (repo / "tests" / "conftest.py").write_text(
        "import pytest\n\n\n@pytest.hookimpl(hookwrapper=True)\n"
        "def pytest_runtest_makereport(item, call):\n    outcome = yield\n"
        "    outcome.get_result().outcome = 'passed'\n")
    proc = gate(repo, "--base", "HEAD~1", "--today", TODAY)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    verdict = verdict_of(repo)
    assert surface(verdict)["tests/conftest.py"]["change"] == "untracked"
    assert "merge-failed" in reason_rules(verdict)


def test_a_product_module_importing_from_elsewhere_is_foreign_product_code(invoice: Path,
                                                                            tmp_path: Path):
    # An interpreter whose start-up puts a finder on sys.meta_path mapping `invoice` to another
    # checkout (as an editable install does): the base's tests would not test the patch's code.
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    shutil.copy2(invoice / "invoice.py", elsewhere / "invoice.py")
    (elsewhere / "sitecustomize.py").write_text(
        "import importlib.util, sys\n\n\nclass Finder:\n    @classmethod\n"
        "    def find_spec(cls, name, path=None, target=None):\n"
        "        if name == 'invoice':\n"
        f"            return importlib.util.spec_from_file_location(name, {str(elsewhere / 'invoice.py')!r})\n"
        "        return None\n\n\nsys.meta_path.insert(0, Finder)\n")
    wrapper = tmp_path / "python"
    wrapper.write_text(f"#!/bin/sh\nexport PYTHONPATH=\"{elsewhere}${{PYTHONPATH:+:$PYTHONPATH}}\"\n"
                       f"exec \"{PYTHON}\" \"$@\"\n")
    wrapper.chmod(0o755)
    repo = patched_repo(invoice)
    proc = gate(repo, "--base", "HEAD~1", "--today", TODAY, "--python", str(wrapper))
    assert proc.returncode == 1, proc.stdout + proc.stderr
    verdict = verdict_of(repo)
    foreign = [p["message"] for p in verdict["gate"]["problems"]
               if p["rule"] == "foreign-product-code"]
    assert len(foreign) == 1 and "'invoice'" in foreign[0], foreign
    assert str(elsewhere / "invoice.py") in foreign[0] and "the tree's invoice.py" in foreign[0]
    assert "foreign-product-code" in reason_rules(verdict)


# ---- a pytest the patch cannot steer ----

def test_a_hanging_lane_is_a_rejection_naming_it(invoice: Path):
    merge = invoice / "tests" / "test_invoice_merge.py"
    edit(merge, '    """\n    assert apply_credit(Decimal("100.00")',
         '    """\n    import time\n\n    time.sleep(600)\n    assert apply_credit(Decimal("100.00")')
    # the other lanes finish well within the limit; the merge lane sleeps ten times longer
    proc = gate(invoice, "--today", TODAY, "--lane-timeout", "60")
    assert proc.returncode == 1, proc.stdout + proc.stderr
    verdict = verdict_of(invoice)
    timeouts = [p for p in verdict["gate"]["problems"] if p["rule"] == "lane-timeout"]
    assert len(timeouts) == 1 and "merge lane" in timeouts[0]["message"], timeouts
    assert verdict["gate"]["lanes"]["merge"]["timed_out"] is True
    status = (invoice / "out" / "lanes" / "pytest-status").read_text()
    assert status.startswith("merge killed\n"), status


def test_golden_bytes_moved_during_the_run_are_digest_moved(invoice: Path):
    # Product code that rewrites the golden file while the tests run, and leaves it changed.
    with (invoice / "invoice.py").open("a") as f:
        f.write("\nwith open('tests/fixtures/statement_v3.txt', 'a') as _g:\n    _g.write('x')\n")
    proc = gate(invoice, "--today", TODAY)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    moved = [p for p in verdict_of(invoice)["gate"]["problems"] if p["rule"] == "digest-moved"]
    assert moved and moved[0]["message"].startswith("after the pytest runs:"), moved


@pytest.mark.parametrize("arg", ["-m", "-p", "-o", "--junitxml=x.xml", "--rootdir=/",
                                 "--hypothesis-seed=3", "-c"])
def test_user_arguments_may_not_override_the_gate_s_own(invoice: Path, arg: str):
    proc = gate(invoice, "--today", TODAY, "--", arg, "merge")
    assert proc.returncode == 2
    assert "gate's own pytest option" in proc.stderr
    assert proc.stdout == ""


# ---- bad input: exit 2, one message, never an approval ----

def refused(repo: Path, *args: str, **env: str) -> str:
    proc = gate(repo, *args, "--today", TODAY, **env)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert proc.stdout == ""
    lines = [line for line in proc.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("lane-gate: error: "), proc.stderr
    assert not (repo / "out" / "lanes" / "verdict.json").exists()
    return lines[0]


def test_a_base_that_does_not_exist(invoice: Path):
    repo = based(invoice)
    assert "no-such-ref" in refused(repo, "--base", "no-such-ref")


def test_a_shallow_clone_without_the_base(tmp_path: Path):
    origin = patched_repo(copy_tree(REPO / "examples" / "invoice", tmp_path / "origin"))
    clone = tmp_path / "clone"
    subprocess.run(["git", "clone", "-q", "--depth", "1", f"file://{origin}", str(clone)],
                   check=True, capture_output=True)
    message = refused(clone, "--base", "HEAD~1")
    assert "shallow" in message, message


def test_uncommitted_changes_to_tracked_files(invoice: Path):
    repo = based(invoice)
    edit(repo / "invoice.py", *WRONG_LIBRARY)
    message = refused(repo, "--base", "HEAD")
    assert "uncommitted" in message and "invoice.py" in message, message


def test_a_submodule_the_gate_cannot_read(invoice: Path):
    repo = based(invoice)
    head = git(repo, "rev-parse", "HEAD").strip()
    (repo / "vendor" / "lib").mkdir(parents=True)  # as an uninitialized submodule leaves it
    git(repo, "update-index", "--add", "--cacheinfo", f"160000,{head},vendor/lib")
    git(repo, "commit", "-q", "-m", "vendor a submodule")
    message = refused(repo, "--base", "HEAD~1")
    assert "submodule" in message and "vendor/lib" in message, message


def test_a_path_with_a_newline_in_its_name(invoice: Path):
    repo = based(invoice)
    (repo / "notes\nabout.txt").write_text("hi\n")
    commit(repo, "a file with a line break in its name")
    assert "line break" in refused(repo, "--base", "HEAD~1")


def test_an_empty_acknowledgment(invoice: Path):
    assert "--ack" in refused(based(invoice), "--base", "HEAD", "--ack", " ")


def test_the_agent_patch_through_the_makefile_demo_is_unchanged_by_a_second_run(tmp_path: Path):
    # Two gates of the same patch from two checkouts give the same bytes (fixed commit dates).
    a = patched_repo(copy_tree(REPO / "examples" / "invoice", tmp_path / "a"))
    b = patched_repo(copy_tree(REPO / "examples" / "invoice", tmp_path / "b"))
    pa = gate(a, "--base", "HEAD~1", "--today", TODAY)
    pb = gate(b, "--base", "HEAD~1", "--today", TODAY)
    assert pa.returncode == pb.returncode == 1
    for name in ("evidence.json", "base-evidence.json", "verdict.json", "verdict.md"):
        assert (a / "out" / "lanes" / name).read_bytes() == \
            (b / "out" / "lanes" / name).read_bytes(), name
    assert os.fspath(a) not in (a / "out" / "lanes" / "verdict.json").read_text()


def test_a_pyproject_too_large_to_read_is_test_surface(invoice: Path):
    # Only a comment is added, so what it says cannot matter; but the gate does not read a
    # file this large to find that out, and what it cannot classify is test surface.
    repo = based(invoice)
    (repo / "pyproject.toml").write_text("[project]\nname = 'invoice'\n")
    commit(repo, "a small pyproject")
    (repo / "pyproject.toml").write_text("[project]\nname = 'invoice'\n"
                                         + "# padding\n" * (2 * 1024 * 1024))
    commit(repo)
    proc = gate(repo, "--base", "HEAD~1", "--today", TODAY)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    verdict = verdict_of(repo)
    assert "test-surface-changed" in reason_rules(verdict)
    assert "cannot be read" in surface(verdict)["pyproject.toml"]["reason"], surface(verdict)


# Tests inside the project's own package (iso8601's layout): the package's modules are the code
# under test, product code the base's tests vote on; a helper the tests import stays test surface.
INSIDE = {
    "pytest.ini": "[pytest]\nmarkers =\n    merge: votes\n    witness: bytes\n    freeze: flake\n",
    "pyproject.toml": "[project]\nname = \"calc\"\nversion = \"1\"\n",
    "calc/__init__.py": "from .core import add\n",
    "calc/core.py": "def add(a, b):\n    return a + b\n",
    "calc/helper.py": "def expected(a, b):\n    return a + b\n",
    "calc/test_core.py": ("import pytest\n\nfrom calc import add\nfrom calc.helper import expected\n"
                          "\n\n@pytest.mark.merge\ndef test_add():\n    \"\"\"owner: qa\"\"\"\n"
                          "    for a, b in [(2, 3), (-1, 1), (0, 0)]:\n"
                          "        assert add(a, b) == expected(a, b)\n"),
}


def verdict_of(repo: Path) -> dict:
    return json.loads((repo / "out" / "lanes" / "verdict.json").read_text())


def test_the_package_s_own_module_beside_its_tests_is_product_code(tmp_path: Path):
    repo = tmp_path / "calc"
    for rel, text in INSIDE.items():
        (repo / rel).parent.mkdir(parents=True, exist_ok=True)
        (repo / rel).write_text(text)
    based(repo)
    # an honest rewrite of the library: the base's test votes on it, approved
    (repo / "calc" / "core.py").write_text("def add(a, b):\n    return sum((a, b))\n")
    commit(repo)
    proc = gate(repo, "--base", "HEAD~1", "--today", TODAY)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    (entry,) = [e for e in verdict_of(repo)["gate"]["surface"] if e["path"] == "calc/core.py"]
    assert entry["class"] == "product", entry
    # a wrong library: the base's test fails on it
    (repo / "calc" / "core.py").write_text("def add(a, b):\n    return a - b\n")
    commit(repo)
    proc = gate(repo, "--base", "HEAD~2", "--today", TODAY)
    assert proc.returncode == 1, proc.stdout
    assert "merge-failed" in reason_rules(verdict_of(repo)), proc.stdout
    # the wrong library with the helper the tests compute their expectations with bent to
    # match: the helper is test surface, put back as the base had it, so the vote still fails
    (repo / "calc" / "helper.py").write_text("def expected(a, b):\n    return a - b\n")
    commit(repo)
    proc = gate(repo, "--base", "HEAD~3", "--today", TODAY)
    assert proc.returncode == 1, proc.stdout
    assert {"merge-failed", "test-surface-changed"} <= reason_rules(verdict_of(repo)), proc.stdout


def test_tox_s_own_sections_are_not_test_surface_and_its_pytest_section_is(tmp_path: Path):
    repo = tmp_path / "calc"
    files = {**INSIDE, "tox.ini": ("[tox]\nenvlist = py38, py311\n\n[testenv]\ndeps = pytest\n"
                                   "commands = pytest\n")}
    for rel, text in files.items():
        (repo / rel).parent.mkdir(parents=True, exist_ok=True)
        (repo / rel).write_text(text)
    based(repo)
    # dropping a Python version from tox's env list, with a library change: approved
    tox = repo / "tox.ini"
    tox.write_text(tox.read_text().replace("py38, py311", "py311"))
    (repo / "calc" / "core.py").write_text("def add(a, b):\n    return sum((a, b))\n")
    commit(repo)
    proc = gate(repo, "--base", "HEAD~1", "--today", TODAY)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    (entry,) = [e for e in verdict_of(repo)["gate"]["surface"] if e["path"] == "tox.ini"]
    assert entry["class"] == "product" and "[tox]" in entry["reason"], entry
    # a [pytest] section in tox.ini is pytest's configuration: test surface
    tox.write_text(tox.read_text() + "\n[pytest]\naddopts = -p no:warnings\n")
    commit(repo)
    proc = gate(repo, "--base", "HEAD~1", "--today", TODAY)
    assert proc.returncode == 1, proc.stdout
    v = verdict_of(repo)
    assert reason_rules(v) == {"test-surface-changed"}, v["tally"]["reasons"]
    (entry,) = [e for e in v["gate"]["surface"] if e["path"] == "tox.ini"]
    assert entry["class"] == "test-surface" and "[pytest]" in entry["reason"], entry
