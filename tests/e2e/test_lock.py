"""lane-lock against independent references: Python's hashlib for digests, the real
sha256sum for sidecars, real pytest running the article's witness test, and the real
lane-scan on a fresh copy of examples/invoice."""

from __future__ import annotations

import hashlib
import json
import os
import random
import shutil
import subprocess
from pathlib import Path

import pytest

from conftest import run_pytest, run_tool, tool_path

TODAY = "2026-09-18"


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _rules(run, section: str = "lock") -> list[str]:
    return [p["rule"] for p in run.json()[section]["problems"]]


def test_lock_digests_match_hashlib(tmp_path: Path) -> None:
    rng = random.Random(20260918)
    sizes = [0, 1, 63, 64, 65, 4096, (1 << 20) - 1, 1 << 20, (1 << 20) + 1, 3 * (1 << 20) + 7]
    fixtures = tmp_path / "tests" / "fixtures"
    for i, size in enumerate(sizes):
        path = fixtures / f"d{i % 3}" / f"f{i:02}.bin"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(rng.randbytes(size))
    (fixtures / "naïve name with spaces.txt").write_text("unicode ✓\n", encoding="utf-8")

    run = run_tool("lane-lock", "lock", "tests/fixtures", "--today", TODAY, cwd=tmp_path)
    assert run.code == 0, run.stderr
    lock = json.loads((tmp_path / "lanes.lock").read_text(encoding="utf-8"))
    assert lock["version"] == 1
    paths = [e["path"] for e in lock["files"]]
    assert paths == sorted(paths)
    expected = sorted(p.relative_to(tmp_path).as_posix() for p in fixtures.rglob("*")
                      if p.is_file())
    assert paths == expected
    for entry in lock["files"]:
        file = tmp_path / entry["path"]
        assert entry["sha256"] == _sha(file), entry["path"]
        assert entry["bytes"] == file.stat().st_size
        assert entry["locked_on"] == TODAY
    assert len(run.json()["lock_update"]["added"]) == len(expected)

    verify = run_tool("lane-lock", "verify", cwd=tmp_path)
    assert verify.code == 0, verify.stdout
    for f in verify.json()["lock"]["files"]:
        assert f["actual"] == _sha(tmp_path / f["path"]) and f["status"] == "ok"


@pytest.mark.skipif(shutil.which("sha256sum") is None, reason="needs coreutils sha256sum")
def test_sidecars_in_all_three_formats(tmp_path: Path) -> None:
    fx = tmp_path / "fixtures"
    fx.mkdir()
    (fx / "fixture.txt").write_bytes(b"golden bytes\n")
    (fx / "statement_v3.txt").write_bytes(b"Statement v3\ntotal: 10.00\n")
    (fx / "text.csv").write_bytes(b"a,b\n1,2\n")
    (fx / "blob.bin").write_bytes(bytes(range(256)))

    def sha256sum(*args: str) -> str:
        return subprocess.run(["sha256sum", *args], cwd=fx, check=True, capture_output=True,
                              text=True).stdout

    # Bare hex named after the file, bare hex with the same stem (the article's two-step
    # command), and sha256sum output in text and binary mode.
    (fx / "fixture.txt.sha256").write_text(sha256sum("fixture.txt").split()[0] + "\n")
    (fx / "statement_v3.sha256").write_text(sha256sum("statement_v3.txt").split()[0] + "\n")
    (fx / "SHA256SUMS.sha256").write_text(sha256sum("text.csv") + sha256sum("-b", "blob.bin"))
    assert " *blob.bin" in (fx / "SHA256SUMS.sha256").read_text()

    verify = run_tool("lane-lock", "verify", cwd=tmp_path)
    assert verify.code == 0, verify.stdout + verify.stderr
    got = {(f["path"], f["source"], f["status"]) for f in verify.json()["lock"]["files"]}
    assert got == {
        ("fixtures/fixture.txt", "sidecar:fixtures/fixture.txt.sha256", "ok"),
        ("fixtures/statement_v3.txt", "sidecar:fixtures/statement_v3.sha256", "ok"),
        ("fixtures/text.csv", "sidecar:fixtures/SHA256SUMS.sha256", "ok"),
        ("fixtures/blob.bin", "sidecar:fixtures/SHA256SUMS.sha256", "ok"),
    }

    # One byte moves in each file: each sidecar catches its own.
    for name in ("fixture.txt", "statement_v3.txt", "text.csv", "blob.bin"):
        data = bytearray((fx / name).read_bytes())
        data[0] ^= 1
        (fx / name).write_bytes(bytes(data))
    verify = run_tool("lane-lock", "verify", cwd=tmp_path)
    assert verify.code == 1
    assert _rules(verify) == ["digest-moved"] * 4


def test_article_witness_test_and_lane_lock_agree(tmp_path: Path) -> None:
    """The article's witness test (the test checks its own sidecar) and lane-lock verify
    pass and fail together on the same bytes, with the real pytest."""
    fx = tmp_path / "tests" / "fixtures"
    fx.mkdir(parents=True)
    (tmp_path / "pytest.ini").write_text(
        "[pytest]\nmarkers =\n    merge: votes\n    witness: locked bytes\n    freeze: flake\n")
    (fx / "statement_v3.txt").write_text("Statement v3\nTotal due: 42.00 EUR\n")
    (fx / "statement_v3.sha256").write_text(_sha(fx / "statement_v3.txt") + "\n")
    (tmp_path / "tests" / "test_statement.py").write_text(
        "import hashlib\n"
        "from pathlib import Path\n"
        "import pytest\n\n"
        "FIXTURE = Path(__file__).parent / 'fixtures' / 'statement_v3.txt'\n"
        "LOCK = Path(__file__).parent / 'fixtures' / 'statement_v3.sha256'\n\n"
        "@pytest.mark.witness(fixture='fixtures/statement_v3.txt')\n"
        "def test_statement_bytes_locked():\n"
        "    digest = hashlib.sha256(FIXTURE.read_bytes()).hexdigest()\n"
        "    assert digest == LOCK.read_text().strip()\n")

    assert run_pytest("-q", cwd=tmp_path).returncode == 0
    assert run_tool("lane-lock", "verify", cwd=tmp_path).code == 0

    (fx / "statement_v3.txt").write_text("Statement v3\nTotal due: 42.01 EUR\n")
    assert run_pytest("-q", cwd=tmp_path).returncode == 1
    verify = run_tool("lane-lock", "verify", cwd=tmp_path)
    assert verify.code == 1
    assert _rules(verify) == ["digest-moved"]


def test_diff_of_a_relock(tmp_path: Path) -> None:
    (tmp_path / "golden.txt").write_text("v1\n")
    assert run_tool("lane-lock", "lock", "golden.txt", "--today", TODAY, cwd=tmp_path).code == 0
    base = (tmp_path / "lanes.lock").read_bytes()
    (tmp_path / "golden.txt").write_text("v2\n")
    relock = run_tool("lane-lock", "lock", "golden.txt", "--today", "2026-09-19", cwd=tmp_path)
    assert [c["path"] for c in relock.json()["lock_update"]["changed"]] == ["golden.txt"]
    (tmp_path / "changed.txt").write_text("golden.txt\nlanes.lock\nsrc/render.py\n")

    diff = run_tool("lane-lock", "diff", "-", "lanes.lock", "--changed", "changed.txt",
                    stdin=base, cwd=tmp_path)
    assert diff.code == 1, diff.stderr
    section = diff.json()["lock_diff"]
    assert section["moved"] == [{
        "path": "golden.txt", "base_sha256": hashlib.sha256(b"v1\n").hexdigest(),
        "base_bytes": 3, "head_sha256": hashlib.sha256(b"v2\n").hexdigest(), "head_bytes": 3}]
    assert sorted(_rules(diff, "lock_diff")) == ["lock-batched-with-behavior", "lock-entry-moved"]

    reasoned = run_tool("lane-lock", "diff", "-", "lanes.lock", "--changed", "changed.txt",
                        "--reason", "totals now round half-even", stdin=base, cwd=tmp_path)
    assert reasoned.code == 1
    assert _rules(reasoned, "lock_diff") == ["lock-entry-moved"]
    assert reasoned.json()["lock_diff"]["reason"] == "totals now round half-even"


def _witness_fixtures(scan_doc: dict) -> list[str]:
    return sorted({f for t in scan_doc["scan"]["tests"] if t["lane"] == "witness"
                   for f in t["attachments"].get("fixtures", [])})


def test_scan_then_verify_on_the_invoice_example(invoice: Path) -> None:
    scan = run_tool("lane-scan", cwd=invoice)
    assert scan.code in (0, 1), scan.stderr
    fixtures = _witness_fixtures(scan.json())
    assert fixtures, "the example has witness fixtures"

    verify = run_tool("lane-lock", "verify", stdin=scan.stdout, cwd=invoice)
    assert verify.code == 0, verify.stdout + verify.stderr
    doc = verify.json()
    assert doc["scan"] == scan.json()["scan"]
    # The scan section travels byte for byte (keys are sorted: "scan" comes before "version").
    start, end = scan.stdout.index('\n  "scan": '), scan.stdout.index('\n  "version": ')
    assert scan.stdout[start:end] in verify.stdout

    # The same through a real pipe, as a CI step writes it.
    piped = subprocess.run(
        f'"{tool_path("lane-scan")}" | "{tool_path("lane-lock")}" verify', shell=True,
        cwd=invoice, capture_output=True, text=True, timeout=300,
        env={k: v for k, v in os.environ.items() if k != "LANES_TODAY"})
    assert piped.returncode == 0, piped.stderr
    assert piped.stdout == verify.stdout
    locked = {f["path"] for f in doc["lock"]["files"] if f["status"] == "ok"}
    assert set(fixtures) <= locked
    assert not [p for p in doc["lock"]["problems"] if p["severity"] == "error"]

    # One byte of the golden file changes: the digest moves, both digests are shown.
    golden = invoice / fixtures[0]
    before = _sha(golden)
    data = bytearray(golden.read_bytes()) or bytearray(b"\0")
    data[-1] ^= 0x20
    golden.write_bytes(bytes(data))
    after = _sha(golden)
    assert before != after

    moved = run_tool("lane-lock", "verify", stdin=scan.stdout, cwd=invoice)
    assert moved.code == 1
    problems = [p for p in moved.json()["lock"]["problems"] if p["rule"] == "digest-moved"]
    assert problems, moved.stdout
    assert all(p["file"] == fixtures[0] for p in problems)
    assert before in problems[0]["message"] and after in problems[0]["message"]
