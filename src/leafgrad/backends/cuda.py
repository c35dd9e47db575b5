"""CUDA backend flags: leafgrad has no CUDA build."""
from __future__ import annotations


def is_built() -> bool:
    return False
