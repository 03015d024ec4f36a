from pathlib import Path
import pytest

@pytest.mark.witness
def test_snap(snapshot):
    snapshot.assert_match("abc", "out.txt")

@pytest.mark.witness
@pytest.mark.parametrize("k", ["a/b", "c"])
def test_snap_p(snapshot, k):
    snapshot.assert_match(k, "k.txt")

@pytest.mark.witness
def test_custom(snapshot):
    snapshot.snapshot_dir = "tests/custom_snaps"
    snapshot.assert_match("x", "x.txt")


@pytest.mark.witness
def test_computed_dir(snapshot):
    snapshot.snapshot_dir = Path(__file__).parent / "elsewhere"
    snapshot.assert_match("x", "x.txt")


@pytest.mark.witness
def test_dir_outside(snapshot):
    snapshot.snapshot_dir = "../outside"
    snapshot.assert_match("x", "x.txt")


@pytest.mark.merge
def test_merge_uses_a_snapshot(snapshot):
    """owner: team"""
    snapshot.assert_match("m", "m.txt")
