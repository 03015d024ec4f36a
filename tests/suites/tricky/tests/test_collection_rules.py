"""pytest's collection rules beyond names: constructors, fixtures, decorator order, blocks."""
import sys

import pytest


class TestDecoratorOrder:
    """A mark applied outside @staticmethod / @classmethod still reaches the test."""

    @pytest.mark.merge
    @staticmethod
    def test_mark_outside_staticmethod():
        assert len("static") == 6

    @pytest.mark.witness
    @classmethod
    def test_mark_outside_classmethod(cls):
        assert cls is TestDecoratorOrder


class HasInit:
    def __init__(self):
        self.ready = True


@pytest.mark.merge
class TestInheritsInit(HasInit):
    """An inherited __init__ stops collection too."""

    def test_never_collected(self):
        assert self.ready


@pytest.mark.merge
class TestHasNew:
    """So does __new__."""

    def __new__(cls):
        return super().__new__(cls)

    def test_never_collected(self):
        assert False


@pytest.fixture
def test_input():
    """A fixture whose name looks like a test: pytest does not collect it."""
    return 3


@pytest.mark.merge
def test_uses_fixture_named_like_a_test(test_input):
    assert test_input == 3


if sys.version_info >= (3, 8):

    @pytest.mark.merge
    def test_defined_in_if_block():
        assert sys.version_info >= (3, 8)
