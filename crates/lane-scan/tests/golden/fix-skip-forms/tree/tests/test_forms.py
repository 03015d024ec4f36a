"""owner: qa"""
import sys
import unittest

import pytest
from flaky import flaky


@pytest.mark.skipif(True, reason="always")
def test_skipif_true():
    assert len("a") == 1


@pytest.mark.skipif("True", reason="string")
def test_skipif_string():
    assert len("a") == 1


@pytest.mark.skipif(sys.platform == "win32", reason="not on windows")
def test_skipif_platform():
    assert len("a") == 1


@pytest.mark.skipif(False, reason="never")
def test_skipif_false():
    assert len("a") == 1


@pytest.mark.skip(reason="plain")
def test_skip():
    assert len("a") == 1


@pytest.mark.xfail(reason="bug")
def test_xfail():
    assert len("a") == 2


def test_body_skip():
    pytest.skip("not today")


@flaky(max_runs=3)
def test_flaky():
    assert len("a") == 1


@pytest.mark.parametrize("n", [1, pytest.param(2, marks=pytest.mark.skipif(True, reason="p"))])
def test_param_skipif(n):
    assert n > 0


def test_plain():
    assert len("a") == 1


class TestSkipped:
    pytestmark = pytest.mark.skipif(True, reason="class")

    def test_in_skipped_class(self):
        assert len("a") == 1


class TestUnit(unittest.TestCase):
    @unittest.skipIf(True, "always")
    def test_skipif_unit(self):
        self.assertEqual(1, 1)

    @unittest.skipUnless(False, "never runs")
    def test_skipunless_unit(self):
        self.assertEqual(1, 1)

    @unittest.skipIf(sys.platform == "win32", "windows")
    def test_skipif_unit_platform(self):
        self.assertEqual(1, 1)

    def test_fine(self):
        self.assertEqual(1, 1)


@unittest.skip("whole class")
class TestUnitSkipped(unittest.TestCase):
    def test_a(self):
        self.assertEqual(1, 1)
