"""The release build's profile: on x86-64 Linux the Makefile hands pgo/lanes.profdata
to cargo, once; the committed file is an indexed LLVM profile of the five tools, written for this
Cargo.lock, whose records name functions the release binaries have; and a profile written with
another rustc or Cargo.lock is named in a warning."""

from __future__ import annotations

import hashlib
import os
import platform
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from conftest import BIN_DIR, REPO, TOOLS

PROFILE = REPO / "pgo" / "lanes.profdata"
KEY = REPO / "pgo" / "lanes.profdata.key"
# IndexedInstrProf's magic, as the little-endian u64 at the start of the file.
INDEXED_MAGIC = bytes.fromhex("ff6c70726f666981")
ON_X86_64_LINUX = platform.system() == "Linux" and platform.machine() == "x86_64"
MANGLED = re.compile(rb"_ZN[0-9A-Za-z_$.]+E")
STALE = "may no longer apply"


def cargo_sees(tmp_path: Path, *make_args: str, env_rustflags: str | None = None,
               makefile: Path | None = None, target: str = "build",
               extra_env: dict[str, str] | None = None) -> tuple[str, str]:
    """What `make build` hands cargo: RUSTFLAGS in the environment of a stand-in cargo that the
    recipe runs (CARGO=...), and make's stderr."""
    if shutil.which("make") is None:
        pytest.skip("make is not installed")
    seen = tmp_path / "rustflags"
    seen.unlink(missing_ok=True)
    fake = tmp_path / "fake-cargo"
    fake.write_text('#!/bin/sh\nprintf "%s" "${RUSTFLAGS-<unset>}" >"$FAKE_CARGO_OUT"\n')
    fake.chmod(0o755)
    env = {k: v for k, v in os.environ.items()
           if k not in ("RUSTFLAGS", "CARGO_ENCODED_RUSTFLAGS", "MAKEFLAGS", "MFLAGS", "MAKELEVEL")}
    env["FAKE_CARGO_OUT"] = str(seen)
    if env_rustflags is not None:
        env["RUSTFLAGS"] = env_rustflags
    env.update(extra_env or {})
    cmd = ["make", "--no-print-directory", "-s"]
    if makefile is not None:
        cmd += ["-f", str(makefile)]
    proc = subprocess.run([*cmd, target, f"CARGO={fake}", *make_args], cwd=REPO,
                          capture_output=True, text=True, env=env, timeout=120)
    assert proc.returncode == 0, proc.stderr
    return seen.read_text(), proc.stderr


def crate_names(names: set[bytes], tool: str) -> set[bytes]:
    """The mangled names, of NAMES, of functions in TOOL's crate."""
    crate = tool.replace("-", "_").encode()
    return {n for n in names if n.startswith(b"_ZN%d%s" % (len(crate), crate))}


def profile_flag(path: Path = PROFILE) -> str:
    return f"-Cprofile-use={path}"


def needs_x86_64_linux() -> None:
    if not ON_X86_64_LINUX:
        pytest.skip("the profile is used on x86-64 Linux only")


def test_the_committed_profile_is_an_indexed_profile_of_the_five_tools():
    data = PROFILE.read_bytes()
    assert data[:8] == INDEXED_MAGIC, data[:16]
    names = set(MANGLED.findall(data))
    for tool in TOOLS:
        # Each tool's own code was trained, not only lane-scan's.
        assert len(crate_names(names, tool)) >= 15, tool


def test_the_key_names_this_cargo_lock():
    # Records are named by symbols that carry the packages' metadata: a Cargo.lock changed
    # since the profile was written leaves it matching little, silently but for the Makefile's
    # warning. `make pgo-profile` writes both again.
    rustc_line, lock_hash = KEY.read_text().splitlines()
    assert rustc_line.startswith("rustc "), rustc_line
    assert lock_hash == hashlib.sha256((REPO / "Cargo.lock").read_bytes()).hexdigest(), \
        "Cargo.lock changed since pgo/lanes.profdata was written: run `make pgo-profile`"


def test_the_profile_names_functions_the_release_binaries_have():
    rustc = shutil.which("rustc")
    rustc_line = KEY.read_text().splitlines()[0]
    if rustc is None or subprocess.run([rustc, "-V"], capture_output=True,
                                       text=True).stdout.strip() != rustc_line:
        pytest.skip(f"the profile was written with {rustc_line}, another rustc built these")
    names = set(MANGLED.findall(PROFILE.read_bytes()))
    for tool in TOOLS:
        mine = crate_names(names, tool)
        # Functions the optimizer inlined everywhere have no symbol of their own; a profile of
        # another build (other compiler, other packages) matches next to none.
        found = len(mine & set(MANGLED.findall((BIN_DIR / tool).read_bytes())))
        assert found >= len(mine) // 2, (tool, found, len(mine))


def test_make_build_hands_cargo_the_profile_once(tmp_path: Path):
    flags, stderr = cargo_sees(tmp_path)
    if not ON_X86_64_LINUX:
        assert "profile-use" not in flags, flags
        return
    assert flags.split() == [profile_flag(), "-Cllvm-args=-no-pgo-warn-mismatch"], flags
    assert STALE not in stderr, stderr


def test_a_make_started_by_a_recipe_keeps_the_flags_it_inherits(tmp_path: Path):
    # The end-to-end tests run `make install` under `make test`: the same RUSTFLAGS, or cargo
    # would rebuild every crate under the running tests.
    needs_x86_64_linux()
    outer, _ = cargo_sees(tmp_path)
    assert cargo_sees(tmp_path, env_rustflags=outer)[0] == outer
    # Flags given on the outer make's command line reach the inner one through MAKEFLAGS.
    nested, _ = cargo_sees(tmp_path, "RUSTFLAGS=-Cdebug-assertions=off",
                           "--eval", ".nested: ; @$(MAKE) -s --no-print-directory build",
                           target=".nested")
    assert nested.split() == ["-Cdebug-assertions=off", profile_flag(),
                              "-Cllvm-args=-no-pgo-warn-mismatch"], nested


def test_the_users_own_flags_stay_and_their_own_profile_wins(tmp_path: Path):
    needs_x86_64_linux()
    # Given in the environment, and on make's command line.
    for flags, _ in (cargo_sees(tmp_path, env_rustflags="-Ctarget-cpu=native"),
                     cargo_sees(tmp_path, "RUSTFLAGS=-Ctarget-cpu=native")):
        assert flags.split()[0] == "-Ctarget-cpu=native", flags
        assert flags.split().count(profile_flag()) == 1, flags
    # A profile of one's own, spelled either way, is not joined by a second one.
    for own in ("-C profile-generate=/tmp/raw", "-Cprofile-use=/tmp/mine.profdata"):
        assert cargo_sees(tmp_path, env_rustflags=own)[0] == own


def test_pgo_profile_empty_or_no_profile_builds_without_one(tmp_path: Path):
    needs_x86_64_linux()
    off, _ = cargo_sees(tmp_path, "PGO_PROFILE=")
    assert "profile-use" not in off, off
    # A copy of the Makefile without pgo/ beside it (a tree without the profile): no flag that
    # would make rustc stop on a missing file.
    alone = tmp_path / "alone"
    alone.mkdir()
    shutil.copy(REPO / "Makefile", alone / "Makefile")
    flags, stderr = cargo_sees(tmp_path, makefile=alone / "Makefile")
    assert "profile-use" not in flags, (flags, stderr)
    # cargo reads CARGO_ENCODED_RUSTFLAGS instead of RUSTFLAGS: say that the profile is left out.
    flags, stderr = cargo_sees(tmp_path, extra_env={"CARGO_ENCODED_RUSTFLAGS": "-Copt-level=3"})
    assert "profile-use" not in flags, flags
    assert "CARGO_ENCODED_RUSTFLAGS is set" in stderr, stderr


def test_a_profile_of_another_rustc_or_cargo_lock_is_named_in_a_warning(tmp_path: Path):
    needs_x86_64_linux()
    copy = tmp_path / "other.profdata"
    shutil.copy(PROFILE, copy)
    shutil.copy(KEY, tmp_path / "other.profdata.key")
    flags, stderr = cargo_sees(tmp_path, f"PGO_PROFILE={copy}")
    assert flags.split()[0] == profile_flag(copy) and STALE not in stderr, (flags, stderr)
    rustc_line, lock_hash = KEY.read_text().splitlines()
    for key in (f"rustc 0.0.0 (000000000 2000-01-01)\n{lock_hash}\n", f"{rustc_line}\n{'0' * 64}\n"):
        (tmp_path / "other.profdata.key").write_text(key)
        flags, stderr = cargo_sees(tmp_path, f"PGO_PROFILE={copy}")
        assert STALE in stderr and str(copy) in stderr, (key, stderr)
        # Still passed: records of functions that did not change still apply.
        assert flags.split()[0] == profile_flag(copy), flags
