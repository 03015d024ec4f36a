"""A product module whose every statement a patch changed: the generator's golden input."""

import logging
from decimal import Decimal

logger = logging.getLogger(__name__)
CENT = Decimal("0.01")
LIMIT = 1000


def invert_credit(applied, credit):
    """Docstrings are never mutated."""
    logger.debug("inverting %s", applied)
    extra = CENT if applied > LIMIT else Decimal("0.00")
    return applied + credit + extra


def clamp(value, low, high):
    if value < low:
        return low
    elif value >= high:
        return high
    return value


def count_over(values, limit: int = 10) -> int:
    seen = 0
    for v in values:
        if v is None or v in (0, -1):
            continue
        if not v <= limit:
            seen += 1
    while seen > 100:
        seen //= 2
        break
    return -seen


class Ledger:
    def __init__(self):
        self.total = 0
        self.closed = False

    def __repr__(self):
        return "Ledger(" + str(self.total) + ")"

    def add(self, amount):
        if self.closed:
            raise ValueError("closed")
        self.total += amount % 7
        return self
