"""Left out by tests/conftest.py: pytest would fail to import it."""

import module_that_is_not_installed  # noqa: F401


def test_a():
    assert len("ab") == 2
