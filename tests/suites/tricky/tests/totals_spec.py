"""Matches python_files `*_spec.py`."""
from pytest import mark as lanes


@lanes.merge
def test_spec_file():
    assert [1, 2, 3][1:] == [2, 3]


@lanes.witness
def rounding_spec():
    assert round(1.25, 1) == 1.2
