"""Test methods inherited from base classes appear under the subclass's id."""
import pytest

from basechecks import SharedChecks


@pytest.mark.merge
class BaseLedger:
    def test_base_method(self):
        assert sum(range(4)) == 6

    def test_overridden(self):
        assert False


class TestLedger(BaseLedger):
    def test_own_method(self):
        assert 3 in {1, 2, 3}

    @pytest.mark.slow
    def test_overridden(self):
        assert True


class TestDeeper(TestLedger):
    def test_deeper(self):
        assert "deep"[::-1] == "peed"


class TestImportedBase(SharedChecks):
    def test_subclass_own(self):
        assert "sub".title() == "Sub"


class MarkedMixin:
    pytestmark = [pytest.mark.freeze]

    def test_from_mixin(self):
        assert 0 == 0 * 1


class TestWithMixin(MarkedMixin):
    pass
