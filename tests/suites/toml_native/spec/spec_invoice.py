import pytest


@pytest.mark.merge
def it_adds_lines():
    assert 1 + 1 == 2


@pytest.mark.merge
def test_not_collected_under_it_pattern():
    assert False


@pytest.mark.witness
class DescribeRendering:
    def it_renders(self):
        assert "pdf"

    class DescribeNested:
        def it_nests(self):
            assert "nested"


class TestNotCollected:
    @pytest.mark.merge
    def it_is_not_in_a_describe_class(self):
        assert False
