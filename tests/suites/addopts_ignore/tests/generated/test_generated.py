import pytest


@pytest.mark.merge
def test_ignored_by_addopts():
    assert False
