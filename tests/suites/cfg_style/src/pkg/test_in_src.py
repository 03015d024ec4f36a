import pytest


@pytest.mark.merge
def test_in_src_package():
    assert "src"
