"""owner: me"""
import os
import pytest

pytestmark = pytest.mark.merge

if os.environ.get("X"):
    pytestmark = pytest.mark.skip()


def test_c():
    assert int("1") == 1
