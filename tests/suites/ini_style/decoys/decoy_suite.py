import pytest


@pytest.mark.merge
def test_decoy():
    assert True
