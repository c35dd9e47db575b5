"""``repeat_interleave``: each element (or slice along ``dim``) repeated in place.

PyTorch builds it from other ops, and its graph shows which: a Python int ``repeats`` is
``unsqueeze -> expand -> clone -> view`` (ViewBackward0 on top), a tensor ``repeats`` is an
``index_select`` with the repeated positions (IndexSelectBackward0). Without ``dim`` the input
is flattened first.

>>> import leafgrad as torch
>>> torch.tensor([[1, 2], [3, 4]]).repeat_interleave(2, dim=0)
tensor([[1, 2],
        [1, 2],
        [3, 4],
        [3, 4]])
>>> torch.repeat_interleave(torch.tensor([2, 1]))
tensor([0, 0, 1])
"""
from __future__ import annotations

import numpy as np

from .. import dtypes as _dt
from ..tensor import Tensor, _wrap, _wrap_dim
from .registry import bind_method, export_function

__all__ = ["repeat_interleave"]


def _positions(repeats: Tensor) -> Tensor:
    """``repeat_interleave(repeats)``: index i written repeats[i] times (int64)."""
    counts = repeats._data
    if counts.ndim > 1:
        raise RuntimeError("repeats must be 0-dim or 1-dim tensor")
    if counts.dtype.kind not in "iu":
        raise RuntimeError("repeat_interleave only supports integral repeats, but got "
                           f"{_dt.from_numpy_dtype(counts.dtype)}")  # noqa: E501
    counts = counts.reshape(-1)
    if counts.size and counts.min() < 0:
        raise RuntimeError("repeats can not be negative")
    return _wrap(np.repeat(np.arange(counts.size, dtype=np.int64), counts))


def repeat_interleave(input, repeats=None, dim=None, *, output_size=None):
    """Repeat elements of ``input`` (``repeats`` an int or a tensor of counts) along ``dim``
    (flattened when ``dim`` is None); with only a tensor of counts, the repeated indices."""
    if repeats is None:
        return _positions(input)
    if dim is None:
        input = input.flatten()
        dim = 0
    if input.dim() == 0:   # PyTorch's messages for a 0-d input
        if isinstance(repeats, Tensor):   # any dim, unchecked
            raise IndexError(f"Dimension specified as {dim} but tensor has no dimensions")
        _wrap_dim(dim, 0)
        raise IndexError("Dimension out of range (expected to be in range of [-1, 0], but got "
                         "1)")
    given, dim = dim, _wrap_dim(dim, input.dim())
    if isinstance(repeats, Tensor):
        n = input.shape[dim]
        if repeats.dim() == 1 and repeats.numel() not in (1, n):   # (the dim as given)
            raise RuntimeError("repeats must have the same size as input along dim, but got "
                               f"repeats.size(0) = {repeats.numel()} and input.size({given}) = "
                               f"{n}")
        if repeats.numel() == 1:
            repeats = repeats.reshape(1).expand(n)
        return input.index_select(dim, _positions(repeats))
    if repeats < 0:
        raise RuntimeError("Repeats must be non-negative")
    shape = list(input.shape)
    expanded = shape[:dim + 1] + [repeats] + shape[dim + 1:]
    out_shape = shape[:dim] + [shape[dim] * repeats] + shape[dim + 1:]
    return input.unsqueeze(dim + 1).expand(expanded).clone().view(out_shape)


bind_method("repeat_interleave", repeat_interleave)
export_function("repeat_interleave", repeat_interleave)

from . import out_variants  # noqa: E402,F401  (wraps torch.matmul & co. for out=; see there)
