"""Parametrized tests fold into one id without brackets."""
import pytest

CASES = [(1, 2), (2, 4), (3, 6)]


@pytest.mark.merge
@pytest.mark.parametrize("value,double", CASES)
def test_double(value, double):
    assert value * 2 == double


@pytest.mark.parametrize("text", ["a", "b::c", "d[e]"], ids=["plain", "colons", "brackets"])
@pytest.mark.witness
def test_ids_with_odd_characters(text):
    assert isinstance(text, str)


@pytest.mark.merge
@pytest.mark.parametrize("x", [1, 2])
@pytest.mark.parametrize("y", [10, 20])
def test_stacked(x, y):
    assert x < y


@pytest.mark.merge
@pytest.mark.parametrize(
    "n",
    [pytest.param(1, id="one"), pytest.param(2, marks=pytest.mark.slow, id="two-slow")],
)
def test_param_with_non_lane_marks(n):
    assert n in (1, 2)


@pytest.mark.freeze
@pytest.mark.parametrize("seed", range(3))
class TestParametrizedClass:
    def test_seeded(self, seed):
        assert seed >= 0

    def test_seeded_again(self, seed):
        assert seed < 3
