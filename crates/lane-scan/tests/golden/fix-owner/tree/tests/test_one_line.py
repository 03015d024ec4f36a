"""One line docstring."""
import pytest


@pytest.mark.merge
def test_a():
    assert len("a") == 1
