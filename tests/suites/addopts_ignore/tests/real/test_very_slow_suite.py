import pytest


@pytest.mark.merge
def test_ignored_by_glob():
    assert False
