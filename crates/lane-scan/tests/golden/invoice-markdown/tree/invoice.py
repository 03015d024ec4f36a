"""A small invoice module: the code the bundled example suite gates."""

from __future__ import annotations

from decimal import ROUND_HALF_EVEN, Decimal

CENT = Decimal("0.01")


def _money(value: Decimal | str | int) -> Decimal:
    return Decimal(value).quantize(CENT, rounding=ROUND_HALF_EVEN)


def apply_credit(total: Decimal, credit: Decimal) -> Decimal:
    """Total after a credit note; a credit larger than the total leaves nothing to pay."""
    total, credit = _money(total), _money(credit)
    if total < 0 or credit < 0:
        raise ValueError("amounts must not be negative")
    return max(total - credit, Decimal("0.00"))


def invert_credit(applied: Decimal, credit: Decimal) -> Decimal:
    """The total before `credit` was applied, for any credit that did not exceed the total."""
    applied, credit = _money(applied), _money(credit)
    if applied < 0 or credit < 0:
        raise ValueError("amounts must not be negative")
    return applied + credit


def render_statement(customer_id: str, lines: list[tuple[str, Decimal]], credit: Decimal) -> str:
    """A plain-text statement: one line per item, the credit and the amount due."""
    width = 32
    out = [f"STATEMENT {customer_id:>22}", "-" * width]
    total = Decimal("0.00")
    for label, amount in lines:
        amount = _money(amount)
        total += amount
        out.append(f"{label:<20}{amount:>12}")
    out.append("-" * width)
    out.append(f"{'subtotal':<20}{total:>12}")
    out.append(f"{'credit':<20}{-_money(credit):>12}")
    out.append(f"{'due':<20}{apply_credit(total, credit):>12}")
    return "\n".join(out) + "\n"
