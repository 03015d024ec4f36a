"""Module-level pytestmark: a list, through aliases."""
import pytest as pt
from pytest import mark

pytestmark = [pt.mark.witness, mark.slow]


def test_list_module_mark():
    assert "witness" != "merge"


class TestListModuleMark:
    def test_in_class(self):
        assert len([1, 2, 3]) == 3
