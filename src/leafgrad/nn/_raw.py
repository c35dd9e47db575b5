"""In-place writes on a tensor's array, for code that runs under ``no_grad`` by contract.

nn.init, ``load_state_dict`` and ``zero_grad`` change parameters without recording history,
exactly as PyTorch's ``fill_``/``copy_``/``zero_`` do under ``no_grad``: the values change in
place (views and optimizers holding the tensor see them) and the version counter moves on,
so a graph that saved the old value still notices.
"""
from __future__ import annotations

import numpy as np

from ..tensor import Tensor, bump_version

__all__ = ["write_", "fill_", "zero_", "fill_index_"]


def write_(t: Tensor, values) -> Tensor:
    """``t.copy_(values)`` without history: broadcast, cast, bump the version."""
    src = values._data if isinstance(values, Tensor) else values
    np.copyto(t._data, src, casting="unsafe")
    bump_version(t)
    return t


def fill_(t: Tensor, value) -> Tensor:
    t._data[...] = value
    bump_version(t)
    return t


def zero_(t: Tensor) -> Tensor:
    return fill_(t, 0)


def fill_index_(t: Tensor, index, value) -> Tensor:
    """``t[index] = value`` without history (e.g. zeroing an embedding's padding row)."""
    t._data[index] = value
    bump_version(t)
    return t
