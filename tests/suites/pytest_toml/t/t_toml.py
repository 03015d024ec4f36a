import pytest


@pytest.mark.merge
def test_in_t_file():
    assert "toml"
