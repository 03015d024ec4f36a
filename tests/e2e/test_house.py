"""The house's own rules: scripts/check-names (part of `make lint`) refuses tracker numbers and
work-branch nicknames wherever git tracks text and passes a tree without them; and a new rule is
its catalogue entry and one file, as docs/architecture.md shows (followed here on a throwaway
rule in a copy of the workspace)."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import textwrap
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


# ---- docs/architecture.md's "Adding a rule", followed on a throwaway rule ----

ARCHITECTURE = REPO / "docs" / "architecture.md"
LONG = "test_" + "x" * 200


def adding_a_rule() -> tuple[str, str, str]:
    """The section's catalogue entry, the rule file's path and its text, as the page shows them."""
    text = ARCHITECTURE.read_text()
    section = text.split("## Adding a rule", 1)[1].split("\n## ", 1)[0]
    blocks = [textwrap.dedent(b) for b in re.findall(r"```rust\n(.*?)```", section, re.S)]
    assert len(blocks) == 2, "the section shows the catalogue entry and the rule file"
    path = re.search(r"\*\*The rule file\*\*, `([^`]+)`", section).group(1)
    return blocks[0], path, blocks[1]


def copy_workspace(dest: Path) -> None:
    listed = subprocess.run(["git", "ls-files", "-z", "Cargo.toml", "Cargo.lock", "clippy.toml",
                             "crates", "docs"], cwd=REPO, capture_output=True, check=True)
    for rel in filter(None, listed.stdout.decode().split("\0")):
        target = dest / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(REPO / rel, target)


def cargo(ws: Path, *args: str, **env: str) -> subprocess.CompletedProcess:
    clean = {k: v for k, v in os.environ.items()
             if k not in ("RUSTFLAGS", "CARGO_ENCODED_RUSTFLAGS", "MAKEFLAGS", "MFLAGS")}
    clean["CARGO_TARGET_DIR"] = str(REPO / "target" / "house-rule")
    return subprocess.run(["cargo", *args], cwd=ws, capture_output=True, text=True,
                          env={**clean, **env}, timeout=1800)


def test_a_new_rule_is_its_catalogue_entry_and_one_file(tmp_path: Path):
    entry, rule_path, rule_file = adding_a_rule()
    ws = tmp_path / "ws"
    copy_workspace(ws)
    # Step 1: the entry, at the end of lane-scan's group of the catalogue.
    catalogue = ws / "crates" / "lane-core" / "src" / "rule.rs"
    marker = "    // ---- lane-lock ----\n"
    text = catalogue.read_text()
    assert text.count(marker) == 1
    catalogue.write_text(text.replace(marker, entry + marker))
    # Step 2: the rule file; nothing else is edited.
    (ws / rule_path).write_text(rule_file)
    # Step 3: the generated docs.
    docs = cargo(ws, "test", "-q", "-p", "lane-core", "--test", "rules_documented",
                 LANES_WRITE_DOCS="1")
    assert docs.returncode == 0, docs.stdout + docs.stderr
    assert "### test-name-too-long" in (ws / "docs" / "evidence.md").read_text()
    # Step 4: the registry sees the rule's one detector, named nowhere else.
    registry = cargo(ws, "test", "-q", "-p", "lane-gate", "--test", "rule_registry")
    assert registry.returncode == 0, registry.stdout + registry.stderr
    built = cargo(ws, "build", "-q", "-p", "lane-scan", "--bin", "lane-scan")
    assert built.returncode == 0, built.stderr
    scan = REPO / "target" / "house-rule" / "debug" / "lane-scan"
    suite = tmp_path / "suite"
    (suite / "tests").mkdir(parents=True)
    (suite / "pytest.ini").write_text("[pytest]\nmarkers =\n    merge\n    witness\n    freeze\n")
    (suite / "tests" / "test_names.py").write_text(
        '"""owner: team"""\nimport pytest\n\n\n@pytest.mark.merge\ndef test_short():\n'
        f'    assert 1 + 1 == 2\n\n\n@pytest.mark.merge\ndef {LONG}():\n    assert 2 * 2 == 4\n')
    proc = subprocess.run([str(scan)], cwd=suite, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 1, proc.stderr
    found = [p for p in json.loads(proc.stdout)["scan"]["problems"]
             if p["rule"] == "test-name-too-long"]
    assert found == [{"file": "tests/test_names.py", "line": 11,
                      "message": f"{LONG} is 205 characters long (at most 200)",
                      "rule": "test-name-too-long", "severity": "error",
                      "test": f"tests/test_names.py::{LONG}"}]
    explain = subprocess.run([str(scan), "--explain", "test-name-too-long"], capture_output=True,
                             text=True, timeout=60)
    assert explain.stdout.startswith("test-name-too-long (error, reported by lane-scan)")
