"""owner: @team"""
import pytest


@pytest.mark.witness
def test_top(data_regression):
    data_regression.check({"a": 1})


@pytest.mark.witness
class TestShapes:
    def test_top(self, data_regression):
        data_regression.check({"b": 2})

    @pytest.mark.parametrize("n", [1, 2])
    def test_sized(self, n, data_regression):
        data_regression.check({"n": n})

    class TestInner:
        def test_deep(self, data_regression):
            data_regression.check({"d": 4})
