import pytest


@pytest.mark.merge
def test_outside_the_testpaths_glob():
    assert False
