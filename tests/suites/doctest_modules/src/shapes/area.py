"""Areas. The module docstring has no example, so it is no item.

owner: geometry-team
"""

import functools
from math import sqrt  # imported: not defined here, never an item
from os.path import join as joined

from shapes.geometry.points import distance


def square(side):
    """The area of a square.

    >>> square(2)
    4
    """
    return side * side


def rectangle(width, height):
    """No example here: not an item."""
    return width * height


def undocumented(x):
    return x


# An alias of a function met already: the same object, one item (under `square`).
also_square = square


@functools.lru_cache(maxsize=None)
def cached_cube(side):
    """A cached function keeps its docstring.

    >>> cached_cube(2)
    8
    """
    return side**3


def commented():
    """Only a comment after the prompt is no example.

    >>> # nothing runs here
    """


class Shape:
    """A shape.

    >>> Shape("dot").name
    'dot'
    """

    def __init__(self, name):
        """Methods are items too.

        >>> Shape("x").name
        'x'
        """
        self.name = name

    def describe(self):
        """
        >>> Shape("line").describe()
        'a line'
        """
        return f"a {self.name}"

    def plain(self):
        """No example."""

    @staticmethod
    def unit():
        """
        >>> Shape.unit()
        1
        """
        return 1

    @classmethod
    def named(cls, name):
        """
        >>> Shape.named("cube").name
        'cube'
        """
        return cls(name)

    @property
    def loud(self):
        """A property's docstring is its getter's.

        >>> Shape("a").loud
        'A'
        """
        return self.name.upper()

    @loud.setter
    def loud(self, value):
        """The setter's docstring is not the property's.

        >>> 1 + 1
        2
        """
        self.name = value.lower()

    class Corner:
        """A nested class.

        >>> Shape.Corner().angle
        90
        """

        angle = 90

        def turn(self):
            """
            >>> Shape.Corner().turn()
            180
            """
            return 2 * self.angle

    borrowed = distance  # defined in another module: not from this one


class NoExamples:
    """Nothing to run."""

    def method(self):
        """Nor here."""


__test__ = {
    "extra": """
    An entry of __test__ is an item named module.__test__.key.

    >>> square(5)
    25
    """,
    "again": square,  # met already under its own name: no second item
}
