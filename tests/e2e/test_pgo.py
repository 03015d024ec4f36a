"""The release build's profile (issue 22): the Makefile hands pgo/lanes.profdata to cargo on
x86-64 Linux, once, and the committed file is an indexed LLVM profile rustc can read."""

from __future__ import annotations

import os
import platform
import re
import shutil
import subprocess

import pytest

from conftest import REPO

PROFILE = REPO / "pgo" / "lanes.profdata"
# IndexedInstrProf's magic, as the little-endian u64 at the start of the file.
INDEXED_MAGIC = bytes.fromhex("ff6c70726f666981")
ON_X86_64_LINUX = platform.system() == "Linux" and platform.machine() == "x86_64"


def make_rustflags(*args: str, env_rustflags: str | None = None) -> str | None:
    """RUSTFLAGS as `make build` exports them to cargo (make's database, nothing run)."""
    if shutil.which("make") is None:
        pytest.skip("make is not installed")
    env = {k: v for k, v in os.environ.items() if k not in ("RUSTFLAGS", "MAKEFLAGS", "MFLAGS")}
    if env_rustflags is not None:
        env["RUSTFLAGS"] = env_rustflags
    proc = subprocess.run(["make", "--no-print-directory", "-s", "-p", "-n", "build", *args],
                          cwd=REPO, capture_output=True, text=True, env=env, timeout=120)
    assert proc.returncode == 0, proc.stderr
    found = re.findall(r"^RUSTFLAGS :?= ?(.*)$", proc.stdout, re.M)
    return found[-1] if found else None


def test_the_committed_profile_is_an_indexed_llvm_profile():
    data = PROFILE.read_bytes()
    assert data[:8] == INDEXED_MAGIC, data[:16]
    # A profile of the five tools' hot code, not an empty or truncated merge.
    assert len(data) > 100_000


def test_make_build_passes_the_profile_once():
    flags = make_rustflags()
    if not ON_X86_64_LINUX:
        assert flags is None or "-Cprofile-use" not in flags
        return
    assert flags is not None
    assert flags.split().count(f"-Cprofile-use={PROFILE}") == 1, flags
    assert flags.count("-Cprofile-use=") == 1, flags


def test_a_make_started_by_a_recipe_keeps_the_flags_it_inherits():
    # The end-to-end tests run `make install` under `make test`: the same RUSTFLAGS, or cargo
    # would rebuild every crate under the running tests.
    if not ON_X86_64_LINUX:
        pytest.skip("the profile is used on x86-64 Linux only")
    outer = make_rustflags()
    assert make_rustflags(env_rustflags=outer) == outer


def test_the_users_own_flags_stay_and_pgo_profile_empty_turns_it_off():
    if not ON_X86_64_LINUX:
        pytest.skip("the profile is used on x86-64 Linux only")
    flags = make_rustflags(env_rustflags="-Ctarget-cpu=native")
    assert flags is not None and flags.split()[0] == "-Ctarget-cpu=native", flags
    assert f"-Cprofile-use={PROFILE}" in flags.split()
    off = make_rustflags("PGO_PROFILE=")
    assert off is None or "-Cprofile-use" not in off, off
