#!/usr/bin/env python3
"""False-positive check of the issue-16 lane-scan rules on real test suites.

Downloads pinned sdists (with their tests) into a temporary folder with pip, marks every test
module merge (a `pytestmark` appended at the end, so no line moves), runs lane-scan on each and
prints every problem of the rules under check. Needs network access to the package index;
not part of `make test`.

    LANES_BIN_DIR=target/release python3 scripts/scan_real_suites.py [NAME==VERSION ...]
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

SUITES = [
    "attrs==23.2.0",
    "packaging==23.2",
    "python-dateutil==2.9.0.post0",
    "more-itertools==10.2.0",
    "pyrsistent==0.20.0",
]
RULES = {"test-redefined", "coding-cookie", "unsafe-addopts", "unknown-addopts",
         "swallowed-failure", "tautology", "weakened-search"}
MARK = "\n\nimport pytest as _lanes_pytest  # added by scan_real_suites.py\n" \
       "pytestmark = [_lanes_pytest.mark.merge]\n"


def test_modules(root: Path) -> list[Path]:
    return sorted(p for p in root.rglob("*.py")
                  if p.name.startswith("test_") or p.name.endswith("_test.py"))


def main(argv: list[str]) -> int:
    suites = argv or SUITES
    bin_dir = Path(os.environ.get("LANES_BIN_DIR", "target/release")).resolve()
    found = 0
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        for spec in suites:
            subprocess.run([sys.executable, "-m", "pip", "download", "--quiet", "--no-binary",
                            ":all:", "--no-deps", "--disable-pip-version-check", spec, "-d",
                            str(work / "dl")], check=True)
        for archive in sorted((work / "dl").glob("*.tar.gz")):
            with tarfile.open(archive) as tar:
                tar.extractall(work / "src", filter="data")
        for root in sorted((work / "src").iterdir()):
            modules = test_modules(root)
            for m in modules:
                m.write_text(m.read_text(encoding="utf-8") + MARK, encoding="utf-8")
            proc = subprocess.run([str(bin_dir / "lane-scan"), "--python", sys.executable],
                                  cwd=root, capture_output=True, text=True)
            if proc.returncode not in (0, 1):
                print(f"{root.name}: lane-scan exit {proc.returncode}: {proc.stderr.strip()}")
                found += 1
                continue
            scan = json.loads(proc.stdout)["scan"]
            hits = [p for p in scan["problems"] if p["rule"] in RULES]
            print(f"{root.name}: {len(modules)} test modules, {len(scan['tests'])} tests, "
                  f"{len(hits)} problem(s) of the rules under check")
            for p in hits:
                print(f"  {p['rule']} ({p['severity']}) {p.get('file')}:{p.get('line')}: "
                      f"{p['message']}")
            found += len(hits)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
