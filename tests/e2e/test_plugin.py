"""pytest-lanes-gate (python/pytest-lanes-gate), installed for real into a throwaway virtual
environment beside the shared one, and driven by real pytest runs with and without it: the
markers it registers, the local lane contract (lane-scan's rule ids and messages), the
lane_replay fixture, its JUnit properties, lane-tally's lane-drift against a conftest hook that
moves a lane mark at run time, and lane-gate loading it."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from conftest import PYTHON, REPO, copy_tree, run_tool, tool_path, TOOLS

PLUGIN_DIR = REPO / "python" / "pytest-lanes-gate"
TODAY = "2026-12-01"


def _purelib(python: str) -> Path:
    out = subprocess.run(
        [python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        capture_output=True, text=True, check=True)
    return Path(out.stdout.strip())


@pytest.fixture(scope="session")
def plugin_python(tmp_path_factory) -> Path:
    """A virtual environment with everything the shared one has (linked, not copied) plus
    pytest-lanes-gate, installed by pip from its folder (no index: flit_core, pinned in
    requirements-dev.txt, builds it)."""
    root = tmp_path_factory.mktemp("plugin-venv")
    venv = root / "venv"
    subprocess.run([PYTHON, "-m", "venv", "--without-pip", str(venv)], check=True)
    python = venv / "bin" / "python"
    own = _purelib(str(python))
    own.mkdir(parents=True, exist_ok=True)
    for entry in sorted(_purelib(PYTHON).iterdir()):
        if entry.name.startswith(("pytest_lanes_gate", "__pycache__")):
            continue
        (own / entry.name).symlink_to(entry)
    subprocess.run(
        [PYTHON, "-m", "pip", "install", "--quiet", "--disable-pip-version-check", "--no-deps",
         "--no-build-isolation", "--no-index", "--target", str(own), str(PLUGIN_DIR)],
        check=True, capture_output=True)
    return python


def pytest_run(python: Path | str, cwd: Path, *args: str, **env: str):
    full_env = {k: v for k, v in os.environ.items()
                if k not in ("PYTEST_ADDOPTS", "PYTEST_PLUGINS", "PYTEST_DISABLE_PLUGIN_AUTOLOAD")}
    full_env.update({"PYTHONHASHSEED": "0", "PYTHONDONTWRITEBYTECODE": "1"})
    full_env.update(env)
    return subprocess.run([str(python), "-m", "pytest", "-p", "no:cacheprovider", *args],
                          cwd=cwd, capture_output=True, text=True, env=full_env, timeout=300)


def write(root: Path, files: dict[str, str]) -> Path:
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return root


# A config that registers no lane marker: the plugin must do it.
BARE_INI = "[pytest]\ntestpaths = tests\n"

ADOPTED = {
    "pytest.ini": BARE_INI,
    "tests/test_ok.py": (
        "import pytest\n\n\n"
        "@pytest.mark.merge\n"
        "def test_sum():\n"
        "    \"\"\"owner: team-a\"\"\"\n"
        "    assert sum([1, 2]) == 3\n\n\n"
        "@pytest.mark.witness(locked_on=\"2026-11-01\")\n"
        "@pytest.mark.parametrize(\"n\", [1, 2])\n"
        "def test_shape(n):\n"
        "    assert n in (1, 2)\n"
    ),
}


def test_the_plugin_registers_the_markers_without_a_config_edit(tmp_path, plugin_python):
    root = write(tmp_path, ADOPTED)
    without = pytest_run(PYTHON, root, "--strict-markers", "-q")
    assert without.returncode != 0
    assert "'merge' not found in `markers` configuration option" in without.stdout + without.stderr
    with_it = pytest_run(plugin_python, root, "--strict-markers", "-q")
    assert with_it.returncode == 0, with_it.stdout + with_it.stderr
    assert "3 passed" in with_it.stdout
    markers = pytest_run(plugin_python, root, "--markers")
    for lane in ("merge", "witness", "freeze"):
        assert re.search(rf"^@pytest\.mark\.{lane}: .*\(lanes\)$", markers.stdout, re.M), lane


def test_required_plugins_satisfies_unregistered_marker(tmp_path, plugin_python):
    root = write(tmp_path, ADOPTED)
    rules = lambda: {p["rule"] for p in run_tool("lane-scan", cwd=root).json()["scan"]["problems"]}
    assert "unregistered-marker" in rules()
    (root / "pytest.ini").write_text(BARE_INI + "required_plugins = pytest-lanes-gate>=0.1\n")
    assert "unregistered-marker" not in rules()
    # and pytest holds the project to it: without the plugin the run stops
    without = pytest_run(PYTHON, root, "--strict-markers", "-q")
    assert without.returncode != 0
    assert "Missing required plugins: pytest-lanes-gate" in without.stdout + without.stderr
    with_it = pytest_run(plugin_python, root, "--strict-markers", "-q")
    assert with_it.returncode == 0, with_it.stdout + with_it.stderr


UNADOPTED = {
    "pytest.ini": BARE_INI,
    "tests/test_plain.py": (
        "import pytest\n\n\n"
        "def test_one():\n    assert 1 + 1 == 2\n\n\n"
        "@pytest.mark.skip(reason='not today')\n"
        "def test_skipped():\n    assert False\n"
    ),
}


def test_an_unadopted_suite_runs_as_before(tmp_path, plugin_python):
    root = write(tmp_path, UNADOPTED)
    junit = tmp_path / "r.xml"
    before = pytest_run(PYTHON, root, "-q", f"--junitxml={junit}")
    after = pytest_run(plugin_python, root, "-q", f"--junitxml={junit}")
    assert before.returncode == after.returncode == 0, after.stdout + after.stderr
    assert "1 passed, 1 skipped" in after.stdout
    assert b"lanes_" not in junit.read_bytes()
    # asked for with -p (autoloading off or on), the same suite is held to the contract
    for env in ({}, {"PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"}):
        asked = pytest_run(plugin_python, root, "-q", "-p", "pytest_lanes_gate", **env)
        assert asked.returncode == 2, asked.stdout + asked.stderr
        assert ("tests/test_plain.py:4: unmarked: tests/test_plain.py::test_one has no lane"
                in asked.stdout)


def test_a_new_unmarked_test_stops_pytest_naming_lane_scan_fix(tmp_path, plugin_python):
    root = write(tmp_path, ADOPTED)
    write(root, {"tests/test_new.py": "def test_added():\n    assert len('ab') == 2\n"})
    stopped = pytest_run(plugin_python, root, "-q")
    assert stopped.returncode == 2, stopped.stdout + stopped.stderr
    interrupted = [l for l in stopped.stdout.splitlines() if "Interrupted: " in l]
    assert len(interrupted) == 1, stopped.stdout
    assert "1 lanes contract error" in interrupted[0]
    assert "run `lane-scan --fix`" in interrupted[0]
    # and what it names does the job: after the fix the same run passes
    fixed = run_tool("lane-scan", "--fix", cwd=root)
    assert fixed.code == 0, fixed.stdout + fixed.stderr
    again = pytest_run(plugin_python, root, "-q")
    assert again.returncode == 0, again.stdout + again.stderr
    # a contract error --fix does not mend (two lanes) does not name it
    write(root, {"tests/test_new.py": (
        "import pytest\n\n\n@pytest.mark.merge\n@pytest.mark.freeze\n"
        "def test_added():\n    assert len('ab') == 2\n")})
    two = pytest_run(plugin_python, root, "-q")
    assert two.returncode == 2, two.stdout + two.stderr
    assert "multiple-lanes" in two.stdout and "lane-scan --fix" not in two.stdout


BROKEN = {
    "pytest.ini": BARE_INI,
    "tests/test_broken.py": (
        "import pytest\n\n"
        "pytestmark = pytest.mark.merge\n\n\n"
        "def test_fine():\n    \"\"\"owner: a\"\"\"\n    assert len('ab') == 2\n\n\n"
        "@pytest.mark.freeze\n"
        "@pytest.mark.parametrize('n', [1, 2])\n"
        "def test_two_lanes(n):\n    assert n\n\n\n"
        "class TestSkipped:\n"
        "    @pytest.mark.skip(reason='later')\n"
        "    def test_later(self):\n        assert 1\n"
    ),
    "tests/test_unmarked.py": (
        "def helper():\n    return 2\n\n\n"
        "def test_nothing():\n    assert helper() == 2\n"
    ),
}

CONTRACT_RULES = {"unmarked", "multiple-lanes", "unconditional-skip"}


def test_the_local_contract_speaks_lane_scan_s_rules_and_messages(tmp_path, plugin_python):
    root = write(tmp_path, BROKEN)
    scan = run_tool("lane-scan", cwd=root)
    expected = sorted((p["file"], p["rule"], p["message"]) for p in scan.json()["scan"]["problems"]
                      if p["rule"] in CONTRACT_RULES)
    assert {rule for _, rule, _ in expected} == CONTRACT_RULES
    proc = pytest_run(plugin_python, root, "-q")
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert "no tests ran" in proc.stdout  # stopped before any test ran
    got = sorted(
        (m["file"], m["rule"], m["message"])
        for m in re.finditer(r"^(?P<file>[^\s:]+):(?P<line>\d+): (?P<rule>[a-z-]+): "
                             r"(?P<message>.+)$", proc.stdout, re.M))
    assert got == expected
    # one line per test, not per parametrized case; the test's def line, as lane-scan reports
    listed = [l for l in proc.stdout.splitlines() if l.startswith("tests/")]
    assert sum("test_two_lanes is in 2 lanes" in l for l in listed) == 1
    for p in scan.json()["scan"]["problems"]:
        if p["rule"] in ("unmarked", "multiple-lanes"):
            assert f'{p["file"]}:{p["line"]}: {p["rule"]}: {p["message"]}' in listed
    # -m selects one lane, but deselected tests still show the project adopted lanes
    selected = pytest_run(plugin_python, root, "-q", "-m", "merge", "--lanes-contract=record")
    assert selected.returncode == 0, selected.stdout + selected.stderr


REPLAY = {
    "pytest.ini": BARE_INI,
    "tests/test_replay.py": (
        "import pytest\n\n\n"
        "@pytest.mark.freeze\n"
        "@pytest.mark.parametrize('seed', [3, 4])\n"
        "def test_flaky_refresh(lane_replay, seed):\n"
        "    path = lane_replay(f'seed={seed}'.encode())\n"
        "    assert path.read_bytes() == f'seed={seed}'.encode()\n"
        "    assert seed == 3, 'the refresh stuttered'\n\n\n"
        "@pytest.mark.merge\n"
        "def test_not_a_freeze(lane_replay):\n"
        "    \"\"\"owner: a\"\"\"\n"
        "    lane_replay(b'x')\n"
    ),
}


def cases(junit: Path) -> dict[str, dict]:
    out = {}
    for case in ET.parse(junit).getroot().iter("testcase"):
        props = {p.get("name"): p.get("value") for p in case.iter("property")}
        failed = case.find("failure")
        if failed is None:
            failed = case.find("error")
        out[case.get("name")] = {"props": props,
                                 "failure": None if failed is None else failed.get("message")}
    return out


def test_lane_replay_writes_the_capsule_and_records_replay(tmp_path, plugin_python):
    root = write(tmp_path, REPLAY)
    junit = tmp_path / "r.xml"
    proc = pytest_run(plugin_python, root, "-q", "-o", "junit_family=xunit1",
                      f"--junitxml={junit}")
    assert proc.returncode == 1, proc.stdout + proc.stderr
    got = cases(junit)
    capsules = set()
    for name, seed in (("test_flaky_refresh[3]", 3), ("test_flaky_refresh[4]", 4)):
        replay = got[name]["props"]["replay"]
        assert replay.startswith(".lanes/replay/tests_test_replay.py__test_flaky_refresh")
        assert (root / replay).read_bytes() == f"seed={seed}".encode()
        capsules.add(replay)
    assert len(capsules) == 2  # each parametrized case its own capsule
    assert got["test_flaky_refresh[4]"]["failure"] is not None
    assert "is not a freeze test (its lanes: merge)" in got["test_not_a_freeze"]["failure"]
    # nothing half-written is left beside the capsules
    assert sorted(p.name for p in (root / ".lanes" / "replay").iterdir()) == sorted(
        Path(c).name for c in capsules)


def test_junit_properties_carry_runtime_lanes_file_and_line(tmp_path, plugin_python):
    root = write(tmp_path, ADOPTED)
    junit = tmp_path / "r.xml"
    proc = pytest_run(plugin_python, root, "-q", f"--junitxml={junit}")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    got = cases(junit)
    assert got["test_sum"]["props"] == {
        "lanes_marks": "merge", "lanes_file": "tests/test_ok.py", "lanes_line": "5",
        "lanes_test": "tests/test_ok.py::test_sum"}
    for n in (1, 2):
        assert got[f"test_shape[{n}]"]["props"] == {
            "lanes_marks": "witness", "lanes_file": "tests/test_ok.py", "lanes_line": "12",
            "lanes_test": "tests/test_ok.py::test_shape"}
    scan = {t["id"]: t for t in run_tool("lane-scan", cwd=root).json()["scan"]["tests"]}
    assert scan["tests/test_ok.py::test_sum"]["line"] == 5
    assert scan["tests/test_ok.py::test_shape"]["line"] == 12


# A conftest hook that moves one test from the freeze lane to the merge lane at run time.
DRIFT = {
    "pytest.ini": BARE_INI,
    "tests/conftest.py": (
        "import pytest\n\n\n"
        "def pytest_collection_modifyitems(items):\n"
        "    for item in items:\n"
        "        if item.originalname == 'test_moved':\n"
        "            item.own_markers[:] = [m for m in item.own_markers if m.name != 'freeze']\n"
        "            item.add_marker(pytest.mark.merge)\n"
    ),
    "tests/test_drift.py": (
        "import pytest\n\n\n"
        "@pytest.mark.merge\n"
        "def test_sum():\n"
        "    \"\"\"owner: team-a\"\"\"\n"
        "    assert sum([1, 2]) == 3\n\n\n"
        "@pytest.mark.merge\n"
        "def test_len():\n"
        "    \"\"\"owner: team-a\"\"\"\n"
        "    assert len('abc') == 3\n\n\n"
        "@pytest.mark.freeze\n"
        "def test_moved():\n"
        "    assert 2 * 2 == 4\n"
    ),
    "freeze_ledger.json": json.dumps([{
        "test_id": "tests/test_drift.py::test_moved", "seed": 1,
        "input_sha256": "0" * 64, "expires_on": "2027-01-15",
        "last_replay_job": "https://ci.example.invalid/jobs/1"}]) + "\n",
}


def evidence(root: Path) -> str:
    scan = run_tool("lane-scan", cwd=root)
    lock = run_tool("lane-lock", "verify", stdin=scan.stdout, cwd=root)
    ledger = run_tool("freeze-ledger", "check", "--today", TODAY, stdin=lock.stdout, cwd=root)
    assert ledger.stdout, ledger.stderr
    return ledger.stdout


def test_lane_drift_from_a_conftest_hook_that_moves_a_lane_mark(tmp_path, plugin_python):
    root = write(tmp_path, DRIFT)
    doc = evidence(root)
    scan = {t["id"]: t for t in json.loads(doc)["scan"]["tests"]}
    assert scan["tests/test_drift.py::test_moved"]["lane"] == "freeze"
    junits = []
    for lane in ("merge", "witness", "freeze"):
        report = tmp_path / f"{lane}.xml"
        proc = pytest_run(plugin_python, root, "-m", lane, "-o", "junit_family=xunit1",
                          f"--junitxml={report}")
        assert proc.returncode in (0, 5), proc.stdout + proc.stderr
        junits += ["--junit", f"{lane}={report}"]
    # developers see it before pushing: the default contract check fails on the hook's work?
    # No: the moved test still has exactly one lane, so only the comparison with the scan can
    # tell. lane-tally makes that comparison.
    tally = run_tool("lane-tally", *junits, stdin=doc, cwd=root)
    assert tally.code == 1, tally.stdout + tally.stderr
    verdict = json.loads(tally.stdout)["tally"]
    drift = [p for p in verdict["reasons"] if p["rule"] == "lane-drift"]
    assert [(p["test"], p["message"]) for p in drift] == [(
        "tests/test_drift.py::test_moved",
        "tests/test_drift.py::test_moved ran with other lane marks than its source gives it: "
        "added merge; removed freeze at run time (a hook, plugin or fixture changed them)")]
    # the same reports without the plugin's properties cannot see it
    plain = []
    for lane in ("merge", "witness", "freeze"):
        report = tmp_path / f"plain-{lane}.xml"
        pytest_run(PYTHON, root, "-m", lane, "-o", "junit_family=xunit1", f"--junitxml={report}",
                   "-o", "markers=merge\nwitness\nfreeze")
        plain += ["--junit", f"{lane}={report}"]
    blind = json.loads(run_tool("lane-tally", *plain, stdin=doc, cwd=root).stdout)["tally"]
    assert "lane-drift" not in {p["rule"] for p in blind["problems"]}


def gate(root: Path, python: Path | str, *args: str) -> subprocess.CompletedProcess:
    for tool in TOOLS:
        tool_path(tool)
    env = {k: v for k, v in os.environ.items()
           if k not in ("LANES_TODAY", "LANES_ACK", "LANES_SEED")}
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    return subprocess.run([str(tool_path("lane-gate")), "--today", TODAY, "--python",
                           str(python), *args], cwd=root, capture_output=True, text=True,
                          env=env, timeout=900)


def test_lane_gate_loads_the_plugin_and_it_satisfies_unregistered_marker(tmp_path,
                                                                         plugin_python):
    # The bundled example with its markers removed from the config: the plugin registers them.
    root = copy_tree(REPO / "examples" / "invoice", tmp_path / "invoice")
    ini = root / "pytest.ini"
    ini.write_text(ini.read_text().split("markers =")[0])
    without = gate(root, PYTHON)
    assert without.returncode == 1, without.stdout + without.stderr
    reasons = json.loads((root / "out" / "lanes" / "verdict.json").read_text())["tally"]["reasons"]
    assert "unregistered-marker" in {r["rule"] for r in reasons}

    with_it = gate(root, plugin_python)
    assert with_it.returncode == 0, with_it.stdout + with_it.stderr
    out = root / "out" / "lanes"
    verdict = json.loads((out / "verdict.json").read_text())
    assert verdict["tally"]["decision"] == "approve"
    loaded = {p["distribution"] for p in verdict["gate"]["plugins"]["loaded"]}
    assert "pytest-lanes-gate" in loaded
    merge = cases(out / "merge.xml")
    assert merge and all(c["props"]["lanes_marks"] == "merge" for c in merge.values())


def test_lane_gate_rejects_a_run_time_lane_move(tmp_path, plugin_python):
    root = write(tmp_path, DRIFT)
    proc = gate(root, plugin_python)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    verdict = json.loads((root / "out" / "lanes" / "verdict.json").read_text())
    rules = {r["rule"] for r in verdict["tally"]["reasons"]}
    assert "lane-drift" in rules


KNOWN = (
    "import pytest\n\n\n"
    "@pytest.mark.freeze\n"
    "@pytest.mark.xfail(strict=True, reason='bug 12: negative credits round to even')\n"
    "def test_negative_credit_rounding():\n"
    "    assert round(-2.5) == {expected}\n"
)
KNOWN_ID = "tests/test_invoice_known.py::test_negative_credit_rounding"


@pytest.mark.parametrize("expected, warning", [(-3, None), (-2, "known-failure-passed")],
                         ids=["still-failing", "fixed"])
def test_a_known_failure_has_a_home_in_the_freeze_lane(tmp_path, expected, warning):
    """A freeze test marked xfail(strict=True) is a recorded known failure: with its ticket,
    the gate approves; once it passes (a strict XPASS), the verdict says promote it."""
    root = copy_tree(REPO / "examples" / "invoice", tmp_path / "invoice")
    (root / "tests" / "test_invoice_known.py").write_text(KNOWN.format(expected=expected))
    # without a ticket: the known failure is still a freeze test that needs one
    no_ticket = gate(root, PYTHON)
    assert no_ticket.returncode == 1
    reasons = json.loads((root / "out" / "lanes" / "verdict.json").read_text())["tally"]["reasons"]
    assert {r["rule"] for r in reasons} == {"missing-ticket"}
    add = run_tool("freeze-ledger", "add", KNOWN_ID, "--known-failure",
                   "--issue", "https://tracker.example.invalid/issues/12", "--owner", "billing",
                   "--expires", "2027-01-15", "--today", TODAY, cwd=root)
    assert add.code == 0, add.stderr
    proc = gate(root, PYTHON)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    verdict = json.loads((root / "out" / "lanes" / "verdict.json").read_text())["tally"]
    assert verdict["decision"] == "approve"
    freeze = cases(root / "out" / "lanes" / "freeze.xml")
    assert "test_negative_credit_rounding" in freeze
    warnings = [p for p in verdict["problems"] if p["rule"] == "known-failure-passed"]
    if warning is None:
        assert warnings == []
        assert "missing-freeze-run" not in {p["rule"] for p in verdict["problems"]}
    else:
        assert [p["test"] for p in warnings] == [KNOWN_ID]
        assert "promote it" in warnings[0]["message"]
        assert warnings[0]["severity"] == "warning"


WEEK = {
    "pytest.ini": BARE_INI,
    "tests/test_week.py": (
        "import pytest\n\n\n"
        "@pytest.mark.merge\n"
        "def test_sum():\n"
        "    \"\"\"owner: billing\"\"\"\n"
        "    assert 1 + 1 == 2\n\n\n"
        "@pytest.mark.merge\n"
        "def test_product():\n"
        "    \"\"\"owner: billing\"\"\"\n"
        "    assert 2 * 3 == 6\n\n\n"
        "@pytest.mark.freeze\n"
        "def test_flaky_refresh(lane_replay):\n"
        "    lane_replay(b'refresh-state-7')\n"
        "    assert False, 'the refresh stuttered'\n\n\n"
        "@pytest.mark.freeze\n"
        "@pytest.mark.xfail(strict=True, reason='rounding bug')\n"
        "def test_known_rounding():\n"
        "    assert round(2.675, 2) == 2.68\n"
    ),
}
WEEK_FLAKY_ID = "tests/test_week.py::test_flaky_refresh"
WEEK_KNOWN_ID = "tests/test_week.py::test_known_rounding"


def test_tickets_are_captured_from_the_run_that_saw_the_failure(tmp_path, plugin_python):
    """A flake's seed, capsule and CI job come from the gate's out folder, a known bug gets a
    known-failure ticket without them, and the gate then approves with nothing typed."""
    root = write(tmp_path, WEEK)
    job = "https://ci.example.invalid/app/jobs/4411"
    env = {"LANES_TODAY": TODAY, "LANES_JOB_URL": job}
    gate = ["--python", str(plugin_python)]
    first = run_tool("lane-gate", *gate, cwd=root, env=env)
    assert first.code == 1, first.stdout + first.stderr
    assert "missing-ticket" in first.stdout
    capture = json.loads((root / "out/lanes/capture.json").read_text())
    assert capture["job"] == job
    by_test = {c["test"]: c for c in capture["cases"]}
    assert by_test[WEEK_FLAKY_ID]["outcome"] == "failed"
    assert by_test[WEEK_KNOWN_ID]["outcome"] == "xfail"
    capsule = by_test[WEEK_FLAKY_ID]["capsule"]
    assert (root / "out/lanes/capsules" / capsule).read_bytes() == b"refresh-state-7"

    scan = run_tool("lane-scan", cwd=root)
    added = run_tool("freeze-ledger", "add", WEEK_FLAKY_ID, "--from", "out/lanes",
                     "--expires", "2027-01-15", "--today", TODAY, cwd=root, stdin=scan.stdout)
    assert added.code == 0, added.stderr
    ticket = added.json()
    assert ticket["last_replay_job"] == job
    assert ticket["seed"] == capture["seed"] is not None
    # lane_replay writes its capsule again on every run: the ticket pins its own copy
    kept = ticket["input_path"]
    assert kept == capsule.replace(".lanes/replay/", ".lanes/capsules/", 1) and "typed" not in ticket
    assert (root / kept).read_bytes() == b"refresh-state-7"
    # A known bug: refused as a flake without its fields, taken as a known failure.
    refused = run_tool("freeze-ledger", "add", WEEK_KNOWN_ID, "--expires", "2027-01-15",
                       "--today", TODAY, cwd=root, stdin=scan.stdout)
    assert refused.code == 2 and "--known-failure" in refused.stderr, refused.stderr
    known = run_tool("freeze-ledger", "add", WEEK_KNOWN_ID, "--known-failure", "--issue",
                     "https://tracker.example.invalid/issues/12", "--owner", "billing",
                     "--expires", "2027-01-15", "--today", TODAY, cwd=root, stdin=scan.stdout)
    assert known.code == 0, known.stderr
    assert known.json()["kind"] == "known-failure"

    second = run_tool("lane-gate", *gate, cwd=root, env=env)
    assert second.code == 0, second.stdout + second.stderr
    ledger = json.loads((root / "out/lanes/evidence.json").read_text())["ledger"]
    assert [t["status"] for t in ledger["tickets"]] == ["ok", "ok"]

    # A later CI job sees the flake again: the renewal takes its job (and seed and capsule)
    # from that run's out folder, nothing typed; the job already recorded is refused.
    stale = run_tool("freeze-ledger", "renew", WEEK_FLAKY_ID, "--from", "out/lanes",
                     "--expires", "2027-02-01", "--today", TODAY, cwd=root)
    assert stale.code == 2 and "already recorded" in stale.stderr, stale.stderr
    later = "https://ci.example.invalid/app/jobs/4502"
    third = run_tool("lane-gate", *gate, cwd=root, env={**env, "LANES_JOB_URL": later})
    assert third.code == 0, third.stdout + third.stderr
    renewed = run_tool("freeze-ledger", "renew", WEEK_FLAKY_ID, "--from", "out/lanes",
                       "--expires", "2027-02-01", "--today", TODAY, cwd=root)
    assert renewed.code == 0, renewed.stderr
    ticket = renewed.json()
    assert ticket["last_replay_job"] == later and ticket["expires_on"] == "2027-02-01"
    assert ticket["input_path"] == kept and "typed" not in ticket, ticket
    assert (root / kept).read_bytes() == b"refresh-state-7"
    # A known failure has no replay fields to capture.
    no_replay = run_tool("freeze-ledger", "renew", WEEK_KNOWN_ID, "--from", "out/lanes",
                         "--expires", "2027-02-01", "--today", TODAY, cwd=root)
    assert no_replay.code == 2 and "known failure" in no_replay.stderr, no_replay.stderr
