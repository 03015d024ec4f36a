"""Matches pytest's default python_files, not this suite's: never collected."""
import pytest


@pytest.mark.merge
def check_never():
    assert False
