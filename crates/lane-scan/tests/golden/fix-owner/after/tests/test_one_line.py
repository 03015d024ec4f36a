"""One line docstring.

owner: @org/qa
"""
import pytest


@pytest.mark.merge
def test_a():
    assert len("a") == 1
