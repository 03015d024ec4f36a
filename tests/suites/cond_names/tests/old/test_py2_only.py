import pytest


@pytest.mark.merge
def test_ignored_on_py3():
    assert False
