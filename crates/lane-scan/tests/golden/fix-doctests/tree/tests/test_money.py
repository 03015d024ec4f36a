from shop.money import cents


def test_cents():
    assert cents("3.5") == 350
