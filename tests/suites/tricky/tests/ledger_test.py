"""Matches pytest's default python_files (*_test.py) but not this suite's: never collected."""
import pytest


@pytest.mark.merge
def test_default_pattern_only():
    assert len("ab") == 2
