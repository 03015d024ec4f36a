import os

import pytest

from pkg.money import add


@pytest.mark.merge
def test_add():
    """owner: team"""
    assert os.environ.get("PYTEST_CURRENT_TEST")
    assert add(1, 2) == 3
