"""owner: me"""
import os
import sys

import pytest


class TestPlatform:
    pytestmark = pytest.mark.merge

    if sys.platform == "win32":
        pytestmark = pytest.mark.skip()

    def test_d(self):
        assert int("2") == 2


class TestEnvironment:
    pytestmark = pytest.mark.merge

    if os.environ.get("X"):
        pytestmark = pytest.mark.skip()

    def test_e(self):
        assert int("3") == 3
