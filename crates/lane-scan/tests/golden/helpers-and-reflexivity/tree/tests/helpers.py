from conftest import expect_cents


def check_total(money, cents):
    assert money.cents == cents


def via_conftest(money, cents):
    expect_cents(money, cents)


def check_raising(money):
    if money.cents < 0:
        raise AssertionError("negative")


def only_true(money):
    assert True


def ping(money):
    pong(money)


def pong(money):
    ping(money)


def log(money):
    print(money)
