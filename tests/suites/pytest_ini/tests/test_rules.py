import pytest


@pytest.mark.merge
def should_round_half_even():
    assert round(2.5) == 2


@pytest.mark.merge
def test_not_collected_here():
    assert False


@pytest.mark.witness
class TestRules:
    def should_render(self):
        assert "r"
