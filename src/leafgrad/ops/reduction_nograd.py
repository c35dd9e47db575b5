"""Reductions without a gradient: all, any, argmax, argmin.

>>> import leafgrad as torch
>>> torch.tensor([[1, 5], [7, 2]]).argmax(1)
tensor([1, 0])
"""
from __future__ import annotations

import numpy as np

from .registry import defop, Sample
from .reduction import FAMILY, _dims, _wrap_dim

__all__: list = []


# -- all / any / argmax / argmin (no gradient) ---------------------------------------------------
def _logical(fn, self, dim, keepdim):
    axis = _dims(dim, self.ndim) if dim is not None else None
    out = fn(self, axis=axis, keepdims=keepdim)
    return out.astype(np.uint8) if self.dtype == np.uint8 else out


def all(self, dim=None, keepdim=False):
    """True where every element (along ``dim``) is non-zero."""
    return _logical(np.all, self, dim, keepdim)


def any(self, dim=None, keepdim=False):
    """True where some element (along ``dim``) is non-zero."""
    return _logical(np.any, self, dim, keepdim)


defop("all", all, dtype="same", family=FAMILY)
defop("any", any, dtype="same", family=FAMILY)


def _arg(fn, name, self, dim, keepdim):
    if self.dtype == np.bool_:
        raise RuntimeError(f"{name}(): does not support bool input")
    if dim is None:
        if self.size == 0:   # PyTorch raises IndexError here (max() raises RuntimeError)
            raise IndexError(f"{name}(): Expected reduction dim to be specified for "
                             "input.numel() == 0.")
        out = np.asarray(fn(self.reshape(-1)), dtype=np.int64)
        return out.reshape((1,) * self.ndim) if keepdim else out
    axis = _wrap_dim(dim, max(self.ndim, 1))
    if self.ndim == 0:
        return np.zeros((), np.int64)
    if self.shape[axis] == 0:
        raise IndexError(f"{name}(): Expected reduction dim {axis} to have non-zero size.")
    return fn(self, axis=axis, keepdims=keepdim).astype(np.int64, copy=False)


def argmax(self, dim=None, keepdim=False):
    """Index of the largest value (first one on ties), over all or along ``dim``."""
    return _arg(np.argmax, "argmax", self, dim, keepdim)


def argmin(self, dim=None, keepdim=False):
    """Index of the smallest value (first one on ties)."""
    return _arg(np.argmin, "argmin", self, dim, keepdim)


defop("argmax", argmax, dtype="same", family=FAMILY,
      samples=lambda make, shapes: [Sample((make(shapes[1]),), grad=False)] + (
          [Sample((make(shapes[1]), -1, True), grad=False)] if shapes[1] else []))
defop("argmin", argmin, dtype="same", family=FAMILY,
      samples=lambda make, shapes: [Sample((make(shapes[1]),), grad=False)] + (
          [Sample((make(shapes[1]), 0), grad=False)] if shapes[1] else []))
