import pytest


@pytest.mark.merge
def test_excluded():
    assert False
