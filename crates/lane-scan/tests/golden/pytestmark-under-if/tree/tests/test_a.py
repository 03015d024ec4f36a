"""owner: me"""
import sys
import pytest
from pkg.compat import is_pypy

pytestmark = pytest.mark.merge

if is_pypy:
    pytestmark = pytest.mark.skip()


def test_a():
    assert int("1") == 1
