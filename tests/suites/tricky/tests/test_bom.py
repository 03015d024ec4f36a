"""A file saved with a UTF-8 byte order mark; names may be non-ASCII."""
import pytest

pytestmark = pytest.mark.merge


def test_bom_function():
    assert "é".encode() == b"\xc3\xa9"


class TestÜmlaut:
    def test_ünïcode_name(self):
        assert "ü".upper() == "Ü"
