"""Distances: ``cdist`` (PyTorch's direct kernel, whose backward is a record of its own that
refuses a second derivative, and its twice-differentiable matmul path for p = 2) and
``dist``. Registered with matmul_extra.py (the linalg family), which imports this module.

>>> import leafgrad as torch
>>> torch.cdist(torch.zeros(1, 2), torch.ones(2, 2), p=1)
tensor([[2., 2.]])
"""
from __future__ import annotations

import math

import numpy as np

from .iter_layout import RED
from .registry import defop, export_function, Sample, promote
from .linalg import matmul, _cname, _tname
from .norms import vector_norm_self
from ..errors import broadcast_error
from ..tensor import Tensor
from ..autograd.graph import sum_to

FAMILY = "linalg"


def _pairwise_norm(diff, p, axis=-1):
    a = np.abs(diff)
    if p == 2:
        return np.sqrt(np.sum(a * a, axis=axis))
    if p == 1:
        return np.sum(a, axis=axis)
    if p == math.inf:
        return np.max(a, axis=axis, initial=0)
    if p == -math.inf:   # the smallest |d| (NaN propagates), as vector_norm (fuzz seed 110)
        return np.min(a, axis=axis)
    if p == 0:
        return np.sum(a != 0, axis=axis).astype(diff.dtype)
    return np.power(np.sum(np.power(a, p), axis=axis), 1.0 / p)


def cdist(x1, x2, p=2.0, compute_mode=None):
    """Pairwise ``p``-norm distances between the rows of ``x1`` and of ``x2``."""
    diff = x1[..., :, None, :] - x2[..., None, :, :]
    # PyTorch's kernel, where NaN differs from vector_norm: the inf-norm folds
    # std::max(agg, |d|) from 0 (a NaN difference never wins), the 0-norm sums
    # min(ceil(|d|), 1) (a NaN difference makes it NaN)
    if p == math.inf:
        return np.fmax.reduce(np.abs(diff), axis=-1, initial=0)
    if p == 0:
        return np.sum(np.minimum(np.ceil(np.abs(diff)), 1), axis=-1)
    return _pairwise_norm(diff, p)


def _cdist_backward(grad, x1, x2, p, cdist):
    """The gradient of ``cdist`` for ``x1`` (PyTorch's ``_cdist_backward`` kernel, at the
    broadcast batch shape): per pair, the p-norm's local derivative, zero where the distance
    is zero (p = 2 or general p), where the difference is zero (p < 1), and everywhere for
    p = 0 or empty inputs."""
    batch = np.broadcast_shapes(x1.shape[:-2], x2.shape[:-2])
    shape = batch + x1.shape[-2:]
    if p == 0 or not grad.size or not x1.size or not x2.size:
        return np.zeros(shape, x1.dtype)
    diff = x1[..., :, None, :] - x2[..., None, :, :]
    dist = cdist[..., None]
    g = grad[..., None]
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        if p == 1:
            local = np.sign(diff) * g
        elif p < 1:
            local = np.where(diff == 0, 0,
                             np.sign(diff) * np.abs(diff) ** (p - 1) * g / dist ** (p - 1))
        elif p == 2:
            local = np.where(dist == 0, 0, g * diff / dist)
        elif p == math.inf:
            # 1 where |diff| is the maximum, else 0
            local = g * np.sign(diff) * (1 - np.minimum(1, np.ceil(np.abs(np.abs(diff) - dist))))
        else:
            local = np.where(dist == 0, 0,
                             np.sign(diff) * np.abs(diff) ** (p - 1) * g / dist ** (p - 1))
    return np.ascontiguousarray(np.broadcast_to(local.sum(-2), shape), dtype=x1.dtype)


def _cdist_backward_grad(grad):
    raise NotImplementedError("the derivative for '_cdist_backward' is not implemented.")


# PyTorch records its backward as an op of its own (CdistBackwardBackward0) that has no
# derivative: differentiating cdist twice raises, unless the matmul path (below) ran
_CDIST_BACKWARD = defop(
    "_cdist_backward", _cdist_backward, inputs=("grad", "x1", "x2", "cdist"),
    derivatives={"grad": _cdist_backward_grad, "x1": _cdist_backward_grad,
                 "x2": _cdist_backward_grad, "cdist": _cdist_backward_grad},
    dtype="same", methods=(), functions=(), grad_fn_name="CdistBackwardBackward0",
    family=FAMILY)


def cdist_x1(grad, x1, x2, result, p):
    return _CDIST_BACKWARD.public(grad, x1, x2, p, result)


def cdist_x2(grad, x1, x2, result, p):
    return _CDIST_BACKWARD.public(grad.mT, x2, x1, p, result.mT)


# PyTorch has no second derivative of cdist ("the derivative for '_cdist_backward' is not
# implemented"), so the registry compares values only; tests/test_linalg_extra.py checks
# the first derivative.
_cdist = defop("cdist", cdist, inputs=("x1", "x2"), layout=RED,
               derivatives={"x1": cdist_x1, "x2": cdist_x2}, methods=(), functions=(),
               grads_in_order=True,   # PyTorch's CdistBackward0 computes x1's first
               family=FAMILY,
               samples=lambda make, shapes: [
                   Sample((make((3, 2)), make((4, 2))), call="cdist", grad=False),
                   Sample((make((2, 3, 2)), make((1, 4, 2))), {"p": 1.0}, call="cdist",
                          grad=False),
                   Sample((make((3, 2)), make((4, 2))), {"p": 3.0}, call="cdist", grad=False),
                   Sample((make((3, 2)), make((4, 2))), {"p": math.inf}, call="cdist",
                          grad=False)])


# -- the matmul path of cdist (p = 2): twice differentiable ------------------------------------
def _euclidean_dist(x1, x2):
    """``sqrt(max(|x1|^2 - 2 x1.x2 + |x2|^2, 0))`` as one product of padded matrices, as
    PyTorch's ``_euclidean_dist`` (whose rounding differs from the direct kernel's)."""
    n1 = (x1 ** 2).sum(-1, keepdims=True)
    n2 = (x2 ** 2).sum(-1, keepdims=True)
    a = np.concatenate([x1 * -2, n1, np.ones_like(n1)], -1)
    b = np.concatenate([x2, np.ones_like(n2), n2], -1)
    with np.errstate(invalid="ignore"):
        return np.sqrt(np.maximum(np.matmul(a, np.swapaxes(b, -1, -2)), 0))


def _euclid_ratio(grad, result):
    return (grad / result).masked_fill(result == 0, 0)


def euclidean_dist_x1(grad, x1, x2, result):
    ratio = _euclid_ratio(grad, result)
    return x1 * ratio.sum(-1, True) - ratio.matmul(x2)


def euclidean_dist_x2(grad, x1, x2, result):
    ratio = _euclid_ratio(grad, result)
    return x2 * ratio.sum(-2).unsqueeze(-1) - ratio.mT.matmul(x1)


_EUCLIDEAN_DIST = defop("_euclidean_dist", _euclidean_dist, inputs=("x1", "x2"),
                        derivatives={"x1": euclidean_dist_x1, "x2": euclidean_dist_x2},
                        dtype="same", methods=(), functions=(), family=FAMILY)

_CDIST_MODES = {"use_mm_for_euclid_dist_if_necessary": 0, "use_mm_for_euclid_dist": 1,
                "donot_use_mm_for_euclid_dist": 2}


def _cdist_mm(x1, x2):
    """PyTorch's cdist_impl on its matmul path: batch dims broadcast and flattened to one."""
    r1, r2 = x1.shape[-2], x2.shape[-2]
    batch = tuple(np.broadcast_shapes(tuple(x1.shape[:-2]), tuple(x2.shape[:-2])))
    n = math.prod(batch)
    if n != 1:
        x1 = x1.expand(batch + (r1, x1.shape[-1])).contiguous().view(n, r1, -1)
        x2 = x2.expand(batch + (r2, x2.shape[-1])).contiguous().view(n, r2, -1)
    if x1._data.dtype != x2._data.dtype:
        raise RuntimeError(f"expected m1 and m2 to have the same dtype, but got: "
                           f"{_cname(x1._data)} != {_cname(x2._data)}")
    return _EUCLIDEAN_DIST.public(x1, x2).view(batch + (r1, r2))


def cdist_public(x1, x2, p=2.0, compute_mode="use_mm_for_euclid_dist_if_necessary"):
    """``torch.cdist``: the matmul path (twice differentiable, ViewBackward0) for p = 2 when
    asked, or by default when either side has more than 25 rows; else the direct kernel,
    whose backward cannot be differentiated."""
    mode = _CDIST_MODES.get(compute_mode)
    if mode is None:
        raise ValueError(f"{compute_mode} is not a valid value for compute_mode")
    if x1.ndim < 2:
        raise RuntimeError(f"cdist only supports at least 2D tensors, X1 got: {x1.ndim}D")
    if x2.ndim < 2:
        raise RuntimeError(f"cdist only supports at least 2D tensors, X2 got: {x2.ndim}D")
    if x1.shape[-1] != x2.shape[-1]:
        raise RuntimeError(f"X1 and X2 must have the same number of columns. X1: "
                           f"{x1.shape[-1]} X2: {x2.shape[-1]}")
    if p < 0:
        raise RuntimeError("cdist only supports non-negative p values")
    if not x1.dtype.is_floating_point:
        raise RuntimeError(f"cdist only supports floating-point dtypes, X1 got: "
                           f"{_tname(x1._data)}")
    if not x2.dtype.is_floating_point:
        raise RuntimeError(f"cdist only supports floating-point dtypes, X2 got: "
                           f"{_tname(x2._data)}")
    if (p == 2 and x1._data.size and x2._data.size
            and (mode == 1 or (mode == 0 and (x1.shape[-2] > 25 or x2.shape[-2] > 25)))):
        return _cdist_mm(x1, x2)
    # the kernel is chosen by x1's dtype (no Half on CPU), then x2 must have it; nothing to
    # compute (an empty input) runs no kernel
    empty = not (x1._data.size and x2._data.size)
    if x1._data.dtype == np.float16 and not empty:
        from .pointwise_common import not_implemented_for
        raise not_implemented_for("cdist", x1._data)
    if x1._data.dtype != x2._data.dtype and empty:   # (x1's dtype, as the kernel's)
        x2 = x2.to(x1.dtype)
    elif x1._data.dtype != x2._data.dtype:
        raise RuntimeError(f"expected scalar type {_tname(x1._data)} but found "
                           f"{_tname(x2._data)}")
    return _cdist.public(x1, x2, float(p))


def dist(self, other, p=2):
    """The ``p``-norm of ``self - other``."""
    diff = (self - other).reshape(-1)
    if not diff.size and (p < 0 or p == math.inf):
        # PyTorch's dist is a vector_norm: no identity for these orders (seed 123)
        from .norms import _check_empty_reduction
        _check_empty_reduction(diff.shape, p, None)
    return np.asarray(_pairwise_norm(diff, p, axis=0))


def dist_self(grad, self, other, result, p):
    g = vector_norm_self(grad, self - other, result, p, None, False)
    if g is None or g._data.shape == self._data.shape:   # p = 0: undefined, as PyTorch
        return g   # (as the engine: no sum_to of a gradient of the input's shape)
    return sum_to(g, self._data.shape)


def dist_other(grad, self, other, result, p):
    g = vector_norm_self(grad, self - other, result, p, None, False)
    if g is None:   # p = 0: PyTorch negates the undefined gradient, which raises
        raise RuntimeError("Expected a proper Tensor but got None (or an undefined Tensor in "
                           "C++) for argument #0 'self'")
    g = -g
    if g._data.shape == other._data.shape:   # (as the engine: no sum_to of a gradient of the
        return g                             # input's shape; 0-d: a Sum on top otherwise)
    return sum_to(g, other._data.shape)


def _dist_rule(rec, args):
    """``self - other``'s bool check comes first, as PyTorch's dist (a subtraction)."""
    from .pointwise import _check_bool_sub
    _check_bool_sub(args[0], args[1])
    compute, out = promote(rec, args)
    if compute.kind not in "fc":   # the difference's norm: floating only (after broadcasting)
        from ..errors import broadcast_error
        from .. import dtypes as _dt
        err = broadcast_error([args[0]._data.shape, args[1]._data.shape])
        if err:
            raise err
        raise RuntimeError(f"norm(): input dtype should be either floating point or complex. "
                           f"Got {_dt.from_numpy_dtype(compute).tensor_type[:-len('Tensor')]} "
                           f"instead.")
    return compute, out


_dist = defop("dist", dist, derivatives={"self": dist_self, "other": dist_other},
              dtype=_dist_rule, family=FAMILY,
              samples=lambda make, shapes: [
                  Sample((make(shapes[1]), make(shapes[2])), call="dist"),
                  Sample((make((2, 3)), make((3,)), 1), call="Tensor.dist"),
                  Sample((make((2, 3)), make((3,)), 3), call="dist"),
                  Sample((make((2, 3)), make((2, 3)), math.inf), call="dist")])


export_function("cdist", cdist_public)
