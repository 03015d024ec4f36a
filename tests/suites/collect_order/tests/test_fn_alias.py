"""A plain re-binding of a function is a test under the new name, with the
function's marks."""

import pytest

from helpers import bases


@pytest.mark.witness
def check_totals():
    assert 1 + 1 == 2


test_totals_again = check_totals
test_shared = bases.shared_check
