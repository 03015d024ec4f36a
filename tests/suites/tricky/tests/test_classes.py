"""Class decorators, class pytestmark, nested classes, __init__, static/class methods, __test__."""
import pytest
from pytest import mark


@pytest.mark.merge
class TestDecoratedClass:
    def test_gets_class_mark(self):
        assert 10 // 3 == 3

    @pytest.mark.slow
    def test_class_mark_and_own_mark(self):
        assert 10 % 3 == 1


class TestClassPytestmarkSingle:
    pytestmark = pytest.mark.witness

    def test_single(self):
        assert "a" < "b"


class TestClassPytestmarkList:
    pytestmark = [mark.freeze, mark.smoke]

    def test_list(self):
        assert [] is not None


@pytest.mark.merge
class TestOuter:
    def test_outer(self):
        assert 1 < 2

    class TestInner:
        def test_inner_gets_outer_mark(self):
            assert 2 < 3

        @pytest.mark.smoke
        class TestInnermost:
            def test_innermost(self):
                assert 3 < 4

    class HelperInner:
        def test_not_collected_inner(self):
            assert False


class TestNestedMarkOnlyInside:
    @pytest.mark.witness
    class TestMarkedInner:
        def test_inner_mark(self):
            assert "in" in "inner"


@pytest.mark.merge
class TestWithInit:
    """pytest refuses classes with __init__: nothing here is collected."""

    def __init__(self):
        self.value = 1

    def test_never_collected(self):
        assert self.value == 1


class TestStaticAndClassMethods:
    @staticmethod
    @pytest.mark.merge
    def test_static():
        assert 4 ** 0.5 == 2

    @classmethod
    @pytest.mark.witness
    def test_classmethod(cls):
        assert cls.__name__.startswith("Test")


class TestDunderTestFalse:
    __test__ = False

    @pytest.mark.merge
    def test_only_in_subclasses(self):
        assert type(self) is not TestDunderTestFalse


@pytest.mark.merge
class TestReenabled(TestDunderTestFalse):
    """A concrete subclass turns collection back on."""

    __test__ = True

    def test_own(self):
        assert True is True or False


@pytest.mark.merge
def test_function_dunder_false():
    assert False


test_function_dunder_false.__test__ = False


class TestAsync:
    @pytest.mark.freeze
    async def test_async_method(self):
        assert 1


@pytest.mark.freeze
async def test_async_function():
    assert 1
