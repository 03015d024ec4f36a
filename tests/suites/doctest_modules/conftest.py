"""The rootdir conftest is imported as `conftest`, and its docstrings are items too.

>>> 2 * 21
42
"""

def helper():
    """
    >>> helper()
    'help'
    """
    return "help"
