"""Test classes and functions that test modules import by name: pytest collects them there."""
import pytest


@pytest.mark.merge
class TestSharedCase:
    def test_shared_case(self):
        assert "shared".upper() == "SHARED"


@pytest.mark.witness
def test_shared_function():
    assert "fn"


class DisabledBase:
    __test__ = False

    @pytest.mark.merge
    def test_disabled(self):
        assert type(self) is not DisabledBase
