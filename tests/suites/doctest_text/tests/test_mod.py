"""An ordinary test module beside the doctest files."""

import pytest


@pytest.mark.merge
def test_sum():
    assert sum([1, 2]) == 3
