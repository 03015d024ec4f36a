"""The pre-commit hooks as a user gets them: `pre-commit try-repo` on a local clone of this
repository, which pip-installs the clone (maturin builds the lanes-gate wheel from source) into
the hooks' environment, then runs the hooks on a sample project (a git copy of the example)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import REPO, copy_tree

# The hooks' build keeps its own cargo target folder (beside the workspace's, never the
# workspace's: the other end-to-end tests run target/release's binaries meanwhile), so a
# second run only recompiles the lanes crates of the new clone.
TARGET = REPO / "target" / "pre-commit"


def git(cwd: Path, *args: str) -> str:
    return subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@example.invalid",
         "-c", "commit.gpgsign=false", "-c", "init.defaultBranch=main", *args],
        cwd=cwd, capture_output=True, text=True, check=True).stdout


def try_repo(project: Path, clone: Path, home: Path, *hooks: str) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PRE_COMMIT", "LANES_"))}
    env.update({"PRE_COMMIT_HOME": str(home), "CARGO_TARGET_DIR": str(TARGET),
                "PYTHONDONTWRITEBYTECODE": "1"})
    # Only the system's tools and the interpreter running these tests (pre-commit's own): no
    # lanes binary of this checkout is on PATH, the hooks must bring their own.
    env["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), "/usr/local/bin",
                                   "/usr/bin", "/bin", str(Path.home() / ".cargo" / "bin")])
    return subprocess.run([sys.executable, "-m", "pre_commit", "try-repo", str(clone), *hooks,
                           "--all-files", "--verbose"],
                          cwd=project, capture_output=True, text=True, env=env, timeout=3000)


@pytest.fixture(scope="module")
def hooks(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """A clone of this repository and a pre-commit home with its hooks installed once."""
    root = tmp_path_factory.mktemp("pre-commit")
    clone = root / "lanes"
    subprocess.run(["git", "clone", "--quiet", str(REPO), str(clone)], check=True)
    return clone, root / "home"


def sample(tmp_path: Path) -> Path:
    project = copy_tree(REPO / "examples" / "invoice", tmp_path / "project")
    for junk in ("out", ".hypothesis"):
        shutil.rmtree(project / junk, ignore_errors=True)
    git(project, "init", "-q")
    git(project, "add", "-A")
    git(project, "commit", "-q", "-m", "base")
    return project


def test_both_hooks_pass_on_the_example_and_name_their_tools(hooks, tmp_path: Path):
    clone, home = hooks
    proc = try_repo(sample(tmp_path), clone, home)
    out = proc.stdout + proc.stderr
    assert proc.returncode == 0, out
    assert "lane-scan (every test in exactly one lane, no skips)" in out
    assert "lane-lock verify (locked fixtures still match)" in out
    assert out.count("Passed") >= 2, out
    # The hook's binaries are the clone's build, installed by pip into pre-commit's venv.
    venvs = list(home.glob("repo*/py_env-*/bin/lane-gate"))
    assert venvs, list(home.rglob("lane-gate"))
    version = subprocess.run([str(venvs[0]), "--version"], capture_output=True, text=True)
    assert git(clone, "rev-parse", "--short=12", "HEAD").strip() in version.stdout


def test_the_scan_hook_refuses_an_unmarked_test(hooks, tmp_path: Path):
    clone, home = hooks
    project = sample(tmp_path)
    (project / "tests" / "test_unmarked.py").write_text("def test_nothing():\n    assert 1 + 1 == 2\n")
    git(project, "add", "-A")
    proc = try_repo(project, clone, home, "lane-scan")
    out = proc.stdout + proc.stderr
    assert proc.returncode == 1, out
    assert "`unmarked`" in out and "tests/test_unmarked.py" in out, out


def test_the_lock_hook_refuses_a_moved_golden_file(hooks, tmp_path: Path):
    clone, home = hooks
    project = sample(tmp_path)
    golden = project / "tests" / "fixtures" / "statement_v3.txt"
    golden.write_bytes(golden.read_bytes() + b"\nmoved\n")
    git(project, "add", "-A")
    proc = try_repo(project, clone, home, "lane-lock")
    out = proc.stdout + proc.stderr
    assert proc.returncode == 1, out
    assert "`digest-moved`" in out, out
