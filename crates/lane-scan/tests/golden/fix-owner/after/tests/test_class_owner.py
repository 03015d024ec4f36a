import pytest

pytestmark = pytest.mark.merge


class TestOwned:
    """owner: @org/cls"""

    def test_e(self):
        assert len("e") == 1
