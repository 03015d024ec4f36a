"""Several lines.

More words.
"""


def test_b():
    assert len("b") == 1
