"""pytest's default patterns are prefixes: `test` matches `testing_x` and `tester`, `Test` matches
`Testament`."""
import pytest


@pytest.mark.merge
def test():
    assert "bare"


@pytest.mark.merge
def testing_prefix_only():
    assert "testing"


@pytest.mark.witness
def tester():
    assert "tester"


@pytest.mark.merge
class Testament:
    def testimony(self):
        assert "testimony"

    def test_plain(self):
        assert "plain"

    def attest(self):
        assert False
