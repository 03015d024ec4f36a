from decimal import Decimal

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from invoice import apply_credit, invert_credit

amounts = st.decimals(min_value="0.00", max_value="1000000.00", places=2)


@pytest.mark.merge
@settings(max_examples=200, deadline=None)
@given(total=amounts, credit=amounts)
def test_credit_round_trip(total, credit):
    """Applying a credit and inverting it gives the total back whenever the credit fits.

    shrinking: hypothesis shrinks toward the smallest total and credit; the boundary
    credit == total (amount due 0.00) is where a clamping bug shows first.
    """
    applied = apply_credit(total, credit)
    assert Decimal("0.00") <= applied <= total
    if credit <= total:
        assert invert_credit(applied, credit) == total
    else:
        assert applied == Decimal("0.00")


@pytest.mark.merge
def test_credit_examples():
    """Worked examples from the billing team's credit-note policy.

    owner: billing-team (a.k.a. rosa@invoice.example)
    """
    assert apply_credit(Decimal("100.00"), Decimal("30.00")) == Decimal("70.00")
    assert apply_credit(Decimal("19.99"), Decimal("20.00")) == Decimal("0.00")
    assert invert_credit(Decimal("70.00"), Decimal("30.00")) == Decimal("100.00")
    with pytest.raises(ValueError):
        apply_credit(Decimal("-1.00"), Decimal("0.00"))
