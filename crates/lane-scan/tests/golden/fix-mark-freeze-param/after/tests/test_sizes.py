"""owner: sizes-team"""

import pytest

KNOWN_BUG = pytest.mark.xfail(reason="bug 7: two-byte text", strict=True)


@pytest.mark.merge
@pytest.mark.parametrize(
    "text, size",
    [
        ("a", 1),
        pytest.param("bb", 3, marks=KNOWN_BUG),  # one known bug: this parameter only
        ("ccc", 3),
    ],
)
def test_size(text, size):
    assert len(text) == size


@pytest.mark.merge
class TestCounts:
    @pytest.mark.parametrize("n", [1, pytest.param(2, marks=[pytest.mark.skip(reason="slow")])])
    def test_positive(self, n):
        assert n > 0


# The whole test is a known failure, and one parameter is marked too: a freeze candidate.
@pytest.mark.freeze
@pytest.mark.xfail(reason="bug 9")
@pytest.mark.parametrize("n", [1, pytest.param(2, marks=pytest.mark.xfail)])
def test_negative(n):
    assert n < 0
