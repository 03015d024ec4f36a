import pytest


def expect_cents(money, cents):
    if money.cents != cents:
        pytest.fail(f"{money.cents} != {cents}")
