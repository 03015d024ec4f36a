import pytest

NAME = "computed"


@pytest.mark.witness
def test_basename(data_regression):
    # Its file is named by basename=, not after the test.
    data_regression.check({"a": 1}, basename="shared_name")


@pytest.mark.witness
def test_fullpath(file_regression):
    file_regression.check("hello", fullpath="tests/golden_out/full.txt")


@pytest.mark.witness
def test_both(data_regression):
    data_regression.check({"b": 1})
    for part in ("x",):
        data_regression.check({"part": part}, basename="extra")


@pytest.mark.witness
def test_positional(num_regression):
    num_regression.check({"n": [1]}, "by_position")


@pytest.mark.witness
def test_computed_basename(data_regression):
    data_regression.check({"c": 1}, basename=NAME)


@pytest.mark.witness
def test_starred(data_regression):
    options = {"basename": "shared_name"}
    data_regression.check({"c": 1}, **options)


@pytest.mark.witness
def test_fullpath_outside(file_regression):
    file_regression.check("x", fullpath="../outside.txt")


@pytest.mark.witness
def test_fullpath_computed(file_regression, tmp_path):
    file_regression.check("x", fullpath=tmp_path / "x.txt")


@pytest.mark.merge
def test_merge_names_a_file(data_regression):
    # Not a witness: its files are no fixtures.
    data_regression.check({"m": 1}, basename="merge_name", fullpath=None)
