"""Lane marks for the package's tests."""
import pytest

merge = pytest.mark.merge
witness = pytest.mark.witness
freeze = pytest.mark.freeze
