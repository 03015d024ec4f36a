"""Default python_files also match *_test.py."""
import pytest


def test_default_suffix_pattern():
    assert "suffix"


@pytest.mark.witness
def test_witness_suffix():
    assert "witness"
