"""Snapshot libraries' files under the gate, end to end, for the layouts
test_snapshots.py (syrupy's amber file) does not cover: pytest-regressions' data folder, by
test name and with `--with-test-class-names` in addopts (the library then names a class's
files `<Class>_<test>`), syrupy's single-file layout, and pytest-snapshot's folders (its
default `snapshots/<module>/<test>[/<params>]/` and a `snapshot_dir` the test sets). Each
project's snapshot files are written by a real run of the library (`--force-regen` /
`--snapshot-update`), never by hand;
then lane-scan gives each witness test its files, lane-lock locks them, lane-gate approves,
and a patch that rewrites a snapshot file without a lock edit, or one that changes the output
the snapshot holds, is rejected; a snapshot file no test uses is reported by lane-lock verify.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from conftest import PYTHON, REPO, run_pytest, run_tool
from test_gate import TODAY, gate, git, reason_rules
from test_snapshots import MERGE, PRODUCT, scan, verify

pytest.importorskip("pytest_regressions", reason="pytest-regressions is pinned in requirements-dev.txt")
pytest.importorskip("syrupy", reason="syrupy is pinned in requirements-dev.txt")

REGRESSIONS = '''\
import pytest

from report import render


@pytest.mark.witness
def test_layout(data_regression):
    data_regression.check(render([("tea", 250), ("cake", 1175)]))


@pytest.mark.witness
class TestRounding:
    def test_small(self, data_regression):
        data_regression.check(render([("x", 5)]))

    @pytest.mark.parametrize("cents", [1, 99])
    def test_cents(self, cents, data_regression):
        data_regression.check(render([("y", cents)]))
'''

SINGLE_FILE = '''\
import pytest
from syrupy.extensions.single_file import SingleFileSnapshotExtension, WriteMode

from report import render


class TextSnapshot(SingleFileSnapshotExtension):
    _write_mode = WriteMode.TEXT
    file_extension = "txt"


@pytest.fixture
def snapshot(snapshot):
    return snapshot.use_extension(TextSnapshot)


@pytest.mark.witness
def test_layout(snapshot):
    assert "\\n".join(render([("tea", 250), ("cake", 1175)])["lines"]) == snapshot


@pytest.mark.witness
class TestRounding:
    def test_cents(self, snapshot):
        assert "\\n".join(render([("x", 5)])["lines"]) == snapshot
'''

# pytest-snapshot: each test's files are named by the test (`lines.txt` in its own folder);
# one test points `snapshot_dir` at a folder of its own, relative to the rootdir.
PYTEST_SNAPSHOT = '''\
import pytest

from report import render


def lines(items):
    return "\\n".join(render(items)["lines"]) + "\\n"


@pytest.mark.witness
def test_layout(snapshot):
    snapshot.assert_match(lines([("tea", 250), ("cake", 1175)]), "lines.txt")


@pytest.mark.witness
def test_own_folder(snapshot):
    snapshot.snapshot_dir = "tests/golden/receipt"
    snapshot.assert_match(lines([("bun", 90)]), "lines.txt")


@pytest.mark.witness
class TestRounding:
    def test_small(self, snapshot):
        snapshot.assert_match(lines([("x", 5)]), "lines.txt")

    @pytest.mark.parametrize("cents", [1, 99])
    def test_cents(self, cents, snapshot):
        snapshot.assert_match(lines([("y", cents)]), "lines.txt")
'''

W = "tests/test_report_witness.py::"
PYTEST_SNAPSHOT_VENV = "requirements-pytest-snapshot.txt"


def pins(requirements: str) -> str:
    """A requirements file beside this one, without its comments."""
    lines = Path(__file__).with_name(requirements).read_text().splitlines()
    return "".join(f"{line}\n" for line in lines if line and not line.startswith("#"))


@dataclass(frozen=True)
class Library:
    name: str
    witness: str
    addopts: str
    update: str
    # What the project's requirements name: the gate loads only the plugins named there.
    requirements: str
    # Each witness test's snapshot files, as the library wrote them.
    files: dict[str, list[str]]
    # Files no test uses, beside the others, named as the library would name one (for a test
    # renamed away, a class renamed away, or the other setting of the naming option).
    orphans: tuple[str, ...]
    # The library cannot be installed in the dev venv: it runs in a venv of its own, built
    # from this requirements file under tests/e2e/ (see own_venv).
    venv: str | None = None

    def python(self) -> str:
        return PYTHON if self.venv is None else own_venv(self.venv)


REGRESSIONS_REQ = "pytest==9.2.0\npytest-regressions==2.11.0\npytest-datadir==1.9.0\n"

LIBRARIES = [
    Library("regressions", REGRESSIONS, "", "--force-regen", REGRESSIONS_REQ, {
        W + "test_layout": ["tests/test_report_witness/test_layout.yml"],
        W + "TestRounding::test_small": ["tests/test_report_witness/test_small.yml"],
        # The scan lists a parametrized test once, with every parameter's file.
        W + "TestRounding::test_cents": ["tests/test_report_witness/test_cents_1_.yml",
                                         "tests/test_report_witness/test_cents_99_.yml"],
    }, ("tests/test_report_witness/test_renamed_away.yml",
        # Left from a run with --with-test-class-names: this run never reads it.
        "tests/test_report_witness/TestRounding_test_small.yml")),
    Library("regressions-class-names", REGRESSIONS, " --with-test-class-names", "--force-regen",
            REGRESSIONS_REQ, {
        W + "test_layout": ["tests/test_report_witness/test_layout.yml"],
        W + "TestRounding::test_small": ["tests/test_report_witness/TestRounding_test_small.yml"],
        W + "TestRounding::test_cents": [
            "tests/test_report_witness/TestRounding_test_cents_1_.yml",
            "tests/test_report_witness/TestRounding_test_cents_99_.yml"],
    }, ("tests/test_report_witness/TestRounding_test_renamed_away.yml",
        # A class renamed away (TestGone is no class of the module any more).
        "tests/test_report_witness/TestGone_test_small.yml",
        # Left from a run without the option.
        "tests/test_report_witness/test_small.yml")),
    Library("syrupy-single-file", SINGLE_FILE, "", "--snapshot-update",
            "pytest==9.2.0\nsyrupy==7.0.3\n", {
        W + "test_layout": ["tests/__snapshots__/test_report_witness/test_layout.txt"],
        W + "TestRounding::test_cents": [
            "tests/__snapshots__/test_report_witness/TestRounding.test_cents.txt"],
    }, ("tests/__snapshots__/test_report_witness/test_renamed_away.txt",)),
    Library("pytest-snapshot", PYTEST_SNAPSHOT, "", "--snapshot-update",
            pins(PYTEST_SNAPSHOT_VENV), {
        W + "test_layout": ["tests/snapshots/test_report_witness/test_layout/lines.txt"],
        W + "test_own_folder": ["tests/golden/receipt/lines.txt"],
        # pytest-snapshot names a class's test by the test alone, a parameter by a folder.
        W + "TestRounding::test_small": [
            "tests/snapshots/test_report_witness/test_small/lines.txt"],
        W + "TestRounding::test_cents": [
            "tests/snapshots/test_report_witness/test_cents/1/lines.txt",
            "tests/snapshots/test_report_witness/test_cents/99/lines.txt"],
    }, ("tests/snapshots/test_report_witness/test_renamed_away/lines.txt",),
            venv=PYTEST_SNAPSHOT_VENV),
]

VENVS = REPO / "target" / "e2e-venvs"


def own_venv(requirements: str) -> str:
    """The interpreter of a venv with `requirements` (a file beside this one) installed: built
    once, cached under target/e2e-venvs by the file's digest (so a rerun is offline and an
    edited pin builds a new one), locked so that xdist workers build it once."""
    req = Path(__file__).with_name(requirements)
    text = req.read_text()
    dev_pytest = [line for line in (REPO / "requirements-dev.txt").read_text().splitlines()
                  if line.startswith("pytest==")]
    assert dev_pytest and dev_pytest[0] in text.splitlines(), \
        f"{req.name} must pin the dev venv's {dev_pytest}"
    digest = hashlib.sha256(text.encode()).hexdigest()[:16]
    venv = VENVS / f"{req.stem}-{digest}"
    python = venv / "bin" / "python"
    VENVS.mkdir(parents=True, exist_ok=True)
    with open(VENVS / f"{venv.name}.lock", "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if python.exists():
            return str(python)
        # Built beside its final place, then renamed: a half-built venv is never used.
        partial = VENVS / f"{venv.name}.partial-{os.getpid()}"
        shutil.rmtree(partial, ignore_errors=True)
        subprocess.run([sys.executable, "-m", "venv", str(partial)], check=True, timeout=300)
        proc = subprocess.run(
            [str(partial / "bin" / "python"), "-m", "pip", "install", "--quiet",
             "--disable-pip-version-check", "-r", str(req)],
            capture_output=True, text=True, timeout=900)
        if proc.returncode != 0:
            shutil.rmtree(partial, ignore_errors=True)
            pytest.fail(f"cannot install {req.name} (needed once, then cached under "
                        f"target/e2e-venvs):\n{proc.stderr}")
        partial.rename(venv)
    return str(python)


def ini(addopts: str) -> str:
    return f"""\
[pytest]
pythonpath = .
testpaths = tests
addopts = --strict-markers{addopts}
markers =
    merge: votes on the patch
    witness(fixture=None, locked_on=None): hash-locked bytes
    freeze: a known flake with a ledger ticket
"""


def all_files(lib: Library) -> list[str]:
    return sorted({f for files in lib.files.values() for f in files})


def project(root: Path, lib: Library) -> Path:
    (root / "tests").mkdir(parents=True)
    (root / "pytest.ini").write_text(ini(lib.addopts))
    (root / "requirements.txt").write_text(lib.requirements)
    (root / "report.py").write_text(PRODUCT)
    (root / "tests" / "test_report_merge.py").write_text(MERGE)
    (root / "tests" / "test_report_witness.py").write_text(lib.witness)
    (root / "freeze_ledger.json").write_text("[]\n")
    # The library writes its snapshot files (pytest-regressions fails each test whose file it
    # had to write; the next plain run passes).
    run_pytest(lib.update, "-q", cwd=root, python=lib.python())
    for name in all_files(lib):
        assert (root / name).is_file(), (name, sorted(str(p.relative_to(root))
                                                      for p in root.rglob("*") if p.is_file()))
    plain = run_pytest("-q", cwd=root, python=lib.python())
    assert plain.returncode == 0, plain.stdout + plain.stderr
    return root


def lock(root: Path, lib: Library) -> Path:
    run = run_tool("lane-lock", "lock", *all_files(lib), "--today", TODAY, cwd=root)
    assert run.code == 0, run.stdout + run.stderr
    return root


def base_repo(tmp_path: Path, lib: Library) -> Path:
    root = lock(project(tmp_path / "p", lib), lib)
    git(root, "init", "-q")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "base")
    proc = lib_gate(root, lib)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "**approve**" in proc.stdout
    git(root, "clean", "-qfdx")
    return root


def lib_gate(root: Path, lib: Library, *args: str) -> subprocess.CompletedProcess:
    """lane-gate on the project, running pytest with the library's interpreter."""
    return gate(root, *args, "--today", TODAY, "--python", lib.python())


def verdict(root: Path) -> dict:
    return json.loads((root / "out" / "lanes" / "verdict.json").read_text())


@pytest.mark.parametrize("lib", LIBRARIES, ids=[lib.name for lib in LIBRARIES])
def test_each_witness_test_gets_the_files_the_library_wrote(lib: Library, tmp_path: Path):
    root = project(tmp_path / "p", lib)
    doc = scan(root)
    tests = {t["id"]: t for t in doc["scan"]["tests"]}
    got = {tid: tests[tid]["attachments"].get("fixtures") for tid in lib.files}
    assert got == lib.files
    assert "fixtures" not in tests["tests/test_report_merge.py::test_total_is_the_sum"][
        "attachments"]
    # Every file the library wrote is listed, a folder a test names itself (`snapshot_dir`) too.
    assert doc["scan"]["snapshots"] == all_files(lib)
    # Unlocked, they are unlocked fixtures; locked, verify is clean.
    code, out = verify(root)
    assert code == 1 and {p["rule"] for p in out["lock"]["problems"]} == {"unlocked-fixture"}
    code, out = verify(lock(root, lib))
    assert code == 0 and out["lock"]["problems"] == [], out["lock"]


@pytest.mark.parametrize("lib", LIBRARIES, ids=[lib.name for lib in LIBRARIES])
def test_a_snapshot_file_no_test_uses_is_reported(lib: Library, tmp_path: Path):
    root = lock(project(tmp_path / "p", lib), lib)
    first = all_files(lib)[0]
    for orphan in lib.orphans:
        (root / orphan).parent.mkdir(parents=True, exist_ok=True)
        (root / orphan).write_bytes((root / first).read_bytes())
    code, out = verify(root)
    orphans = [p for p in out["lock"]["problems"] if p["rule"] == "orphan-snapshot"]
    assert [p["file"] for p in orphans] == sorted(lib.orphans), out["lock"]
    assert code == 0 and {p["severity"] for p in orphans} == {"warning"}


def test_a_snapshot_dir_of_a_test_outside_the_witness_lane_is_reported(tmp_path: Path):
    # The folder a test names itself (`snapshot_dir`) is in the scan's snapshot list: once the
    # test leaves the witness lane, the files there pin nothing and are reported.
    lib = next(lib for lib in LIBRARIES if lib.name == "pytest-snapshot")
    root = lock(project(tmp_path / "p", lib), lib)
    witness = root / "tests" / "test_report_witness.py"
    text = witness.read_text()
    moved = text.replace('@pytest.mark.witness\ndef test_own_folder(snapshot):\n',
                         '@pytest.mark.merge\ndef test_own_folder(snapshot):\n    """owner: qa"""\n')
    assert moved != text
    witness.write_text(moved)
    code, out = verify(root)
    orphans = [p["file"] for p in out["lock"]["problems"] if p["rule"] == "orphan-snapshot"]
    assert orphans == ["tests/golden/receipt/lines.txt"], out["lock"]


@pytest.mark.parametrize("lib", LIBRARIES, ids=[lib.name for lib in LIBRARIES])
def test_the_gate_rejects_a_snapshot_rewritten_without_a_lock_edit(lib: Library, tmp_path: Path):
    root = base_repo(tmp_path, lib)
    # The agent changes the output and has the library rewrite the snapshots to match.
    report = root / "report.py"
    report.write_text(report.read_text().replace(":.2f", ":.3f"))
    run_pytest(lib.update, "-q", cwd=root, python=lib.python())
    moved_files = git(root, "status", "--porcelain", "--", "tests").split()
    assert moved_files, "the library rewrote no snapshot"
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "agent")
    proc = lib_gate(root, lib, "--base", "HEAD~1")
    assert proc.returncode == 1, proc.stdout + proc.stderr
    reasons = verdict(root)["tally"]["reasons"]
    moved = {p.get("file") for p in reasons if p["rule"] == "digest-moved"}
    assert moved == set(all_files(lib)), reasons


@pytest.mark.parametrize("lib", LIBRARIES, ids=[lib.name for lib in LIBRARIES])
def test_the_witness_fails_a_patch_that_changes_the_output(lib: Library, tmp_path: Path):
    root = base_repo(tmp_path, lib)
    report = root / "report.py"
    report.write_text(report.read_text().replace(":.2f", ":.3f"))
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "agent")
    proc = lib_gate(root, lib, "--base", "HEAD~1")
    assert proc.returncode == 1, proc.stdout + proc.stderr
    reasons = verdict(root)["tally"]["reasons"]
    # Every witness test failed (a parametrized one as its parameters, or as itself).
    failed = {r["test"].split("[")[0] for r in reasons if r["rule"] == "witness-failed"}
    assert failed == set(lib.files), reasons
    assert "witness-failed" in reason_rules(verdict(root))
