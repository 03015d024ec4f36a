"""The bad-input matrix: hostile or broken input for every tool.

Each case builds its input in a fresh folder, runs one binary, and checks the contract of
DESIGN.md §3: exit 2 with one clear `TOOL: error: ...` line on stderr and nothing on stdout, or
exit 1 with the named rule in the tool's section; never a crash, a hang or a changed file.
docs/robustness.md is generated from this table (`LANES_WRITE_DOCS=1` rewrites it; otherwise the
test checks it is in step).
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import stat
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import pytest

from conftest import REPO, Run, run_tool, tool_path
from test_faults import render_faults

TODAY = "2026-12-01"
GOOD_SHA = hashlib.sha256(b"golden\n").hexdigest()
INI = "[pytest]\nmarkers =\n    merge: votes\n    witness: bytes\n    freeze: flake\n"
LEGAL_TEST = 'import pytest\n\n\n@pytest.mark.merge\ndef test_ok():\n    """owner: qa"""\n    assert 1 + 1 == 2\n'
SECTION = {"lane-scan": "scan", "lane-lock": "lock", "freeze-ledger": "ledger", "lane-tally": "tally"}


def write(root: Path, rel: str, data: str | bytes) -> Path:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(data, str):
        data = data.encode()
    path.write_bytes(data)
    return path


def suite(root: Path) -> None:
    write(root, "pytest.ini", INI)
    write(root, "tests/test_ok.py", LEGAL_TEST)


def lock(root: Path, files: list) -> None:
    write(root, "lanes.lock", json.dumps({"version": 1, "files": files}, indent=2))


def entry(path: str, sha: str = GOOD_SHA, size: int = 7) -> dict:
    return {"path": path, "sha256": sha, "bytes": size, "locked_on": "2026-11-02"}


def ledger(root: Path, rows) -> None:
    write(root, "freeze_ledger.json", json.dumps(rows, indent=2))


def row(**over) -> dict:
    base = {"test_id": "tests/test_f.py::test_f", "seed": 1, "input_sha256": GOOD_SHA,
            "expires_on": "2026-12-20", "last_replay_job": "https://ci.example.invalid/j/1"}
    base.update(over)
    return base


def junit(root: Path, text: str | bytes) -> None:
    write(root, "merge.xml", text)


def doc_with_scan(root: Path) -> bytes:
    out = run_tool("lane-scan", cwd=root)
    assert out.code in (0, 1), out.stderr
    return out.stdout.encode()


DEEP = 100_000


@dataclass
class Case:
    name: str
    tool: str
    args: list
    setup: Callable[[Path], None]
    expect: str  # "exit 2", "ok" (0 or 1, no crash), or a rule id (exit 1 with that rule)
    what: str
    stdin: Callable[[Path], bytes] | bytes = b""
    # Permission cases: the tool runs as another user (nobody) when the tests run as root,
    # because root reads and writes whatever the mode bits say.
    other_user: bool = False
    # Variables set for the run (beyond the test's own environment, which loses LANES_TODAY).
    env: dict | None = None
    # A known shortfall of the tools: the case is an expected failure until it is fixed (strict,
    # so the fix shows), and docs/robustness.md says so.
    gap: str = ""


def symlink_loop(root: Path) -> None:
    suite(root)
    (root / "tests/loop").mkdir()
    os.symlink("..", root / "tests/loop/again")


def fifo(root: Path, rel: str) -> None:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    os.mkfifo(path)


def deep_json(root: Path) -> bytes:
    """An evidence document with a 100,000-deep array under a field no tool reads."""
    return b'{"version":1,"x":' + b"[" * DEEP + b"]" * DEEP + b"}"


def no_access(root: Path, rel: str, mode: int = 0) -> None:
    """Takes permissions away (the case runs as another user when the tests run as root)."""
    os.chmod(root / rel, mode)


def unreadable_folder(root: Path) -> None:
    suite(root)
    write(root, "tests/private/test_hidden.py", LEGAL_TEST.replace("test_ok", "test_hidden"))
    no_access(root, "tests/private")


def non_utf8_fixture(root: Path) -> None:
    write(root, os.fsdecode(b"fixtures/golden-\xff.txt"), "golden\n")


def readonly_lock(root: Path) -> None:
    write(root, "a.txt", "golden\n")
    lock(root, [])
    no_access(root, ".", 0o555)


def readonly_ledger(root: Path) -> None:
    ledger(root, [])
    no_access(root, ".", 0o555)


CASES = [
    # ---- lane-scan ----
    Case("scan-doc-truncated", "lane-scan", [], suite, "exit 2",
         "evidence document on stdin cut off mid-object", b'{"version":1,"scan":{'),
    Case("scan-doc-version-2", "lane-scan", [], suite, "exit 2",
         "evidence document of another major version", b'{"version":2}'),
    Case("scan-doc-not-object", "lane-scan", [], suite, "exit 2",
         "evidence document that is a JSON array", b"[]"),
    Case("scan-doc-not-utf8", "lane-scan", [], suite, "exit 2",
         "evidence document that is not UTF-8", b'{"version":1,"x":"\xff\xfe"}'),
    Case("scan-doc-wrong-type", "lane-scan", [], suite, "exit 2",
         "a section of the wrong JSON type (`\"lock\": []`)", b'{"version":1,"lock":[]}'),
    Case("scan-bad-toml", "lane-scan", [], lambda r: (write(r, "pyproject.toml", "[tool.pytest.ini_options\nx=1\n"), write(r, "tests/test_ok.py", LEGAL_TEST)),
         "exit 2", "pyproject.toml that is not valid TOML"),
    Case("scan-bad-ini", "lane-scan", [], lambda r: (write(r, "tox.ini", "[pytest]\nmarkers =\n  merge\nnot an ini line\n"), write(r, "tests/test_ok.py", LEGAL_TEST)),
         "exit 2", "tox.ini with a line that is neither a section, a key nor a comment"),
    Case("scan-missing-path", "lane-scan", ["tests/nope"], suite, "exit 2",
         "a path argument that does not exist"),
    Case("scan-invalid-utf8-file", "lane-scan", [], lambda r: (suite(r), write(r, "tests/test_bad.py", b"x = '\xff'\n")),
         "parse-error", "a test file that is not UTF-8"),
    Case("scan-syntax-error", "lane-scan", [], lambda r: (suite(r), write(r, "tests/test_bad.py", "def test_x(:\n")),
         "parse-error", "a test file with a syntax error"),
    Case("scan-deep-brackets", "lane-scan", [], lambda r: (suite(r), write(r, "tests/test_deep.py", "x = " + "(" * DEEP + "1" + ")" * DEEP + "\n")),
         "parse-error", f"{DEEP:,}-deep nested parentheses"),
    Case("scan-deep-unary", "lane-scan", [], lambda r: (suite(r), write(r, "tests/test_deep.py", "x = " + "-" * DEEP + "1\n")),
         "ok", f"{DEEP:,}-deep unary minus chain"),
    Case("scan-deep-lists", "lane-scan", [], lambda r: (suite(r), write(r, "tests/test_deep.py", "x = " + "[" * DEEP + "]" * DEEP + "\n")),
         "parse-error", f"{DEEP:,}-deep nested lists"),
    Case("scan-1mb-line", "lane-scan", [], lambda r: (suite(r), write(r, "tests/test_long.py", LEGAL_TEST + "X = '" + "a" * (1 << 20) + "'\n")),
         "ok", "a test file with a 1 MB line"),
    Case("scan-symlink-loop", "lane-scan", [], symlink_loop, "ok",
         "a symlink loop inside the test tree"),
    Case("scan-fifo", "lane-scan", [], lambda r: (suite(r), fifo(r, "tests/test_fifo.py")), "ok",
         "a FIFO named like a test file (never opened)"),
    Case("scan-non-utf8-name", "lane-scan", [], lambda r: (suite(r), write(r, os.fsdecode(b"tests/test_\xff.py"), LEGAL_TEST)),
         "ok", "a test file whose name is not UTF-8"),
    Case("scan-empty-file", "lane-scan", [], lambda r: (write(r, "pytest.ini", INI), write(r, "tests/test_empty.py", b"")),
         "empty-merge-lane", "an empty test file and nothing else"),
    Case("scan-explain-unknown", "lane-scan", ["--explain", "no-such-rule"], suite, "exit 2",
         "--explain with an unknown rule id"),
    # ---- lane-lock ----
    Case("lock-bad-json", "lane-lock", ["verify"], lambda r: write(r, "lanes.lock", '{"version":1,"files":[}'),
         "exit 2", "lanes.lock that is not JSON"),
    Case("lock-empty-file", "lane-lock", ["verify"], lambda r: write(r, "lanes.lock", ""),
         "exit 2", "an empty lanes.lock"),
    Case("lock-wrong-types", "lane-lock", ["verify"], lambda r: write(r, "lanes.lock", '{"version":1,"files":[{"path":"a","sha256":5,"bytes":"x","locked_on":"2026-11-02"}]}'),
         "exit 2", "a lock entry with a number for its digest"),
    Case("lock-short-digest", "lane-lock", ["verify"], lambda r: (write(r, "a.txt", "golden\n"), lock(r, [entry("a.txt", GOOD_SHA[:63])])),
         "exit 2", "a digest of 63 hex digits"),
    Case("lock-duplicate-path", "lane-lock", ["verify"], lambda r: (write(r, "a.txt", "golden\n"), lock(r, [entry("a.txt"), entry("a.txt")])),
         "exit 2", "the same path locked twice"),
    Case("lock-version-2", "lane-lock", ["verify"], lambda r: write(r, "lanes.lock", '{"version":2,"files":[]}'),
         "exit 2", "a lock of another version"),
    Case("lock-absolute-path", "lane-lock", ["verify"], lambda r: lock(r, [entry("/etc/passwd")]),
         "unsafe-path", "a lock entry with an absolute path (never read)"),
    Case("lock-dotdot-path", "lane-lock", ["verify"], lambda r: lock(r, [entry("../outside.txt")]),
         "unsafe-path", "a lock entry with a `..` component (never read)"),
    Case("lock-symlink-out", "lane-lock", ["verify"], lambda r: (os.symlink("/etc/hostname", r / "link.txt"), lock(r, [entry("link.txt")])),
         "unsafe-path", "a locked symlink that resolves outside the root"),
    Case("lock-missing-file", "lane-lock", ["verify"], lambda r: lock(r, [entry("gone.txt")]),
         "missing-file", "a locked file that does not exist"),
    Case("lock-fifo", "lane-lock", ["verify"], lambda r: (fifo(r, "pipe.txt"), lock(r, [entry("pipe.txt")])),
         "missing-file", "a locked path that is a FIFO (never read)"),
    Case("lock-moved", "lane-lock", ["verify"], lambda r: (write(r, "a.txt", "golden!\n"), lock(r, [entry("a.txt")])),
         "digest-moved", "a locked file whose bytes changed"),
    Case("lock-unwritable", "lane-lock", ["lock", "a.txt", "--lock", "blocker/lanes.lock", "--today", TODAY],
         lambda r: (write(r, "a.txt", "golden\n"), write(r, "blocker", "I am a file\n")),
         "exit 2", "`lock` into a folder that is a regular file (nothing written)"),
    Case("lock-diff-missing-base", "lane-lock", ["diff", "nope.lock", "lanes.lock"], lambda r: lock(r, []),
         "exit 2", "`diff` with a BASE lock that does not exist"),
    Case("lock-diff-truncated-head", "lane-lock", ["diff", "base.lock", "lanes.lock"], lambda r: (write(r, "base.lock", '{"version":1,"files":[]}'), write(r, "lanes.lock", '{"version":1,"fi')),
         "exit 2", "`diff` with a truncated HEAD lock"),
    # ---- freeze-ledger ----
    Case("ledger-bad-json", "freeze-ledger", ["check", "--today", TODAY], lambda r: write(r, "freeze_ledger.json", "[{]"),
         "exit 2", "a ledger that is not JSON"),
    Case("ledger-not-array", "freeze-ledger", ["check", "--today", TODAY], lambda r: write(r, "freeze_ledger.json", '{"rows":[]}'),
         "exit 2", "a ledger that is an object, not an array"),
    Case("ledger-row-not-object", "freeze-ledger", ["check", "--today", TODAY], lambda r: ledger(r, [42]),
         "invalid-ticket", "a ledger row that is a number"),
    Case("ledger-seed-string", "freeze-ledger", ["check", "--today", TODAY], lambda r: ledger(r, [row(seed="1")]),
         "invalid-ticket", "a seed given as a string"),
    Case("ledger-seed-float", "freeze-ledger", ["check", "--today", TODAY], lambda r: ledger(r, [row(seed=1.5)]),
         "invalid-ticket", "a seed given as a float"),
    Case("ledger-seed-too-big", "freeze-ledger", ["check", "--today", TODAY], lambda r: write(r, "freeze_ledger.json", json.dumps([row()]).replace('"seed": 1', '"seed": 18446744073709551616')),
         "invalid-ticket", "a seed beyond 64 bits"),
    Case("ledger-impossible-date", "freeze-ledger", ["check", "--today", TODAY], lambda r: ledger(r, [row(expires_on="2026-02-30")]),
         "invalid-ticket", "an expiry of 2026-02-30"),
    Case("ledger-upper-digest", "freeze-ledger", ["check", "--today", TODAY], lambda r: ledger(r, [row(input_sha256=GOOD_SHA.upper())]),
         "invalid-ticket", "an upper-case input digest"),
    Case("ledger-unknown-field", "freeze-ledger", ["check", "--today", TODAY], lambda r: ledger(r, [row(expires="2026-12-20")]),
         "invalid-ticket", "a row with an unknown field (a typo)"),
    Case("ledger-is-folder", "freeze-ledger", ["check", "--today", TODAY], lambda r: (r / "freeze_ledger.json").mkdir(),
         "exit 2", "a ledger path that is a folder"),
    Case("ledger-no-clock", "freeze-ledger", ["check"], lambda r: ledger(r, []),
         "exit 2", "`check` under CI with neither --today nor LANES_TODAY", env={"CI": "true"}),
    Case("ledger-add-duplicate", "freeze-ledger", ["add", "tests/test_f.py::test_f", "--seed", "2", "--input-sha256", GOOD_SHA, "--expires", "2026-12-20", "--replay-job", "https://ci.example.invalid/j/2", "--today", TODAY],
         lambda r: ledger(r, [row()]), "exit 2", "`add` of a ticket that exists (file unchanged)"),
    Case("ledger-add-unwritable", "freeze-ledger", ["add", "tests/test_f.py::test_f", "--seed", "2", "--input-sha256", GOOD_SHA, "--expires", "2026-12-20", "--replay-job", "https://ci.example.invalid/j/2", "--today", TODAY, "--ledger", "blocker/freeze_ledger.json"],
         lambda r: write(r, "blocker", "I am a file\n"), "exit 2", "`add` into a folder that is a regular file"),
    # ---- lane-tally ----
    Case("tally-truncated", "lane-tally", ["--junit", "merge=merge.xml"], lambda r: (suite(r), junit(r, '<testsuites><testsuite name="pytest"><testcase classname="tests.test_ok" name="test_ok"')),
         "exit 2", "a JUnit report cut off mid-tag", doc_with_scan),
    Case("tally-entity-bomb", "lane-tally", ["--junit", "merge=merge.xml"], lambda r: (suite(r), junit(r, '<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;">]><testsuites>&lol2;</testsuites>')),
         "exit 2", "a DOCTYPE with entity declarations (never expanded)", doc_with_scan),
    Case("tally-unknown-root", "lane-tally", ["--junit", "merge=merge.xml"], lambda r: (suite(r), junit(r, "<report/>")),
         "exit 2", "a report whose root is neither testsuites nor testsuite", doc_with_scan),
    Case("tally-deep-xml", "lane-tally", ["--junit", "merge=merge.xml"], lambda r: (suite(r), junit(r, "<testsuites>" + "<testsuite>" * DEEP + "</testsuite>" * DEEP + "</testsuites>")),
         "ok", f"{DEEP:,}-deep nested testsuite elements", doc_with_scan),
    Case("tally-empty-report", "lane-tally", ["--junit", "merge=merge.xml"], lambda r: (suite(r), junit(r, b"")),
         "exit 2", "an empty JUnit file", doc_with_scan),
    Case("tally-missing-report", "lane-tally", ["--junit", "merge=nope.xml"], suite,
         "exit 2", "a JUnit path that does not exist", doc_with_scan),
    Case("tally-non-utf8", "lane-tally", ["--junit", "merge=merge.xml"], lambda r: (suite(r), junit(r, b'<testsuites><testsuite name="\xff\xfe"></testsuite></testsuites>')),
         "exit 2", "a report with bytes that are not UTF-8", doc_with_scan),
    Case("tally-bad-junit-flag", "lane-tally", ["--junit", "merge.xml"], suite,
         "exit 2", "--junit without LANE=", doc_with_scan),
    Case("tally-unknown-lane", "lane-tally", ["--junit", "fast=merge.xml"], lambda r: (suite(r), junit(r, "<testsuites/>")),
         "exit 2", "--junit for a lane that does not exist", doc_with_scan),
    Case("tally-scan-wrong-shape", "lane-tally", ["--junit", "merge=merge.xml"], lambda r: junit(r, "<testsuites/>"),
         "exit 2", "a scan section whose tests are not a list", b'{"version":1,"scan":{"tool":"lane-scan","tests":5,"problems":[]}}'),
    Case("tally-no-scan", "lane-tally", ["--junit", "merge=merge.xml"], lambda r: junit(r, "<testsuites/>"),
         "no-scan-evidence", "an evidence document without a scan section"),
    Case("tally-1mb-attribute", "lane-tally", ["--junit", "merge=merge.xml"], lambda r: (suite(r), junit(r, '<testsuites><testsuite name="' + "a" * (1 << 20) + '"><testcase classname="tests.test_ok" name="test_ok"/></testsuite></testsuites>')),
         "ok", "a report with a 1 MB attribute", doc_with_scan),
    # ---- permissions: run as another user (nobody) when the tests run as root ----
    Case("scan-unreadable-test-file", "lane-scan", [], lambda r: (suite(r), write(r, "tests/test_hidden.py", LEGAL_TEST), no_access(r, "tests/test_hidden.py")),
         "parse-error", "a test file the tool may not read", other_user=True),
    Case("scan-unreadable-folder", "lane-scan", [], unreadable_folder, "exit 2",
         "a folder of the test tree the tool may not list", other_user=True),
    Case("lock-unreadable", "lane-lock", ["verify"], lambda r: (lock(r, []), no_access(r, "lanes.lock")),
         "exit 2", "a lanes.lock the tool may not read", other_user=True),
    Case("lock-unreadable-fixture", "lane-lock", ["verify"], lambda r: (write(r, "a.txt", "golden\n"), lock(r, [entry("a.txt")]), no_access(r, "a.txt")),
         "exit 2", "a locked file the tool may not read", other_user=True),
    Case("lock-readonly-folder", "lane-lock", ["lock", "a.txt", "--today", TODAY], readonly_lock,
         "exit 2", "`lock` when the lock's folder is not writable (lock unchanged)", other_user=True),
    Case("ledger-unreadable", "freeze-ledger", ["check", "--today", TODAY], lambda r: (ledger(r, []), no_access(r, "freeze_ledger.json")),
         "exit 2", "a ledger the tool may not read", other_user=True),
    Case("ledger-readonly-folder", "freeze-ledger", ["add", "tests/test_f.py::test_f", "--seed", "2", "--input-sha256", GOOD_SHA, "--expires", "2026-12-20", "--replay-job", "https://ci.example.invalid/j/2", "--today", TODAY],
         readonly_ledger, "exit 2", "`add` when the ledger's folder is not writable (ledger unchanged)", other_user=True),
    Case("tally-unreadable-report", "lane-tally", ["--junit", "merge=merge.xml"], lambda r: (suite(r), junit(r, "<testsuites/>"), no_access(r, "merge.xml")),
         "exit 2", "a JUnit report the tool may not read", doc_with_scan, other_user=True),
    Case("tally-unreadable-input", "lane-tally", ["--input", "doc.json", "--junit", "merge=merge.xml"], lambda r: (junit(r, "<testsuites/>"), write(r, "doc.json", '{"version":1}'), no_access(r, "doc.json")),
         "exit 2", "an --input document the tool may not read", other_user=True),
    # ---- more shapes of missing, deep and odd input ----
    Case("scan-input-missing", "lane-scan", ["--input", "nope.json"], suite, "exit 2",
         "an --input document that does not exist"),
    Case("scan-doc-deep", "lane-scan", [], suite, "ok",
         f"a document with a {DEEP:,}-deep array in a field no tool reads", deep_json),
    Case("lock-is-folder", "lane-lock", ["verify"], lambda r: (r / "lanes.lock").mkdir(),
         "exit 2", "a lock path that is a folder"),
    Case("lock-doc-deep", "lane-lock", ["verify"], lambda r: lock(r, []), "ok",
         f"a document with a {DEEP:,}-deep array in a field no tool reads", deep_json),
    Case("lock-verify-symlink-loop", "lane-lock", ["verify"], lambda r: (lock(r, []), write(r, "fixtures/a.txt", "golden\n"), os.symlink("..", r / "fixtures/again")),
         "ok", "`verify` (which looks for sidecars) in a tree with a symlink loop"),
    Case("lock-non-utf8-name", "lane-lock", ["lock", "fixtures", "--today", TODAY], non_utf8_fixture,
         "exit 2", "`lock` of a folder holding a file whose name is not UTF-8"),
    Case("ledger-deep", "freeze-ledger", ["check", "--today", TODAY], lambda r: write(r, "freeze_ledger.json", "[" * DEEP + "]" * DEEP),
         "exit 2", f"a ledger of {DEEP:,}-deep nested arrays"),
    Case("ledger-empty-file", "freeze-ledger", ["check", "--today", TODAY], lambda r: write(r, "freeze_ledger.json", ""),
         "ok", "an empty ledger file (no tickets)"),
    Case("ledger-1mb-line", "freeze-ledger", ["check", "--today", TODAY], lambda r: write(r, "freeze_ledger.json", json.dumps([row(reason="r" * (1 << 20))])),
         "ok", "a ledger row with a 1 MB reason on one line"),
    Case("ledger-diff-truncated-base", "freeze-ledger", ["diff", "base.json", "freeze_ledger.json"], lambda r: (write(r, "base.json", '[{"test_id"'), ledger(r, [])),
         "exit 2", "`diff` with a truncated BASE ledger"),
    Case("ledger-diff-missing-head", "freeze-ledger", ["diff", "base.json", "nope.json"], lambda r: ledger(r, []) or write(r, "base.json", json.dumps([row()])),
         "ok", "`diff` with a HEAD ledger that does not exist (a missing ledger has no tickets: every base ticket is shown removed)"),
    Case("tally-report-is-folder", "lane-tally", ["--junit", "merge=merge.xml"], lambda r: (suite(r), (r / "merge.xml").mkdir()),
         "exit 2", "a JUnit path that is a folder", doc_with_scan),
    Case("tally-base-version-2", "lane-tally", ["--junit", "merge=merge.xml", "--base", "base.json"], lambda r: (suite(r), junit(r, "<testsuites/>"), write(r, "base.json", '{"version":2}')),
         "exit 2", "a --base document of another major version", doc_with_scan),
    Case("tally-base-missing", "lane-tally", ["--junit", "merge=merge.xml", "--base", "nope.json"], lambda r: (suite(r), junit(r, "<testsuites/>")),
         "exit 2", "a --base document that does not exist", doc_with_scan),
    Case("tally-doc-deep", "lane-tally", ["--junit", "merge=merge.xml"], lambda r: junit(r, "<testsuites/>"),
         "ok", f"a document with a {DEEP:,}-deep array in a field no tool reads", deep_json),
]


def snapshot(root: Path) -> dict:
    """Every entry under root: kind, mode, inode, size, mtime, and the bytes of each regular
    file this process may read (an edit locks the folder: even a refused one leaves no lock
    file behind)."""
    out = {}
    for dirpath, dirnames, filenames in os.walk(root, followlinks=False):
        for name in filenames + dirnames:
            path = Path(dirpath) / name
            st = os.lstat(path)
            data = None
            if stat.S_ISREG(st.st_mode) and os.access(path, os.R_OK):
                data = path.read_bytes()
            out[str(path)] = (st.st_mode, st.st_ino, st.st_size, st.st_mtime_ns, data)
    return out


NOBODY = 65534


def as_other_user() -> list[str]:
    """The command prefix that runs a tool as nobody, when the tests run as root."""
    if os.geteuid() != 0:
        return []
    if shutil.which("setpriv") is None:
        pytest.skip("running as root without setpriv: the permission cases cannot drop root")
    return ["setpriv", f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups"]


def run_case(case: Case, root: Path, stdin: bytes) -> Run:
    if not case.other_user:
        return run_tool(case.tool, *case.args, stdin=stdin, cwd=root, env=case.env)
    env = {k: v for k, v in os.environ.items() if k != "LANES_TODAY"}
    env.update(case.env or {})
    proc = subprocess.run([*as_other_user(), str(tool_path(case.tool)), *case.args], input=stdin,
                          cwd=root, capture_output=True, env=env, timeout=300)
    return Run(proc.returncode, proc.stdout.decode("utf-8", "replace"),
               proc.stderr.decode("utf-8", "replace"))


@pytest.fixture
def case_root(request, tmp_path: Path):
    """A fresh folder for one case. A permission case gets one the other user can enter (the
    pytest temporary folder is private to root); its modes are restored for the clean-up."""
    case = request.param
    if case.other_user and os.geteuid() == 0:
        top = Path(tempfile.mkdtemp(prefix="lanes-bad-input-"))
        os.chmod(top, 0o755)
    else:
        top = tmp_path
    root = top / "tree"
    root.mkdir()
    yield case, root
    for dirpath, dirnames, _ in os.walk(top):
        for name in dirnames:
            os.chmod(Path(dirpath) / name, 0o755)
    os.chmod(root, 0o755)
    if top != tmp_path:
        shutil.rmtree(top, ignore_errors=True)


def case_param(case: Case):
    marks = [pytest.mark.xfail(strict=True, reason=case.gap)] if case.gap else []
    return pytest.param(case, id=case.name, marks=marks)


@pytest.mark.parametrize("case_root", [case_param(c) for c in CASES], indirect=True)
def test_bad_input(case_root):
    case, root = case_root
    case.setup(root)
    stdin = case.stdin(root) if callable(case.stdin) else case.stdin
    before = snapshot(root)
    result = run_case(case, root, stdin)
    assert snapshot(root) == before, f"{case.name}: a file changed"
    if case.expect == "exit 2":
        assert result.code == 2, f"{case.name}: exit {result.code}\n{result.stderr}"
        assert result.stdout == "", f"{case.name}: stdout on exit 2"
        lines = result.stderr.strip().splitlines()
        assert len(lines) == 1, f"{case.name}: expected one line on stderr, got {lines}"
        assert lines[0].startswith(f"{case.tool}: error: "), lines[0]
        return
    assert result.code in (0, 1), f"{case.name}: exit {result.code}\n{result.stderr}"
    assert str(root) not in result.stdout, f"{case.name}: an absolute path in the document"
    # (a deep array the tool carried through untouched is more than Python's json will nest)
    doc = json.loads(result.stdout.replace("[" * DEEP + "]" * DEEP, "[]"))
    if case.expect == "ok":
        return
    rules = {p["rule"] for p in doc[SECTION[case.tool]]["problems"]}
    assert result.code == 1, f"{case.name}: exit {result.code}, problems {rules}"
    assert case.expect in rules, f"{case.name}: {case.expect} not in {rules}"


def test_matrix_is_large_enough():
    assert len(CASES) >= 40
    assert {c.tool for c in CASES} == set(SECTION)


def render_doc() -> str:
    lines = [
        "# Robustness: what bad input gets",
        "",
        "Generated from the table in `tests/e2e/test_bad_input.py` (`LANES_WRITE_DOCS=1` rewrites",
        "it); every row runs in `make test`. **exit 2**: one `TOOL: error: ...` line on stderr and",
        "nothing on stdout; a **rule**: exit 1 with that problem in the tool's section; **ok**: exit",
        "0 or 1 and a valid document without absolute paths. In every case no file is changed,",
        "nothing crashes or hangs. Cases marked *as another user* take permissions away; when the",
        "tests run as root they run the tool as `nobody` (root reads and writes regardless of modes).",
        "A **gap** is what the tool does today instead: the case is a strict expected failure until",
        "the tool is fixed.",
        "",
        "| case | tool | input | outcome |",
        "|---|---|---|---|",
    ]
    for c in CASES:
        outcome = c.expect if c.expect in ("exit 2", "ok") else f"`{c.expect}`"
        if c.gap:
            outcome += f" (**gap**: {c.gap})"
        what = c.what + (" (as another user)" if c.other_user else "")
        lines.append(f"| `{c.name}` | {c.tool} | {what} | {outcome} |")
    gaps = sum(1 for c in CASES if c.gap)
    lines += ["", f"{len(CASES)} cases across the four tools; {gaps} known gaps."]
    lines += render_faults()
    return "\n".join(lines) + "\n"


def test_robustness_doc_is_in_step():
    path = REPO / "docs" / "robustness.md"
    text = render_doc()
    if os.environ.get("LANES_WRITE_DOCS") == "1":
        path.write_text(text, encoding="utf-8")
    assert path.read_text(encoding="utf-8") == text, "run with LANES_WRITE_DOCS=1 to regenerate"
