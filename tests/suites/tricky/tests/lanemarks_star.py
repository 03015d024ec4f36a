"""Marks meant for `from lanemarks_star import *`."""
import pytest

__all__ = ["star_merge", "STAR_WITNESS"]

star_merge = pytest.mark.merge
STAR_WITNESS = pytest.mark.witness
