"""Tests defined under conditions that read names from the suite's own modules, the standard
library and an installed package: lane-scan follows each name to its module-level value."""
import compat_pkg.compat as c
import pytest
from compat_pkg import FAST_PATH, IS_PY3, compat
from compat_pkg.compat import MODERN, PY2
from hypothesis.internal.compat import PYPY, WINDOWS
from posixpath import supports_unicode_filenames

if c.PY3:

    @pytest.mark.merge
    def test_py3():
        assert True

else:

    @pytest.mark.merge
    def test_py2():
        assert False


if PY2 or compat.OLD_PYTHON:

    @pytest.mark.merge
    def test_never():
        assert False


@pytest.mark.merge
class TestInClassBody:
    if IS_PY3 and MODERN:

        def test_modern(self):
            assert True

    else:

        def test_legacy(self):
            assert False

    if c.ON_WINDOWS or not c.CPYTHON:

        def test_windows_or_pypy(self):
            assert False


if FAST_PATH:

    @pytest.mark.merge
    def test_fast_path():
        assert True


if PYPY or WINDOWS:

    @pytest.mark.merge
    def test_pypy_or_windows():
        assert False

else:

    @pytest.mark.merge
    def test_cpython_not_windows():
        assert True


if not supports_unicode_filenames:

    @pytest.mark.merge
    def test_stdlib_name():
        assert True


PY3 = False
if PY3:

    @pytest.mark.merge
    def test_rebound_below():
        assert False
