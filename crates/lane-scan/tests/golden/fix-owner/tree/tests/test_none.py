# a comment first
import os


def test_c():
    assert os.sep
