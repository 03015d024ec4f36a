import pytest


@pytest.mark.merge
def test_real():
    assert "real"
