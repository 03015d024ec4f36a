"""Points.

>>> distance((0, 0), (3, 4))
5.0
"""

from math import hypot


def distance(a, b):
    """The distance between two points.

    >>> distance((1, 1), (1, 2))
    1.0
    """
    return hypot(b[0] - a[0], b[1] - a[1])
