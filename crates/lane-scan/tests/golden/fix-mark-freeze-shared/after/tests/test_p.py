"""owner: @team"""
import pytest


class Base:
    def test_shared(self):
        assert 1 + 1 == 2


# Not uniform: test_shared (merge) is defined in Base, which TestBroken shares (freeze), so
# one decorator on it would give TestBroken::test_shared a second lane.
class TestPlain(Base):
    @pytest.mark.freeze
    @pytest.mark.xfail(reason="bug 9", strict=True)
    def test_bug(self):
        assert 1 == 2


@pytest.mark.freeze
@pytest.mark.xfail(reason="bug 10", strict=False)
class TestBroken(Base):
    pass


@pytest.mark.freeze
@pytest.mark.xfail(reason="bug 8", strict=True)
def test_known_bug():
    assert 1 == 2


@pytest.mark.merge
def test_plain():
    assert 1 + 1 == 2
