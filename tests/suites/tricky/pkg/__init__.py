"""Re-exports a lane mark so tests can write `from pkg import merge`."""
from .marks import merge

__all__ = ["merge"]
