"""Never collected for doctests.

>>> 1
1
"""
