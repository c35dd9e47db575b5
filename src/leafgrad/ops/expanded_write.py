"""In-place ops PyTorch lets write through an expanded tensor.

Note [Expanded writes]
Most in-place ops refuse a written-to tensor with internal overlap (a stride-0 dim of size
> 1, Note [Memory overlap] in overlap.py). ``index_fill_``, ``index_put_`` (so advanced
``x[index] = v``), ``masked_fill_``, ``tril_`` and ``triu_`` do not: they write element by
element into the shared memory (the first three with a deprecation warning each; an
``index_put_`` of one value under one bool mask runs ``masked_fill_``, which warns too). Only
the written places change, so where several elements share memory the last write wins, and
``index_put_(accumulate=True)`` adds every one of them. An out-of-place result copied over
the view (what ``commit_inplace`` does) would instead copy unwritten elements back too.

With autograd involved leafgrad keeps its usual path (rare: an expanded tensor of a graph).
"""
from __future__ import annotations

import functools
import warnings

import numpy as np

from ..grad_mode import state as _mode
from ..tensor import Tensor, bump_version
from .overlap import writable
from .registry import inplace_check

__all__: list = []

_DEPRECATED = {
    "index_fill_": ("tensor[mask] = scalar", 1913),
    "index_put_": ("tensor[indices] = tensor", 976),
    "masked_fill_": ("tensor[mask] = scalar", 2450),
}


def internal_overlap(data: np.ndarray) -> bool:
    """Whether ``data`` has a stride-0 dim of size > 1 (and elements)."""
    return 0 in data.strides and data.size > 0 and any(
        s == 0 and n > 1 for n, s in zip(data.shape, data.strides))


def warn_expanded(name: str, stacklevel: int = 3) -> None:
    example, line = _DEPRECATED[name]
    warnings.warn(f"Use of {name} on expanded tensors is deprecated. Please clone() the tensor "
                  f"before performing this operation. This also applies to advanced indexing "
                  f"e.g. {example} (Triggered internally at "
                  f"/__w/pytorch/pytorch/aten/src/ATen/native/TensorAdvancedIndexing.cpp:{line}"
                  ".)", UserWarning, stacklevel=stacklevel + 1)


def _grad_involved(self, args, kwargs) -> bool:
    if not _mode.grad_enabled:
        return False
    return self._requires_grad or any(
        isinstance(a, Tensor) and a._requires_grad for a in (*args, *kwargs.values()))


def through_expanded(name: str, inplace, write):
    """``inplace`` (the op's usual in-place function), except on an expanded ``self`` without
    autograd, where ``write(self, *args, **kwargs)`` writes into ``self``'s shared memory
    (after PyTorch's deprecation warning when it has one). ``write`` runs the op's own checks
    (by computing it out of place) before it writes anything."""
    @functools.wraps(inplace)
    def op(self, *args, **kwargs):
        if not internal_overlap(self._data) or _grad_involved(self, args, kwargs):
            return inplace(self, *args, **kwargs)
        inplace_check(self, args, kwargs)
        if name in _DEPRECATED:
            warn_expanded(name)
        write(self, *args, **kwargs)
        bump_version(self)
        return self
    return op


def write_where(self: Tensor, values: np.ndarray, mask: np.ndarray) -> None:
    """``values`` at ``mask`` into ``self``'s (shared) memory, in order: the last write to a
    place wins."""
    mask = np.broadcast_to(mask, self._data.shape)
    writable(self._data)[mask] = np.broadcast_to(values, self._data.shape)[mask]
