"""unexercised-change and tracer-tampered (DESIGN §9.6), through the real gate with real git,
real pytest and coverage.py's tracer: a product statement or branch the patch changed that no
voting test executed is named at its line and rejects until a maintainer acknowledges it;
honest code (a TYPE_CHECKING import, an @overload, a __main__ block, a multi-line statement)
is exercised or exempt; a project whose addopts hold --cov votes without tracer-tampered; and
product code that switches the tracer off does not vote."""

from __future__ import annotations

import json
from pathlib import Path


from conftest import head_ack
from test_gate import TODAY, gate, git
from test_snapshot_libraries import own_venv

INI = "[pytest]\nmarkers =\n    merge: votes\n    witness: bytes\n    freeze: flake\n"
BASE = "def add(a, b):\n    return a + b\n"
TEST = ("import pytest\n\nfrom calc.core import add\n\n\n@pytest.mark.merge\ndef test_add():\n"
        "    \"\"\"owner: qa\"\"\"\n    assert add(2, 3) == 5\n    assert add(-1, 1) == 0\n")
ACK = "approving review by @maintainer"


def project(root: Path, files: dict[str, str] | None = None) -> Path:
    repo = root / "calc-project"
    all_files = {"pytest.ini": INI, "calc/__init__.py": "", "calc/core.py": BASE,
                 "tests/test_calc.py": TEST, **(files or {})}
    for rel, text in all_files.items():
        (repo / rel).parent.mkdir(parents=True, exist_ok=True)
        (repo / rel).write_text(text)
    git(repo, "init", "-q")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "base")
    return repo


def patch(repo: Path, files: dict[str, str]) -> None:
    for rel, text in files.items():
        (repo / rel).parent.mkdir(parents=True, exist_ok=True)
        (repo / rel).write_text(text)
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "agent: change")


def verdict(repo: Path) -> dict:
    return json.loads((repo / "out" / "lanes" / "verdict.json").read_text())


def problems(v: dict, rule: str) -> list[dict]:
    return [p for p in v["gate"]["problems"] if p["rule"] == rule]


def test_a_changed_line_no_voter_runs_is_named_and_rejects_until_acknowledged(tmp_path: Path):
    repo = project(tmp_path)
    # The rare region: a bug only above 100, which the merge test never reaches; and a changed
    # branch whose other half no voter takes. (The halves of a conditional written on one line
    # are one line to a line tracer: the mutants of the changed lines judge those.)
    patch(repo, {"calc/core.py": (
        "def add(a, b):\n"
        "    if a > 100:\n"
        "        return a + b + 1\n"
        "    total = a + b\n"
        "    if total < -1000:\n"
        "        total = -1000\n"
        "    return total\n")})
    proc = gate(repo, "--base", "HEAD~1", "--today", TODAY)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    v = verdict(repo)
    assert {r["rule"] for r in v["tally"]["reasons"]} == {"unexercised-change"}
    found = sorted((p["file"], p["line"], p["message"]) for p in problems(v, "unexercised-change"))
    assert found == [
        ("calc/core.py", 2, "calc/core.py:2: `if a > 100:` changed and no voting test took its "
                            "branch to line 3"),
        ("calc/core.py", 3, "calc/core.py:3: `return a + b + 1` changed and no voting test ran "
                            "it"),
        ("calc/core.py", 5, "calc/core.py:5: `if total < -1000:` changed and no voting test "
                            "took its branch to line 6"),
        ("calc/core.py", 6, "calc/core.py:6: `total = -1000` changed and no voting test ran it"),
    ], found
    # the markdown verdict lists them for the reviewer
    md = (repo / "out" / "lanes" / "verdict.md").read_text()
    assert "return a + b + 1" in md
    # a maintainer who read the lines acknowledges them: the tests pass, the patch lands
    proc = gate(repo, "--base", "HEAD~1", "--today", TODAY, "--ack", head_ack(repo, ACK))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    v = verdict(repo)
    assert v["tally"]["decision"] == "approve"
    acked = problems(v, "unexercised-change")
    assert len(acked) == 4 and all(p["severity"] == "warning" for p in acked), acked


def test_the_bug_alone_fails_the_vote_and_the_exercised_change_is_not_flagged(tmp_path: Path):
    repo = project(tmp_path)
    patch(repo, {"calc/core.py": "def add(a, b):\n    return a + b + (a < 0)\n"})
    proc = gate(repo, "--base", "HEAD~1", "--today", TODAY)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    v = verdict(repo)
    assert {r["rule"] for r in v["tally"]["reasons"]} == {"merge-failed"}
    assert problems(v, "unexercised-change") == []


HONEST = '''\
from __future__ import annotations

import abc
from typing import TYPE_CHECKING, Protocol, overload

if TYPE_CHECKING:
    from decimal import Decimal


class Adder(Protocol):
    def __call__(self, a: int, b: int) -> int:
        ...


class Base(abc.ABC):
    @abc.abstractmethod
    def total(self) -> int:
        """The sum."""
        raise NotImplementedError


@overload
def add(a: int, b: int) -> int: ...
@overload
def add(a: Decimal, b: Decimal) -> Decimal: ...


def add(a, b):
    """Adds two numbers.

    Docstrings are not executable for the rule.
    """
    # a comment is not either
    total = (
        a
        + b
    )
    return total


if __name__ == "__main__":
    print(add(1, 2))
'''


def test_honest_code_is_exercised_or_exempt(tmp_path: Path):
    repo = project(tmp_path)
    patch(repo, {"calc/core.py": HONEST})
    proc = gate(repo, "--base", "HEAD~1", "--today", TODAY)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    v = verdict(repo)
    assert v["tally"]["decision"] == "approve"
    assert problems(v, "unexercised-change") == []


def test_bodies_that_only_look_exempt_are_code_like_any_other(tmp_path: Path):
    # A decorator of the module's own named overload, a TYPE_CHECKING of its own, a check of
    # typing's TYPE_CHECKING inside a function (asked on every call), an abstract method whose
    # body computes (super() reaches it): each hides a bug from voters that never go there.
    repo = project(tmp_path)
    patch(repo, {"calc/core.py": (
        "import abc\nimport typing\n\nTYPE_CHECKING = True\n\n\n"
        "def overload(f):\n    return f\n\n\n"
        "@overload\ndef big(a, b):\n    return a - b\n\n\n"
        "if TYPE_CHECKING:\n    LIMIT = 100\nelse:\n    LIMIT = 50\n\n\n"
        "class Base(abc.ABC):\n    @abc.abstractmethod\n    def scale(self, x):\n"
        "        return x * 2\n\n\n"
        "class Real(Base):\n    def scale(self, x):\n        return super().scale(x)\n\n\n"
        "def add(a, b):\n"
        "    if typing.TYPE_CHECKING:\n        return Real().scale(a)\n"
        "    return big(a, b) if a > LIMIT else a + b\n")})
    proc = gate(repo, "--base", "HEAD~1", "--today", TODAY)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    v = verdict(repo)
    messages = [p["message"] for p in problems(v, "unexercised-change")]
    for hidden in ("return a - b", "return x * 2", "return Real().scale(a)", "LIMIT = 50"):
        assert [m for m in messages if hidden in m], (hidden, messages)


def test_a_new_product_file_is_judged_whole_and_module_level_code_counts_at_import(
        tmp_path: Path):
    repo = project(tmp_path)
    patch(repo, {
        "calc/extra.py": "LIMIT = 10\n\n\ndef clamp(x):\n    return min(x, LIMIT)\n\n\n"
                         "def unused(x):\n    return -x\n",
        "calc/core.py": "from calc.extra import clamp\n\n\n"
                        "def add(a, b):\n    return clamp(a + b)\n"})
    proc = gate(repo, "--base", "HEAD~1", "--today", TODAY)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    v = verdict(repo)
    found = [(p["file"], p["line"]) for p in problems(v, "unexercised-change")]
    assert found == [("calc/extra.py", 9)], problems(v, "unexercised-change")


def test_product_code_that_switches_the_tracer_off_does_not_vote(tmp_path: Path):
    repo = project(tmp_path)
    patch(repo, {"calc/core.py": "import sys\n\nsys.settrace(None)\n\n\n"
                                 "def add(a, b):\n    return a + b\n"})
    for extra in ([], ["--ack", head_ack(repo, ACK)]):
        proc = gate(repo, "--base", "HEAD~1", "--today", TODAY, *extra)
        assert proc.returncode == 1, proc.stdout + proc.stderr
        v = verdict(repo)
        assert "tracer-tampered" in {r["rule"] for r in v["tally"]["reasons"]}, extra
        (message,) = [p["message"] for p in problems(v, "tracer-tampered")]
        assert "switched off or replaced" in message, message


def test_a_project_whose_addopts_hold_cov_votes_without_tracer_tampered(tmp_path: Path):
    repo = project(tmp_path, {
        "pytest.ini": INI + "addopts = --cov=calc --cov-report=term-missing --cov-branch\n",
        "requirements-dev.txt": "pytest\npytest-cov\n"})
    patch(repo, {"calc/core.py": "def add(a, b):\n    return b + a\n"})
    python = own_venv("requirements-pytest-cov.txt")
    proc = gate(repo, "--base", "HEAD~1", "--today", TODAY, "--python", python)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    v = verdict(repo)
    assert "pytest-cov" in [p["distribution"] for p in v["gate"]["plugins"]["loaded"]]
    assert problems(v, "tracer-tampered") == [] and problems(v, "unexercised-change") == []
    # --cov given to the gate itself is refused: a voting run has one tracer
    proc = gate(repo, "--base", "HEAD~1", "--today", TODAY, "--python", python, "--",
                "--cov=calc")
    assert proc.returncode == 2
    assert "no other tracer" in proc.stderr, proc.stderr


def test_across_shards_a_line_is_unexercised_only_when_no_shard_ran_it(tmp_path: Path):
    # Two merge tests, each reaching one half of the change; the shards split them (a shard that
    # did not run a line must not reject what the other ran).
    tests = ("import pytest\n\nfrom calc.core import add\n\n\n"
             + "".join(f"@pytest.mark.merge\ndef test_{i}():\n    \"\"\"owner: qa\"\"\"\n"
                       f"    assert add({a}, 1) == {a + 1}\n\n\n"
                       for i, a in enumerate([-5, 5, 7, 9]))).rstrip() + "\n"
    repo = project(tmp_path, {"tests/test_calc.py": tests})
    patch(repo, {"calc/core.py": ("def add(a, b):\n    if a < 0:\n        return b + a\n"
                                  "    if a > 100:\n        return 0\n    return a + b\n")})
    dirs = []
    for k in (1, 2):
        out = f"s{k}"
        proc = gate(repo, "--base", "HEAD~1", "--today", TODAY, "--shard", f"{k}/2", "--out", out)
        assert proc.returncode == 0, proc.stdout + proc.stderr
        dirs.append(out)
    # one shard alone did not run the negative half
    alone = [{p["line"] for p in json.loads((repo / d / "evidence.json").read_text())["gate"]
              ["problems"] if p["rule"] == "unexercised-change"} for d in dirs]
    assert any(3 in lines for lines in alone) and all(5 in lines for lines in alone), alone
    proc = gate(repo, "--collect", *dirs, "--out", "vote", "--format", "json")
    assert proc.returncode == 1, proc.stdout + proc.stderr
    v = json.loads((repo / "vote" / "verdict.json").read_text())
    found = [(p["line"], p["message"].split(": ", 1)[1]) for p in problems(v, "unexercised-change")]
    assert found == [(4, "`if a > 100:` changed and no voting test took its branch to line 5"),
                     (5, "`return 0` changed and no voting test ran it")], found


def test_an_interpreter_without_coverage_is_exit_2_naming_the_fix(tmp_path: Path):
    import subprocess
    import sys
    repo = project(tmp_path)
    patch(repo, {"calc/core.py": "def add(a, b):\n    return b + a\n"})
    bare = tmp_path / "bare"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(bare)], check=True)
    python = str(bare / "bin" / "python")
    # Without pytest at all, that is what the gate names first.
    proc = gate(repo, "--base", "HEAD~1", "--today", TODAY, "--python", python)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert "cannot import pytest (ModuleNotFoundError: No module named 'pytest')" in \
        proc.stderr, proc.stderr
    assert proc.stdout == "" and len(proc.stderr.splitlines()) == 1, proc.stderr
    # pytest (and only pytest and what it needs) on the path through a .pth file: now the
    # missing coverage.py is the cause.
    only = tmp_path / "only-pytest"
    only.mkdir()
    site = Path(__import__("pytest").__file__).parent.parent
    for name in ("pytest", "_pytest", "pluggy", "iniconfig", "packaging", "pygments",
                 "exceptiongroup", "tomli", "py.py"):
        if (site / name).exists():
            (only / name).symlink_to(site / name)
    (site_of(python) / "only-pytest.pth").write_text(str(only) + "\n")
    proc = gate(repo, "--base", "HEAD~1", "--today", TODAY, "--python", python)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert "has no coverage.py" in proc.stderr and "install coverage" in proc.stderr, proc.stderr
    assert proc.stdout == ""


def site_of(python: str) -> Path:
    import subprocess
    out = subprocess.run([python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                         capture_output=True, text=True, check=True)
    return Path(out.stdout.strip())


def test_the_tracer_stops_once_voters_ran_every_changed_line_and_stays_watched(tmp_path: Path):
    # The voters run every changed line in the first test; the second outlasts the tracer's
    # look (at most every quarter second), so by the third no tracer is installed (the base's
    # own test says so: it fails if one is). A tracer the product sets after that is still
    # tracer-tampered: once off, none at all is expected.
    tests = ("import sys\nimport time\n\nimport pytest\n\nfrom calc.core import add\n\n\n"
             "@pytest.mark.merge\ndef test_add():\n    \"\"\"owner: qa\"\"\"\n"
             "    assert add(2, 3) == 5\n\n\n"
             "@pytest.mark.merge\ndef test_slow():\n    \"\"\"owner: qa\"\"\"\n"
             "    time.sleep(0.4)\n    assert add(1, 1) == 2\n\n\n"
             "@pytest.mark.merge\ndef test_late():\n    \"\"\"owner: qa\"\"\"\n"
             "    assert sys.gettrace() is None\n    assert add(0, 0) == 0\n")
    repo = project(tmp_path, {"tests/test_calc.py": tests})
    honest = ("import sys\n\n_CALLS = []\n\n\ndef add(a, b):\n    _CALLS.append(a)\n"
              "    return b + a\n")
    patch(repo, {"calc/core.py": honest})
    # (a call counter is state that outlives a call: a maintainer read it and acknowledged)
    proc = gate(repo, "--base", "HEAD~1", "--today", TODAY, "--ack", head_ack(repo, ACK))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    # The same lines, all run in the first test; the third call sets a tracer of its own (a
    # one-line conditional: no branch left for the tracer to wait for).
    patch(repo, {"calc/core.py": honest.replace(
        "    return b + a\n",
        "    (sys.settrace if len(_CALLS) > 2 else id)(lambda *args: None)\n"
        "    return b + a\n")})
    for extra in ([], ["--ack", head_ack(repo, ACK)]):
        proc = gate(repo, "--base", "HEAD~1", "--today", TODAY, *extra)
        assert proc.returncode == 1, proc.stdout + proc.stderr
        v = verdict(repo)
        # (unacknowledged, the counter and the tracer call are also capability-added, and the
        # tracer call is unpinned: no voter fails without it)
        expected = {"tracer-tampered"} | (set() if extra else {"capability-added",
                                                               "unpinned-change"})
        assert {r["rule"] for r in v["tally"]["reasons"]} == expected, v["tally"]["reasons"]
