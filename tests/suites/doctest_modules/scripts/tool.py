"""A script folder without __init__.py: module name `tool`.

>>> 3 - 1
2
"""
