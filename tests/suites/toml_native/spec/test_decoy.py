import pytest


@pytest.mark.merge
def test_decoy_only_setup_cfg_would_collect():
    assert False
