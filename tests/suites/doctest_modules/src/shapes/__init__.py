"""Shapes: a src-layout package whose docstrings are tests under --doctest-modules.

owner: geometry-team

>>> from shapes.area import square
>>> square(3)
9
"""
