import pytest


@pytest.mark.merge
def test_only_tox_ini_would_collect_this():
    assert False
