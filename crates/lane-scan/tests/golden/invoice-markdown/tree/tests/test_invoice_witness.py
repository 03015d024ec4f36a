from decimal import Decimal
from pathlib import Path

import pytest

from invoice import render_statement

HERE = Path(__file__).parent
LINES = [("consulting", Decimal("1200.00")), ("travel", Decimal("245.50"))]


@pytest.mark.witness(fixture="fixtures/statement_v3.txt")
def test_statement_matches_golden_file():
    golden = (HERE / "fixtures" / "statement_v3.txt").read_text(encoding="utf-8")
    assert render_statement("c-1044", LINES, Decimal("100.00")) == golden


@pytest.mark.witness(locked_on="2026-11-02")
def test_statement_layout_characterization():
    rendered = render_statement("c-7", [("setup", Decimal("5"))], Decimal("10"))
    assert rendered.splitlines()[-1] == "due                         0.00"
    assert all(len(line) == 32 for line in rendered.splitlines())
