"""Reductions: sum, mean, prod, max/min, var/std, norm, logsumexp, cumulative ops."""
from __future__ import annotations

import numpy as np

from .registry import defop
from ..dtypes import get_default_dtype

FAMILY = "reduction"


def _dims(dim, ndim):
    """PyTorch's ``dim`` argument (None, int, or sequence; [] means all) as a NumPy axis."""
    if dim is None:
        return None
    if isinstance(dim, (list, tuple)):
        if len(dim) == 0:
            return None
        n = max(ndim, 1)
        out = []
        for d in dim:
            if not -n <= d < n:
                raise IndexError(f"Dimension out of range (expected to be in range of "
                                 f"[{-n}, {n - 1}], but got {d})")
            d = d % n
            if d in out:
                raise RuntimeError(f"dim {d} appears multiple times in the list of dims")
            out.append(d)
        return tuple(out) if ndim else None
    n = max(ndim, 1)
    if not -n <= dim < n:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-n}, {n - 1}]"
                         f", but got {dim})")
    return (dim % n,) if ndim else None


def _sum_dtype(rec, args):
    dtype = args[3]
    if dtype is not None:
        from ..dtypes import to_dtype
        d = to_dtype(dtype).np
        return d, d
    d = args[0]._data.dtype if hasattr(args[0], "_data") else np.dtype(np.float32)
    if d.kind in "biu":
        return None, np.dtype(np.int64)
    return None, d


def sum(self, dim=None, keepdim=False, *, dtype=None):
    """Sum over ``dim`` (all elements by default)."""
    axis = _dims(dim, np.ndim(self))
    return np.sum(self, axis=axis, keepdims=keepdim)


def expand_grad(grad, self_shape, dim, keepdim):
    """Broadcast a reduced gradient back over the reduced dims."""
    if not keepdim and dim is not None and len(self_shape):
        axis = _dims(dim, len(self_shape))
        if axis is not None:
            shape = list(grad._data.shape)
            for a in sorted(axis):
                shape.insert(a, 1)
            grad = grad.reshape(shape)
    return grad.expand(self_shape)


def sum_self(grad, self_shape, dim, keepdim):
    return expand_grad(grad, self_shape, dim, keepdim)


defop("sum", sum, derivatives={"self": sum_self}, dtype=_sum_dtype, family=FAMILY)


def _mean_dtype(rec, args):
    d = args[0]._data.dtype
    dtype = args[3]
    if dtype is not None:
        from ..dtypes import to_dtype
        d = to_dtype(dtype).np
        return d, d
    if d.kind not in "f":
        raise RuntimeError(
            "mean(): could not infer output dtype. Input dtype must be either a floating "
            f"point or complex dtype. Got: {_name(d)}")
    return None, d


def _name(np_dtype):
    from ..dtypes import from_numpy_dtype
    return from_numpy_dtype(np_dtype).name.capitalize()


def mean(self, dim=None, keepdim=False, *, dtype=None):
    """Mean over ``dim`` (all elements by default)."""
    axis = _dims(dim, np.ndim(self))
    return np.mean(self, axis=axis, keepdims=keepdim)


def mean_self(grad, self_shape, dim, keepdim):
    n = 1
    axis = _dims(dim, len(self_shape))
    for i, s in enumerate(self_shape):
        if axis is None or i in axis:
            n *= s
    return expand_grad(grad, self_shape, dim, keepdim) / n


defop("mean", mean, derivatives={"self": mean_self}, dtype=_mean_dtype, family=FAMILY)
del get_default_dtype
