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

from conftest import PYTHON
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
    for extra in ([], ["--ack", "label lanes-ack by @maintainer"]):
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
