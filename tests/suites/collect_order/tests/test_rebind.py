"""`from m import Test` then `class Test(Test)`: the base is the imported class."""

import unittest

import pytest

from helpers.bases import TestShared


class TestShared(TestShared):
    @pytest.mark.merge
    def test_own(self):
        assert len("ab") == 2


class TestAlias:
    pytestmark = [pytest.mark.merge]

    def test_a(self):
        assert max(1, 2) == 2


TestAliasAgain = TestAlias


@pytest.mark.merge
class RunsOnce(unittest.TestCase):
    """A TestCase with runTest and no test* method: pytest collects runTest."""

    def runTest(self):
        self.assertEqual(abs(-3), 3)


@pytest.mark.merge
class HasBoth(unittest.TestCase):
    """With a test* method, runTest is not collected."""

    def runTest(self):
        self.assertTrue(True)

    def test_real(self):
        self.assertEqual(min(4, 5), 4)
