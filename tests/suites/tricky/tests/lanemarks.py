"""Lane marks re-exported from a helper module inside the tree (imported by test files)."""
import pytest

merge_lane = pytest.mark.merge
golden = pytest.mark.witness(fixture="data/golden.txt")
FREEZE = pytest.mark.freeze
