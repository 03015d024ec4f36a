"""owner: shop"""
import pytest

import shop
from shop import Inherits, Money, Plain, parse
from shop.money import parse as parse_money

from helpers import check_raising, check_total, log, only_true, ping, via_conftest

pytestmark = pytest.mark.merge


class Local:
    def __eq__(self, other):
        return True


def test_reflexive():
    amount = Money(3)
    assert amount == amount


def test_reflexive_dotted():
    amount = shop.Money(3)
    assert amount == amount


def test_function_result():
    amount = parse("3")
    assert amount == amount


def test_function_result_imported_by_module():
    amount = parse_money("3")
    assert amount == amount


def test_class_without_eq():
    amount = Plain(3)
    assert amount == amount


def test_inherited_eq():
    amount = Inherits(3)
    assert amount == amount


def test_local_class():
    amount = Local()
    assert amount == amount


def test_rebound_otherwise():
    amount = Money(3)
    amount = parse("3")
    assert amount == amount


def test_fixture_named_like_the_class(Money):
    amount = Money(3)
    assert amount == amount


def test_helper_asserts():
    check_total(Money(3), 3)


def test_helper_through_conftest():
    via_conftest(Money(3), 3)


def test_helper_raises_assertion_error():
    check_raising(Money(3))


def test_helper_in_the_module():
    _same_module(Money(3))


def test_own_raise():
    if Money(3) != Money(3):
        raise AssertionError("unequal")


def test_own_fail():
    if Money(3) != Money(3):
        pytest.fail("unequal")


def test_helper_asserts_nothing():
    log(Money(3))


def test_helper_only_tautologies():
    only_true(Money(3))


def test_helpers_that_cycle():
    ping(Money(3))


def test_product_function_only():
    parse("3")


def _same_module(money):
    assert money.cents == 3


class BaseChecks:
    def _check_cents(self, money, cents):
        assert money.cents == cents


class TestWithMethodHelpers(BaseChecks):
    def _total(self, money):
        self._check_cents(money, 3)

    def _log_only(self, money):
        print(money)

    def test_method_helper_asserts(self):
        self._check_cents(Money(3), 3)

    def test_method_helper_through_another(self):
        self._total(Money(3))

    def test_method_helper_asserts_nothing(self):
        self._log_only(Money(3))

    def test_a_fixture_method_is_not_followed(self, other):
        other._check_cents(Money(3), 3)
