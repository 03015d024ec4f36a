"""Putting a real suite under the gate (issue 19): two projects' own test suites, downloaded as
pinned sdists (cached under target/adopt-sdists, so a rerun is offline), go through the README's
steps — `lane-scan --fix`, then `lane-gate` approves with no hand edit — while the project's own
plain pytest run still passes; then a wrong library change is rejected.

iso8601 2.1.0 has hypothesis properties (and needs pytz, pinned in requirements-dev.txt); toolz
0.12.1 has 180 plain tests and a test that runs the library's doctests. Neither has an xfail or
skip test, so no freeze ticket is written here: the freeze-candidate listing is pinned by
lane-scan's golden cases (crates/lane-scan/tests/golden/fix-*). Neither has a witness test, so
there is nothing for `lane-lock lock` to lock.
"""

from __future__ import annotations

import hashlib
import shutil
import subprocess
import tarfile
from dataclasses import dataclass
from pathlib import Path

import pytest

from conftest import PYTHON, REPO, run_pytest, run_tool
from test_gate import TODAY, gate

CACHE = REPO / "target" / "adopt-sdists"


@dataclass(frozen=True)
class Suite:
    name: str
    version: str
    sha256: str
    fix_args: tuple[str, ...]
    # A wrong library change: (file, old text, new text), old text written once.
    wrong: tuple[str, str, str]
    merge_tests: int

    @property
    def sdist(self) -> str:
        return f"{self.name}-{self.version}.tar.gz"


SUITES = [
    Suite("iso8601", "2.1.0",
          "6b1d3829ee8921c4301998c909f7829fa9ed3cbdac0d3b16af2d743aed1ba8df",
          ("--owner", "@iso8601/maintainers",
           "--shrinking", "hypothesis shrinks toward the simplest datetime"),
          ("iso8601/iso8601.py", "        hours = -hours\n", "        hours = hours\n"),
          8),
    Suite("toolz", "0.12.1",
          "ecca342664893f177a13dac0e6b41cbd8ac25a358e5f215316d43e2100224f4d",
          ("--owner", "@toolz/maintainers"),
          ("toolz/itertoolz.py", "    'A'\n    \"\"\"\n    return next(iter(seq))\n",
           "    'A'\n    \"\"\"\n    seq = iter(seq)\n    next(seq, None)\n    return next(seq)\n"),
          180),
]


def sdist(suite: Suite) -> Path:
    """The pinned sdist, downloaded once with pip and checked against its digest."""
    path = CACHE / suite.sdist
    if not path.exists():
        CACHE.mkdir(parents=True, exist_ok=True)
        proc = subprocess.run(
            [PYTHON, "-m", "pip", "download", "--no-deps", "--no-binary", ":all:",
             "--dest", str(CACHE), f"{suite.name}=={suite.version}"],
            capture_output=True, text=True, timeout=300)
        if proc.returncode != 0:
            pytest.fail(f"cannot download {suite.sdist} (needed once, then cached under "
                        f"target/adopt-sdists):\n{proc.stderr}")
    digest = hashlib.sha256(path.read_bytes()).hexdigest()
    assert digest == suite.sha256, f"{path}: sha256 {digest}, pinned {suite.sha256}"
    return path


def unpacked(suite: Suite, tmp_path: Path) -> Path:
    with tarfile.open(sdist(suite)) as tar:
        tar.extractall(tmp_path, filter="data")
    root = tmp_path / f"{suite.name}-{suite.version}"
    assert root.is_dir()
    return root


def tree_bytes(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes()
            for p in sorted(root.rglob("*")) if p.is_file() and "out" not in p.parts}


@pytest.mark.parametrize("suite", SUITES, ids=[s.name for s in SUITES])
def test_a_real_suite_goes_under_the_gate_with_lane_scan_fix(suite: Suite, tmp_path: Path):
    project = unpacked(suite, tmp_path)
    before = tree_bytes(project)

    # Unadopted, the scan rejects: every test is unmarked.
    first = run_tool("lane-scan", cwd=project)
    assert first.code == 1
    assert first.json()["scan"]["counts"]["unmarked"] == suite.merge_tests

    # --diff shows the edits and writes nothing.
    shown = run_tool("lane-scan", "--diff", *suite.fix_args, cwd=project)
    assert shown.code == 0, shown.stderr
    assert shown.stdout.startswith("--- ")
    assert tree_bytes(project) == before

    fixed = run_tool("lane-scan", "--fix", *suite.fix_args, cwd=project)
    assert fixed.code == 0, fixed.stderr
    assert f"{suite.merge_tests} tests given a lane, 0 freeze candidates listed" in fixed.stdout
    # Only lines were inserted: every line of every file is still there, in order.
    after = tree_bytes(project)
    for name, old in before.items():
        new_lines = iter(after[name].splitlines())
        assert all(line in new_lines for line in old.splitlines()), name

    # Idempotent.
    again = run_tool("lane-scan", "--fix", *suite.fix_args, cwd=project)
    assert again.code == 0 and "0 files changed, 0 tests given a lane" in again.stdout
    assert tree_bytes(project) == after

    scan = run_tool("lane-scan", cwd=project)
    assert scan.code == 0, scan.stdout
    assert scan.json()["scan"]["counts"] == {
        "merge": suite.merge_tests, "witness": 0, "freeze": 0, "unmarked": 0}

    # The project's own plain pytest run still passes with the new marks and markers.
    plain = run_pytest("--strict-markers", "-q", cwd=project)
    assert plain.returncode == 0, plain.stdout[-3000:]

    approved = gate(project, "--today", TODAY)
    assert approved.returncode == 0, approved.stdout[-4000:] + approved.stderr[-2000:]
    assert "**approve**" in approved.stdout

    # A wrong library change: rejected, by the merge lane.
    file, old, new = suite.wrong
    source = project / file
    text = source.read_text()
    assert text.count(old) == 1, f"{file}: the wrong change's anchor moved"
    source.write_text(text.replace(old, new))
    shutil.rmtree(project / "out")
    rejected = gate(project, "--today", TODAY)
    assert rejected.returncode == 1, rejected.stdout[-4000:]
    assert "**reject**" in rejected.stdout
    assert "merge-failed" in rejected.stdout
