"""Several lines.

More words.

owner: @org/qa
"""


import pytest

pytestmark = pytest.mark.merge


def test_b():
    assert len("b") == 1
