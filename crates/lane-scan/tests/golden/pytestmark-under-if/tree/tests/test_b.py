"""owner: me"""
import sys
import pytest

pytestmark = pytest.mark.merge

if sys.platform == "win32":
    pytestmark = pytest.mark.skip()


def test_b():
    assert int("1") == 1


if sys.version_info >= (3, 0):
    pytestmark = [pytest.mark.merge, pytest.mark.slow]
