"""Marks and bases imported from modules of the package (relative and absolute)."""
from pkg import marks as lane_marks
from pkg.marks import merge as merge_lane

from .bases import PackageChecks
from .marks import freeze, witness


@witness
def test_relative_import():
    assert "relative"


@merge_lane
def test_absolute_import():
    assert "absolute"


@lane_marks.freeze
def test_imported_module_attribute():
    assert lane_marks.freeze is freeze


class TestPackageSubclass(PackageChecks):
    def test_own(self):
        assert True


@freeze
class TestFrozenClass:
    def test_frozen(self):
        assert 0.1 + 0.2 != 0.3
