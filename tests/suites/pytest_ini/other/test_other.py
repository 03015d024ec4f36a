import pytest


@pytest.mark.merge
def test_only_the_decoy_config_collects_this():
    assert False
