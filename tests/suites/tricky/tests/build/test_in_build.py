import pytest


@pytest.mark.merge
def test_build_output_is_ignored():
    assert "build" in __file__
