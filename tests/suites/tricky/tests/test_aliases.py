"""Every way of naming a lane mark."""
import pytest
import pytest as pt
from pytest import mark
from pytest import mark as m

from lanemarks import FREEZE, golden, merge_lane
import lanemarks

merge = pytest.mark.merge
witness_alias = pt.mark.witness
slow_merge = [pytest.mark.merge, pytest.mark.slow]


@pytest.mark.merge
def test_plain_pytest_mark():
    assert 2 * 3 == 6


@pt.mark.merge
def test_module_alias():
    assert "a".upper() == "A"


@mark.witness(fixture="data/golden.txt")
def test_from_pytest_import_mark():
    assert "golden" in "golden bytes"


@m.freeze
def test_from_pytest_import_mark_as():
    assert abs(-3) == 3


@merge
def test_module_level_alias():
    assert max(1, 4) == 4


@witness_alias
def test_module_level_alias_of_module_alias():
    assert min(1, 4) == 1


@merge()
def test_alias_called_without_arguments():
    assert int("7") == 7


@merge_lane
def test_imported_alias():
    assert round(2.5) == 2


@golden
def test_imported_alias_with_arguments():
    assert "bytes".endswith("s")


@FREEZE
def test_imported_constant_name():
    assert sorted([2, 1]) == [1, 2]


@lanemarks.merge_lane
def test_attribute_of_imported_module():
    assert divmod(7, 2) == (3, 1)


@pytest.mark.smoke
@pytest.mark.merge
def test_lane_plus_other_mark():
    assert bool([0]) is True


@pt.mark.slow
@m.merge
def test_two_aliases_stacked():
    assert "x" * 3 == "xxx"


def helper_not_a_test():
    return 1


@pytest.mark.merge
def test_hidden_by_hook():
    assert helper_not_a_test() == 1
