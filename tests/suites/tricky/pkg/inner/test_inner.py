"""A sub-package importing from its parent package."""
from ..marks import merge
from ..bases import PackageChecks


@merge
def test_parent_relative_import():
    assert ".." in "../marks"


class TestInnerSubclass(PackageChecks):
    pass
