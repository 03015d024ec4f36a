"""Re-exported by the package with `from .flags import *`."""
from .compat import MODERN

__all__ = ["FAST_PATH"]

FAST_PATH = MODERN
SLOW_PATH = not MODERN
