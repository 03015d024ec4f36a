"""Money in cents.

    >>> cents("1.25")
    125

owner: @shop/team
"""


def cents(text):
    """Whole cents of a decimal amount.

    >>> cents("0.10")
    10
    """
    units, _, frac = text.partition(".")
    return int(units) * 100 + int((frac + "00")[:2])


def plain(x):
    """No example here."""
    return x
