import pytest
from syrupy.extensions.single_file import SingleFileSnapshotExtension

@pytest.mark.witness
def test_amber(snapshot):
    assert {"a": 1} == snapshot

@pytest.mark.witness
@pytest.mark.parametrize("x", [1, 2])
def test_amber_p(snapshot, x):
    assert x == snapshot

class TestK:
    @pytest.mark.witness
    def test_single(self, snapshot):
        assert b"bytes" == snapshot(extension_class=SingleFileSnapshotExtension)
        assert b"two" == snapshot(extension_class=SingleFileSnapshotExtension)

@pytest.mark.merge
def test_plain():
    """owner: team"""
    assert 1 + 1 == 2
