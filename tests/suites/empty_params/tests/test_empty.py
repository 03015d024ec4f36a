"""Parametrize over an empty list: pytest gives the test one item with the mark of the
empty_parameter_set_mark ini key (skip by default), and the id `[NOTSET]`."""
import pytest


@pytest.mark.merge
@pytest.mark.parametrize("value", [])
def test_empty_list(value):
    assert value


@pytest.mark.merge
@pytest.mark.parametrize("left, right", ())
def test_empty_tuple(left, right):
    assert left == right


@pytest.mark.merge
@pytest.mark.parametrize("a", [1, 2])
@pytest.mark.parametrize("b", argvalues=[])
def test_stacked_one_empty(a, b):
    assert a


@pytest.mark.merge
class TestInClass:
    @pytest.mark.parametrize("x", [])
    def test_method(self, x):
        assert x

    @pytest.mark.parametrize("x", [3])
    def test_not_empty(self, x):
        assert x
