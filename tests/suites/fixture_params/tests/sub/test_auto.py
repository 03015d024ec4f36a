import pytest

pytest = pytest.importorskip("pytest")


@pytest.mark.merge
def test_autouse_reaches():
    assert True


@pytest.mark.merge
def test_override_keeps_outer_params(backend):
    assert backend.endswith("!")
