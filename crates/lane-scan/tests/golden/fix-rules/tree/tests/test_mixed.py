"""Mixed tests.

owner: qa
"""
import unittest

import pytest
from hypothesis import given, strategies as st


@given(st.integers())
def test_property(x):
    """shrinking: toward 0"""
    assert x + 0 == x


@pytest.mark.xfail(reason="bug 12", strict=True)
def test_known_bug():
    assert 1 == 2


def test_syrupy(snapshot):
    assert snapshot == "a"


def test_regressions(data_regression):
    data_regression.check({"a": 1})


class TestUniform:
    """All merge."""

    def test_one(self):
        assert len("ab") == 2

    @pytest.mark.parametrize("v", [1, 2])
    def test_two(self, v):
        assert v > 0


class TestHalf:
    @pytest.mark.merge
    def test_marked(self):
        assert len("a") == 1

    def test_unmarked(self):
        assert len("") == 0


class TestOld(unittest.TestCase):
    @unittest.expectedFailure
    def test_expected(self):
        self.assertEqual(1, 2)
