"""A package of the suite whose compat module decides what the tests define."""
from .compat import PY3 as IS_PY3  # noqa: F401
from .flags import *  # noqa: F401,F403
