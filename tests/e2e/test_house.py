"""The house's own rules, as `make lint` keeps them: scripts/check-names refuses tracker numbers and
work-branch nicknames wherever git tracks text, and passes a tree without them."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from conftest import REPO

SCRIPT = REPO / "scripts" / "check-names"
# Spelled in two pieces, so that this file passes the check it tests.
ISSUE = "iss" + "ue"
NICKNAME = "fi" + "d"


def repo_with(tmp_path: Path, files: dict[str, str]) -> Path:
    """A git repository holding check-names and FILES, all tracked."""
    root = tmp_path / "repo"
    (root / "scripts").mkdir(parents=True)
    shutil.copy2(SCRIPT, root / "scripts" / "check-names")
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    subprocess.run(["git", "init", "-q"], cwd=root, check=True)
    subprocess.run(["git", "add", "-A"], cwd=root, check=True)
    return root


def check(root: Path) -> subprocess.CompletedProcess:
    return subprocess.run([str(root / "scripts" / "check-names")], cwd=root,
                          capture_output=True, text=True, timeout=60)


@pytest.mark.parametrize("text", [
    f"// the vote across shards ({ISSUE} 21)\n",
    f"# {ISSUE.title()} 18: what pytest collects\n",
    f"def test_{ISSUE}_16_rules():\n    pass\n",
    f"see {ISSUE}s 3 and 4\n",
    f"a docstring ({ISSUE} #7)\n",
    f"names followed ({NICKNAME}4)\n",
])
def test_a_tracker_number_or_nickname_is_refused_with_its_place(tmp_path: Path, text: str):
    root = repo_with(tmp_path, {"crates/x/src/lib.rs": "fn ok() {}\n", "docs/a.md": text})
    proc = check(root)
    assert proc.returncode == 1, proc.stderr
    assert "docs/a.md:1:" in proc.stderr
    assert "crates/x/src/lib.rs" not in proc.stderr


def test_words_that_only_look_alike_pass(tmp_path: Path):
    root = repo_with(tmp_path, {
        "README.md": "Fidelity of the scan. A known failure's ticket names its issue link.\n"
                     "Tissue 12 and reissue 3 are words; so is fiddle.\n",
        "src/m.py": "issues = fetch()\n",
    })
    proc = check(root)
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr == ""


def test_untracked_files_are_not_read(tmp_path: Path):
    root = repo_with(tmp_path, {"README.md": "clean\n"})
    (root / "notes.txt").write_text(f"{ISSUE} 22 scratch\n")
    assert check(root).returncode == 0
