# a comment first
"""owner: @org/qa"""

import pytest
import os

pytestmark = pytest.mark.merge


def test_c():
    assert os.sep
