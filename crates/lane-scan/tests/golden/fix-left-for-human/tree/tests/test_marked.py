"""owner: shop"""
import pytest


@pytest.mark.merge
def test_already_merge():
    assert True


@pytest.mark.merge
def test_checked():
    assert int("3") == 3
