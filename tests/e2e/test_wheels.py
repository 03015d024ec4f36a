"""The lanes-gate wheel as a user installs it: built by maturin, installed into a fresh venv
with pip (no index, no Rust needed), and run from that venv with nothing of this repository on
PATH: the example approves, the agent's patch is rejected. Also `make install`.

The wheels come from LANES_WHEEL_DIR when `make test` built them (`make wheel`), else the test
builds them the same way into a temporary folder."""

from __future__ import annotations

import json
import os
import platform
import shutil
import struct
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from conftest import BIN_DIR, REPO, TOOLS, copy_tree, release_env
from test_gate import GIT_DATES, PATCH, TODAY

PLUGIN = REPO / "python" / "pytest-lanes-gate"
ON_LINUX = platform.system() == "Linux"


def git_commit() -> str:
    return subprocess.run(["git", "rev-parse", "--short=12", "HEAD"], cwd=REPO,
                          capture_output=True, text=True, check=True).stdout.strip()


@pytest.fixture(scope="module")
def wheels(tmp_path_factory: pytest.TempPathFactory) -> Path:
    given = os.environ.get("LANES_WHEEL_DIR")
    if given:
        return Path(given)
    out = tmp_path_factory.mktemp("wheels")
    subprocess.run(["make", "wheel", f"WHEELS={out}"], cwd=REPO, check=True, timeout=3000,
                   env=release_env(), capture_output=True)
    return out


def the_wheel(wheels: Path) -> Path:
    found = sorted(wheels.glob("lanes_gate-*.whl"))
    assert len(found) == 1, found
    return found[0]


@pytest.fixture(scope="module")
def venv(wheels: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A fresh venv with only the lanes-gate wheel installed (pip, no index)."""
    root = tmp_path_factory.mktemp("venv") / "tools"
    subprocess.run([sys.executable, "-m", "venv", str(root)], check=True, timeout=300)
    subprocess.run([str(root / "bin" / "python"), "-m", "pip", "install", "--quiet",
                    "--disable-pip-version-check", "--no-index", str(the_wheel(wheels))],
                   check=True, timeout=300)
    return root


def isolated_env(venv: Path, **extra: str) -> dict:
    """The venv's bin and the system's folders only: no target/release, no cargo, no dev venv."""
    env = {k: v for k, v in os.environ.items()
           if k not in ("LANES_TODAY", "LANES_ACK", "LANES_SEED", "PYTEST", "LANES_BIN_DIR",
                        "VIRTUAL_ENV", "PYTHONPATH")}
    env["PATH"] = os.pathsep.join([str(venv / "bin"), "/usr/bin", "/bin"])
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    env.update(GIT_DATES)
    env.update(extra)
    return env


def run(venv: Path, cwd: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(list(args), cwd=cwd, capture_output=True, text=True, timeout=900,
                          env=isolated_env(venv))


def test_the_wheel_carries_the_five_binaries_and_nothing_of_the_repo(wheels: Path):
    names = zipfile.ZipFile(the_wheel(wheels)).namelist()
    scripts = sorted(n.rsplit("/", 1)[1] for n in names if ".data/scripts/" in n)
    assert scripts == sorted(TOOLS)
    assert not [n for n in names if n.endswith(".py")], names
    assert "-py3-none-" in the_wheel(wheels).name and "x86_64" in the_wheel(wheels).name


def glibc_versions_needed(elf: bytes) -> set[tuple[int, ...]]:
    """The GLIBC_x.y symbol versions a 64-bit little-endian ELF file needs: the names of the
    version-need entries (section type SHT_GNU_verneed) that the dynamic loader checks."""
    assert elf[:4] == b"\x7fELF" and elf[4] == 2 and elf[5] == 1, "not a 64-bit LE ELF file"
    shoff, = struct.unpack_from("<Q", elf, 0x28)
    shentsize, shnum = struct.unpack_from("<HH", elf, 0x3A)
    sections = [struct.unpack_from("<IIQQQQIIQQ", elf, shoff + i * shentsize)
                for i in range(shnum)]
    versions = set()
    for _name, kind, _flags, _addr, offset, _size, link, count, _align, _entsize in sections:
        if kind != 0x6FFFFFFE:  # SHT_GNU_verneed
            continue
        strings = sections[link][4]
        need = offset
        for _ in range(count):
            _version, aux_count, _file, aux, next_need = struct.unpack_from("<HHIII", elf, need)
            entry = need + aux
            for _ in range(aux_count):
                _hash, _flags, _other, name, next_aux = struct.unpack_from("<IHHII", elf, entry)
                text = elf[strings + name:elf.index(b"\0", strings + name)].decode()
                if text.startswith("GLIBC_") and text[6:7].isdigit():
                    versions.add(tuple(int(p) for p in text[6:].split(".")))
                entry += next_aux
            need += next_need
    return versions


@pytest.mark.skipif(not ON_LINUX, reason="manylinux wheels are built on Linux")
def test_the_wheel_is_manylinux2014_and_its_binaries_need_no_newer_glibc(wheels: Path):
    """Installable on older CI images: the wheel is tagged manylinux2014 (glibc 2.17), and no
    binary in it asks the loader for a glibc symbol version newer than 2.17, as pip trusts."""
    wheel = the_wheel(wheels)
    assert "-py3-none-manylinux2014_" in wheel.name, wheel.name
    assert ".manylinux_2_17_" in wheel.name, wheel.name
    with zipfile.ZipFile(wheel) as zf:
        tags = [line for line in zf.read(next(n for n in zf.namelist()
                                               if n.endswith(".dist-info/WHEEL")))
                .decode().splitlines() if line.startswith("Tag: ")]
        assert any("manylinux2014" in t for t in tags), tags
        for tool in TOOLS:
            name = next(n for n in zf.namelist() if n.endswith(f".data/scripts/{tool}"))
            needed = glibc_versions_needed(zf.read(name))
            assert needed, f"{tool}: no GLIBC version needs found"
            assert max(needed) <= (2, 17), f"{tool} needs GLIBC_{'.'.join(map(str, max(needed)))}"
    # The release build of `make build` links against this machine's glibc: the parser above
    # reads a newer version there when there is one (it is not blind to them).
    local = glibc_versions_needed((BIN_DIR / "lane-scan").read_bytes())
    assert local and max(local) >= max(needed)


def test_the_installed_tools_name_their_version_and_commit(venv: Path, tmp_path: Path):
    commit = git_commit()
    for tool in TOOLS:
        path = shutil.which(tool, path=isolated_env(venv)["PATH"])
        assert path == str(venv / "bin" / tool), path
        proc = run(venv, tmp_path, tool, "--version")
        assert proc.returncode == 0, proc.stderr
        assert proc.stdout.strip() == f"{tool} 0.1.0 (commit {commit})", proc.stdout


def git(cwd: Path, *args: str) -> None:
    subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@example.invalid",
                    "-c", "commit.gpgsign=false", "-c", "init.defaultBranch=main", *args],
                   cwd=cwd, check=True, capture_output=True, env={**os.environ, **GIT_DATES})


def test_the_demo_approves_and_the_demo_patch_is_rejected_from_the_wheel(venv: Path,
                                                                          tmp_path: Path):
    # The README's gate command, run from the venv; the lanes run in the interpreter with the
    # project's pinned pytest (--python), as a team's CI would point at its own.
    example = copy_tree(REPO / "examples" / "invoice", tmp_path / "invoice")
    shutil.rmtree(example / "out", ignore_errors=True)
    gate = ["lane-gate", "--today", TODAY, "--python", sys.executable]
    approve = run(venv, example, *gate)
    assert approve.returncode == 0, approve.stdout + approve.stderr
    assert "### lane-tally: **approve**" in approve.stdout

    git(example, "init", "-q")
    git(example, "add", "-A")
    git(example, "commit", "-q", "-m", "base")
    git(example, "apply", str(PATCH))
    git(example, "add", "-A")
    git(example, "commit", "-q", "-m", "agent: early-payment bonus")
    reject = run(venv, example, *gate, "--base", "HEAD~1")
    assert reject.returncode == 1, reject.stdout + reject.stderr
    assert "### lane-tally: **reject**" in reject.stdout
    verdict = json.loads((example / "out" / "lanes" / "verdict.json").read_text())
    rules = {r["rule"] for r in verdict["tally"]["reasons"]}
    assert {"unconditional-skip", "expired-ticket", "merge-failed"} <= rules, rules


def test_the_plugin_wheel_is_built_beside_it_when_the_plugin_exists(wheels: Path):
    plugin = sorted(wheels.glob("pytest_lanes_gate-*.whl"))
    if not PLUGIN.is_dir():
        assert plugin == []
        return
    [wheel] = plugin
    names = zipfile.ZipFile(wheel).namelist()
    entry_points = next(n for n in names if n.endswith(".dist-info/entry_points.txt"))
    assert "[pytest11]" in zipfile.ZipFile(wheel).read(entry_points).decode()


def test_make_install_puts_binaries_man_pages_and_completions_under_prefix(tmp_path: Path):
    prefix = tmp_path / "prefix"
    env = {k: v for k, v in os.environ.items() if not k.startswith("MAKE")}
    proc = subprocess.run(["make", "--no-print-directory", "install", f"PREFIX={prefix}",
                           f"DOCS={tmp_path / 'docs'}"], cwd=REPO, capture_output=True,
                          text=True, env=env, timeout=3000)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    commit = git_commit()
    for tool in TOOLS:
        binary = prefix / "bin" / tool
        assert os.access(binary, os.X_OK), binary
        out = subprocess.run([str(binary), "--version"], capture_output=True, text=True)
        assert out.stdout.strip() == f"{tool} 0.1.0 (commit {commit})"
        man = (prefix / "share" / "man" / "man1" / f"{tool}.1").read_text()
        assert man.startswith(".ie") or ".TH" in man, man[:200]
        assert tool in (prefix / "share" / "bash-completion" / "completions" / tool).read_text()
        assert f"#compdef {tool}" in (prefix / "share" / "zsh" / "site-functions"
                                      / f"_{tool}").read_text()
        assert f"complete -c {tool}" in (prefix / "share" / "fish" / "vendor_completions.d"
                                         / f"{tool}.fish").read_text()
