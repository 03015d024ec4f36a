"""The history replay kept honest: scripts/replay-history over consecutive sqlparse releases.

The replay over public projects' real git history (docs/threats.md) needs those histories,
which CI does not have; this is its small cached form: three pinned sqlparse sdists from the
package index (cached under target/adopt-sdists with the adoption test's) committed one after
another make a history of two changes, and the replay puts each through the gate as a pull
request: the parent adopted with `lane-scan --fix`, the release's change applied, `lane-gate
--base`, an acknowledgment naming the head when it rejects, and one bug injected on a line the
release added, judged by the gate and by plain pytest.

0.5.1 -> 0.5.2 changes tests, pyproject.toml and an example script besides the library: test
surface, acknowledgeable. 0.5.2 -> 0.5.3 changes library code (and CI files, CHANGELOG and
PKG-INFO): approved without an acknowledgment. Both injected bugs are caught by plain pytest,
and the gate rejects both: the replay's own exit status says so, and so does its table.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tarfile
from pathlib import Path

from conftest import BIN_DIR, PYTHON, REPO
from test_adopt import pinned_sdist
from test_gate import git

RELEASES = [
    ("0.5.1", "bb6b4df465655ef332548e24f08e205afc81b9ab86cb1c45657a7ff173a3a00e"),
    ("0.5.2", "9e37b35e16d1cc652a2545f0997c1deb23ea28fa1f3eefe609eee3063c3b105f"),
    ("0.5.3", "09f67787f56a0b16ecdbde1bfc7f5d9c3371ca683cfeaa8e6ff60b4807ec9272"),
]


def release_history(root: Path) -> Path:
    """A git repository with one commit per release, each the release's unpacked sdist."""
    repo = root / "sqlparse"
    repo.mkdir()
    git(repo, "init", "-q")
    for version, digest in RELEASES:
        for child in repo.iterdir():
            if child.name != ".git":
                shutil.rmtree(child) if child.is_dir() else child.unlink()
        with tarfile.open(pinned_sdist("sqlparse", version, digest)) as tar:
            members = [m for m in tar.getmembers() if "/" in m.name]
            for member in members:
                member.name = member.name.split("/", 1)[1]
            tar.extractall(repo, members=members, filter="data")
        git(repo, "add", "-A")
        git(repo, "commit", "-q", "-m", f"sqlparse {version}")
    return repo


def test_the_replay_of_consecutive_releases_approves_the_library_change_and_rejects_bugs(
        tmp_path: Path):
    repo = release_history(tmp_path)
    results = tmp_path / "replay.json"
    proc = subprocess.run(
        [PYTHON, str(REPO / "scripts" / "replay-history"), "--repo", str(repo), "--tip", "HEAD",
         "--product", "sqlparse", "--python", PYTHON, "--commits", "5",
         "--fix-arg=--owner", "--fix-arg=@sqlparse/maintainers", "--name", "sqlparse",
         "--json", str(results)],
        capture_output=True, text=True, timeout=1800,
        env={**os.environ, "LANES_BIN_DIR": str(BIN_DIR)})
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    data = json.loads(results.read_text())
    commits = data["commits"]
    # Both changes touch the library, oldest first.
    assert [c["subject"] for c in commits] == ["sqlparse 0.5.2", "sqlparse 0.5.3"]

    tests_changed, library_only = commits
    assert tests_changed["outcome"] == "acknowledgeable only"
    assert "test-surface-changed" in tests_changed["gate"]["errors"]
    assert tests_changed["acked"]["code"] == 0
    assert library_only["outcome"] == "approved"
    assert library_only["gate"]["errors"] == []
    assert library_only["acked"] is None

    # The injected bugs: on lines the release added, found by the parser, each caught by
    # both plain pytest and the gate.
    assert tests_changed["bug"] == "sqlparse/filters/others.py:39 `in` -> `not in`"
    assert library_only["bug"].startswith("sqlparse/")
    assert not library_only["bug"].startswith("sqlparse/__init__.py")  # not __version__
    for commit in commits:
        assert commit["plain"] == 0, commit
        assert commit["bug_plain"] != 0, commit
        assert commit["bug_gate"]["code"] == 1, commit
    summary = data["summary"]
    assert summary["pytest caught, gate approved"] == 0
    assert summary["bugs injected (pytest green before)"] == 2
    assert summary["gate caught"] == 2

    # The table the replay prints: one row per commit, with its outcome.
    rows = [line for line in proc.stdout.splitlines() if line.startswith("| `")]
    assert len(rows) == 2
    assert "| acknowledgeable only |" in rows[0] and "| approved |" in rows[1]
    assert "gate caught, pytest caught" in rows[0]
