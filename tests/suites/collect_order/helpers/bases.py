"""Bases the suite's test classes derive from (collection as pytest does it)."""

import pytest


@pytest.mark.merge
class TestShared:
    def test_inherited(self):
        assert sum([1, 2]) == 3


@pytest.mark.merge
def shared_check():
    assert sorted([2, 1]) == [1, 2]
