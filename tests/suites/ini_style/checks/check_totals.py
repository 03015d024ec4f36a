"""Tests named by tox.ini's patterns (check_ / verify_, classes Check*)."""
import pytest
from pytest import mark

merge = mark.merge


@merge
def check_total():
    assert 1 + 2 == 3


@pytest.mark.witness
def verify_rounding():
    assert round(0.5) == 0


@pytest.mark.merge
def test_default_name_is_not_collected_here():
    assert False


@mark.freeze
class CheckLedger:
    def check_row(self):
        assert [1][0] == 1

    def verify_rows(self):
        assert len([1, 2]) == 2


@pytest.mark.merge
class TestDefaultClassNameNotCollected:
    def check_inside(self):
        assert False
