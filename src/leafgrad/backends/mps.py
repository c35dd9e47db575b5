"""Apple MPS: not available in leafgrad."""
from __future__ import annotations


def is_available() -> bool:
    return False


def is_built() -> bool:
    return False
