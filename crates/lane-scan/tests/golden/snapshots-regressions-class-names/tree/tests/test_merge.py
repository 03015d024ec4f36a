"""owner: @team"""
import pytest


@pytest.mark.merge
def test_sum():
    assert 1 + 1 == 2
