"""``torch.cov``, ``torch.corrcoef``, ``torch.trapezoid`` / ``trapz`` and
``torch.cumulative_trapezoid``: composites of recorded ops, built the way PyTorch builds
them, so values, gradients and ``grad_fn`` names match.

>>> import leafgrad as torch
>>> torch.trapezoid(torch.tensor([1.0, 2.0, 3.0]))
tensor(4.)
"""
from __future__ import annotations

import warnings

import numpy as np

from .registry import export_function, bind_method, RECORDS
from .linalg import matmul
from ..tensor import Tensor, _wrap

__all__ = ["cov", "corrcoef", "trapezoid", "trapz", "cumulative_trapezoid"]


def cov(input, *, correction=1, fweights=None, aweights=None):
    """Covariance of the variables in ``input``'s rows (observations in columns)."""
    if input.ndim > 2:
        raise RuntimeError(f"cov(): expected input to have two or fewer dimensions but got an "
                           f"input with {input.ndim} dimensions")
    x = input.reshape(1, -1) if input.ndim < 2 else input
    n_obs = x.shape[1]
    if not x.dtype.is_floating_point:
        x = x.to(_default_float())
    w = None
    if fweights is not None:
        if fweights.ndim > 1:
            raise RuntimeError(f"cov(): expected fweights to have one or fewer dimensions but "
                               f"got fweights with {fweights.ndim} dimensions")
        if fweights.dtype.is_floating_point:
            raise RuntimeError(f"cov(): expected fweights to have integral dtype but got "
                               f"fweights with {_name(fweights)} dtype")
        if fweights.numel() != n_obs:
            raise RuntimeError(f"cov(): expected fweights to have the same numel as there are "
                               f"observations in the input but got {fweights.numel()} != "
                               f"{n_obs}")
        if bool((fweights._data < 0).any()):
            raise RuntimeError("cov(): fweights cannot be negative")
        w = fweights
    if aweights is not None:
        if aweights.ndim > 1:
            raise RuntimeError(f"cov(): expected aweights to have one or fewer dimensions but "
                               f"got aweights with {aweights.ndim} dimensions")
        if not aweights.dtype.is_floating_point:
            raise RuntimeError(f"cov(): expected aweights to have floating point dtype but got "
                               f"aweights with {_name(aweights)} dtype")
        if aweights.numel() != n_obs:
            raise RuntimeError(f"cov(): expected aweights to have the same numel as there are "
                               f"observations in the input but got {aweights.numel()} != "
                               f"{n_obs}")
        if bool((aweights._data < 0).any()):
            raise RuntimeError("cov(): aweights cannot be negative")
        w = aweights if w is None else w * aweights
    if w is None:
        avg = x.mean(1)
        w_sum = n_obs
        norm = w_sum - correction
    else:
        w_sum = w.sum()
        avg = (x * w).sum(1) / w_sum
        if aweights is None:
            norm = w_sum - correction
        else:
            norm = w_sum - correction * (w * aweights).sum() / w_sum
    norm_value = norm.item() if isinstance(norm, Tensor) else norm
    if norm_value <= 0:
        warnings.warn("cov(): degrees of freedom is <= 0. Correction should be strictly less "
                      "than the number of observations.")
        norm = 0 if not isinstance(norm, Tensor) else norm * 0
    xc = x - avg.unsqueeze(1)
    c = matmul(xc, (xc if w is None else xc * w).t())
    return (c / norm).squeeze()


def _name(t):
    return {"float32": "Float", "float64": "Double", "int64": "Long", "int32": "Int",
         "bool": "Bool"}.get(t._data.dtype.name, t._data.dtype.name)


def _default_float():
    from .. import dtypes
    return dtypes.get_default_dtype()


def corrcoef(input):
    """Pearson correlation coefficients of the rows of ``input``."""
    if input.ndim > 2:
        raise RuntimeError(f"corrcoef(): expected input to have two or fewer dimensions but "
                           f"got an input with {input.ndim} dimensions")
    c = cov(input)
    if c.ndim == 0:
        return c / c
    d = c.diagonal()
    std = d.sqrt()
    c = c / std.reshape(-1, 1)
    c = c / std.reshape(1, -1)
    return c.clip(-1, 1)


def _by(op, t, number):
    """PyTorch's C++ ``t * 2.`` (the Scalar overload: MulBackward1 / DivBackward1)."""
    if isinstance(number, Tensor):
        return t * number if op == "mul_scalar" else t / number
    return RECORDS[op].public(t, number)


def _slice(t, dim, start, stop):
    index = [slice(None)] * t.ndim
    index[dim] = slice(start, stop)
    return t[tuple(index)]


def _x_spacing(y, x, dim):
    """Gaps between the sample points ``x`` (1-D: along ``dim``; else the same shape as y)."""
    if x.ndim == 1:
        if x.shape[0] != y.shape[dim]:
            raise RuntimeError(f"trapezoid: There must be one `x` value for each sample point")
        dx = x[1:] - x[:-1]
        shape = [1] * y.ndim
        shape[dim] = dx.shape[0]
        return dx.reshape(shape)
    d = dim if dim >= 0 else dim + y.ndim
    xd = d - (y.ndim - x.ndim)
    return _slice(x, xd, 1, None) - _slice(x, xd, 0, -1)


def trapezoid(y, x=None, *, dx=None, dim=-1):
    """Integral of ``y`` along ``dim`` by the trapezoidal rule."""
    if x is not None and dx is not None:
        raise RuntimeError("trapezoid: received both x and dx, but only one may be specified")
    if not -max(y.ndim, 1) <= dim < max(y.ndim, 1):
        raise IndexError(f"Dimension out of range (expected to be in range of "
                         f"[{-max(y.ndim, 1)}, {max(y.ndim, 1) - 1}], but got {dim})")
    if y.ndim == 0:
        raise IndexError("Dimension specified as -1 but tensor has no dimensions")
    n = y.shape[dim]
    if isinstance(x, Tensor):
        if n == 0:
            return y.sum(dim) * 0
        spacing = _x_spacing(y, x, dim)
        return _by("div_scalar", (spacing * (_slice(y, dim, 1, None) + _slice(y, dim, 0, -1))).sum(dim), 2.0)
    if dx is None:
        dx = 1 if x is None else x
    if n == 0:
        return y.sum(dim) * 0
    first = y.select(dim, 0)
    last = y.select(dim, -1)
    return _by("mul_scalar", y.sum(dim) - _by("mul_scalar", first + last, 0.5), dx)


def trapz(y, x=None, *, dx=None, dim=-1):
    """``torch.trapz``: :func:`trapezoid`."""
    return trapezoid(y, x, dx=dx, dim=dim)


def cumulative_trapezoid(y, x=None, *, dx=None, dim=-1):
    """Running integral of ``y`` along ``dim`` (one fewer element than ``y``)."""
    if x is not None and dx is not None:
        raise RuntimeError("cumulative_trapezoid: received both x and dx, but only one may "
                           "be specified")
    left = _slice(y, dim, 0, -1)
    right = _slice(y, dim, 1, None)
    if isinstance(x, Tensor):
        return _by("div_scalar", ((left + right) * _x_spacing(y, x, dim)).cumsum(dim), 2.0)
    if dx is None:
        dx = 1 if x is None else x
    return _by("mul_scalar", left + right, dx / 2.0).cumsum(dim)


for _name_, _fn in (("cov", cov), ("corrcoef", corrcoef)):
    export_function(_name_, _fn)
    bind_method(_name_, _fn)
for _name_, _fn in (("trapezoid", trapezoid), ("trapz", trapz),
                    ("cumulative_trapezoid", cumulative_trapezoid)):
    export_function(_name_, _fn)
