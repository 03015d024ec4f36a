"""Parameter sets computed at run time: when one comes out empty, pytest gives
the test a single `[NOTSET]` item carrying empty_parameter_set_mark's skip; lane-scan cannot know
the set is empty, and says the test's sets are computed and what an empty one gets."""
import pytest

CASES = []
FILLED = [1, 2]


def load_cases(kind):
    return [case for case in FILLED if case < 0]


@pytest.mark.merge
@pytest.mark.parametrize("case", load_cases("json"))
def test_loaded_cases(case):
    assert case


@pytest.mark.merge
@pytest.mark.parametrize("case", CASES)
def test_name_bound_to_empty_list(case):
    assert case


@pytest.mark.merge
@pytest.mark.parametrize("case", FILLED)
def test_name_bound_to_full_list(case):
    assert case


@pytest.mark.merge
@pytest.mark.parametrize("case", [n for n in range(3)])
def test_computed_with_values(case):
    assert case >= 0


@pytest.mark.merge
@pytest.mark.parametrize("x", [1, 2])
@pytest.mark.parametrize("left, right", load_cases("pairs"))
def test_stacked_with_a_computed_empty_set(x, left, right):
    assert left == right


@pytest.mark.merge
class TestMethods:
    @pytest.mark.parametrize("case", load_cases("method"))
    def test_method(self, case):
        assert case


@pytest.mark.merge
def test_fixture_computed_empty(computed_empty):
    assert computed_empty


@pytest.mark.merge
def test_fixture_computed_full(computed_full):
    assert computed_full >= 0


@pytest.mark.merge
def test_fixture_written_full(written_full):
    assert written_full


@pytest.mark.freeze
def test_fixture_written_empty(written_empty):
    assert written_empty
