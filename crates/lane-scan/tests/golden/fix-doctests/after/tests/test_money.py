"""owner: @shop/team"""

import pytest
from shop.money import cents

pytestmark = pytest.mark.merge


def test_cents():
    assert cents("3.5") == 350
