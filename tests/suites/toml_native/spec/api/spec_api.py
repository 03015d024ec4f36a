from pytest import mark

pytestmark = [mark.freeze]


def it_retries():
    assert "retry"
