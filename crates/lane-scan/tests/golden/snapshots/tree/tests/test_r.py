import pytest

@pytest.mark.witness
def test_data(data_regression):
    data_regression.check({"a": 1})

@pytest.mark.witness
@pytest.mark.parametrize("n", [1, 2])
def test_data_p(data_regression, n):
    data_regression.check({"n": n})

@pytest.mark.witness
def test_data_p_more(file_regression):
    file_regression.check("hello")
