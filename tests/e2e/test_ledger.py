"""freeze-ledger in the pipeline: the real lane-scan's scan section against the bundled
example's ledger, on a fresh copy of examples/invoice."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

from conftest import run_tool


def _ticket(root: Path) -> dict:
    rows = json.loads((root / "freeze_ledger.json").read_text())
    assert isinstance(rows, list) and len(rows) == 1, rows
    return rows[0]


def _scan(root: Path) -> str:
    scan = run_tool("lane-scan", cwd=root)
    assert scan.code in (0, 1), scan.stderr
    return scan.stdout


def _freeze_ids(scan_stdout: str) -> list[str]:
    tests = json.loads(scan_stdout)["scan"]["tests"]
    return [t["id"] for t in tests if t["lane"] == "freeze"]


def _day(text: str, delta: int) -> str:
    return (dt.date.fromisoformat(text) + dt.timedelta(days=delta)).isoformat()


def test_scan_then_check_is_clean_until_the_ticket_expires(invoice: Path) -> None:
    ticket = _ticket(invoice)
    scan = _scan(invoice)
    assert _freeze_ids(scan) == [ticket["test_id"]]

    # A month before expiry: valid, not expiring soon, within the 90-day horizon.
    today = _day(ticket["expires_on"], -30)
    check = run_tool("freeze-ledger", "check", "--today", today, stdin=scan, cwd=invoice)
    assert check.code == 0, check.stdout + check.stderr
    doc = check.json()
    section = doc["ledger"]
    assert section["problems"] == []
    assert section["matched_scan"] is True
    assert [(t["test_id"], t["status"], t["days_left"]) for t in section["tickets"]] == [
        (ticket["test_id"], "ok", 30)
    ]
    assert "scan" in doc  # the scan section travels on

    # The ticket expires on its expiry day's end: that day is still valid (a warning) ...
    last = run_tool("freeze-ledger", "check", "--today", ticket["expires_on"], stdin=scan,
                    cwd=invoice)
    assert last.code == 0, last.stdout
    assert [p["rule"] for p in last.json()["ledger"]["problems"]] == ["expiring-soon"]

    # ... and the day after, the gate fails.
    late = run_tool("freeze-ledger", "check", "--today", _day(ticket["expires_on"], 1),
                    stdin=scan, cwd=invoice)
    assert late.code == 1, late.stdout + late.stderr
    problems = late.json()["ledger"]["problems"]
    assert [(p["rule"], p["test"]) for p in problems] == [("expired-ticket", ticket["test_id"])]
    assert problems[0]["file"] == "freeze_ledger.json"

    # Same via LANES_TODAY.
    env = run_tool("freeze-ledger", "check", stdin=scan, cwd=invoice,
                   env={"LANES_TODAY": _day(ticket["expires_on"], 1)})
    assert env.stdout == late.stdout


def test_removed_ticket_is_missing_and_add_restores_it(invoice: Path) -> None:
    ticket = _ticket(invoice)
    before = (invoice / "freeze_ledger.json").read_bytes()
    scan = _scan(invoice)
    today = _day(ticket["expires_on"], -30)

    removed = run_tool("freeze-ledger", "remove", ticket["test_id"], cwd=invoice)
    assert removed.code == 0, removed.stderr
    check = run_tool("freeze-ledger", "check", "--today", today, stdin=scan, cwd=invoice)
    assert check.code == 1
    assert [p["rule"] for p in check.json()["ledger"]["problems"]] == ["missing-ticket"]

    args = ["add", ticket["test_id"], "--seed", str(ticket["seed"]),
            "--expires", ticket["expires_on"], "--replay-job", ticket["last_replay_job"],
            "--today", today]
    if "input_path" in ticket:
        args += ["--input", ticket["input_path"]]
    else:
        args += ["--input-sha256", ticket["input_sha256"]]
    # The scan on stdin confirms the test is in the freeze lane.
    added = run_tool("freeze-ledger", *args, stdin=scan, cwd=invoice)
    assert added.code == 0, added.stderr
    assert added.json()["input_sha256"] == ticket["input_sha256"]
    check = run_tool("freeze-ledger", "check", "--today", today, stdin=scan, cwd=invoice)
    assert check.code == 0, check.stdout

    # The diff against the original ledger shows the re-added ticket for review
    # (created_on changed: an edit, listed but not an error) or nothing at all.
    (invoice / "base.json").write_bytes(before)
    diff = run_tool("freeze-ledger", "diff", "base.json", "freeze_ledger.json", cwd=invoice)
    assert diff.code == 0, diff.stdout + diff.stderr
    section = diff.json()["ledger_diff"]
    assert section["added"] == [] and section["removed"] == []


def test_a_merge_test_cannot_get_a_ticket(invoice: Path) -> None:
    scan = _scan(invoice)
    merge = [t["id"] for t in json.loads(scan)["scan"]["tests"] if t["lane"] == "merge"]
    assert merge
    before = (invoice / "freeze_ledger.json").read_bytes()
    out = run_tool("freeze-ledger", "add", merge[0], "--seed", "1", "--input-sha256", "0" * 64,
                   "--expires", "2026-03-01", "--replay-job", "https://ci.example.org/jobs/1",
                   "--today", "2026-02-01", stdin=scan, cwd=invoice)
    assert out.code == 2
    assert "merge lane" in out.stderr
    assert (invoice / "freeze_ledger.json").read_bytes() == before


def test_every_check_rule_from_a_real_scan(tmp_path: Path) -> None:
    """Each rule of `check` from a ledger file on disk matched against the real lane-scan's
    scan of a real suite; capsule digests from hashlib, days left from Python's calendar."""
    import hashlib

    (tmp_path / "pytest.ini").write_text(
        "[pytest]\nmarkers =\n    merge: votes\n    witness: locked bytes\n    freeze: flake\n")
    tests = tmp_path / "tests"
    (tests / "capsules").mkdir(parents=True)
    freeze = ["good", "moved", "gone", "bad", "expired", "far", "soon", "dup", "unticketed"]
    source = ["import pytest\n"]
    for i in range(len(freeze) + 1):
        source.append(f"\n@pytest.mark.merge\ndef test_merge_{i}():\n"
                      f"    \"\"\"owner: billing-team\"\"\"\n    assert {i} + 1 == {i + 1}\n")
    for name in freeze:
        source.append(f"\n@pytest.mark.freeze\ndef test_{name}():\n    assert True\n")
    (tests / "test_suite.py").write_text("".join(source))
    (tests / "capsules" / "good.json").write_bytes(b'{"seed": 7}\n')
    (tests / "capsules" / "moved.json").write_bytes(b'{"seed": 8}\n')

    def tid(name: str) -> str:
        return f"tests/test_suite.py::test_{name}"

    today = dt.date(2028, 2, 27)  # the window below crosses a leap day

    def ticket(name: str, expires: dt.date, **extra) -> dict:
        row = {"test_id": tid(name), "seed": 7,
               "input_sha256": hashlib.sha256(b"capsule").hexdigest(),
               "expires_on": expires.isoformat(),
               "last_replay_job": "https://ci.example.org/jobs/1"}
        row.update(extra)
        return row

    rows = [
        ticket("good", today + dt.timedelta(days=30), input_path="tests/capsules/good.json",
               input_sha256=hashlib.sha256(b'{"seed": 7}\n').hexdigest()),
        ticket("moved", today + dt.timedelta(days=30), input_path="tests/capsules/moved.json",
               input_sha256=hashlib.sha256(b'{"seed": 7}\n').hexdigest()),
        ticket("gone", today + dt.timedelta(days=30), input_path="tests/capsules/gone.json"),
        ticket("bad", today + dt.timedelta(days=30), seed="7", expires_on="2028-02-30",
               ownr="x"),
        ticket("expired", today - dt.timedelta(days=1)),
        ticket("far", today + dt.timedelta(days=91)),
        ticket("soon", today + dt.timedelta(days=2)),  # 2028-02-29
        ticket("dup", today + dt.timedelta(days=30)),
        ticket("dup", today + dt.timedelta(days=31)),
        ticket("merge_0", today + dt.timedelta(days=30)),
        ticket("nowhere", today + dt.timedelta(days=30)),
    ]
    (tmp_path / "freeze_ledger.json").write_text(json.dumps(rows, indent=2) + "\n")
    before = (tmp_path / "freeze_ledger.json").read_bytes()

    scan = _scan(tmp_path)
    assert sorted(_freeze_ids(scan)) == sorted(tid(n) for n in freeze)
    check = run_tool("freeze-ledger", "check", "--today", today.isoformat(), stdin=scan,
                     cwd=tmp_path)
    assert check.code == 1, check.stdout + check.stderr
    section = check.json()["ledger"]
    got = sorted((p["rule"], p.get("test")) for p in section["problems"])
    assert got == sorted([
        ("capsule-mismatch", tid("moved")),
        ("capsule-mismatch", tid("gone")),
        ("invalid-ticket", tid("bad")),  # seed
        ("invalid-ticket", tid("bad")),  # expires_on
        ("invalid-ticket", tid("bad")),  # ownr
        ("expired-ticket", tid("expired")),
        ("expiry-too-far", tid("far")),
        ("expiring-soon", tid("soon")),
        ("duplicate-ticket", tid("dup")),
        ("orphan-ticket", tid("merge_0")),
        ("orphan-ticket", tid("nowhere")),
        ("missing-ticket", tid("unticketed")),
    ]), json.dumps(section["problems"], indent=1)
    severities = {p["rule"]: p["severity"] for p in section["problems"]}
    assert severities.pop("expiring-soon") == "warning"
    assert set(severities.values()) == {"error"}
    bad = [p["message"] for p in section["problems"] if p["rule"] == "invalid-ticket"]
    for field in ("seed", "expires_on", "ownr"):
        assert any(field in m and m.startswith("row 4: ") for m in bad), (field, bad)
    moved = next(p for p in section["problems"] if p.get("test") == tid("moved"))
    assert hashlib.sha256(b'{"seed": 8}\n').hexdigest() in moved["message"]
    missing = next(p for p in section["problems"] if p["rule"] == "missing-ticket")
    assert missing["file"] == "tests/test_suite.py" and missing["line"] > 1

    # Days left as Python's calendar counts them, for every row that has a valid date.
    for t in section["tickets"]:
        if t["expires_on"] is not None:
            expected = (dt.date.fromisoformat(t["expires_on"]) - today).days
            assert t["days_left"] == expected, t
    status = {(t["test_id"], t["line"]): t["status"] for t in section["tickets"]}
    assert status[(tid("unticketed"), None)] == "missing"
    assert sorted(s for (i, _), s in status.items() if i == tid("dup")) == ["duplicate", "ok"]
    assert (tmp_path / "freeze_ledger.json").read_bytes() == before
