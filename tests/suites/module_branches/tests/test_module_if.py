"""Tests defined under module-level `if` statements: only the branch taken exists."""
import os
import sys

import pytest

if sys.version_info >= (3, 0):

    @pytest.mark.merge
    def test_py3():
        assert sys.version_info[0] == 3

else:

    @pytest.mark.merge
    def test_py2():
        assert False


if sys.platform == "no-such-platform":

    @pytest.mark.merge
    class TestElsewhere:
        def test_never(self):
            assert False

elif os.name == "no-such-os-name":

    @pytest.mark.merge
    def test_no_os():
        assert False

else:

    @pytest.mark.merge
    class TestHere:
        def test_here(self):
            assert True


@pytest.mark.merge
def test_twice():
    assert True


if sys.version_info < (3,):

    def test_twice():
        assert False

else:

    @pytest.mark.slow
    @pytest.mark.merge
    def test_twice():
        assert True


if not sys.platform.startswith("no-such"):
    if sys.version_info[:2] >= (3, 8):

        @pytest.mark.merge
        def test_nested():
            assert True
