import pytest


@pytest.mark.freeze
@pytest.mark.xfail(reason="flaky")
def test_x():
    assert len("x") == 1


@pytest.mark.merge
def test_y():
    assert len("y") == 1
