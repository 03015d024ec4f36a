import contextlib
import sys

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from shop import price


@pytest.mark.merge
def test_rebound():
    """owner: shop"""
    assert price(1) == 2


def _passes():
    pass


test_rebound = _passes

if sys.version_info >= (3, 0):
    @pytest.mark.merge
    def test_versioned():
        """owner: shop"""
        assert price(2) == 4
else:
    @pytest.mark.merge
    def test_versioned():
        """owner: shop"""
        assert price(2) == 2 + 2


@pytest.mark.merge
def test_swallowed():
    """owner: shop"""
    try:
        assert price(3) == 6
    except AssertionError:
        pass


@pytest.mark.merge
def test_suppressed():
    """owner: shop"""
    with contextlib.suppress(Exception):
        assert price(3) == 6


@pytest.mark.merge
def test_or_true():
    """owner: shop"""
    assert price(3) == 6 or True


@pytest.mark.merge
def test_soft_asserts():
    """owner: shop"""
    failures = []
    for n in range(3):
        try:
            assert price(n) == 2 * n
        except AssertionError as e:
            failures.append(e)
    assert not failures


@pytest.mark.merge
def test_an_object():
    """owner: shop"""
    assert isinstance(price(1), object)


@pytest.mark.merge
@given(n=st.integers())
def test_filtered(n):
    """shrinking: toward 0"""
    assume(n > 0)
    assert price(n) == 2 * n
