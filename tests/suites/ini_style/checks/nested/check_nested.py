import pytest

pytestmark = [pytest.mark.merge]


def check_nested():
    assert "nested"


class CheckNested:
    @pytest.mark.slow
    def check_method(self):
        assert "method"
