#!/usr/bin/env python
# -*- coding: utf-8 -*-
"""Plain tests."""
from __future__ import annotations

import os  # keep me
from math import isclose


def test_a():
    assert os.sep


def test_b():  # trailing comment
    assert isclose(0.1 + 0.2, 0.3)
