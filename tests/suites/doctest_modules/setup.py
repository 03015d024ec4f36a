"""A setup.py that mentions setuptools is never collected for doctests.

>>> 1
1
"""
import setuptools  # noqa: F401
