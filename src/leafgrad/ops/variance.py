"""Variance and standard deviation (var, std) with PyTorch's ``correction``/``unbiased``.

>>> import leafgrad as torch
>>> torch.tensor([1.0, 2.0, 3.0, 4.0]).std()
tensor(1.2910)
"""
from __future__ import annotations

import warnings

import numpy as np

from .registry import defop, export_function, bind_method, Sample
from .numpy_aliases import NA as _NA, dim_keepdim as _aliased
from ..grad_mode import state as _mode
from .. import dtypes as _dt
from .reduction import FAMILY, _dims, _count, _const, unsqueeze_grad
from .cascade_sum import sum_like_torch

__all__: list = []


# -- var / std ---------------------------------------------------------------------------------
def _var_dtype(rec, args):
    d = args[0]._data.dtype
    if d.kind not in "fc":
        raise RuntimeError("std and var only support floating point and complex dtypes")
    return None, None


def _dof(shape, dim, correction, what):
    axis = _dims(dim, len(shape))
    n = _count(shape, axis)
    dof = n - correction
    if dof <= 0:
        warnings.warn(f"{what}(): degrees of freedom is <= 0. Correction should be strictly "
                      "less than the reduction factor (input numel divided by output numel).",
                      UserWarning, stacklevel=4)
    return axis, dof


def _sum_sq_dev(x, axis, keepdim, welford=False):
    """The sum of squared deviations from the mean over ``axis``, as PyTorch's CPU kernels
    find it (Note [Variance paths])."""
    n = _count(x.shape, axis)
    if x.dtype == np.float16:
        # Welford's sums run in float for half (its opmath type), rounded once at the end
        # (seed 137: var over 3 halves was 1 ulp off, shifted and squared in half)
        x = x.astype(np.float32)
        welford = True
    if n and x.dtype in (np.float32, np.float64) and n == x.size and not welford:
        # std_var_all_cpu: the mean as ``mean()`` gives it, then (x - mean)^2 added in
        # double one element at a time (a cumulative sum adds in that order)
        total = sum_like_torch(x)
        mean = float((np.sum(x) if total is None else total) / x.dtype.type(n))
        d = x.astype(np.float64).ravel(order="K") - mean
        out = np.cumsum(d * d)[-1]
        axes = range(x.ndim) if axis is None else axis
        shape = tuple(1 if d in axes else n for d, n in enumerate(x.shape)
                      if keepdim or d not in axes)
        return np.full(shape, out)
    if n > 1:
        # Welford's running mean: a constant slice has a variance of exactly 0. Shifting by
        # the slice's first element gives that too (two-pass rounding otherwise)
        first = x[tuple(slice(0, 1) if axis is None or d in axis else slice(None)
                        for d in range(x.ndim))]
        x = x - first
    dev = x - np.mean(x, axis=axis, keepdims=True)
    return np.sum(dev * dev, axis=axis, keepdims=keepdim)


# Note [Variance paths]
# PyTorch's CPU var/std take two paths. A float32/float64 reduction to one element
# (std_var_all_cpu) subtracts the input's mean() and adds the squares in double, one element
# at a time. Any other (a dim reduction, float16) runs Welford's algorithm, whose running mean
# of a constant slice stays exact: its variance is exactly 0 (the two-pass formula leaves
# rounding there, which later steps can blow up: fuzz seed 78). leafgrad reproduces the first
# and the exact zeros of the second. var_mean / std_mean always run Welford's.
def var_op(self, dim, correction, keepdim, welford=False):
    """Variance with ``correction`` (1: unbiased)."""
    axis, dof = _dof(self.shape, dim, correction, "var")
    with np.errstate(invalid="ignore", divide="ignore"):
        out = _sum_sq_dev(_acc(self), axis, keepdim, welford) / max(dof, 0)
    return out.astype(self.dtype, copy=False)


def _acc(x):
    """float16 in float, ATen's accumulation type: squares of values above 256 overflow half
    (std of [449.5, 472.8, 16.2, 17] was inf; PyTorch's 256.8)."""
    return x.astype(np.float32) if x.dtype == np.float16 else x


def std_op(self, dim, correction, keepdim, welford=False):
    """Standard deviation with ``correction``."""
    axis, dof = _dof(self.shape, dim, correction, "std")
    with np.errstate(invalid="ignore", divide="ignore"):
        out = np.sqrt(_sum_sq_dev(_acc(self), axis, keepdim, welford) / max(dof, 0))
    return out.astype(self.dtype, copy=False)


def var_self(grad, self, dim, correction, keepdim):
    return var_backward(grad, self, dim, correction, keepdim)


def var_backward(grad, self, dim, correction, keepdim, cast=True):
    """PyTorch's var_backward (``cast``: see below)."""
    shape = self._data.shape
    axis = _dims(dim, len(shape))
    dof = _count(shape, axis) - correction
    if dof <= 0 and (dim is None or not shape):
        # PyTorch's var_backward over all elements without degrees of freedom: the incoming
        # gradient times NaN where self equals its mean, inf elsewhere (a constant: a graph
        # under create_graph only through the gradient). PyTorch's where of two Python floats
        # is a tensor of the default dtype: a float16 gradient is promoted, and the engine
        # casts it back (ToCopyBackward0 under create_graph; fuzz seed 108). (Cast here: the
        # node keeps no dtype to conform to where its output's dtype is its input's.)
        d = self._data
        with np.errstate(invalid="ignore"):
            g = grad * _const(np.where(d == d.mean(), np.nan, np.inf).astype(
                _dt.get_default_dtype().np))
        # (var_mean / std_mean add the mean's part first and cast the sum: cast=False)
        return g if not cast or g._data.dtype == d.dtype else g.to(self.dtype)
    return _var_grad(grad, self, shape, axis, dim, dof, keepdim)


def _var_grad(grad, self, shape, axis, dim, dof, keepdim):
    centered = self - (self.mean(axis, keepdim=True) if axis is not None else self.mean())
    scale = 2.0 / dof if dof else float("inf")     # dof 0: NaN gradients, as PyTorch
    # PyTorch's order: (2 / dof) * grad first (MulBackward1 when grad has history)
    from .registry import RECORDS
    # (PyTorch's var_backward unsqueezes the reduced dims of an input of 2+ dims, no expand:
    # the product broadcasts)
    g = unsqueeze_grad(grad, len(shape) if len(shape) > 1 else 0, dim, keepdim)
    return RECORDS["mul_scalar"].public(g, scale) * centered


def std_self(grad, self, result, dim, correction, keepdim):
    return std_backward(grad, self, result, dim, correction, keepdim)


def std_backward(grad, self, result, dim, correction, keepdim, cast=True):
    """PyTorch's std_backward."""
    # d std = d var / (2 std); where std is 0 the gradient is 0, as PyTorch's
    # (grad / (2 std)).masked_fill_(std == 0, 0): 0 even for an infinite or NaN grad
    from .registry import RECORDS
    g = grad / RECORDS["mul_scalar"].public(result, 2)   # (MulBackward1 under create_graph)
    zero = result._data == 0
    if zero.any() or _mode.grad_enabled or type(g._data) is not np.ndarray:
        # under create_graph PyTorch's node is recorded; a zero tensor's quotient is one:
        # PyTorch's masked_fill_ refuses it (_zerotensor.py)
        g = g.masked_fill_(_const(zero), 0)
    return var_backward(g, self, dim, correction, keepdim, cast)


_var = defop("var", var_op, derivatives={"self": var_self}, dtype=_var_dtype, methods=(),
             functions=(), family=FAMILY,
             samples=lambda make, shapes: _var_samples(make, shapes, "var"))
_std = defop("std", std_op, derivatives={"self": std_self}, dtype=_var_dtype, methods=(),
             functions=(), family=FAMILY,
             samples=lambda make, shapes: _var_samples(make, shapes, "std"))


def _var_samples(make, shapes, call):
    base = shapes[1]
    big = tuple(s + 2 for s in base) or (3,)     # at least 3 elements per reduced dim
    out = [Sample((make(big),), call=call), Sample((make(big),), {"unbiased": False}, call=call),
           Sample((make(big),), {"correction": 0}, call=call)]
    if len(big):
        out += [Sample((make(big), -1), call=call),
                Sample((make(big),), {"dim": 0, "keepdim": True, "correction": 2}, call=call)]
    return out


def _var_args(dim, unbiased, keepdim, correction, what):
    if isinstance(dim, bool):            # x.var(True): the first positional is ``unbiased``
        dim, unbiased = None, dim
    if correction is None:
        correction = 1 if unbiased is None or unbiased else 0
    elif unbiased is not None:
        raise RuntimeError(f"{what}: can't specify both correction and unbiased arguments")
    return dim, correction, keepdim


def var(input, dim=None, unbiased=None, keepdim=False, *, correction=None, axis=_NA,
           keepdims=_NA):
    """Variance over ``dim`` (all by default) with Bessel's correction unless told otherwise.

    >>> import leafgrad as torch
    >>> torch.tensor([1.0, 2.0, 3.0, 4.0]).var()
    tensor(1.6667)
    """
    if axis is not _NA or keepdims is not _NA:   # Note [NumPy aliases at no cost]
        dim, keepdim = _aliased("var", dim, None, keepdim, axis, keepdims)
    dim, correction, keepdim = _var_args(dim, unbiased, keepdim, correction, "var")
    return _var.public(input, dim, correction, keepdim)


def std(input, dim=None, unbiased=None, keepdim=False, *, correction=None, axis=_NA,
           keepdims=_NA):
    """Standard deviation over ``dim`` (all by default); see :func:`var`."""
    if axis is not _NA or keepdims is not _NA:   # Note [NumPy aliases at no cost]
        dim, keepdim = _aliased("std", dim, None, keepdim, axis, keepdims)
    dim, correction, keepdim = _var_args(dim, unbiased, keepdim, correction, "std")
    return _std.public(input, dim, correction, keepdim)


for _name, _fn in (("var", var), ("std", std)):
    export_function(_name, _fn)
    bind_method(_name, _fn)
