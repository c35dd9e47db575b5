"""PyTorch's argument checks and messages for the matrix products (matmul, mm, bmm, mv, dot,
addmm): which kernel PyTorch's composite ``matmul`` reaches decides which checks run, in which
order, and so which message an error shows (see ops/linalg.py for the records themselves).

>>> import leafgrad as torch
>>> torch.ones(2, 3) @ torch.ones(2, 3)
Traceback (most recent call last):
    ...
RuntimeError: mat1 and mat2 shapes cannot be multiplied (2x3 and 2x3)
"""
from __future__ import annotations

import numpy as np

from .. import dtypes as _dt
from ..tensor import Tensor

_C_NAMES = {"float32": "float", "float64": "double", "float16": "c10::Half", "int64": "long int",
            "int32": "int", "int16": "short int", "int8": "signed char", "uint8": "unsigned char",
            "bool": "bool"}


def _cname(a):
    return _C_NAMES.get(a.dtype.name, a.dtype.name)


def _tname(a):
    return _dt.from_numpy_dtype(a.dtype).tensor_type[:-len("Tensor")]


def _dims_str(shape):
    return "x".join(map(str, shape))



def _check_tensor(name, value, pos, param):
    if not isinstance(value, Tensor):
        raise TypeError(f"{name}(): argument '{param}' (position {pos}) must be Tensor, not "
                        f"{type(value).__name__}")


def _same_dtype_mm(a, b):
    if a.dtype != b.dtype:
        raise RuntimeError(f"expected m1 and m2 to have the same dtype, but got: {_cname(a)} != "
                           f"{_cname(b)}")


def _check_dot(a, b):
    if a.ndim != 1 or b.ndim != 1:
        raise RuntimeError(f"1D tensors expected, but got {a.ndim}D and {b.ndim}D tensors")
    if a.dtype != b.dtype:
        raise RuntimeError(f"dot : expected both vectors to have same dtype, but found "
                           f"{_tname(a)} and {_tname(b)}")
    if a.shape[0] != b.shape[0]:
        raise RuntimeError(f"inconsistent tensor size, expected tensor [{a.shape[0]}] and src "
                           f"[{b.shape[0]}] to have the same number of elements, but got "
                           f"{a.shape[0]} and {b.shape[0]} elements respectively")


def _check_mv(a, b, rows=None):
    m, k = (rows if rows is not None else a.shape[0]), a.shape[-1]
    if k != b.shape[0]:   # sizes first, then dtypes, as PyTorch's addmv
        raise RuntimeError(f"size mismatch, got input ({m}), mat ({m}x{k}), vec ({b.shape[0]})")
    if a.dtype != b.dtype:
        raise RuntimeError(f"addmv input tensors must have the same dtype, but got {_tname(b)}, "
                           f"{_tname(a)}, and {_tname(b)}")


def _no_bool(kernel, a, out_numel=1, k=1):
    """PyTorch's BLAS-backed kernels have no bool version; an empty product (no output, or
    nothing to sum over) returns before the kernel is chosen."""
    if a.dtype == np.bool_ and out_numel and k:
        from .pointwise_common import not_implemented_for
        raise not_implemented_for(kernel, a)


def _check_mm(a_shape, b_shape):
    if a_shape[1] != b_shape[0]:
        raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied ({_dims_str(a_shape)} "
                           f"and {_dims_str(b_shape)})")


def _bcast_batch(sa, sb):
    """Broadcast two batch shapes with PyTorch's message."""
    out = []
    for i in range(1, max(len(sa), len(sb)) + 1):
        x = sa[-i] if i <= len(sa) else 1
        y = sb[-i] if i <= len(sb) else 1
        if x != y and x != 1 and y != 1:
            n = max(len(sa), len(sb))
            raise RuntimeError(f"The size of tensor a ({x}) must match the size of tensor b "
                               f"({y}) at non-singleton dimension {n - i}")
        out.append(max(x, y) if x != 0 and y != 0 else 0)
    return tuple(reversed(out))


def _should_fold(input, other, a, b):
    """Does PyTorch's matmul fold the operand with more dims into a matrix (one mm / mv)
    rather than run a batched bmm? (Which checks run, and so which message, depends on it.)

    The larger operand (``other.mT`` when ``other`` has more dims) must have 3+ dims against
    1 or 2; then it folds when the smaller one requires grad, never for a matrix ``input``
    otherwise, always when empty, else when its leading dims can be viewed as one."""
    da, db = a.ndim, b.ndim
    larger_first = da >= db
    big = a if larger_first else np.swapaxes(b, -1, -2)
    if not (big.ndim >= 3 and (db if larger_first else da) <= 2):
        return False
    if (other if larger_first else input)._requires_grad:
        return True
    if da == 2:
        return False
    if big.size == 0:
        return True
    item = big.itemsize
    st, sh = big.strides, big.shape
    return all(st[i] // item == st[i + 1] // item * sh[i + 1] for i in range(big.ndim - 2))


def _check_folded(a, b):
    """The checks of the folded product: ``a.reshape(-1, k) @ b`` (mm or mv) when ``a`` has
    more dims, else ``b.mT.reshape(-1, k) @ a.t()`` (or ``@ a``) and a transpose."""
    if a.ndim >= b.ndim:
        rows, k = int(np.prod(a.shape[:-1])), a.shape[-1]
        if b.ndim == 1:
            _check_mv(a, b, rows)
            _no_bool("addmv_impl_cpu", a, rows, k)
        else:
            _check_mm((rows, k), b.shape)
            _same_dtype_mm(a, b)
            _no_bool("addmm_impl_cpu_", a, rows * b.shape[1], k)
        return
    k, n = b.shape[-2], b.shape[-1]
    rows = int(np.prod(b.shape[:-2])) * n
    mat = (rows, k)
    if a.ndim == 1:
        if k != a.shape[0]:
            raise RuntimeError(f"size mismatch, got input ({rows}), mat ({rows}x{k}), vec "
                               f"({a.shape[0]})")
        if a.dtype != b.dtype:
            raise RuntimeError(f"addmv input tensors must have the same dtype, but got "
                               f"{_tname(a)}, {_tname(b)}, and {_tname(a)}")
        _no_bool("addmv_impl_cpu", b, rows, k)
    else:
        _check_mm(mat, (a.shape[1], a.shape[0]))
        _same_dtype_mm(b, a)
        _no_bool("addmm_impl_cpu_", b, rows * a.shape[0], k)


def _check_bmm_path(a, b):
    """The checks of PyTorch's batched path: broadcast the batch dims, expand both to 3-D,
    bmm. Returns normally for an empty product whatever the dtypes (see matmul)."""
    n, m1 = (a.shape[-2] if a.ndim > 1 else 1), a.shape[-1]
    m2, p = (b.shape[-2], b.shape[-1]) if b.ndim > 1 else (b.shape[0], 1)
    batch = _bcast_batch(a.shape[:-2], b.shape[:-2])
    count = int(np.prod(batch))
    if m2 != m1:
        raise RuntimeError(f"Expected size for first two dimensions of batch2 tensor to be: "
                           f"[{count}, {m1}] but got: [{count}, {m2}].")
    if count * n * p == 0 or m1 == 0:
        return
    _no_bool("bmm", a)   # the kernel is chosen by batch1's dtype, then batch2's is checked
    if a.dtype != b.dtype:
        raise RuntimeError(f"expected scalar type {_tname(a)} but found {_tname(b)}")
