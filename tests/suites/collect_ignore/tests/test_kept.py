"""Collected."""

import pytest


@pytest.mark.merge
def test_a():
    assert len("ab") == 2
