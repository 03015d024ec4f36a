import pytest

pytestmark = pytest.mark.merge


def test_d():
    assert len("d") == 1
