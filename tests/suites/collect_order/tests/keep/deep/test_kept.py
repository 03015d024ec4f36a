import pytest


@pytest.mark.merge
def test_collected():
    assert 2 * 2 == 4
