"""Putting a real suite under the gate: three projects' own test suites, downloaded
as pinned sdists (cached under target/adopt-sdists, so a rerun is offline), go through the
README's steps — `lane-scan --fix`, a ledger ticket written with `freeze-ledger add` for each
freeze candidate --fix lists, then `lane-gate` approves with no other edit — while the
project's own plain pytest run still passes; then a wrong library change is rejected.

iso8601 2.1.0 has hypothesis properties (and needs pytz, pinned in requirements-dev.txt); toolz
0.12.1 has 180 plain tests and a test that runs the library's doctests; sqlparse 0.5.1 has three
known-bug `xfail` tests (one of them passes today: a non-strict xpass), which `--fix
--mark-freeze` marks freeze and lists, and whose tickets the test writes from that listing.
None of the three has a snapshot (witness) test: `lane-lock lock` on snapshot files is covered
end to end with real syrupy by test_snapshots.py.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import subprocess
import tarfile
from dataclasses import dataclass
from pathlib import Path

import pytest

from conftest import BIN_DIR, PYTHON, REPO, head_ack, run_pytest, run_tool
from test_gate import TODAY, VENV_BIN, gate, gate_env, git
from test_snapshot_libraries import own_venv

CACHE = REPO / "target" / "adopt-sdists"

# The suites' own pytest runs and the gate run as a CI service runs them: with CI set. That is
# what makes hypothesis load its built-in `ci` profile (derandomized, no deadline, no example
# database, the too_slow health check off), so iso8601's properties cannot fail on a loaded
# machine: without it their 200 ms deadline and the too_slow health check (examples drawn from
# pytz's timezones) made the run depend on the machine's load. The gate pins the seed itself
# (--hypothesis-seed); the profile is the project's CI's, not the gate's choice.
AS_IN_CI = {"CI": "true"}


@dataclass(frozen=True)
class Suite:
    name: str
    version: str
    sha256: str
    fix_args: tuple[str, ...]
    # A wrong library change: (file, old text, new text), old text written once.
    wrong: tuple[str, str, str]
    merge_tests: int
    # The freeze candidates --fix lists (xfail / skip): each gets a ledger ticket.
    freeze_tests: int = 0

    @property
    def sdist(self) -> str:
        return f"{self.name}-{self.version}.tar.gz"


SUITES = [
    Suite("iso8601", "2.1.0",
          "6b1d3829ee8921c4301998c909f7829fa9ed3cbdac0d3b16af2d743aed1ba8df",
          ("--owner", "@iso8601/maintainers",
           "--shrinking", "hypothesis shrinks toward the simplest datetime"),
          ("iso8601/iso8601.py", "        hours = -hours\n", "        hours = hours\n"),
          8),
    Suite("toolz", "0.12.1",
          "ecca342664893f177a13dac0e6b41cbd8ac25a358e5f215316d43e2100224f4d",
          ("--owner", "@toolz/maintainers"),
          ("toolz/itertoolz.py", "    'A'\n    \"\"\"\n    return next(iter(seq))\n",
           "    'A'\n    \"\"\"\n    seq = iter(seq)\n    next(seq, None)\n    return next(seq)\n"),
          180),
    Suite("sqlparse", "0.5.1",
          "bb6b4df465655ef332548e24f08e205afc81b9ab86cb1c45657a7ff173a3a00e",
          ("--owner", "@sqlparse/maintainers", "--mark-freeze"),
          ("sqlparse/sql.py",
           "        self.normalized = value.upper() if self.is_keyword else value\n",
           "        self.normalized = value\n"),
          277, freeze_tests=3),
]

# The rule and place that refuse the test as a voter follow the rule id; an expected failure
# alone is a known bug, whose ticket --fix names as a known-failure ticket.
CANDIDATE = re.compile(r"^\S+:\d+: (\S+) is a freeze candidate \(fix-freeze-candidate: "
                       r"xfail-in-voting-lane [^)]+\): marked freeze; write its ticket with "
                       r"`freeze-ledger add \1 --known-failure --issue URL --owner WHO "
                       r"--expires DATE`", re.M)


def write_tickets(project: Path, fix_output: str, expected: int) -> list[str]:
    """What a human does for each known bug --fix listed: the command it printed, with the issue
    and the owner filled in (no seed, capsule or replay job to invent), which checks the scan on
    its stdin places the test in the freeze lane with its xfail."""
    ids = CANDIDATE.findall(fix_output)
    assert len(ids) == expected, fix_output
    for n, test_id in enumerate(ids):
        scan = run_tool("lane-scan", cwd=project)
        added = run_tool("freeze-ledger", "add", test_id, "--known-failure",
                         "--issue", f"https://tracker.example.invalid/issues/{n + 1}",
                         "--owner", "maintainers", "--expires", "2026-12-31",
                         "--today", TODAY, cwd=project, stdin=scan.stdout)
        assert added.code == 0, added.stderr
        assert f"added a known-failure ticket for {test_id}" in added.stderr
        assert json.loads(added.stdout)["kind"] == "known-failure"
    return ids


def pinned_sdist(name: str, version: str, sha256: str) -> Path:
    """NAME==VERSION's sdist, downloaded once with pip and checked against its digest."""
    path = CACHE / f"{name}-{version}.tar.gz"
    if not path.exists():
        CACHE.mkdir(parents=True, exist_ok=True)
        proc = subprocess.run(
            [PYTHON, "-m", "pip", "download", "--no-deps", "--no-binary", ":all:",
             "--dest", str(CACHE), f"{name}=={version}"],
            capture_output=True, text=True, timeout=300)
        if proc.returncode != 0:
            pytest.fail(f"cannot download {path.name} (needed once, then cached under "
                        f"target/adopt-sdists):\n{proc.stderr}")
    digest = hashlib.sha256(path.read_bytes()).hexdigest()
    assert digest == sha256, f"{path}: sha256 {digest}, pinned {sha256}"
    return path


def sdist(suite: Suite) -> Path:
    return pinned_sdist(suite.name, suite.version, suite.sha256)


def unpacked(suite: Suite, tmp_path: Path) -> Path:
    with tarfile.open(sdist(suite)) as tar:
        tar.extractall(tmp_path, filter="data")
    root = tmp_path / f"{suite.name}-{suite.version}"
    assert root.is_dir()
    return root


def tree_bytes(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes()
            for p in sorted(root.rglob("*")) if p.is_file() and "out" not in p.parts}


@pytest.mark.parametrize("suite", SUITES, ids=[s.name for s in SUITES])
def test_a_real_suite_goes_under_the_gate_with_lane_scan_fix(suite: Suite, tmp_path: Path):
    project = unpacked(suite, tmp_path)
    before = tree_bytes(project)

    # Unadopted, the scan rejects: every test is unmarked.
    first = run_tool("lane-scan", cwd=project)
    assert first.code == 1
    assert first.json()["scan"]["counts"]["unmarked"] == suite.merge_tests + suite.freeze_tests

    # --diff shows the edits and writes nothing.
    shown = run_tool("lane-scan", "--diff", *suite.fix_args, cwd=project)
    assert shown.code == 0, shown.stderr
    assert shown.stdout.startswith("--- ")
    assert tree_bytes(project) == before

    fixed = run_tool("lane-scan", "--fix", *suite.fix_args, cwd=project)
    assert fixed.code == 0, fixed.stderr
    # Freeze candidates are listed for a human; with --mark-freeze they are marked freeze too,
    # and so counted among the tests given a lane (said apart: they have no ticket yet).
    marked = (f" ({suite.freeze_tests} of them freeze, without a ticket)"
              if suite.freeze_tests else "")
    assert (f"{suite.merge_tests + suite.freeze_tests} tests given a lane{marked}, "
            f"{suite.freeze_tests} freeze candidates listed\n") in fixed.stdout
    # Only lines were inserted: every line of every file is still there, in order. The one
    # other edit --fix makes is opening a one-line docstring to add its owner line under the
    # summary: `"""Summary."""` becomes `"""Summary.`, a blank line, the owner line, `"""`.
    after = tree_bytes(project)
    for name, old in before.items():
        new_text = after[name].decode("utf-8", "surrogateescape")
        new_lines = iter(new_text.splitlines())
        for line in old.decode("utf-8", "surrogateescape").splitlines():
            body = line.strip()
            opened = (body.startswith('"""') and body.endswith('"""') and len(body) > 6
                      and line not in new_text.splitlines())
            if opened:
                line = line[:line.rindex('"""')]
                assert f"{line}\n\nowner: {suite.fix_args[1]}\n" in new_text, (name, line)
            assert line in new_lines, (name, line)

    # Idempotent.
    again = run_tool("lane-scan", "--fix", *suite.fix_args, cwd=project)
    assert again.code == 0 and "0 files changed, 0 tests given a lane" in again.stdout
    assert tree_bytes(project) == after

    scan = run_tool("lane-scan", cwd=project)
    assert scan.code == 0, scan.stdout
    assert scan.json()["scan"]["counts"] == {
        "merge": suite.merge_tests, "witness": 0, "freeze": suite.freeze_tests, "unmarked": 0}

    # Freeze tests without tickets: the ledger check refuses them until a human writes them.
    if suite.freeze_tests:
        unticketed = run_tool("freeze-ledger", "check", "--today", TODAY, cwd=project,
                              stdin=scan.stdout)
        assert unticketed.code == 1
        assert unticketed.stdout.count('"rule": "missing-ticket"') == suite.freeze_tests
    frozen = write_tickets(project, fixed.stdout, suite.freeze_tests)
    if frozen:
        ledger = json.loads((project / "freeze_ledger.json").read_text())
        assert sorted(t["test_id"] for t in ledger) == sorted(frozen)

    # The project's own plain pytest run still passes with the new marks and markers.
    plain = run_pytest("--strict-markers", "-q", cwd=project, env=AS_IN_CI)
    assert plain.returncode == 0, plain.stdout[-3000:]

    approved = gate(project, "--today", TODAY, **AS_IN_CI)
    assert approved.returncode == 0, approved.stdout[-4000:] + approved.stderr[-2000:]
    assert "**approve**" in approved.stdout
    if suite.freeze_tests:
        # The known failures ran in the freeze lane, which does not vote.
        freeze_row = next(line for line in approved.stdout.splitlines()
                          if line.startswith("| freeze |"))
        assert f"| {suite.freeze_tests} | {suite.freeze_tests} |" in freeze_row

    # A wrong library change: rejected, by the merge lane.
    file, old, new = suite.wrong
    source = project / file
    text = source.read_text()
    assert text.count(old) == 1, f"{file}: the wrong change's anchor moved"
    source.write_text(text.replace(old, new))
    shutil.rmtree(project / "out")
    rejected = gate(project, "--today", TODAY, **AS_IN_CI)
    assert rejected.returncode == 1, rejected.stdout[-4000:]
    assert "**reject**" in rejected.stdout
    assert "merge-failed" in rejected.stdout


# ---- The README's "Put your project under the gate" section, replayed ----

SECTION_START = "## Put your project under the gate"
SECTION_END = "\n## "


def readme_console_blocks() -> list[tuple[str, list[str]]]:
    """(command, printed lines) of each ```console block of the README's adoption section, in
    order. A `...` line in the printed lines stands for lines left out."""
    readme = (REPO / "README.md").read_text()
    start = readme.index(SECTION_START)
    section = readme[start:readme.index(SECTION_END, start + len(SECTION_START))]
    blocks = []
    for block in re.findall(r"```console\n(.*?)```", section, re.S):
        lines = [line[3:] if line.startswith("   ") else line for line in block.splitlines()]
        while lines and not lines[-1].strip():
            lines.pop()  # the indentation before the closing fence
        assert lines and lines[0].startswith("$ "), block
        blocks.append((lines[0][2:], lines[1:]))
    return blocks


def shown(command: str, cwd: Path) -> list[str]:
    """What the README's command prints (stdout and stderr, as a terminal shows them), with the
    tools of this build and the venv's python on PATH, run as in CI (AS_IN_CI)."""
    proc = subprocess.run(["bash", "-o", "pipefail", "-c", f"{command} 2>&1 || true"], cwd=cwd,
                          capture_output=True, text=True, timeout=900,
                          env=gate_env(**AS_IN_CI, PATH=os.pathsep.join([str(BIN_DIR), VENV_BIN,
                                                             os.environ["PATH"]])))
    return proc.stdout.splitlines()


def matches(printed: list[str], readme: list[str]) -> bool:
    """The README's lines are the printed ones; a `...` line stands for any lines (none
    included) and a block that ends with one shows the first lines only."""
    pattern = "\n".join(".*?" if line == "..." else re.escape(line) for line in readme)
    pattern = pattern.replace(".*?\n", r"(?:.*\n)*?").replace("\n.*?", r"(?:\n.*)*?")
    return re.fullmatch(pattern, "\n".join(printed)) is not None


def test_the_readme_adoption_steps_print_what_the_tools_print(tmp_path: Path):
    blocks = readme_console_blocks()
    commands = [c for c, _ in blocks]
    assert [c.split()[0] for c in commands] == [
        "lane-scan", "lane-scan", "lane-scan", "lane-scan", "lane-gate"], commands
    iso8601 = unpacked(SUITES[0], tmp_path / "iso8601")
    sqlparse = unpacked(SUITES[2], tmp_path / "sqlparse")
    # Steps 2, 3, 4 and 5 on iso8601; the freeze-candidate example of step 3 on sqlparse.
    where = [iso8601, iso8601, sqlparse, iso8601, iso8601]
    for (command, readme), cwd in zip(blocks, where):
        printed = shown(command, cwd)
        assert matches(printed, readme), (
            f"README: `{command}` prints\n" + "\n".join(printed[:60]))


# ---- Projects adopted from git, then gated patch by patch ----

@dataclass(frozen=True)
class GitSuite:
    """A project adopted in git from its pinned sdist, in a test venv of its own as its CI
    builds one (`requirements`: a file beside this one for a cached venv, None: the dev venv's
    packages), with the project installed from the commit under test, as CI installs it."""
    name: str
    version: str
    sha256: str
    requirements: str | None
    # What --fix must print (a line of each), the tests given a lane, the known bugs.
    fix_says: tuple[str, ...]
    given: int
    known_bugs: int
    # The merge lane's tests in the approve, and the merge test --fix left for a human (a test
    # that asserts nothing: no-assertion, a warning).
    merge_tests: int
    asserts_nothing: str
    # A patch that adds a test (module, import line, test body), and a wrong library change
    # (file, old text written once, new text) with the test that fails on it.
    new_test: tuple[str, str, str]
    wrong: tuple[str, str, str]
    fails: str


GIT_SUITES = [
    # ftfy 6.3.1: 23 tests and 22 doctest items (--doctest-modules in its pytest.ini), one strict
    # xfail (a parametrized test of the inputs its heuristic is known to get wrong), and
    # command-line tests that run the installed `ftfy` script.
    GitSuite(
        "ftfy", "6.3.1", "9b3c3d90f84fb267fe64d375a07b7f8912d817cf86009ae134aa03e1819506ec",
        None,
        ("pytest.ini: lanes_doctest_lane = merge for 22 doctest items (fix-merge: 22; ",
         "ftfy/fixes.py: written into its docstring: owner: @ftfy/maintainers for 9 merge "
         "tests without an owner (fix-owner)"),
        45, 1, 44, "tests/test_encodings.py::test_russian_crash",
        ("tests/test_quotes.py", "from ftfy import fix_text",
         "assert fix_text(\"\\u201cquoted\\u201d\") == '\"quoted\"'"),
        ("ftfy/fixes.py", '        .replace("\\r", "\\n")\n', '        .replace("\\r", " ")\n'),
        "ftfy/fixes.py::ftfy.fixes.fix_line_breaks"),
    # prettytable 3.11.0: src layout (its tests import the installed package), the
    # pytest-lazy-fixtures plugin, and 23 tests whose assertions sit in helper methods called on
    # self (`self._test_no_blank_lines(table)`): no-assertion follows them.
    GitSuite(
        "prettytable", "3.11.0",
        "7e23ca1e68bbfd06ba8de98bf553bf3493264c96d5e8a615c0471025deeba722",
        "requirements-prettytable.txt",
        ("pytest.ini: registers the markers merge, witness, freeze (fix-markers)",),
        148, 0, 148, "tests/test_prettytable.py::TestNoneOption::test_none_char_valid_option",
        ("tests/test_widths.py", "from prettytable import PrettyTable",
         "assert PrettyTable([\"ab\", \"c\"]).get_string().splitlines()[1] == "
         "\"| ab | c |\""),
        ("src/prettytable/prettytable.py", '            return excess * " " + text\n',
         '            return text + excess * " "\n'),
        "tests/test_prettytable.py::TestStyle::test_style_align"),
]


def project_venv(root: Path, base_python: str) -> tuple[str, str]:
    """A venv that sees `base_python`'s packages (through a .pth file: pytest, the project's
    requirements) and has pytest-lanes-gate installed, as README step 1 says: (its python, its
    bin folder). The project itself is installed by `install`."""
    env_dir = root / "venv"
    subprocess.run([base_python, "-m", "venv", "--without-pip", str(env_dir)], check=True,
                   timeout=300)
    python = str(env_dir / "bin" / "python")
    purelib = "import sysconfig; print(sysconfig.get_paths()['purelib'])"
    site, base_site = (subprocess.run([p, "-c", purelib], check=True, capture_output=True,
                                      text=True).stdout.strip() for p in (python, base_python))
    Path(site, "base-venv.pth").write_text(base_site + "\n")
    install(python, REPO / "python" / "pytest-lanes-gate")
    return python, str(env_dir / "bin")


def install(python: str, source: Path) -> None:
    """`pip install SOURCE` with the build backend the environment has (no index)."""
    installed = subprocess.run(
        [python, "-m", "pip", "install", "--quiet", "--disable-pip-version-check",
         "--no-deps", "--no-build-isolation", "--no-index", str(source)],
        capture_output=True, text=True, timeout=600)
    assert installed.returncode == 0, installed.stderr
    shutil.rmtree(source / "build", ignore_errors=True)


def porcelain(project: Path) -> str:
    return git(project, "status", "--porcelain", "--untracked-files=all")


@pytest.mark.parametrize("suite", GIT_SUITES, ids=[s.name for s in GIT_SUITES])
def test_a_project_is_adopted_in_git_and_gated_patch_by_patch(suite: GitSuite, tmp_path: Path):
    """From the sdist to a clean tree under the gate with no hand edit: --fix, the known bugs'
    tickets, an approve; then a patch that adds a test is rejected with the acknowledgment as
    its next step and approved with it; a wrong library line is rejected by the base's tests.
    `git status` is empty after every gate run."""
    with tarfile.open(pinned_sdist(suite.name, suite.version, suite.sha256)) as tar:
        tar.extractall(tmp_path, filter="data")
    project = tmp_path / f"{suite.name}-{suite.version}"
    base = own_venv(suite.requirements) if suite.requirements else PYTHON
    python, bin_dir = project_venv(tmp_path, base)
    # The venv activated, as the project's CI does: its scripts first on PATH.
    in_ci = {**AS_IN_CI, "PATH": os.pathsep.join([bin_dir, VENV_BIN, os.environ["PATH"]])}
    git(project, "init", "-q")
    git(project, "add", "-A")
    git(project, "commit", "-q", "-m", "the sdist")

    owner = f"@{suite.name}/maintainers"
    fixed = run_tool("lane-scan", "--fix", "--owner", owner, "--mark-freeze", cwd=project)
    assert fixed.code == 0, fixed.stderr
    for line in suite.fix_says:
        assert line in fixed.stdout, fixed.stdout
    frozen = f" ({suite.known_bugs} of them freeze, without a ticket)" if suite.known_bugs else ""
    assert f"{suite.given} tests given a lane{frozen}, " in fixed.stdout, fixed.stdout
    assert "1 problem left for a human" in fixed.stdout, fixed.stdout
    write_tickets(project, fixed.stdout, suite.known_bugs)
    # After --fix and the tickets the scan has no error: what is left is the one warning --fix
    # listed for a human.
    scan = run_tool("lane-scan", cwd=project)
    assert scan.code == 0, scan.stdout
    problems = scan.json()["scan"]["problems"]
    assert [(p["rule"], p["test"]) for p in problems] == [
        ("no-assertion", suite.asserts_nothing)], problems
    assert f"left for a human (no-assertion): merge test {suite.asserts_nothing} " \
        in fixed.stdout
    git(project, "add", "-A")
    git(project, "commit", "-q", "-m", "put the suite under the gate")
    install(python, project)
    plain = run_pytest("--strict-markers", "-q", cwd=project, env=in_ci, python=python)
    assert plain.returncode == 0, plain.stdout[-3000:]
    assert porcelain(project) == ""

    approved = gate(project, "--today", TODAY, "--python", python, **in_ci)
    assert approved.returncode == 0, approved.stdout[-4000:] + approved.stderr[-2000:]
    assert "**approve**" in approved.stdout
    merge_row = next(line for line in approved.stdout.splitlines()
                     if line.startswith("| merge |"))
    assert f"| {suite.merge_tests} |" in merge_row, merge_row
    assert porcelain(project) == "", "the gate left the tree dirty"

    # A patch that adds a test: the base's tests vote, the new test is test surface (the next
    # step names the acknowledgment), and an acknowledgment lets it vote.
    module, imports, body = suite.new_test
    (project / module).write_text(
        f'"""owner: {owner}"""\n\nimport pytest\n\n{imports}\n\n'
        f"pytestmark = pytest.mark.merge\n\n\ndef test_added():\n    {body}\n")
    git(project, "add", "-A")
    git(project, "commit", "-q", "-m", "a test")
    install(python, project)
    rejected = gate(project, "--base", "HEAD~1", "--today", TODAY, "--python", python, **in_ci)
    assert rejected.returncode == 1, rejected.stdout[-4000:] + rejected.stderr[-2000:]
    assert f"`{module}`" in rejected.stdout or module in rejected.stdout
    next_steps = rejected.stdout[rejected.stdout.index("What to do next:"):]
    assert "- `test-surface-changed`:" in next_steps and "`--ack TEXT`" in next_steps, \
        rejected.stdout[-3000:]
    assert porcelain(project) == ""
    ack = head_ack(project, "approving review by a maintainer")
    acked = gate(project, "--base", "HEAD~1", "--today", TODAY, "--python", python,
                 "--ack", ack, **in_ci)
    assert acked.returncode == 0, acked.stdout[-4000:] + acked.stderr[-2000:]
    assert "**approve**" in acked.stdout
    assert porcelain(project) == ""

    # A wrong library change, its tests left alone (the added test taken out again: against
    # the adopted commit the patch changes one product line): the base's tests reject it.
    file, old, new = suite.wrong
    text = (project / file).read_text()
    assert text.count(old) == 1, f"{file}: the wrong change's anchor moved"
    git(project, "rm", "-q", module)
    (project / file).write_text(text.replace(old, new))
    git(project, "commit", "-q", "-am", "a wrong change")
    install(python, project)
    wrong = gate(project, "--base", "HEAD~2", "--today", TODAY, "--python", python, **in_ci)
    assert wrong.returncode == 1, wrong.stdout[-4000:]
    reasons = {r["rule"] for r in
               json.loads((project / "out" / "lanes" / "verdict.json").read_text())
               ["tally"]["reasons"]}
    assert "merge-failed" in reasons and "test-surface-changed" not in reasons, reasons
    assert suite.fails in wrong.stdout, wrong.stdout[-3000:]
    assert porcelain(project) == ""
