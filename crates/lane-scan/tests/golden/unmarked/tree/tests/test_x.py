import pytest


def test_nothing():
    assert 1 + 1 == 2


@pytest.mark.skip
@pytest.mark.merge
def test_skipped():
    """owner: qa"""
    assert 2 * 2 == 4
