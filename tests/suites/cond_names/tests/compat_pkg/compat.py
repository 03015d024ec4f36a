"""Module-level names built from what lane-scan decides."""
import platform
import sys

PY3 = sys.version_info[0] == 3
PY2 = not PY3
OLD_PYTHON = sys.version_info[:2] < (3, 6)
ON_WINDOWS = sys.platform == "win32" or platform.system() == "Windows"
CPYTHON = platform.python_implementation() == "CPython"

if sys.version_info >= (3, 8):
    HAS_WALRUS = True
else:
    HAS_WALRUS = False

MODERN = HAS_WALRUS and not OLD_PYTHON
