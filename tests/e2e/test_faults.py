"""The fault suite: nothing lost, nothing exhausted.

Real processes, real files: concurrent writers of one lock or ledger, kills and signals at
random moments during a replacement, a full disk, a file size limit, and the peak resident
memory of every reader on hostile input (measured with wait4's rusage of that one child, never
with `ulimit -v`). docs/robustness.md lists these cases (FAULTS below) and the measured peak
and time of each hostile case (HOSTILE, measured by scripts/measure_hostile.py into
tests/e2e/hostile_measurements.json; no test asserts on time).
"""

from __future__ import annotations

import hashlib
import json
import os
import random
import shutil
import signal
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import pytest

from conftest import REPO, tool_path

TODAY = "2026-12-01"
INI = "[pytest]\nmarkers =\n    merge: votes\n    witness: bytes\n    freeze: flake\n"
LEGAL_TEST = 'import pytest\n\n\n@pytest.mark.merge\ndef test_ok():\n    """owner: qa"""\n    assert 1 + 1 == 2\n'
MIB = 1 << 20
GIB = 1 << 30
# Every hostile input must stay under this peak resident memory (docs/robustness.md's bar).
RSS_LIMIT = GIB
MEASUREMENTS = Path(__file__).with_name("hostile_measurements.json")


def write(root: Path, rel: str, data: str | bytes) -> Path:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data.encode() if isinstance(data, str) else data)
    return path


def sparse(path: Path, size: int) -> Path:
    """A file of `size` NUL bytes that takes no disk."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "wb") as f:
        f.truncate(size)
    return path


def env(**extra) -> dict:
    out = {k: v for k, v in os.environ.items() if k != "LANES_TODAY"}
    out.update(extra)
    return out


def start(name: str, *args: str, cwd: Path, stdin=subprocess.DEVNULL, **kw) -> subprocess.Popen:
    return subprocess.Popen([str(tool_path(name)), *args], cwd=cwd, stdin=stdin,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env(), **kw)


@dataclass
class Measured:
    code: int
    stdout: bytes
    stderr: str
    peak_rss: int  # bytes
    seconds: float


TIME = Path("/usr/bin/time")


def measure(argv: list[str], cwd: Path, stdin_path: Path | None = None) -> Measured:
    """Runs one process and returns its own peak resident memory: GNU time's `%M` where it is
    installed (its child's rusage), else wait4's rusage of the child, which also counts the
    forked Python's pages before the exec (an upper bound)."""
    stdin = open(stdin_path, "rb") if stdin_path else subprocess.DEVNULL
    out_path = cwd / ".stdout"
    err_path = cwd / ".stderr"
    rss_path = cwd / ".rss"
    use_time = TIME.exists()
    if use_time:
        argv = [str(TIME), "-f", "%M", "-o", str(rss_path), *argv]
    began = time.monotonic()
    with open(out_path, "wb") as out, open(err_path, "wb") as err:
        proc = subprocess.Popen(argv, cwd=cwd, stdin=stdin, stdout=out, stderr=err, env=env())
        _, status, usage = os.wait4(proc.pid, 0)
    seconds = time.monotonic() - began
    code = os.waitstatus_to_exitcode(status)
    if stdin_path:
        stdin.close()
    stdout = out_path.read_bytes()
    stderr = err_path.read_text("utf-8", "replace")
    # ru_maxrss and %M are in KiB on Linux.
    peak_kib = usage.ru_maxrss
    if use_time:
        lines = rss_path.read_text().split()
        # GNU time notes a child killed by a signal before the figure.
        peak_kib = int(lines[-1])
        if "signal" in " ".join(lines[:-1]):
            code = -1
        rss_path.unlink()
    out_path.unlink()
    err_path.unlink()
    return Measured(code, stdout, stderr, peak_kib * 1024, seconds)


def temp_files(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if ".tmp-" in p.name)


# ---- concurrent writers -------------------------------------------------------------------

def lock_entries(root: Path) -> set[str]:
    return {e["path"] for e in json.loads((root / "lanes.lock").read_text())["files"]}


def test_concurrent_lock_runs_lose_no_update(tmp_path):
    """50 pairs of `lane-lock lock` on different files of one root, started together."""
    root = tmp_path / "root"
    for i in range(200):
        write(root, f"seed/f{i:03}.txt", f"seed {i}\n")
    seed = start("lane-lock", "lock", "seed", "--today", TODAY, cwd=root)
    assert seed.wait() == 0, seed.stderr.read()
    expected = lock_entries(root)
    for pair in range(50):
        a = write(root, f"fix/a{pair}.txt", f"a {pair}\n")
        b = write(root, f"fix/b{pair}.txt", f"b {pair}\n")
        procs = [start("lane-lock", "lock", str(p.relative_to(root)), "--today", TODAY, cwd=root)
                 for p in (a, b)]
        for p in procs:
            assert p.wait() == 0, p.stderr.read().decode()
        expected |= {f"fix/a{pair}.txt", f"fix/b{pair}.txt"}
        assert lock_entries(root) == expected, f"pair {pair}: an update was lost"
    assert temp_files(root) == []


def add_args(test_id: str) -> list[str]:
    return ["add", test_id, "--seed", "1", "--input-sha256", "0" * 64, "--expires", "2026-12-20",
            "--replay-job", "https://ci.example/job/1", "--today", TODAY]


def ledger_ids(root: Path) -> list[str]:
    return sorted(t["test_id"] for t in json.loads((root / "freeze_ledger.json").read_text()))


def test_concurrent_ledger_adds_lose_no_update_and_refuse_duplicates(tmp_path):
    root = tmp_path / "root"
    root.mkdir()
    expected = []
    for pair in range(50):
        ids = [f"tests/test_f.py::test_a{pair}", f"tests/test_f.py::test_b{pair}"]
        procs = [start("freeze-ledger", *add_args(i), cwd=root) for i in ids]
        for p in procs:
            assert p.wait() == 0, p.stderr.read().decode()
        expected += ids
        assert ledger_ids(root) == sorted(expected), f"pair {pair}: an update was lost"
        # The same id twice at once: exactly one adds it.
        dup = f"tests/test_f.py::test_dup{pair}"
        procs = [start("freeze-ledger", *add_args(dup), cwd=root) for _ in range(2)]
        codes = sorted(p.wait() for p in procs)
        assert codes == [0, 2], f"pair {pair}: duplicate adds exited {codes}"
        expected.append(dup)
        assert ledger_ids(root) == sorted(expected)
    assert temp_files(root) == []


def test_a_held_edit_lock_makes_the_next_run_wait_then_give_up(tmp_path):
    """A writer that never lets go: the next one says it waits, then exits 2, nothing written."""
    root = tmp_path / "root"
    write(root, "f.txt", "x\n")
    holder = subprocess.Popen(
        ["python3", "-c",
         "import fcntl,os,sys,time; f=os.open(sys.argv[1], os.O_RDONLY); "
         "fcntl.flock(f, fcntl.LOCK_EX); print('held', flush=True); time.sleep(60)", str(root)],
        stdout=subprocess.PIPE)
    try:
        assert holder.stdout.readline().strip() == b"held"
        proc = subprocess.run([str(tool_path("lane-lock")), "lock", "f.txt", "--today", TODAY],
                              cwd=root, capture_output=True, text=True,
                              env=env(LANES_LOCK_TIMEOUT="4"), timeout=60)
    finally:
        holder.kill()
        holder.wait()
    assert proc.returncode == 2, proc.stderr
    assert "waiting for another run editing lanes.lock" in proc.stderr
    assert "gave up, nothing written" in proc.stderr
    assert not (root / "lanes.lock").exists()
    assert sorted(p.name for p in root.iterdir()) == ["f.txt"]  # no lock file left behind


# ---- kills and signals during a replacement ------------------------------------------------

def big_lock_root(tmp_path: Path, entries: int = 20000) -> Path:
    root = tmp_path / "root"
    files = [{"path": f"data/f{i:05}.bin", "sha256": hashlib.sha256(str(i).encode()).hexdigest(),
              "bytes": i, "locked_on": "2026-11-02"} for i in range(entries)]
    write(root, "lanes.lock", json.dumps({"version": 1, "files": files}, indent=2) + "\n")
    write(root, "new.txt", "new\n")
    return root


def valid_lock_bytes(data: bytes) -> bool:
    try:
        json.loads(data)
        return True
    except ValueError:
        return False


@pytest.mark.parametrize("sig", [signal.SIGKILL, signal.SIGTERM, signal.SIGINT, signal.SIGHUP],
                         ids=lambda s: s.name)
def test_signals_at_random_moments_leave_old_or_new_never_partial(tmp_path, sig):
    root = big_lock_root(tmp_path)
    old = (root / "lanes.lock").read_bytes()
    rng = random.Random(17 + int(sig))
    seen_new = False
    for _ in range(25):
        (root / "lanes.lock").write_bytes(old)
        proc = start("lane-lock", "lock", "new.txt", "--today", TODAY, cwd=root)
        time.sleep(rng.uniform(0, 0.12))
        proc.send_signal(sig)
        code = proc.wait()
        stderr = proc.stderr.read().decode()
        now = (root / "lanes.lock").read_bytes()
        assert now == old or (valid_lock_bytes(now) and b'"new.txt"' in now), "a partial lock"
        seen_new |= now != old
        assert code in (0, -sig, 128 + sig), f"exit {code}: {stderr}"
        if code == 128 + sig:
            assert "interrupted by" in stderr, stderr
        if sig != signal.SIGKILL:
            assert temp_files(root) == [], f"exit {code}: a temporary file was left"
        for t in temp_files(root):
            (root / t).unlink()


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT, signal.SIGHUP],
                         ids=lambda s: s.name)
def test_a_signal_mid_write_of_scan_output_removes_the_temp_file(tmp_path, sig):
    """`lane-scan --output` of a 40 MB document: signalled as soon as its temp file appears."""
    root = tmp_path / "root"
    write(root, "pytest.ini", INI)
    write(root, "tests/test_ok.py", LEGAL_TEST)
    big = {"version": 1, "padding": {"rows": ["x" * 1000] * 40000}}
    doc = write(tmp_path, "in.json", json.dumps(big))
    out = root / "out"
    out.mkdir()
    write(out, "evidence.json", "old\n")
    interrupted = 0
    for _ in range(5):
        with open(doc, "rb") as stdin:
            proc = start("lane-scan", "--output", "out/evidence.json", cwd=root, stdin=stdin)
            deadline = time.monotonic() + 60
            while not temp_files(out) and proc.poll() is None and time.monotonic() < deadline:
                pass
            proc.send_signal(sig)
            _, stderr = proc.communicate()
        code = proc.returncode
        assert code in (0, 1, 128 + sig), f"exit {code}: {stderr.decode()}"
        interrupted += code == 128 + sig
        assert temp_files(out) == [], "a temporary file was left"
        now = (out / "evidence.json").read_bytes()
        assert now == b"old\n" or json.loads(now)["scan"]["tool"] == "lane-scan"
        write(out, "evidence.json", "old\n")
    assert interrupted, "no run was caught mid-write"


# ---- full disks, size limits, stale temp files, modes, links -------------------------------

def test_a_file_size_limit_is_an_error_with_a_message(tmp_path):
    root = big_lock_root(tmp_path, entries=2000)
    old = (root / "lanes.lock").read_bytes()
    lane_lock = tool_path("lane-lock")
    proc = subprocess.run(["bash", "-c", f'ulimit -f 64; exec "{lane_lock}" lock new.txt '
                           f'--today {TODAY}'], cwd=root, capture_output=True, text=True, env=env())
    assert proc.returncode == 2, proc.stderr
    assert "file size limit exceeded (ulimit -f)" in proc.stderr
    assert (root / "lanes.lock").read_bytes() == old
    assert temp_files(root) == []


def test_writing_to_a_device_never_replaces_it(tmp_path):
    """`--output /dev/full` is refused (a device is never replaced); stdout to it is exit 2."""
    root = tmp_path / "root"
    write(root, "pytest.ini", INI)
    write(root, "tests/test_ok.py", LEGAL_TEST)
    scan = tool_path("lane-scan")
    proc = subprocess.run([str(scan), "--output", "/dev/full"], cwd=root, capture_output=True,
                          text=True, stdin=subprocess.DEVNULL, env=env())
    assert proc.returncode == 2 and "not a regular file" in proc.stderr, proc.stderr
    assert Path("/dev/full").is_char_device()
    with open("/dev/full", "wb") as full:
        proc = subprocess.run([str(scan)], cwd=root, stdout=full, stderr=subprocess.PIPE,
                              stdin=subprocess.DEVNULL, env=env())
    assert proc.returncode == 2, proc.stderr
    assert b"No space left on device" in proc.stderr


def unshare_works() -> bool:
    if not shutil.which("unshare"):
        return False
    probe = subprocess.run(["unshare", "-Urm", "sh", "-c",
                            "mount -t tmpfs -o size=64k tmpfs /mnt"], capture_output=True)
    return probe.returncode == 0


@pytest.mark.skipif(not unshare_works(),
                    reason="no private mount namespace here (unshare -Urm refused)")
def test_a_full_disk_leaves_lock_and_ledger_unchanged(tmp_path):
    """A 96 KiB tmpfs in a private mount namespace, filled by a 60 KiB lock: no room for the
    new one beside it."""
    root = big_lock_root(tmp_path, entries=300)
    work = tmp_path / "mnt"
    work.mkdir()
    lane_lock = tool_path("lane-lock")
    ledger_tool = tool_path("freeze-ledger")
    rows = [{"test_id": f"tests/t.py::test_{i}", "seed": 1, "input_sha256": "0" * 64,
             "expires_on": "2026-12-20", "last_replay_job": "https://ci.example/job/1"}
            for i in range(300)]
    script = f"""
set -u
mount -t tmpfs -o size=96k tmpfs "{work}"
cp "{root}/lanes.lock" "{root}/new.txt" "{work}/"
cd "{work}"
sha_before=$(sha256sum lanes.lock)
"{lane_lock}" lock new.txt --today {TODAY} > /dev/null 2> lock.err; echo "lock=$?"
[ "$(sha256sum lanes.lock)" = "$sha_before" ] && echo lock-unchanged
rm lanes.lock new.txt
cat > freeze_ledger.json <<'EOF'
{json.dumps(rows, indent=2)}
EOF
sha_before=$(sha256sum freeze_ledger.json)
"{ledger_tool}" {' '.join(add_args('tests/t.py::test_new'))} > /dev/null 2> ledger.err; echo "ledger=$?"
[ "$(sha256sum freeze_ledger.json)" = "$sha_before" ] && echo ledger-unchanged
ls -a | grep -c '.tmp-' || true
cat lock.err ledger.err
"""
    proc = subprocess.run(["unshare", "-Urm", "bash", "-c", script], capture_output=True,
                          text=True, env=env(), timeout=120)
    out = proc.stdout
    assert "lock=2" in out and "lock-unchanged" in out, out + proc.stderr
    assert "ledger=2" in out and "ledger-unchanged" in out, out + proc.stderr
    assert "No space left on device" in out, out
    assert out.splitlines()[4] == "0", f"temporary files left: {out}"


def test_a_stale_temp_file_never_blocks_a_run(tmp_path):
    root = tmp_path / "root"
    write(root, "f.txt", "x\n")
    # What a dead run of the old naming (and of any pid) leaves behind.
    for pid in range(2, 40):
        write(root, f".lanes.lock.tmp-{pid}", "stale")
    proc = start("lane-lock", "lock", "f.txt", "--today", TODAY, cwd=root)
    assert proc.wait() == 0, proc.stderr.read().decode()
    assert lock_entries(root) == {"f.txt"}


def test_replacing_keeps_the_mode(tmp_path):
    root = tmp_path / "root"
    write(root, "f.txt", "x\n")
    write(root, "g.txt", "y\n")
    assert start("lane-lock", "lock", "f.txt", "--today", TODAY, cwd=root).wait() == 0
    os.chmod(root / "lanes.lock", 0o600)
    assert start("lane-lock", "lock", "g.txt", "--today", TODAY, cwd=root).wait() == 0
    assert (root / "lanes.lock").stat().st_mode & 0o777 == 0o600
    assert start("freeze-ledger", *add_args("tests/t.py::test_a"), cwd=root).wait() == 0
    os.chmod(root / "freeze_ledger.json", 0o640)
    assert start("freeze-ledger", *add_args("tests/t.py::test_b"), cwd=root).wait() == 0
    assert (root / "freeze_ledger.json").stat().st_mode & 0o777 == 0o640


def test_a_linked_lock_inside_the_root_is_updated_at_its_target(tmp_path):
    root = tmp_path / "root"
    write(root, "f.txt", "x\n")
    write(root, "meta/real.lock", json.dumps({"version": 1, "files": []}))
    (root / "lanes.lock").symlink_to("meta/real.lock")
    proc = start("lane-lock", "lock", "f.txt", "--today", TODAY, cwd=root)
    assert proc.wait() == 0, proc.stderr.read().decode()
    assert (root / "lanes.lock").is_symlink()
    assert lock_entries(root) == {"f.txt"}
    assert temp_files(root / "meta") == [] and temp_files(root) == []


@pytest.mark.parametrize("tool,args", [
    ("lane-lock", ["lock", "f.txt", "--today", TODAY]),
    ("lane-lock", ["verify"]),
    ("freeze-ledger", add_args("tests/t.py::test_a")),
    ("freeze-ledger", ["list"]),
])
def test_a_link_leaving_the_root_is_refused_for_reading_too(tmp_path, tool, args):
    root = tmp_path / "root"
    write(root, "f.txt", "x\n")
    outside = tmp_path / "outside"
    lock = write(outside, "lanes.lock", json.dumps({"version": 1, "files": []}))
    ledger = write(outside, "freeze_ledger.json", "[]")
    (root / "lanes.lock").symlink_to(lock)
    (root / "freeze_ledger.json").symlink_to(ledger)
    proc = subprocess.run([str(tool_path(tool)), *args], cwd=root, capture_output=True,
                          text=True, stdin=subprocess.DEVNULL, env=env())
    assert proc.returncode == 2, proc.stderr
    assert "resolves outside the root" in proc.stderr
    assert lock.read_text() == json.dumps({"version": 1, "files": []})
    assert ledger.read_text() == "[]"


@pytest.mark.parametrize("config,args", [
    ("[pytest]\ntestpaths = ../elsewhere\n", []),
    ("[pytest]\n", ["--rootdir", ".", "../elsewhere"]),
])
def test_paths_outside_the_rootdir_are_refused(tmp_path, config, args):
    root = tmp_path / "root"
    write(root, "pytest.ini", config)
    write(root, "tests/test_ok.py", LEGAL_TEST)
    write(tmp_path, "elsewhere/test_far.py", LEGAL_TEST)
    proc = subprocess.run([str(tool_path("lane-scan")), *args], cwd=root, capture_output=True,
                          text=True, stdin=subprocess.DEVNULL, env=env())
    assert proc.returncode == 2, proc.stdout
    assert proc.stdout == ""
    assert "outside the rootdir" in proc.stderr and "elsewhere" in proc.stderr


# ---- peak memory on hostile input ----------------------------------------------------------

@dataclass
class Hostile:
    name: str
    tool: str
    what: str
    setup: Callable[[Path], None]
    args: list[str]
    expect: str  # "exit 2", "ok" or a rule id
    stdin: str | None = None  # a file under the case folder fed to stdin
    # A sharper bound than RSS_LIMIT where the reader streams (it would fail the old reader).
    rss_bound: int = RSS_LIMIT


def scan_tree(root: Path, files: dict) -> None:
    write(root, "pytest.ini", INI)
    for rel, data in files.items():
        if isinstance(data, int):
            sparse(root / rel, data)
        else:
            write(root, rel, data)


def junit(root: Path, inner_before: bytes, inner: tuple[bytes, int, bytes]) -> None:
    """A report with `count` copies of a filler byte between two fragments, written in chunks."""
    head, (fill, count, tail) = inner_before, inner
    path = root / "r.xml"
    with open(path, "wb") as f:
        f.write(head)
        chunk = fill * (4 * MIB)
        for _ in range(count // len(chunk)):
            f.write(chunk)
        f.write(tail)


def tally_doc(root: Path) -> None:
    """The scan of a one-test suite (by lane-scan itself) as doc.json."""
    write(root, "pytest.ini", INI)
    write(root, "tests/test_a.py", LEGAL_TEST.replace("test_ok", "test_a"))
    proc = subprocess.run([str(tool_path("lane-scan"))], cwd=root, capture_output=True,
                          stdin=subprocess.DEVNULL, env=env())
    assert proc.returncode == 0, proc.stderr
    write(root, "doc.json", proc.stdout)


CASE = b'<testcase classname="tests.test_a" name="test_a" file="tests/test_a.py"/>'
PAD = 128 * MIB

HOSTILE = [
    Hostile("scan-2gib-nuls", "lane-scan", "a 2 GiB test file of NUL bytes",
            lambda r: scan_tree(r, {"tests/test_nul.py": 2 * GIB}), [], "file-too-large"),
    Hostile("scan-unparsable-near-limit", "lane-scan",
            "two test files of 2,000,000 NUL bytes each (just under the limit; they do not parse)",
            lambda r: scan_tree(r, {f"tests/test_n{i}.py": b"\0" * 2_000_000 for i in range(2)}),
            [], "parse-error"),
    Hostile("scan-garbage-near-limit", "lane-scan",
            "a 1,980,000-byte test file of lines that lex but do not parse",
            lambda r: scan_tree(r, {"tests/test_g.py": (b"x = ( ] + \n" * 180_000)}),
            [], "parse-error"),
    Hostile("tally-padding", "lane-tally", "128 MiB of whitespace between two test cases",
            lambda r: (tally_doc(r), junit(r, b"<testsuite>" + CASE, (b" ", PAD, b"</testsuite>"))),
            ["--input", "doc.json", "--junit", "merge=r.xml"], "ok", rss_bound=64 * MIB),
    Hostile("tally-cdata", "lane-tally", "a 128 MiB CDATA section in system-out",
            lambda r: (tally_doc(r), junit(r, b'<testsuite><testcase classname="tests.test_a" '
                                              b'name="test_a"><system-out><![CDATA[',
                                           (b"c", PAD, b"]]></system-out></testcase></testsuite>"))),
            ["--input", "doc.json", "--junit", "merge=r.xml"], "ok", rss_bound=64 * MIB),
    Hostile("tally-comment", "lane-tally", "a 128 MiB comment between two test cases",
            lambda r: (tally_doc(r), junit(r, b"<testsuite>" + CASE + b"<!--",
                                           (b"-", PAD, b" -->" + b"</testsuite>"))),
            ["--input", "doc.json", "--junit", "merge=r.xml"], "ok", rss_bound=64 * MIB),
    Hostile("tally-huge-tag", "lane-tally", "a 32 MiB attribute (over the tag limit)",
            lambda r: (tally_doc(r), junit(r, b'<testsuite><testcase classname="',
                                           (b"a", 32 * MIB, b'" name="t"/></testsuite>'))),
            ["--input", "doc.json", "--junit", "merge=r.xml"], "exit 2"),
    Hostile("lock-over-cap", "lane-lock", "a 1 GiB lanes.lock (sparse)",
            lambda r: (sparse(r / "lanes.lock", GIB), write(r, "f.txt", "x")),
            ["lock", "f.txt", "--today", TODAY], "exit 2"),
    Hostile("lock-verify-over-cap", "lane-lock", "`verify` of a 1 GiB lanes.lock (sparse)",
            lambda r: sparse(r / "lanes.lock", GIB), ["verify"], "exit 2"),
    Hostile("ledger-over-cap", "freeze-ledger", "a 1 GiB freeze_ledger.json (sparse)",
            lambda r: sparse(r / "freeze_ledger.json", GIB), ["list"], "exit 2"),
    Hostile("document-over-cap", "lane-tally", "a 1 GiB evidence document (sparse, --input)",
            lambda r: sparse(r / "doc.json", GIB), ["--input", "doc.json"], "exit 2"),
    Hostile("document-stdin-over-cap", "lane-lock", "a 300 MiB evidence document on stdin",
            lambda r: sparse(r / "doc.json", 300 * MIB),
            ["verify"], "exit 2", stdin="doc.json"),
]


def run_hostile(case: Hostile, folder: Path) -> Measured:
    folder.mkdir(parents=True, exist_ok=True)
    case.setup(folder)
    stdin = folder / case.stdin if case.stdin else None
    if stdin is None:
        write(folder, ".empty-stdin", b"")
        stdin = folder / ".empty-stdin"
    return measure([str(tool_path(case.tool)), *case.args], folder, stdin)


@pytest.mark.parametrize("case", HOSTILE, ids=lambda c: c.name)
def test_hostile_input_is_bounded(tmp_path, case):
    m = run_hostile(case, tmp_path / "case")
    assert m.code >= 0, f"killed by signal {-m.code}: {m.stderr}"
    assert "memory allocation" not in m.stderr
    assert m.peak_rss < min(RSS_LIMIT, case.rss_bound), \
        f"peak RSS {m.peak_rss / MIB:.0f} MiB: {m.stderr}"
    assert temp_files(tmp_path / "case") == []
    if case.expect == "exit 2":
        assert m.code == 2, m.stderr
        assert m.stdout == b""
        assert len(m.stderr.strip().splitlines()) == 1, m.stderr
        assert m.stderr.startswith(f"{case.tool}: error: "), m.stderr
        return
    assert m.code in (0, 1), m.stderr
    doc = json.loads(m.stdout)
    if case.expect != "ok":
        section = {"lane-scan": "scan"}[case.tool]
        rules = {p["rule"] for p in doc[section]["problems"]}
        assert case.expect in rules, rules


def test_every_hostile_case_has_a_measurement():
    """docs/robustness.md's table of peaks comes from scripts/measure_hostile.py."""
    measured = json.loads(MEASUREMENTS.read_text())
    assert [m["case"] for m in measured] == [c.name for c in HOSTILE], \
        "run scripts/measure_hostile.py, then LANES_WRITE_DOCS=1 on test_bad_input.py"
    assert all(m["peak_rss_mib"] < RSS_LIMIT / MIB for m in measured)


# ---- docs/robustness.md --------------------------------------------------------------------

FAULTS = [
    ("concurrent lock", "lane-lock", "50 pairs of `lock` on different files, started together",
     "both entries kept"),
    ("concurrent add", "freeze-ledger", "50 pairs of `add` of different ids, and of one id",
     "both kept; a duplicate: one exit 0, one exit 2"),
    ("edit lock held", "lane-lock", "another process holds the lock on the folder of `lanes.lock`",
     "a line on stderr after 3 s, exit 2 after `LANES_LOCK_TIMEOUT` s"),
    ("kill mid-write", "lane-lock", "SIGKILL, SIGTERM, SIGINT, SIGHUP at random moments",
     "old or new lock, never partial; no temp file (SIGKILL aside)"),
    ("signal during --output", "lane-scan", "SIGTERM, SIGINT, SIGHUP while a 40 MB temp file "
     "is written", "temp removed, exit 128 + signal"),
    ("ulimit -f", "lane-lock", "a lock larger than the file size limit",
     "exit 2 naming the limit; lock unchanged"),
    ("/dev/full", "lane-scan", "`--output /dev/full`; stdout to /dev/full",
     "refused (never replaced); exit 2"),
    ("full tmpfs", "lane-lock, freeze-ledger", "a 96 KiB tmpfs (`unshare -Urm`)",
     "exit 2, files unchanged, no temp file"),
    ("stale temp files", "lane-lock", "temp files of dead runs beside the lock",
     "unique names: the run succeeds"),
    ("mode", "lane-lock, freeze-ledger", "a 0600 lock, a 0640 ledger", "mode kept"),
    ("link inside the root", "lane-lock", "`lanes.lock` links into the root",
     "the target replaced; the link kept"),
    ("link out of the root", "lane-lock, freeze-ledger", "`lanes.lock` / the ledger links "
     "outside the root", "exit 2, never read"),
    ("outside the rootdir", "lane-scan", "`testpaths` or an argument outside the rootdir",
     "exit 2 naming them"),
]


def render_faults() -> list[str]:
    """The fault rows and the peak-memory table, for docs/robustness.md."""
    lines = [
        "",
        "## Faults",
        "",
        "From `tests/e2e/test_faults.py` (`FAULTS`), real processes in `make test`. Every edit of",
        "`lanes.lock` or the ledger holds an exclusive advisory lock (`flock`) on the folder that",
        "holds it for its whole read-modify-write, so no lock file is left in the tree; a",
        "replacement writes a uniquely named temporary file with the old file's mode, fsyncs and",
        "renames it.",
        "",
        "| fault | tool | what | outcome |",
        "|---|---|---|---|",
    ]
    lines += [f"| {n} | {t} | {w} | {o} |" for n, t, w, o in FAULTS]
    lines += [
        "",
        "## Limits and peak memory on hostile input",
        "",
        "Caps, refused before the input is read whole: a Python file 2 MiB (`file-too-large`,",
        "also the most source parsed at once across threads), a lock 64 MiB, a ledger 16 MiB,",
        "an evidence document 256 MiB, a JUnit tag 16 MiB (text, CDATA and comments stream",
        "through a 256 KiB buffer whatever their size). Peak resident memory (wait4's rusage of",
        "the one process) and wall time, measured by `scripts/measure_hostile.py`; the tests",
        "assert the peak stays under 1 GiB (64 MiB where the reader streams), never the time.",
        "",
        "| case | tool | input | outcome | peak RSS | time |",
        "|---|---|---|---|---|---|",
    ]
    measured = {m["case"]: m for m in json.loads(MEASUREMENTS.read_text())}
    for c in HOSTILE:
        m = measured.get(c.name, {})
        outcome = c.expect if c.expect in ("exit 2", "ok") else f"`{c.expect}`"
        lines.append(f"| `{c.name}` | {c.tool} | {c.what} | {outcome} | "
                     f"{m.get('peak_rss_mib', '?')} MiB | {m.get('seconds', '?')} s |")
    return lines
