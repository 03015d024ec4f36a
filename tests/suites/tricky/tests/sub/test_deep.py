"""A test file in a rootless sub-folder."""
import pytest


@pytest.mark.merge
class TestDeep:
    def test_deep(self):
        assert "sub" in __file__
