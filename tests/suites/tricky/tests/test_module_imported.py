"""Module-level pytestmark: a list holding an imported alias.

(A tuple is not accepted: pytest 9 raises TypeError "got (...) instead of Mark" at collection.)
"""
import pytest
from lanemarks import FREEZE

pytestmark = [FREEZE, pytest.mark.smoke]


def test_imported_module_mark():
    assert (1,) + (2,) == (1, 2)
