"""lane-tally end to end: a small lanes suite, the real pipeline before pytest (lane-scan,
lane-lock verify, freeze-ledger check), three real pytest runs with their own --junitxml, then
lane-tally on what pytest wrote.

Each scenario changes how the suite behaves at run time through the LANES_E2E environment
variable (the source, and so the scan, stays the same) or how pytest is invoked.
"""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest

from conftest import run_pytest, run_tool

TODAY = "2026-12-01"

PYTEST_INI = """\
[pytest]
testpaths = tests
markers =
    merge: votes on the patch
    witness: corroborates hash-locked bytes
    freeze: ledger-backed flake, never votes
"""

TEST_PROPS = '''\
import os
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

SCENARIO = os.environ.get("LANES_E2E", "")


def double(x):
    return x + x


def halve(x):
    if SCENARIO == "break-property" and x < -10:
        return x // 2 + 1
    return x // 2


@pytest.fixture
def teardown_check():
    yield
    if SCENARIO == "teardown":
        raise RuntimeError("teardown broke")


@pytest.mark.merge
@settings(max_examples=25, deadline=None, database=None)
@given(x=st.integers(min_value=-1000, max_value=1000))
def test_round_trip(x):
    """Halving a doubled number gives it back.

    shrinking: integers shrink towards 0
    """
    assert halve(double(x)) == x


@pytest.mark.merge
def test_pair(teardown_check):
    """owner: qa-team"""
    expected = 5 if SCENARIO in ("break", "teardown") else 4
    assert double(2) == expected


class TestTable:
    @pytest.mark.merge
    @pytest.mark.parametrize("x, y", [(0, 0), (1, 2), (21, 42)])
    def test_double(self, x, y):
        """owner: qa-team"""
        assert double(x) == y


@pytest.mark.merge
def test_sometimes():
    """owner: qa-team"""
    if SCENARIO == "skip":
        pytest.skip("skipped at run time")
    if SCENARIO == "flaky":
        marker = Path(os.environ["LANES_E2E_STATE"])
        if not marker.exists():
            marker.write_text("failed once")
            assert double(3) == 7, "first try fails"
    assert double(3) == 6
'''

TEST_GOLDEN = '''\
import os
from pathlib import Path

import pytest

GOLDEN = Path(__file__).parent / "fixtures" / "golden.txt"


def render():
    text = "total: 42\\n"
    scenario = os.environ.get("LANES_E2E")
    if scenario == "witness":
        text = "total: 43\\n"
    if scenario == "witness-flaky":
        marker = Path(os.environ["LANES_E2E_STATE"])
        if not marker.exists():
            marker.write_text("failed once")
            text = "total: 43\\n"
    return text


@pytest.mark.witness(fixture="fixtures/golden.txt")
def test_golden():
    assert render() == GOLDEN.read_text()
'''

TEST_FLAKE = '''\
import os

import pytest


@pytest.mark.freeze
def test_flake(record_property):
    scenario = os.environ.get("LANES_E2E", "")
    if scenario == "freeze-fail":
        record_property("replay", "capsules/flake.bin")
    if scenario == "freeze-badreplay":
        record_property("replay", "capsules/gone.bin")
    if scenario in ("freeze-fail", "freeze-noreplay", "freeze-badreplay"):
        assert False, "the known flake struck again"
'''

TEST_BROKEN = '''\
import pytest

import module_that_does_not_exist


@pytest.mark.merge
def test_never_collected():
    """owner: qa-team"""
    assert module_that_does_not_exist.value == 1
'''

def write_suite(root: Path, broken: bool = False) -> Path:
    (root / "tests" / "fixtures").mkdir(parents=True)
    (root / "capsules").mkdir()
    (root / "pytest.ini").write_text(PYTEST_INI)
    (root / "tests" / "test_props.py").write_text(TEST_PROPS)
    (root / "tests" / "test_golden.py").write_text(TEST_GOLDEN)
    (root / "tests" / "test_flake.py").write_text(TEST_FLAKE)
    (root / "tests" / "fixtures" / "golden.txt").write_text("total: 42\n")
    (root / "capsules" / "flake.bin").write_bytes(b"seed=7 input=\x00\x01\x02")
    if broken:
        (root / "tests" / "test_broken.py").write_text(TEST_BROKEN)
    # The lock and the ledger, written by the tools themselves.
    lock = run_tool("lane-lock", "lock", "tests/fixtures/golden.txt", "--today", TODAY, cwd=root)
    assert lock.code == 0, lock.stderr
    ticket = run_tool("freeze-ledger", "add", "tests/test_flake.py::test_flake", "--seed", "7",
                      "--input", "capsules/flake.bin", "--expires", "2027-01-15",
                      "--replay-job", "https://ci.example.invalid/jobs/1", "--today", TODAY,
                      cwd=root)
    assert ticket.code == 0, ticket.stderr
    return root


def evidence(root: Path) -> str:
    """The document before pytest: lane-scan | lane-lock verify | freeze-ledger check."""
    scan = run_tool("lane-scan", cwd=root)
    assert scan.code == 0, scan.stderr + scan.stdout
    lock = run_tool("lane-lock", "verify", stdin=scan.stdout, cwd=root)
    assert lock.code == 0, lock.stderr + lock.stdout
    ledger = run_tool("freeze-ledger", "check", "--today", TODAY, stdin=lock.stdout, cwd=root)
    assert ledger.code == 0, ledger.stderr + ledger.stdout
    return ledger.stdout


def lane_run(root: Path, lane: str, *extra: str, select: str | None = None,
             scenario: str = "", name: str | None = None) -> str:
    """One lane's own pytest run; returns the report path relative to root."""
    report = f"out/{name or lane}.xml"
    env = {"LANES_E2E": scenario, "LANES_E2E_STATE": str(root / "out" / "state")}
    proc = run_pytest("-m", select or lane, "--strict-markers", f"--junitxml={report}", *extra,
                      cwd=root, env=env)
    assert (root / report).exists(), proc.stdout + proc.stderr
    return report


def tally(root: Path, doc: str, reports: dict[str, str], *extra: str):
    args = []
    for lane, path in reports.items():
        args += ["--junit", f"{lane}={path}"]
    return run_tool("lane-tally", *args, "--rootdir", ".", *extra, stdin=doc, cwd=root)


def own_rules(run) -> list[tuple[str, str, str | None]]:
    section = run.json()["tally"]
    return sorted((p["rule"], p["severity"], p.get("test")) for p in section["problems"])


@pytest.fixture
def suite(tmp_path: Path) -> Path:
    return write_suite(tmp_path / "suite")


def three_lanes(root: Path, *extra: str, scenario: str = "") -> dict[str, str]:
    return {lane: lane_run(root, lane, *extra, scenario=scenario)
            for lane in ("merge", "witness", "freeze")}


@pytest.mark.parametrize("extra", [(), ("-o", "junit_family=xunit1"), ("-n", "2")],
                         ids=["xunit2", "xunit1", "xdist"])
def test_all_good_approves(suite: Path, extra: tuple[str, ...]):
    doc = evidence(suite)
    run = tally(suite, doc, three_lanes(suite, *extra))
    assert run.code == 0, run.stdout + run.stderr
    section = run.json()["tally"]
    assert section["decision"] == "approve"
    assert section["reasons"] == [] and section["problems"] == []
    assert section["lanes"]["merge"] == {"tests": 4, "cases": 6, "passed": 6, "failed": 0,
                                         "errors": 0, "skipped": 0, "missing": 0}
    assert section["lanes"]["witness"]["passed"] == 1
    assert section["lanes"]["freeze"]["passed"] == 1
    # The upstream sections travel untouched.
    before = json.loads(doc)
    after = run.json()
    for name in ("scan", "lock", "ledger"):
        assert after[name] == before[name]


FAMILIES = [(), ("-o", "junit_family=xunit1"), ("-n", "2"), ("--reruns", "2")]
FAMILY_IDS = ["xunit2", "xunit1", "xdist", "reruns"]


@pytest.mark.parametrize("extra", FAMILIES, ids=FAMILY_IDS)
def test_broken_merge_property_rejects(suite: Path, extra: tuple[str, ...]):
    run = tally(suite, evidence(suite), three_lanes(suite, *extra, scenario="break-property"))
    assert run.code == 1
    expected = [("merge-failed", "error", "tests/test_props.py::test_round_trip")]
    if "--reruns" in extra:
        # pytest-rerunfailures writes each failed try as a passing-looking case: the final
        # failure still counts, and the retries make the voter flaky as well.
        expected.insert(0, ("flaky-voter", "error", "tests/test_props.py::test_round_trip"))
    assert own_rules(run) == expected
    section = run.json()["tally"]
    reason = next(r for r in section["reasons"] if r["rule"] == "merge-failed")
    assert reason["file"] == "tests/test_props.py" and reason["line"] >= 1
    assert "test_round_trip (failed) at tests/test_props.py:" in reason["message"]
    # The failing line and the first lines of pytest's message. xunit1 names the
    # test's own line (its file and line attributes); the others, the traceback's last line
    # inside the checkout: the assert.
    at, _, message = reason["message"].partition(" at tests/test_props.py:")[2].partition(": ")
    if "junit_family=xunit1" in extra:
        assert 28 <= int(at) <= 31, reason["message"]
    else:
        assert at == "36", reason["message"]
    assert message.startswith("assert ") and " == " in message, reason["message"]
    assert section["lanes"]["merge"]["failed"] == 1
    assert section["lanes"]["merge"]["cases"] == 6


def test_broken_example_pair_rejects(suite: Path):
    run = tally(suite, evidence(suite), three_lanes(suite, scenario="break"))
    assert run.code == 1
    assert own_rules(run) == [("merge-failed", "error", "tests/test_props.py::test_pair")]


def test_failure_and_teardown_error_are_one_failed_case(suite: Path):
    # pytest writes the call's failure and the teardown's error as two cases of one name.
    reports = three_lanes(suite, scenario="teardown")
    xml = (suite / reports["merge"]).read_text()
    assert xml.count('name="test_pair"') == 2
    run = tally(suite, evidence(suite), reports)
    assert run.code == 1
    assert own_rules(run) == [("merge-failed", "error", "tests/test_props.py::test_pair")]
    merge = run.json()["tally"]["lanes"]["merge"]
    assert (merge["cases"], merge["passed"], merge["errors"], merge["failed"]) == (6, 5, 1, 0)


def test_deselected_merge_test_is_a_missing_vote(suite: Path):
    reports = three_lanes(suite)
    reports["merge"] = lane_run(suite, "merge", "-k", "not test_pair", name="merge-k")
    run = tally(suite, evidence(suite), reports)
    assert run.code == 1
    assert own_rules(run) == [("missing-vote", "error", "tests/test_props.py::test_pair")]


def test_wider_selection_is_a_lane_mismatch(suite: Path):
    reports = three_lanes(suite)
    reports["merge"] = lane_run(suite, "merge", select="merge or witness", name="wide")
    run = tally(suite, evidence(suite), reports)
    assert run.code == 1
    assert own_rules(run) == [("lane-mismatch", "error", "tests/test_golden.py::test_golden")]


def test_runtime_skip_in_merge_lane(suite: Path):
    run = tally(suite, evidence(suite), three_lanes(suite, scenario="skip"))
    assert run.code == 1
    assert own_rules(run) == [("merge-skipped", "error", "tests/test_props.py::test_sometimes")]


def test_merge_test_rescued_by_a_rerun_is_flaky(suite: Path):
    reports = three_lanes(suite)
    reports["merge"] = lane_run(suite, "merge", "--reruns", "2", scenario="flaky",
                                name="merge-rerun")
    run = tally(suite, evidence(suite), reports)
    assert run.code == 1
    assert own_rules(run) == [("flaky-voter", "error", "tests/test_props.py::test_sometimes")]


def test_witness_rescued_by_a_rerun_did_not_pass(suite: Path):
    reports = three_lanes(suite)
    reports["witness"] = lane_run(suite, "witness", "--reruns", "1", scenario="witness-flaky",
                                  name="witness-rerun")
    run = tally(suite, evidence(suite), reports)
    assert run.code == 1
    assert own_rules(run) == [("witness-failed", "error", "tests/test_golden.py::test_golden")]


def test_witness_failure(suite: Path):
    run = tally(suite, evidence(suite), three_lanes(suite, scenario="witness"))
    assert run.code == 1
    assert own_rules(run) == [("witness-failed", "error", "tests/test_golden.py::test_golden")]


def test_freeze_failure_with_replay_is_recorded_not_a_vote(suite: Path):
    run = tally(suite, evidence(suite), three_lanes(suite, scenario="freeze-fail"))
    assert run.code == 0, run.stdout
    assert own_rules(run) == [("freeze-failed", "warning", "tests/test_flake.py::test_flake")]
    assert run.json()["tally"]["decision"] == "approve"


@pytest.mark.parametrize("scenario, why", [
    ("freeze-noreplay", "recorded no replay property"),
    ("freeze-badreplay", "'capsules/gone.bin', which is not a file"),
], ids=["no-property", "missing-file"])
def test_freeze_failure_without_replay_rejects(suite: Path, scenario: str, why: str):
    run = tally(suite, evidence(suite), three_lanes(suite, scenario=scenario))
    assert run.code == 1
    assert own_rules(run) == [
        ("freeze-failed", "warning", "tests/test_flake.py::test_flake"),
        ("missing-replay-artifact", "error", "tests/test_flake.py::test_flake"),
    ]
    assert why in run.json()["tally"]["reasons"][0]["message"]


@pytest.mark.parametrize("extra", FAMILIES[:3], ids=FAMILY_IDS[:3])
def test_collection_error(tmp_path: Path, extra: tuple[str, ...]):
    root = write_suite(tmp_path / "suite", broken=True)
    doc = evidence(root)
    run = tally(root, doc, three_lanes(root, *extra))
    assert run.code == 1
    rules = own_rules(run)
    assert ("collection-error", "error", None) in rules
    errors = [p for p in run.json()["tally"]["problems"] if p["rule"] == "collection-error"]
    # Every lane's run hit it; it is reported once.
    assert len(errors) == 1 and errors[0]["file"] == "tests/test_broken.py"
    assert ("missing-vote", "error", "tests/test_broken.py::test_never_collected") in rules
    if "-n" in extra:
        # pytest-xdist runs the modules that did collect: only the broken one is missing.
        assert rules == [("collection-error", "error", None),
                         ("missing-vote", "error", "tests/test_broken.py::test_never_collected")]
        return
    # pytest stops every lane's run at a collection error: nothing voted or ran.
    assert ("missing-vote", "error", "tests/test_props.py::test_pair") in rules
    assert ("missing-witness", "error", "tests/test_golden.py::test_golden") in rules
    assert {r for r, _, _ in rules} == {"collection-error", "missing-vote", "missing-witness",
                                        "missing-freeze-run"}


def test_lane_without_a_report(suite: Path):
    reports = three_lanes(suite)
    del reports["freeze"]
    run = tally(suite, evidence(suite), reports)
    assert run.code == 1
    assert own_rules(run) == [("missing-freeze-run", "error", "tests/test_flake.py::test_flake")]
    assert "no freeze report was given" in run.json()["tally"]["reasons"][0]["message"]


def test_markdown_and_github_of_a_rejection(suite: Path):
    reports = three_lanes(suite, scenario="break")
    del reports["freeze"]
    doc = evidence(suite)
    reasons = tally(suite, doc, reports).json()["tally"]["reasons"]
    assert sorted(r["rule"] for r in reasons) == ["merge-failed", "missing-freeze-run"]
    md = tally(suite, doc, reports, "--format", "markdown")
    assert md.code == 1
    assert md.stdout.startswith("### lane-tally: **reject**")
    # The decision table with this run's counts: tests, cases, passed, failed, errors,
    # skipped, missing.
    rows = {line.split(" | ")[0].lstrip("| "): line for line in md.stdout.splitlines()
            if line.startswith("| ")}
    assert rows["merge"].endswith("| 4 | 6 | 5 | 1 | 0 | 0 | 0 |"), rows["merge"]
    assert rows["witness"].endswith("| 1 | 1 | 1 | 0 | 0 | 0 | 0 |"), rows["witness"]
    assert rows["freeze"].endswith("| 1 | 0 | 0 | 0 | 0 | 0 | 1 |"), rows["freeze"]
    # Then every reason.
    assert "2 reasons to reject" in md.stdout
    for reason in reasons:
        assert f"`{reason['rule']}`" in md.stdout
    # And what to do about each rule, once: the fix, whether an acknowledgment covers it, and
    # the command that explains it.
    steps = md.stdout.split("What to do next:\n\n", 1)[1].split("\n\n", 1)[0].splitlines()
    assert [s.split("`")[1] for s in steps] == ["merge-failed", "missing-freeze-run"], steps
    assert all(s.endswith(f"`lane-tally --explain {s.split('`')[1]}`.") for s in steps), steps
    assert "Not acknowledgeable." in steps[0], steps[0]
    gh = tally(suite, doc, reports, "--format", "github")
    assert gh.code == 1
    lines = gh.stdout.splitlines()
    assert len(lines) == len(reasons)
    for reason in reasons:
        at = f"::error file={reason['file']},line={reason['line']},title={reason['rule']}::"
        assert sum(line.startswith(at) for line in lines) == 1, (at, lines)
    assert "file=tests/test_props.py" in gh.stdout and "file=tests/test_flake.py" in gh.stdout


def test_real_upstream_error_is_a_reason(suite: Path):
    # The ticket expires on 2027-01-15: checked on a later day, freeze-ledger reports it.
    scan = run_tool("lane-scan", cwd=suite)
    lock = run_tool("lane-lock", "verify", stdin=scan.stdout, cwd=suite)
    ledger = run_tool("freeze-ledger", "check", "--today", "2027-02-01", stdin=lock.stdout,
                      cwd=suite)
    assert ledger.code == 1, ledger.stderr
    run = tally(suite, ledger.stdout, three_lanes(suite))
    assert run.code == 1
    section = run.json()["tally"]
    assert section["problems"] == []
    assert [r["rule"] for r in section["reasons"]] == ["expired-ticket"]


def test_no_lock_and_no_ledger_sections(suite: Path):
    scan = run_tool("lane-scan", cwd=suite)
    assert scan.code == 0, scan.stderr
    run = tally(suite, scan.stdout, three_lanes(suite))
    assert run.code == 1
    assert own_rules(run) == [("no-ledger-evidence", "error", None),
                              ("no-lock-evidence", "error", None)]


def test_case_the_scan_never_saw_is_unknown(suite: Path):
    doc = evidence(suite)
    # A test added after the scan (the report comes from another tree than the evidence).
    (suite / "tests" / "test_late.py").write_text(textwrap.dedent('''\
        import pytest


        @pytest.mark.merge
        def test_late():
            """owner: qa-team"""
            assert 1 + 1 == 2
        '''))
    run = tally(suite, doc, three_lanes(suite))
    assert run.code == 1
    assert own_rules(run) == [("unknown-test", "error", None)]
    assert "tests.test_late::test_late" in run.json()["tally"]["reasons"][0]["message"]


NESTED = '''\
import pytest


class TestOuter:
    class TestInner:
        @pytest.mark.merge
        @pytest.mark.parametrize("text", ["a", "b c", "d[e]"])
        def test_strip(self, text):
            """owner: qa-team"""
            assert f" {text} ".strip() == text

    @pytest.mark.merge
    def test_upper(self):
        """owner: qa-team"""
        assert "a".upper() == "A"
'''


def test_packages_shards_and_a_run_from_a_subfolder(suite: Path):
    pkg = suite / "tests" / "pkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "test_nested.py").write_text(NESTED)
    doc = evidence(suite)
    ids = {t["id"] for t in json.loads(doc)["scan"]["tests"]}
    assert "tests/pkg/test_nested.py::TestOuter::TestInner::test_strip" in ids
    reports = three_lanes(suite)
    # The merge lane as two shards: the package run from its own folder (pytest still names
    # cases from the rootdir), in xunit1, and the rest from the rootdir.
    shard = run_pytest("-m", "merge", "--strict-markers", "-o", "junit_family=xunit1",
                       "--junitxml=../../out/merge-pkg.xml", cwd=pkg)
    assert shard.returncode == 0, shard.stdout + shard.stderr
    xml = (suite / "out" / "merge-pkg.xml").read_text()
    assert 'classname="tests.pkg.test_nested.TestOuter.TestInner"' in xml
    assert 'file="tests/pkg/test_nested.py"' in xml
    rest = lane_run(suite, "merge", "--ignore=tests/pkg", name="merge-rest")
    run = tally(suite, doc, {**reports, "merge": rest},
                "--junit", "merge=out/merge-pkg.xml")
    assert run.code == 0, run.stdout + run.stderr
    assert run.json()["tally"]["lanes"]["merge"] == {
        "tests": 6, "cases": 10, "passed": 10, "failed": 0, "errors": 0, "skipped": 0,
        "missing": 0}
    # Without the package's shard its tests did not vote.
    partial = tally(suite, doc, {**reports, "merge": rest})
    assert partial.code == 1
    assert own_rules(partial) == [
        ("missing-vote", "error", "tests/pkg/test_nested.py::TestOuter::TestInner::test_strip"),
        ("missing-vote", "error", "tests/pkg/test_nested.py::TestOuter::test_upper"),
    ]


def test_upstream_errors_are_reasons(suite: Path):
    doc = json.loads(evidence(suite))
    doc["lock"]["problems"].append({"rule": "digest-moved", "severity": "error",
                                    "message": "tests/fixtures/golden.txt moved",
                                    "file": "tests/fixtures/golden.txt"})
    run = tally(suite, json.dumps(doc), three_lanes(suite))
    assert run.code == 1
    section = run.json()["tally"]
    assert section["problems"] == []
    assert [r["rule"] for r in section["reasons"]] == ["digest-moved"]


def test_truncated_and_hostile_reports_exit_2(suite: Path):
    doc = evidence(suite)
    reports = three_lanes(suite)
    real = (suite / reports["merge"]).read_bytes()
    (suite / "out" / "truncated.xml").write_bytes(real[: len(real) // 2])
    (suite / "out" / "bomb.xml").write_text(textwrap.dedent("""\
        <?xml version="1.0"?>
        <!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol1 "&lol;&lol;&lol;&lol;&lol;">]>
        <testsuites><testsuite><testcase classname="a" name="&lol1;"/></testsuite></testsuites>
        """))
    (suite / "out" / "root.xml").write_text("<report><case/></report>")
    for name, expected in [("truncated", "out/truncated.xml:"), ("bomb", "out/bomb.xml:2:1:"),
                           ("root", "unknown root element <report>")]:
        run = tally(suite, doc, {**reports, "merge": f"out/{name}.xml"})
        assert run.code == 2, name
        assert run.stdout == ""
        assert run.stderr.startswith("lane-tally: error: ") and expected in run.stderr, run.stderr


def test_patch_removing_a_merge_test(tmp_path: Path):
    base_root = write_suite(tmp_path / "base")
    (tmp_path / "base.json").write_text(evidence(base_root))
    head = write_suite(tmp_path / "head")
    source = (head / "tests" / "test_props.py").read_text()
    start = source.index("@pytest.mark.merge\ndef test_pair")
    end = source.index("class TestTable")
    (head / "tests" / "test_props.py").write_text(source[:start] + source[end:])
    doc = evidence(head)
    reports = three_lanes(head)
    base = str(tmp_path / "base.json")
    run = tally(head, doc, reports, "--base", base)
    assert run.code == 1
    assert own_rules(run) == [("merge-test-removed", "error", "tests/test_props.py::test_pair")]
    section = run.json()["tally"]
    assert section["delta"]["merge"] == {"base": 4, "head": 3, "change": -1}
    acknowledged = tally(head, doc, reports, "--base", base, "--reason", "test_pair duplicated "
                         "TestTable", "--format", "markdown")
    assert acknowledged.code == 0, acknowledged.stdout
    assert "**approve**" in acknowledged.stdout
    assert "| merge | 4 | 3 | -1 |" in acknowledged.stdout
    assert "test_pair duplicated TestTable" in acknowledged.stdout


def invoice_tally(root: Path) -> tuple[object, object]:
    doc = evidence(root)
    reports = three_lanes(root)
    return tally(root, doc, reports), tally(root, doc, reports, "--format", "markdown")


def test_bundled_invoice_example(invoice: Path):
    run, md = invoice_tally(invoice)
    assert run.code == 0, run.stdout
    section = run.json()["tally"]
    assert section["decision"] == "approve"
    assert [section["lanes"][lane]["missing"] for lane in ("merge", "witness", "freeze")] == [0] * 3
    assert "### lane-tally: **approve**" in md.stdout


def test_invoice_patch_that_breaks_the_property(invoice: Path):
    # The article's wrong patch: invert_credit that returns its input.
    source = (invoice / "invoice.py").read_text()
    assert "    return applied + credit\n" in source
    (invoice / "invoice.py").write_text(source.replace("    return applied + credit\n",
                                                       "    return applied\n"))
    run, md = invoice_tally(invoice)
    assert run.code == 1
    # Both voters catch it: the property and the human-written examples.
    assert own_rules(run) == [
        ("merge-failed", "error", "tests/test_invoice_merge.py::test_credit_examples"),
        ("merge-failed", "error", "tests/test_invoice_merge.py::test_credit_round_trip"),
    ]
    assert "`merge-failed`" in md.stdout
