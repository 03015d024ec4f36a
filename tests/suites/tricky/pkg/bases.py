"""A base class with marks, imported by tests in the package."""
from pytest import mark


class PackageChecks:
    pytestmark = mark.merge

    def test_from_package_base(self):
        assert "pkg" == "pk" + "g"
