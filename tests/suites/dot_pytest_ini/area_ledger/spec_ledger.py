import pytest


@pytest.mark.witness
def test_ledger_layout():
    assert "ledger"
