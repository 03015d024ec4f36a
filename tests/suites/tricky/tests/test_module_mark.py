"""Module-level pytestmark: a single mark."""
import pytest

pytestmark = pytest.mark.merge


def test_inherits_module_mark():
    assert [1, 2][-1] == 2


@pytest.mark.slow
def test_module_mark_plus_own_mark():
    assert {1, 2} & {2} == {2}


class TestUnderModuleMark:
    def test_method_gets_module_mark(self):
        assert "ab".startswith("a")
