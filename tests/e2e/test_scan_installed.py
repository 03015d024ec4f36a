"""Test classes deriving from classes of an installed package, checked against
real pytest. A venv is made with the real `venv` module; a small library is written into its
site-packages, and a .pth file there lets its interpreter import the dev venv's pytest. pytest
(run by that interpreter, through collect_plugin) and `lane-scan --python` must agree."""

from __future__ import annotations

import json
import os
import subprocess
import sysconfig
from pathlib import Path

from conftest import PYTHON, run_tool
from test_scan_oracle import E2E, disagreements

LIBRARY = {
    "libbase/__init__.py": "from .cases import AppTestCase as AppTestCase\nfrom . import cases\n",
    "libbase/cases.py": '''import abc
import unittest
from unittest import TestCase as _TC


class _Mixin:
    def helper(self):
        return 1


class AppTestCase(_Mixin, _TC):
    def setUp(self):
        self.ready = True


class NotCollected:
    __test__ = False


class WithInit:
    def __init__(self):
        self.x = 1


class Plain(abc.ABC):
    pass
''',
}

TESTS = '''import pytest

import libbase
from libbase import AppTestCase
from libbase.cases import NotCollected, Plain, WithInit


@pytest.mark.merge
class Derived(AppTestCase):
    def test_a(self):
        assert self.ready


class AlsoDerived(libbase.cases.AppTestCase):
    pytestmark = pytest.mark.witness

    def test_b(self):
        assert self.helper() == 1


class TestOff(NotCollected):
    def test_c(self):
        assert 1


class TestInit(WithInit):
    def test_d(self):
        assert 1


@pytest.mark.merge
class TestPlain(Plain):
    def test_e(self):
        assert 1
'''

INI = "[pytest]\nmarkers =\n    merge: votes\n    witness: corroborates\n    freeze: never votes\n"


def make_venv(root: Path) -> Path:
    venv = root / "venv"
    subprocess.run([PYTHON, "-m", "venv", "--without-pip", str(venv)], check=True)
    site = next((venv / "lib").glob("python*/site-packages"))
    # The dev venv's packages (pytest) for the new interpreter; the library lives here itself.
    (site / "dev.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    for rel, text in LIBRARY.items():
        (site / rel).parent.mkdir(parents=True, exist_ok=True)
        (site / rel).write_text(text)
    return venv / "bin" / "python"


def test_installed_bases_agree_with_pytest(tmp_path: Path):
    python = make_venv(tmp_path)
    suite = tmp_path / "suite"
    (suite / "tests").mkdir(parents=True)
    (suite / "pytest.ini").write_text(INI)
    (suite / "tests" / "test_inst.py").write_text(TESTS)
    out = tmp_path / "pytest.json"
    env = dict(os.environ, PYTHONPATH=str(E2E), COLLECT_PLUGIN_OUT=str(out),
               PYTHONDONTWRITEBYTECODE="1")
    proc = subprocess.run([str(python), "-m", "pytest", "-p", "no:cacheprovider", "--collect-only",
                           "-q", "-p", "collect_plugin"], cwd=suite, env=env, capture_output=True,
                          text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-2000:]
    expected = json.loads(out.read_text())["tests"]
    assert sorted(expected) == ["tests/test_inst.py::AlsoDerived::test_b",
                                "tests/test_inst.py::Derived::test_a",
                                "tests/test_inst.py::TestPlain::test_e"]

    run = run_tool("lane-scan", "--python", str(python), cwd=suite)
    assert run.code in (0, 1), run.stderr
    doc = run.json()["scan"]
    actual = {t["id"]: t for t in doc["tests"]}
    lines = disagreements(expected, actual)
    assert not lines, "\n".join(lines)
    assert not [p for p in doc["problems"] if p["rule"] == "unresolved-test-base"], doc["problems"]

    # Without the environment that has the library, the bases are unknown: errors, not guesses.
    run = run_tool("lane-scan", "--python", PYTHON, cwd=suite)
    rules = [p["rule"] for p in run.json()["scan"]["problems"]]
    assert rules.count("unresolved-test-base") == 5, rules
