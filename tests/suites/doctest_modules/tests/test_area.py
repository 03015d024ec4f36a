"""An ordinary test module: its tests and (with --doctest-modules) its docstring examples."""

import pytest

from shapes.area import square


@pytest.mark.merge
def test_square():
    """owner: geometry-team"""
    assert square(4) == 16


def helper_in_tests(x):
    """A module outside any package is imported under its bare name.

    >>> helper_in_tests(1)
    1
    """
    return x
