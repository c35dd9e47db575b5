"""Vector norms: ``Tensor.norm``, ``torch.norm``, ``torch.linalg.vector_norm`` / ``linalg.norm``.

All of them record ``LinalgVectorNormBackward0``, as in PyTorch 2.13. Where the norm is 0 the
gradient is 0 (not NaN), and ``inf`` norms split the gradient evenly among tied maxima.

>>> import leafgrad as torch
>>> torch.tensor([3.0, 4.0]).norm()
tensor(5.)
"""
from __future__ import annotations

import math

import numpy as np

from .iter_layout import RED
from .registry import defop, export_function, bind_method, Sample
from .reduction import _dims, _const, unsqueeze_grad
from .. import dtypes as _dt
from .._libm import pow_c
from .._zerotensor import check_mutable

FAMILY = "linalg"


def _norm_dtype(rec, args):
    d = args[0]._data.dtype
    dtype = args[4]
    if dtype is not None:
        t = _dt.to_dtype(dtype).np
        if not np.can_cast(d, t, "safe"):
            raise RuntimeError(
                f"linalg.vector_norm: the dtype of the input ({_dt.from_numpy_dtype(d).tensor_type[:-6]}) "
                "should be convertible without narrowing to the specified dtype "
                f"({_dt.from_numpy_dtype(t).tensor_type[:-6]})")
        return t, t
    if d.kind not in "fc":
        raise RuntimeError("linalg.vector_norm: Expected a floating point or complex tensor as "
                           f"input. Got {_dt.from_numpy_dtype(d).tensor_type[:-6]}")
    return None, None


def _check_empty_reduction(shape, ord, dim) -> None:
    """inf and negative norms have no identity: an empty reduced dim is an error."""
    head = f"linalg.vector_norm cannot compute the {float(ord):g} norm on "
    if dim is None or (isinstance(dim, (tuple, list)) and not dim):
        raise RuntimeError(head + "an empty tensor because the operation does not have an "
                           "identity")
    for d in ([dim] if isinstance(dim, int) else dim):
        if shape[d] == 0:
            raise RuntimeError(head + f"the dimension {d}because this dimension is empty and "
                               "the operation does not have an identity")


def vector_norm_op(self, ord=2, dim=None, keepdim=False, *, dtype=None):
    """The ``ord``-norm of the elements over ``dim`` (all elements by default)."""
    axis = _dims(dim, self.ndim)   # (an out-of-range dim raises first, seed 121)
    if not self.size and (ord < 0 or ord == math.inf):
        _check_empty_reduction(self.shape, ord, dim)
    if ord != 0 and self.size and (self.ndim or dim is None or dim == [] or dim == ()) and all(
            self.shape[d] == 1 for d in (range(self.ndim) if axis is None
                                         else (axis,) if isinstance(axis, int) else axis)):
        # nothing to reduce (each output has one element): PyTorch's result is |x| exactly,
        # for every p (not pow(pow(|x|, p), 1/p), which rounds; fuzz seed 109). A 0-d input
        # with an explicit dim still takes the general path there.
        a = np.abs(self)
        return a if keepdim else a.reshape(np.sum(a, axis=axis, keepdims=False).shape)
    if self.dtype == np.float16:
        # PyTorch accumulates half norms in float32: (1e4)**2 must not overflow to inf
        return vector_norm_op(self.astype(np.float32), ord, dim, keepdim).astype(np.float16)
    a = np.abs(self)
    if ord == 2:
        return np.sqrt(np.sum(a * a, axis=axis, keepdims=keepdim))
    if ord == 1:
        return np.sum(a, axis=axis, keepdims=keepdim)
    if ord == math.inf:
        return np.max(a, axis=axis, keepdims=keepdim, initial=0)
    if ord == -math.inf:
        return np.min(a, axis=axis, keepdims=keepdim)
    if ord == 0:
        return np.sum(a != 0, axis=axis, keepdims=keepdim).astype(self.dtype)
    if a.ndim == 0:
        # ATen's reduction of one value: std::pow twice, 1 / p in the dtype (NumPy's own
        # AVX-512 pow rounds differently; _libm.pow_c)
        t = a.dtype.type
        return pow_c(pow_c(a, ord), t(1) / t(ord))
    with np.errstate(divide="ignore"):
        return np.power(np.sum(np.power(a, ord), axis=axis, keepdims=keepdim), 1.0 / ord)


def vector_norm_self(grad, self, result, ord, dim, keepdim):
    d = self._data
    shape = d.shape
    axis = _dims(dim, len(shape))
    if ord == 0:
        return None          # PyTorch leaves the gradient undefined (not even zeros)
    if ord == 1:   # PyTorch's self.sgn() * grad (the gradient unsqueezed, broadcast)
        return self.sgn() * unsqueeze_grad(grad, len(shape), dim, keepdim)
    keep = [1 if axis is None or i in axis else s for i, s in enumerate(shape)]
    if ord in (math.inf, -math.inf):
        r = result._data.reshape(keep) if not keepdim and shape else result._data
        # PyTorch's mask counts a NaN as an extreme (whose sgn is 0: a zero gradient)
        mask = (np.abs(d) == r) | np.isnan(d)
        # PyTorch's self.sgn() * ((grad / mask.sum(dim, True)) * mask)
        count = _const(mask.sum(axis=axis, keepdims=True).astype(np.int64))
        g = unsqueeze_grad(grad, len(shape), dim, keepdim)
        return self.sgn() * ((g / count) * _const(mask))
    # PyTorch's norm_backward, op for op: where the norm is 0 the first derivative is 0 (masked),
    # and the second is NaN (0 / 0 inside the masked division), as in PyTorch
    norm = result
    if not keepdim and shape:   # PyTorch's unsqueeze_multiple (UnsqueezeBackward0 nodes)
        grad = unsqueeze_grad(grad, len(shape), dim, keepdim)
        norm = unsqueeze_grad(result, len(shape), dim, keepdim)
    if ord == 2:
        return grad * (self / norm).masked_fill(norm == 0, 0)
    if ord < 1:
        scaled = self.sgn() * self.abs().pow(ord - 1).masked_fill(self == 0, 0)
        return scaled * grad * norm.pow(1 - ord)
    scaled = self.sgn() * self.abs().pow(ord - 1) if ord < 2 else self * self.abs().pow(ord - 2)
    scale = grad / norm.pow(ord - 1)
    if type(scale._data) is not np.ndarray:   # a zero tensor: PyTorch's masked_fill_ refuses it
        check_mutable(scale)                 # (Note [Zero tensors] in _zerotensor.py)
    return scaled * scale.masked_fill(norm == 0, 0)


def _norm_samples(make, shapes):
    base = shapes[1] or (3,)
    out = [Sample((make(base),), call="norm")]
    for p in (1, 3, 0.5, math.inf, -math.inf, "fro"):
        out.append(Sample((make(base), p), call="norm"))
    out.append(Sample((make(base),), {"dim": -1, "keepdim": True}, call="norm"))
    out.append(Sample((make(base), 2, 0), call="norm"))
    ties = np.asarray(np.round(make(base)))
    out.append(Sample((ties, math.inf), call="norm"))
    return out


_vnorm = defop("linalg_vector_norm", vector_norm_op, derivatives={"self": vector_norm_self},
               dtype=_norm_dtype, methods=(), functions=(), family=FAMILY,
               samples=_norm_samples, layout=RED)


def vector_norm(x, ord=2, dim=None, keepdim=False, *, dtype=None, out=None):
    """``torch.linalg.vector_norm``."""
    if isinstance(ord, str):
        raise RuntimeError(f"linalg.vector_norm: ord must be a number, got {ord}")
    return _vnorm.public(x, ord, dim, keepdim, dtype=dtype)


def norm(input, p="fro", dim=None, keepdim=False, out=None, dtype=None):
    """``torch.norm`` / ``Tensor.norm``: vector norms (``"fro"`` is the 2-norm)."""
    if p == "fro" or p is None:
        p = 2
    elif p == "nuc":
        from .linalg_pinv import matrix_norm
        return matrix_norm(input, "nuc", dim if dim is not None else (-2, -1), keepdim,
                           dtype=dtype)
    elif isinstance(p, str):
        raise RuntimeError(f"norm(): unsupported norm type {p}")
    return _vnorm.public(input, p, dim, keepdim, dtype=dtype)


def linalg_norm(A, ord=None, dim=None, keepdim=False, *, out=None, dtype=None):
    """``torch.linalg.norm``: the 2-norm of the flattened input when ``ord`` is None."""
    if ord is None:
        return _vnorm.public(A, 2, dim, keepdim, dtype=dtype)
    if A.dim() == 1 or (dim is not None and not isinstance(dim, (tuple, list))) or (
            isinstance(dim, (tuple, list)) and len(dim) == 1):
        return vector_norm(A, ord, dim, keepdim, dtype=dtype)
    if ord == "fro":
        return _vnorm.public(A, 2, dim if dim is not None else (-2, -1), keepdim, dtype=dtype)
    from .linalg_pinv import matrix_norm
    return matrix_norm(A, ord, dim if dim is not None else (-2, -1), keepdim, dtype=dtype)


export_function("norm", norm)
bind_method("norm", norm)
