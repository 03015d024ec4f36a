"""owner: shop"""
import os

import pytest


def test_tautology():
    total = int("3")
    assert total == total


def test_nothing():
    int("3")


def test_fine():
    assert int("3") == 3


if os.environ.get("FAST"):
    def test_under_env():
        assert int("3") == 3
