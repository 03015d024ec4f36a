"""unittest.TestCase subclasses: collected by pytest whatever their name."""
import unittest
from unittest import TestCase

import pytest


@pytest.mark.merge
class TestReport(unittest.TestCase):
    def test_total(self):
        self.assertEqual(1 + 2, 3)

    def check_not_a_unittest_method(self):
        self.fail("unittest only runs methods named test*")

    def helper(self):
        return 1


class LedgerCases(TestCase):
    """Does not match python_classes, but unittest classes need not."""

    def test_rows(self):
        self.assertTrue([1])

    pytestmark = [pytest.mark.smoke, pytest.mark.witness]


@pytest.mark.slow
class CheckUnittestSubclass(LedgerCases):
    def test_more_rows(self):
        self.assertIn(1, [1])
