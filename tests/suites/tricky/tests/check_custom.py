"""Collected through the suite's custom python_files / python_classes / python_functions."""
import pytest


@pytest.mark.merge
def check_custom_function():
    assert "check".startswith("c")


@pytest.mark.merge
def totals_spec():
    assert 1 + 1 == 2


@pytest.mark.merge
def test_default_style_still_works():
    assert 1


def helper_not_matching():
    assert False


@pytest.mark.witness
class CheckCustomClass:
    def check_method(self):
        assert "m" in "method"

    def test_method(self):
        assert "t" in "test"

    def ignored_method(self):
        assert False


@pytest.mark.freeze
class LedgerSuite:
    def check_glob_class(self):
        assert "Suite".endswith("e")


class Testing:
    """Matches the prefix `Test` (prefixes are not whole words)."""

    @pytest.mark.merge
    def test_prefix_match(self):
        assert "Testing".startswith("Test")


class NotATest:
    @pytest.mark.merge
    def test_not_collected(self):
        assert False
