"""owner: @team"""
import pytest


@pytest.mark.merge
def test_sum():
    assert sum([1, 2]) == 3


@pytest.mark.witness
class TestShapes:
    def test_top(self, data_regression):
        data_regression.check({"b": 2})
