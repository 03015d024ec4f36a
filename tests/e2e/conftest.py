"""Shared helpers for the end-to-end tests: the release binaries and real pytest runs."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
BIN_DIR = Path(os.environ.get("LANES_BIN_DIR", REPO / "target" / "release"))
TOOLS = ("lane-scan", "lane-lock", "freeze-ledger", "lane-tally", "lane-gate")
# The interpreter running these tests has the pinned pytest and hypothesis.
PYTHON = sys.executable


def demo_python() -> str:
    """The interpreter `make demo` gates the example with: a venv built from the example's own
    manifest and pytest-lanes-gate (`make demo-venv`; `make test-e2e` names it)."""
    path = os.environ.get("LANES_DEMO_PYTHON")
    if not path or not Path(path).exists():
        pytest.fail("LANES_DEMO_PYTHON names no interpreter: run `make demo-venv` and set it to "
                    "target/demo-venv/bin/python (`make test-e2e` does both)")
    return path


@dataclass
class Run:
    code: int
    stdout: str
    stderr: str

    def json(self) -> dict:
        return json.loads(self.stdout)


def release_env(env: dict[str, str] | None = None) -> dict[str, str]:
    """ENV (default: this process's) with RUSTFLAGS as `make build` hands them to cargo (the PGO
    profile on x86-64 Linux), for a cargo or maturin build a test starts: it then reuses the
    release build's compiled crates instead of compiling all of them again. Under `make test`
    they are inherited; when the tests run alone the Makefile is asked."""
    env = dict(os.environ if env is None else env)
    flags = os.environ.get("RUSTFLAGS")
    if flags is None and shutil.which("make") is not None:
        clean = {k: v for k, v in os.environ.items() if k not in ("MAKEFLAGS", "MFLAGS")}
        proc = subprocess.run(["make", "-s", "--no-print-directory", "rustflags"], cwd=REPO,
                              capture_output=True, text=True, env=clean, timeout=120)
        flags = proc.stdout.strip() if proc.returncode == 0 else None
    if flags:
        env["RUSTFLAGS"] = flags
    return env


def tool_path(name: str) -> Path:
    path = BIN_DIR / name
    if not path.exists():
        pytest.fail(f"{path} is missing: run `make build` (or `make test`) first")
    return path


# The variables that say a process runs under CI, as the tools read them
# (lane_core::clock::CI_VARIABLES): a test of the local clock removes them all.
CI_VARIABLES = ("CI", "GITHUB_ACTIONS", "GITLAB_CI", "BUILDKITE", "JENKINS_URL", "CIRCLECI", "TRAVIS",
                "TF_BUILD", "TEAMCITY_VERSION", "BITBUCKET_BUILD_NUMBER", "CODEBUILD_BUILD_ID",
                "DRONE", "APPVEYOR")


def outside_ci(env: dict[str, str]) -> dict[str, str]:
    """`env` without any variable that says the run is under CI."""
    return {k: v for k, v in env.items() if k not in CI_VARIABLES}


def run_tool(name: str, *args: str, stdin: str | bytes = b"", cwd: Path | None = None,
             env: dict | None = None) -> Run:
    """Runs one lanes binary with stdin piped; returns code, stdout and stderr."""
    if isinstance(stdin, str):
        stdin = stdin.encode()
    full_env = {k: v for k, v in os.environ.items() if k != "LANES_TODAY"}
    full_env.update(env or {})
    proc = subprocess.run([str(tool_path(name)), *args], input=stdin, cwd=cwd,
                          capture_output=True, env=full_env, timeout=300)
    return Run(proc.returncode, proc.stdout.decode("utf-8", "replace"),
               proc.stderr.decode("utf-8", "replace"))


def run_pytest(*args: str, cwd: Path, env: dict | None = None,
               python: str = PYTHON) -> subprocess.CompletedProcess:
    """Real pytest (the venv's, or `python`'s), with a pinned hash seed and no cache folder."""
    full_env = dict(os.environ)
    full_env.update({"PYTHONHASHSEED": "0", "TZ": "UTC", "PYTHONDONTWRITEBYTECODE": "1"})
    full_env.update(env or {})
    return subprocess.run([python, "-m", "pytest", "-p", "no:cacheprovider", *args], cwd=cwd,
                          capture_output=True, text=True, env=full_env, timeout=600)


def copy_tree(src: Path, dst: Path) -> Path:
    caches = shutil.ignore_patterns("__pycache__", ".hypothesis", ".pytest_cache")

    def ignore(folder: str, names: list[str]) -> set[str]:
        # The gate's own out/ at the top (left by `make demo`) is not part of the example.
        top = {"out"} if Path(folder) == src else set()
        return set(caches(folder, names)) | (top & set(names))

    shutil.copytree(src, dst, ignore=ignore)
    return dst


def head_ack(repo: Path, text: str) -> str:
    """An acknowledgment as CI gives it: `text` naming the commit checked out at `repo`."""
    head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=repo, capture_output=True,
                          text=True, check=True).stdout.strip()
    return f"{text} at {head}"


@pytest.fixture
def invoice(tmp_path: Path) -> Path:
    """A fresh copy of examples/invoice to run and modify."""
    return copy_tree(REPO / "examples" / "invoice", tmp_path / "invoice")
