import pytest


def test_unmarked():
    assert 1 == 1


@pytest.mark.merge
def test_merge():
    assert 2 == 2


@pytest.mark.merge
@pytest.mark.witness
def test_two_lanes():
    assert 3 == 3


@pytest.mark.freeze
class TestFrozen:
    @pytest.mark.merge
    def test_frozen_and_merge(self):
        assert 4 == 4

    @pytest.mark.freeze
    def test_freeze_twice(self):
        assert 5 == 5


class TestUnmarkedClass:
    def test_unmarked_method(self):
        assert 6 == 6

    @pytest.mark.parametrize("n", [1, 2])
    def test_unmarked_parametrized(self, n):
        assert n


@pytest.mark.parametrize("n", [pytest.param(1, marks=pytest.mark.freeze), 2])
@pytest.mark.merge
def test_lane_inside_param(n):
    assert n
