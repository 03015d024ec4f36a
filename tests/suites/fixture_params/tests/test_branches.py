import sys

import pytest as pt


@pt.mark.merge
class TestBranches:
    if sys.version_info >= (3, 0):
        def test_taken(self):
            assert True
    else:
        def test_not_taken(self):
            assert True

    if sys.platform == "no-such-platform":
        def test_other_platform(self):
            assert True
