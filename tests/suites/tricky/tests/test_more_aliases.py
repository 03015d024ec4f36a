"""More ways for marks to travel: chains, star imports, re-exports, dotted modules, decorators."""
import abc
import functools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import pkg.marks
from lanemarks_star import *  # noqa: F403
from pkg import merge as reexported_merge
from sharedcases import DisabledBase, TestSharedCase, test_shared_function

merge = pytest.mark.merge
lane = merge
FROZEN_LIST = [pytest.mark.freeze, pytest.mark.slow]
SMOKE_LIST = [pytest.mark.smoke]


def traced(fn):
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        return fn(*args, **kwargs)

    return wrapper


@lane
def test_alias_of_alias():
    assert "chain"


@star_merge  # noqa: F405
def test_star_imported_alias():
    assert "star"


@STAR_WITNESS  # noqa: F405
def test_star_imported_constant():
    assert "constant"


@reexported_merge
def test_reexported_from_package_init():
    assert "init"


@pkg.marks.witness
def test_dotted_module_attribute():
    assert "dotted"


@traced
@pytest.mark.merge
def test_mark_under_a_wrapping_decorator():
    assert "wrapped"


@pytest.mark.merge
@traced
def test_mark_over_a_wrapping_decorator():
    assert "wrapper"


@pytest.mark.merge
@settings(max_examples=5)
@given(st.integers())
def test_property_with_given(n):
    """shrinking: integers shrink towards 0."""
    assert n + 0 == n


@pytest.mark.merge
@pytest.mark.filterwarnings("ignore::DeprecationWarning")
@pytest.mark.usefixtures("tmp_path")
def test_builtin_marks():
    assert "builtin"


class TestListBoundToAName:
    pytestmark = FROZEN_LIST

    def test_named_list(self):
        assert "list"


class TestConcatenatedList:
    pytestmark = SMOKE_LIST + [merge]

    def test_concatenated_list(self):
        assert "concat"


class TestStillDisabled(DisabledBase):
    """Inherits __test__ = False: not collected."""

    def test_not_collected(self):
        assert False


@pytest.mark.merge
class TestAbstract(abc.ABC):
    """Abstract classes are not collected."""

    @abc.abstractmethod
    def helper(self):
        raise NotImplementedError

    def test_not_collected(self):
        assert False
