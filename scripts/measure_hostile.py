#!/usr/bin/env python3
"""Measures each hostile case of tests/e2e/test_faults.py (HOSTILE): the tool's peak resident
memory (wait4's rusage of that one process) and wall time, written to
tests/e2e/hostile_measurements.json, from which docs/robustness.md's table is generated
(`LANES_WRITE_DOCS=1` on tests/e2e/test_bad_input.py). A benchmark, not a test: nothing asserts
on time.

Usage: LANES_BIN_DIR=target/release python scripts/measure_hostile.py
"""

from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path

E2E = Path(__file__).resolve().parents[1] / "tests" / "e2e"
sys.path.insert(0, str(E2E))

from test_faults import HOSTILE, MEASUREMENTS, MIB, run_hostile  # noqa: E402


def main() -> int:
    rows = []
    for case in HOSTILE:
        with tempfile.TemporaryDirectory() as tmp:
            m = run_hostile(case, Path(tmp) / "case")
        rows.append({
            "case": case.name,
            "exit": m.code,
            "peak_rss_mib": round(m.peak_rss / MIB, 1),
            "seconds": round(m.seconds, 2),
        })
        print(f"{case.name}: exit {m.code}, {m.peak_rss / MIB:.1f} MiB, {m.seconds:.2f} s")
    MEASUREMENTS.write_text(json.dumps(rows, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
