# -*- coding: latin-1 -*-
import pytest


@pytest.mark.merge
def test_plain():
    """owner: shop"""
    assert 1 + 1 == len("ab")
