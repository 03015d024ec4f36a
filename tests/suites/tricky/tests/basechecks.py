"""A marked base class that test modules import and subclass."""
import pytest


@pytest.mark.witness
class SharedChecks:
    def test_shared_one(self):
        assert "shared" == "shared" + ""

    def test_shared_two(self):
        assert len("two") == 3
