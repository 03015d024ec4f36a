"""The lane-scan rules a cheating patch meets run clean on real test suites nobody
tuned them for. Each pinned sdist (with its tests) is scanned with every test module marked
merge (a `pytestmark` appended at the end, so no line moves) and every product file judged
(`--all-product`, what lane-gate does without --base): no error of those rules may appear but
the ones listed in KNOWN, each with the reason it is kept, and the warnings listed in SHOWN must.

The sdists are downloaded once with pip into target/real-suites (the package index is reachable
in CI); reruns read them from there, offline.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tarfile
from pathlib import Path

import pytest

from conftest import REPO, run_tool

CACHE = REPO / "target" / "real-suites"

# (name, version, the fewest tests lane-scan must find: the check cannot pass by finding none)
SUITES = [
    ("attrs", "24.2.0", 550),          # hypothesis properties, conftest
    ("packaging", "24.1", 300),        # `assert Infinity == Infinity`
    ("python-dateutil", "2.9.0.post0", 1100),  # tests inside the package, hypothesis
    ("more-itertools", "10.5.0", 600),  # unittest-heavy
    ("six", "1.16.0", 60),             # test names defined under `if six.PY3: ... else:`
    ("pyfakefs", "5.7.1", 2500),       # a pytest plugin (pytest11): its product imports pytest
    ("colorama", "0.4.6", 45),         # product code registers an atexit handler (a capability)
]

# The rules against cheating patches that lane-scan reports.
RULES = {"test-redefined", "coding-cookie", "unsafe-addopts", "swallowed-failure", "tautology",
         "test-aware-code"}

# Errors kept on purpose, by project: (rule, file). None at present.
KNOWN: dict[str, set[tuple[str, str]]] = {}

# Warnings that must appear, by project: (rule, file, a word of the message). colorama.init()
# registers atexit(reset_all): a handler that runs inside the pytest process after the tests, so
# it is a capability a maintainer reads (capability-added, a warning when the whole tree is
# judged, an error on the lines a patch changed), not test-aware code: libraries register such
# handlers for cleanup, and a handler that rewrites the report is caught at run time
# (report-contradicts-exit, report-contradicts-stream).
SHOWN = {
    "colorama": {("capability-added", "colorama/initialise.py", "atexit.register")},
}

MARK = ("\n\nimport pytest as _lanes_pytest  # added by test_real_suites.py\n"
        "pytestmark = [_lanes_pytest.mark.merge]\n")


def sdist(name: str, version: str) -> Path:
    folder = CACHE / "dl" / f"{name}-{version}"
    found = sorted(folder.glob("*.tar.gz")) if folder.is_dir() else []
    if not found:
        folder.mkdir(parents=True, exist_ok=True)
        got = subprocess.run([sys.executable, "-m", "pip", "download", "--quiet", "--no-binary",
                              ":all:", "--no-deps", "--disable-pip-version-check", "-d",
                              str(folder), f"{name}=={version}"],
                             capture_output=True, text=True, timeout=300)
        found = sorted(folder.glob("*.tar.gz"))
        if got.returncode != 0 or len(found) != 1:
            pytest.fail(f"cannot download the sdist of {name}=={version} into {folder}:\n"
                        f"{got.stderr}")
    (archive,) = found
    return archive


def unpacked(archive: Path, into: Path) -> Path:
    with tarfile.open(archive) as tar:
        tar.extractall(into, filter="data")
    (top,) = [p for p in into.iterdir() if p.is_dir()]
    return top


@pytest.mark.parametrize("name,version,least", SUITES, ids=[s[0] for s in SUITES])
def test_cheating_patch_rules_run_clean_on_a_real_suite(tmp_path: Path, name: str, version: str,
                                                   least: int):
    root = unpacked(sdist(name, version), tmp_path)
    modules = sorted(p for p in root.rglob("*.py")
                     if p.name.startswith("test_") or p.name.endswith("_test.py"))
    assert modules, f"{name}: no test modules in the sdist"
    for m in modules:
        m.write_text(m.read_text(encoding="utf-8") + MARK, encoding="utf-8")
    run = run_tool("lane-scan", "--all-product", "--python", sys.executable, cwd=root)
    assert run.code in (0, 1), run.stderr
    scan = run.json()["scan"]
    merge = [t for t in scan["tests"] if t["lane"] == "merge"]
    assert len(merge) >= least, f"{name}: {len(merge)} merge tests found, expected {least}+"
    hits = {(p["rule"], p.get("file")) for p in scan["problems"]
            if p["rule"] in RULES and p["severity"] == "error"}
    assert hits == KNOWN.get(name, set()), json.dumps(
        [p for p in scan["problems"] if p["rule"] in RULES], indent=1)
    for rule, file, word in SHOWN.get(name, set()):
        assert any(p["rule"] == rule and p.get("file") == file and p["severity"] == "warning"
                   and word in p["message"] for p in scan["problems"]), (rule, file, word)
