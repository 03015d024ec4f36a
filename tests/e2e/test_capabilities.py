"""capability-added through the real lane-gate (real git, real pytest): a product-only patch
whose changed lines do more than plain computation is rejected with each use named, until a
maintainer who read them acknowledges the commit; plain changes and the base's own
capabilities pass; without --base the whole tree is judged and the findings are warnings."""

from __future__ import annotations

from pathlib import Path

from conftest import head_ack
from test_exercised import ACK, patch, project, verdict
from test_gate import TODAY, gate

ALWAYS_EQUAL = ("class Total(int):\n    def __eq__(self, other):\n        return True\n\n"
                "    __hash__ = int.__hash__\n\n\n"
                "def add(a, b):\n    return Total(a + b + 1)\n")


def found(v: dict) -> list[tuple[str, int, str]]:
    return sorted((p["file"], p["line"], p["severity"]) for p in v["scan"]["problems"]
                  if p["rule"] == "capability-added")


def messages(v: dict) -> str:
    return "\n".join(p["message"] for p in v["scan"]["problems"]
                     if p["rule"] == "capability-added")


def test_an_always_equal_value_is_a_capability_a_maintainer_reads(tmp_path: Path):
    repo = project(tmp_path)
    patch(repo, {"calc/core.py": ALWAYS_EQUAL})
    proc = gate(repo, "--base", "HEAD~1", "--today", TODAY)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    v = verdict(repo)
    assert "capability-added" in {r["rule"] for r in v["tally"]["reasons"]}
    assert found(v) == [("calc/core.py", 2, "error")], messages(v)
    text = messages(v)
    assert "`Total` does more than plain computation" in text
    assert "line 2 comparison protocol: defines __eq__" in text
    assert "line 5 comparison protocol: assigns __hash__" in text
    assert "`capability-added`" in proc.stdout
    # A maintainer who read the lines acknowledges this commit: the finding stays, a warning.
    proc = gate(repo, "--base", "HEAD~1", "--today", TODAY, "--ack", head_ack(repo, ACK))
    v = verdict(repo)
    assert found(v) == [("calc/core.py", 2, "warning")], messages(v)
    assert "capability-added" not in {r["rule"] for r in v["tally"]["reasons"]}


def test_state_environment_and_new_imports_are_named_with_their_lines(tmp_path: Path):
    repo = project(tmp_path, {"calc/util.py": "import attr\n\n\ndef tag(x):\n    return x\n"})
    patch(repo, {"calc/core.py": (
        "import os\n"
        "import attr\n"
        "import sortedcontainers\n\n"
        "_CALLS = []\n\n\n"
        "def add(a, b):\n"
        "    _CALLS.append((a, b))\n"
        "    if os.environ.get('CI'):\n"
        "        return a + b\n"
        "    return a + b\n")})
    proc = gate(repo, "--base", "HEAD~1", "--today", TODAY)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    text = messages(verdict(repo))
    assert "line 9 state that outlives a call: _CALLS.append()" in text, text
    assert "line 10 the environment: os.environ.get" in text, text
    # a third-party module the base's product code already imports is plain; a new one is not
    assert "(sortedcontainers): import sortedcontainers" in text, text
    assert "(attr)" not in text, text


def test_plain_changes_and_the_base_s_own_capabilities_pass(tmp_path: Path):
    base = ("import os\n\nDEBUG = os.environ.get('CALC_DEBUG')\n\n\n"
            "def add(a, b):\n    return a + b\n")
    repo = project(tmp_path, {"calc/core.py": base})
    patch(repo, {"calc/core.py": base.replace(
        "    return a + b\n",
        "    total = sum([a, b])\n    parts = {'total': total}\n    return parts['total']\n")})
    proc = gate(repo, "--base", "HEAD~1", "--today", TODAY)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert found(verdict(repo)) == []
    # Without --base every product file is judged, and the base's environment read is shown
    # as a warning.
    proc = gate(repo, "--today", TODAY)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert found(verdict(repo)) == [("calc/core.py", 3, "warning")], messages(verdict(repo))
