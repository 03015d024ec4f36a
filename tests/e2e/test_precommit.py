"""The pre-commit hooks as a user gets them: `pre-commit try-repo` on a local clone of this
repository, which pip-installs the clone (maturin builds the lanes-gate wheel from source) into
the hooks' environment, then runs the hooks on a sample project (a git copy of the example)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import REPO, copy_tree, release_env


def seeded_target(root: Path) -> Path:
    """A cargo target folder for the hooks' build, never the workspace's (the other end-to-end
    tests run target/release's binaries meanwhile), holding a copy of the workspace's release
    build: the clone's third-party crates are those already compiled, so only the lanes crates
    of the new clone (a new path) compile."""
    target = root / "cargo-target"
    release = target / "release"
    release.mkdir(parents=True)
    built = REPO / "target" / "release"
    for part in ("deps", "build", ".fingerprint"):
        if (built / part).is_dir():
            subprocess.run(["cp", "-a", str(built / part), str(release / part)], check=True)
    return target


def git(cwd: Path, *args: str) -> str:
    return subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@example.invalid",
         "-c", "commit.gpgsign=false", "-c", "init.defaultBranch=main", *args],
        cwd=cwd, capture_output=True, text=True, check=True).stdout


def pre_commit_venv(root: Path) -> Path:
    """A venv with the pinned pre-commit (tests/e2e/requirements-pre-commit.txt)."""
    venv = root / "pre-commit-venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=300)
    subprocess.run([str(venv / "bin" / "python"), "-m", "pip", "install", "--quiet",
                    "--disable-pip-version-check", "-r",
                    str(Path(__file__).with_name("requirements-pre-commit.txt"))],
                   check=True, timeout=900)
    return venv / "bin" / "python"


def try_repo(project: Path, clone: Path, home: Path, target: Path,
             *hooks: str) -> subprocess.CompletedProcess:
    # The release build's RUSTFLAGS, so the seeded crates are reused.
    env = release_env({k: v for k, v in os.environ.items()
                       if not k.startswith(("PRE_COMMIT", "LANES_"))})
    env.update({"PRE_COMMIT_HOME": str(home), "CARGO_TARGET_DIR": str(target),
                "PYTHONDONTWRITEBYTECODE": "1"})
    # Only the system's tools and pre-commit's venv: no
    # lanes binary of this checkout is on PATH, the hooks must bring their own.
    python = pre_commit_venv(home.parent)
    env["PATH"] = os.pathsep.join([str(python.parent), "/usr/local/bin", "/usr/bin", "/bin",
                                   str(Path.home() / ".cargo" / "bin")])
    return subprocess.run([str(python), "-m", "pre_commit", "try-repo", str(clone), *hooks,
                           "--all-files", "--verbose"],
                          cwd=project, capture_output=True, text=True, env=env, timeout=3000)


def sample(tmp_path: Path) -> Path:
    project = copy_tree(REPO / "examples" / "invoice", tmp_path / "project")
    for junk in ("out", ".hypothesis"):
        shutil.rmtree(project / junk, ignore_errors=True)
    git(project, "init", "-q")
    git(project, "add", "-A")
    git(project, "commit", "-q", "-m", "base")
    return project


def test_try_repo_installs_the_hooks_from_a_clone_and_they_judge_a_sample_project(
        tmp_path: Path):
    # One try-repo run (each builds the clone in a store of its own): a golden file moved under
    # its lock. The scan hook has nothing to refuse and passes; the lock hook fails on it.
    clone = tmp_path / "lanes"
    subprocess.run(["git", "clone", "--quiet", str(REPO), str(clone)], check=True)
    project = sample(tmp_path)
    golden = project / "tests" / "fixtures" / "statement_v3.txt"
    golden.write_bytes(golden.read_bytes() + b"\nmoved\n")
    git(project, "add", "-A")
    proc = try_repo(project, clone, tmp_path / "home", seeded_target(tmp_path))
    out = proc.stdout + proc.stderr
    assert proc.returncode == 1, out
    scan = re.search(r"^lane-scan \(every test in exactly one lane, no skips\)\.+(\w+)$", out,
                     re.M)
    lock = re.search(r"^lane-lock verify \(locked fixtures still match\)\.+(\w+)$", out, re.M)
    assert scan and lock, out
    assert (scan.group(1), lock.group(1)) == ("Passed", "Failed"), out
    assert "`digest-moved`" in out and "tests/fixtures/statement_v3.txt" in out, out
    assert "`unmarked`" not in out


def test_the_documented_pins_are_commits_of_this_repository_with_these_hooks():
    # The configuration docs/ci.md shows must work as written: its rev (and the action's pin)
    # name a commit of this repository that has the python hooks and the action.
    text = (REPO / "docs" / "ci.md").read_text()
    revs = re.findall(r"^\s+rev: (\S+)$", text, re.M)
    pins = re.findall(r"uses: lanes-gate/lanes@(\S+)$", text, re.M)
    assert revs and pins
    for rev in revs + pins:
        assert re.fullmatch(r"[0-9a-f]{40}", rev), f"{rev}: pin a commit, no release is tagged"
        hooks = git(REPO, "show", f"{rev}:.pre-commit-hooks.yaml")
        assert re.findall(r"^- id: ([\w-]+)", hooks, re.M) == ["lane-scan", "lane-lock"], rev
        assert "language: system" not in hooks, rev
        import yaml

        action = yaml.safe_load(git(REPO, "show", f"{rev}:action.yml"))
        assert action["runs"]["using"] == "composite", rev
