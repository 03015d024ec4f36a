import pytest

pytestmark = pytest.mark.merge


def test_ok():
    assert len("ok") == 2
