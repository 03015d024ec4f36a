"""A file saved with Windows line endings."""
import pytest


@pytest.mark.merge
def test_crlf_function():
    assert "\r\n".endswith("\n")


class TestCrlf:
    pytestmark = [pytest.mark.witness]

    def test_crlf_method(self):
        assert True != False
