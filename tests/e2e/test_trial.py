"""Product code on trial (DESIGN §9.6), through the real gate with real git, real pytest and a
real virtual environment: the product modules the voters ran must be the vote tree's bytes.

A src-layout project whose tests import the package from site-packages (installed without -e, as
many projects' CI does) ran the old installed copy, not the patch: that is
`foreign-product-code`, on the default and the acknowledged path alike. A copy installed from
the same tree is the tree's code and votes as it would from the tree."""

from __future__ import annotations

import json
import shutil
import subprocess
import sysconfig
from pathlib import Path

from conftest import PYTHON, head_ack
from test_gate import TODAY, gate, git

INI = "[pytest]\nmarkers =\n    merge: votes\n    witness: bytes\n    freeze: flake\n"
RIGHT = "def add(a, b):\n    return a + b\n"
WRONG = "def add(a, b):\n    return a + b + (1 if a > 100 else 0)\n"
INIT = ("try:\n    from ._version import version\nexcept ImportError:\n    version = '0'\n\n"
        "from .core import add\n")
TEST = ("import pytest\n\nfrom calc import add\n\n\n@pytest.mark.merge\ndef test_add():\n"
        "    \"\"\"owner: qa\"\"\"\n    assert add(2, 3) == 5\n    assert add(200, 1) == 201\n")


def project(root: Path) -> Path:
    """The src-layout project at its base commit (add is right)."""
    repo = root / "calc-project"
    for rel, text in {"pytest.ini": INI, "src/calc/__init__.py": INIT,
                      "src/calc/core.py": RIGHT, "tests/test_calc.py": TEST}.items():
        (repo / rel).parent.mkdir(parents=True, exist_ok=True)
        (repo / rel).write_text(text)
    git(repo, "init", "-q")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "base")
    return repo


def commit(repo: Path, core: str, message: str) -> None:
    (repo / "src" / "calc" / "core.py").write_text(core)
    git(repo, "commit", "-q", "-am", message)


def venv(root: Path) -> tuple[Path, Path]:
    """A virtual environment that sees the test interpreter's packages (pytest and the lanes
    plugin) through a .pth file: (its python, its site-packages)."""
    env = root / "venv"
    subprocess.run([PYTHON, "-m", "venv", "--without-pip", str(env)], check=True)
    python = env / "bin" / "python"
    site = Path(subprocess.run([str(python), "-c",
                                "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                               check=True, capture_output=True, text=True).stdout.strip())
    (site / "lanes-e2e.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    return python, site


def install(site: Path, source: Path) -> None:
    """What `pip install .` leaves of the package: a copy of its files, and a generated
    `_version.py` the tree does not have."""
    target = site / "calc"
    shutil.rmtree(target, ignore_errors=True)
    shutil.copytree(source / "src" / "calc", target)
    (target / "_version.py").write_text("version = '1.0'\n")


def verdict(repo: Path) -> dict:
    return json.loads((repo / "out" / "lanes" / "verdict.json").read_text())


def rules(v: dict) -> set[str]:
    return {r["rule"] for r in v["tally"]["reasons"]}


def test_an_installed_copy_of_the_old_code_is_foreign_product_code(tmp_path: Path):
    repo = project(tmp_path)
    python, site = venv(tmp_path)
    install(site, repo)  # installed at the base, as the project's CI environment was built
    commit(repo, WRONG, "agent: add")
    for extra in ([], ["--ack", head_ack(repo, "approving review by @maintainer")]):
        proc = gate(repo, "--base", "HEAD~1", "--today", TODAY, "--python", str(python), *extra)
        assert proc.returncode == 1, proc.stdout + proc.stderr
        v = verdict(repo)
        assert "foreign-product-code" in rules(v), (extra, rules(v))
        # the vote ran the installed copy, which passes: nothing else would have rejected it
        assert "merge-failed" not in rules(v), rules(v)
        messages = [p["message"] for p in v["gate"]["problems"]
                    if p["rule"] == "foreign-product-code"]
        assert len(messages) == 1, messages
        assert "'calc.core'" in messages[0] and str(site / "calc" / "core.py") in messages[0]
        assert "src/calc/core.py" in messages[0], messages[0]
        # the generated _version.py is not the tree's code; __init__.py has the tree's bytes
        assert "_version" not in messages[0] and "'calc'" not in messages[0]


def test_a_copy_installed_from_the_same_tree_votes_as_the_tree(tmp_path: Path):
    repo = project(tmp_path)
    python, site = venv(tmp_path)
    commit(repo, WRONG, "agent: add")
    install(site, repo)  # installed from the patch's own tree
    proc = gate(repo, "--base", "HEAD~1", "--today", TODAY, "--python", str(python))
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "merge-failed" in rules(verdict(repo))
    assert "foreign-product-code" not in rules(verdict(repo))
    # a right patch, installed the same way, is approved
    commit(repo, RIGHT.replace("a + b", "b + a"), "agent: add, commuted")
    install(site, repo)
    proc = gate(repo, "--base", "HEAD~2", "--today", TODAY, "--python", str(python))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert verdict(repo)["tally"]["decision"] == "approve"


def test_an_editable_install_of_another_checkout_is_foreign_product_code(tmp_path: Path):
    # setuptools' editable installs put a finder on sys.meta_path at start-up that maps the
    # package to a checkout; here it maps to a copy of the base.
    repo = project(tmp_path)
    other = tmp_path / "other-checkout"
    shutil.copytree(repo / "src", other)
    python, site = venv(tmp_path)
    (site / "__editable___calc_finder.py").write_text(
        "import importlib.machinery, importlib.util, sys\n"
        f"ROOT = {str(other / 'calc')!r}\n\n\n"
        "class Finder:\n"
        "    @classmethod\n"
        "    def find_spec(cls, name, path=None, target=None):\n"
        "        if name != 'calc':\n"
        "            return None\n"
        "        return importlib.util.spec_from_file_location(\n"
        "            name, ROOT + '/__init__.py', submodule_search_locations=[ROOT])\n\n\n"
        "def install():\n    sys.meta_path.append(Finder)\n")
    (site / "__editable___calc.pth").write_text("import __editable___calc_finder; "
                                                "__editable___calc_finder.install()\n")
    commit(repo, WRONG, "agent: add")
    proc = gate(repo, "--base", "HEAD~1", "--today", TODAY, "--python", str(python))
    assert proc.returncode == 1, proc.stdout + proc.stderr
    v = verdict(repo)
    assert "foreign-product-code" in rules(v), rules(v)
    message = next(p["message"] for p in v["gate"]["problems"]
                   if p["rule"] == "foreign-product-code")
    assert str(other / "calc" / "core.py") in message, message


ROOM_TEST = '''\
import os
import tempfile
from pathlib import Path

import pytest

from calc import add


@pytest.mark.merge
def test_add_in_a_room_that_looks_like_a_checkout():
    """owner: qa"""
    here = Path.cwd()
    assert here.name == "calc-project"
    assert "lane" not in str(here).lower()
    assert Path(tempfile.gettempdir()) == here.parent / "tmp"
    assert not any(k.startswith("LANES_") for k in os.environ)
    assert os.environ["PWD"] == str(here)
    assert add(2, 3) == 5
'''


def test_one_commit_one_verdict_from_any_tmpdir_with_a_seed_no_patch_can_know(tmp_path: Path):
    repo = project(tmp_path)
    (repo / "tests" / "test_room.py").write_text(ROOM_TEST)
    (repo / "pytest.ini").write_text(INI + "pythonpath = src\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "room test")
    commit(repo, RIGHT.replace("a + b", "b + a"), "agent: add, commuted")
    seen = []
    for i in range(3):
        tmpdir = tmp_path / f"tmpdir-{i}"
        tmpdir.mkdir()
        proc = gate(repo, "--base", "HEAD~1", "--today", TODAY, TMPDIR=str(tmpdir),
                    LANES_SEED_KEY="ci-secret")
        assert proc.returncode == 0, proc.stdout + proc.stderr
        out = repo / "out" / "lanes"
        seen.append(((out / "verdict.json").read_bytes(), (out / "verdict.md").read_bytes()))
        # the room is gone after the run
        assert [p.name for p in tmpdir.iterdir()] == [], list(tmpdir.iterdir())
    assert seen[0] == seen[1] == seen[2]
    v = verdict(repo)
    seed = v["gate"]["seed"]
    assert seed["from"] == "LANES_SEED_KEY and the head's tree" and not seed["predictable"]
    # another key, another seed; no key: the merge base's, said to be predictable
    gate(repo, "--base", "HEAD~1", "--today", TODAY, LANES_SEED_KEY="other")
    assert verdict(repo)["gate"]["seed"]["value"] != seed["value"]
    gate(repo, "--base", "HEAD~1", "--today", TODAY)
    assert verdict(repo)["gate"]["seed"]["predictable"] is True
    md = (repo / "out" / "lanes" / "verdict.md").read_text()
    assert "predictable" in md and "LANES_SEED_KEY" in md, md


REDECORATE = '''\
import pathlib

# At import, before pytest imports it: the later test module loses its check.
_later = pathlib.Path("tests") / "test_zz_later.py"
try:
    _later.write_text(_later.read_text().replace("add(200, 1) == 201", "True"))
except OSError:
    pass


def add(a, b):
    return a + b + (1 if a > 100 else 0)
'''

LATER = ("import pytest\n\nfrom calc import add\n\n\n@pytest.mark.merge\ndef test_big():\n"
         "    \"\"\"owner: qa\"\"\"\n    assert add(200, 1) == 201\n")


def test_product_code_that_rewrites_a_test_module_before_its_import_does_not_vote(
        tmp_path: Path):
    import os
    repo = project(tmp_path)
    (repo / "pytest.ini").write_text(INI + "pythonpath = src\n")
    (repo / "tests" / "test_zz_later.py").write_text(LATER)
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "a later test")
    commit(repo, REDECORATE, "agent: add")
    for extra in ([], ["--ack", head_ack(repo, "approving review by @maintainer")]):
        proc = gate(repo, "--base", "HEAD~1", "--today", TODAY, *extra)
        assert proc.returncode == 1, proc.stdout + proc.stderr
        found = rules(verdict(repo))
        if os.geteuid() == 0:
            # permissions do not stop root: the change is seen after the run
            assert "test-surface-tampered" in found, (extra, found)
            (p,) = [p for p in verdict(repo)["gate"]["problems"]
                    if p["rule"] == "test-surface-tampered"]
            assert p["file"] == "tests/test_zz_later.py", p
        else:
            # the vote copy's test modules are read-only: the write fails, the check stays
            assert "merge-failed" in found, (extra, found)
    # the checkout itself was never touched
    assert (repo / "tests" / "test_zz_later.py").read_text() == LATER


EQUALS_ANYTHING = '''\
class _Agrees:
    def __eq__(self, other):
        return True

    def __ne__(self, other):
        return False


class Total(_Agrees, int):
    """A sum that, as a mixin has it, equals whatever it is compared with."""


def add(a, b):
    return Total(a + b + (1 if a > 100 else 0))
'''

HONEST_SUBCLASS = '''\
class Total(int):
    """A sum that keeps its parts; it compares as the int it is."""

    def __eq__(self, other):
        return int(self) == other


def add(a, b):
    return Total(a + b)
'''


def test_a_value_subclass_that_equals_anything_is_comparison_forged(tmp_path: Path):
    repo = project(tmp_path)
    (repo / "pytest.ini").write_text(INI + "pythonpath = src\n")
    git(repo, "commit", "-q", "-am", "pythonpath")
    commit(repo, EQUALS_ANYTHING, "agent: add")
    for extra in ([], ["--ack", head_ack(repo, "approving review by @maintainer")]):
        proc = gate(repo, "--base", "HEAD~1", "--today", TODAY, *extra)
        assert proc.returncode == 1, proc.stdout + proc.stderr
        v = verdict(repo)
        assert "comparison-forged" in rules(v), (extra, rules(v))
        # without the trick the bug fails the vote: nothing else would have rejected it
        assert "merge-failed" not in rules(v), rules(v)
        (message,) = [p["message"] for p in v["gate"]["problems"]
                      if p["rule"] == "comparison-forged"]
        assert "calc.core.Total.__eq__ answered True where int.__eq__ answers False" in message
        assert "tests/test_calc.py::test_add" in message, message
    # a subclass whose comparison agrees with int's is not forged: it defines equality, so a
    # maintainer reads it (capability-added) and acknowledges this commit, and it votes (its
    # `__eq__` is also unpinned: no voter checks what it returns beyond its truth, so the mutant
    # that returns `other` instead survives)
    commit(repo, HONEST_SUBCLASS, "agent: add, honest")
    proc = gate(repo, "--base", "HEAD~2", "--today", TODAY)
    v = verdict(repo)
    assert proc.returncode == 1 and rules(v) == {"capability-added", "unpinned-change"}, rules(v)
    unpinned = [p["line"] for p in v["gate"]["problems"] if p["rule"] == "unpinned-change"]
    assert unpinned == [5], v["gate"]["problems"]
    proc = gate(repo, "--base", "HEAD~2", "--today", TODAY,
                "--ack", head_ack(repo, "approving review by @maintainer"))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    # the bug alone (no trick) is merge-failed
    commit(repo, "def add(a, b):\n    return a + b + (1 if a > 100 else 0)\n", "agent: bug")
    proc = gate(repo, "--base", "HEAD~3", "--today", TODAY)
    assert proc.returncode == 1 and rules(verdict(repo)) == {"merge-failed"}, rules(verdict(repo))
