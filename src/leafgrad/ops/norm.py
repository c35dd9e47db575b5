"""Batch and group normalization as single records: ``native_batch_norm``
(``NativeBatchNormBackward0``) and ``native_group_norm`` (``NativeGroupNormBackward0``).

(Vector norms live in ``norms.py``; this file is about normalization layers.)

The forwards compute statistics in float64 for float32 inputs, as PyTorch's CPU kernels
accumulate in double. The backward formulas recompute the batch statistics from the saved input
with leafgrad ops instead of saving them: a formula sees the op's inputs and first output only,
and written this way the formulas are differentiable again, so double backward works.

Note [Running statistics]
In training mode ``native_batch_norm`` updates ``running_mean`` / ``running_var`` in place
(``(1 - momentum) * running + momentum * batch``, the variance unbiased) without moving their
version counters, exactly as PyTorch does, so two forwards before one backward are fine. The
node still saves both tensors, so changing them in place in eval mode before the backward
raises PyTorch's "modified by an inplace operation" error.

>>> import leafgrad as torch
>>> x = torch.tensor([[1.0], [3.0]])
>>> torch.nn.functional.batch_norm(x, None, None, training=True)
tensor([[-1.0000],
        [ 1.0000]])
"""
from __future__ import annotations

import numpy as np

from .._exactmath import fma32, fma64, fused
from ..grad_mode import state as _mode
from ..tensor import _wrap
from .iter_layout import suggested_layout
from .registry import Sample, defop

FAMILY = "norm"

__all__ = ["native_batch_norm", "native_group_norm", "check_norm_dtypes"]

_F32 = np.dtype(np.float32)
_F16 = np.dtype(np.float16)


def _type_name(dtype) -> str:
    from .. import dtypes as _dt
    return _dt.from_numpy_dtype(np.dtype(dtype)).tensor_type[:-6]


def check_norm_dtypes(input_dtype, params) -> None:
    """PyTorch's CPU dtype rule for a normalization kernel's parameters (``params``: ndarrays,
    Tensors or None, in the kernel's order). The first given parameter decides: if its dtype
    differs from the input's, the call is "mixed" and only a float16 input with every parameter
    float32 is allowed; otherwise every parameter must have the input's dtype. A float64 batch
    fed to a float32 model lands here (the error learners hit most)."""
    given = [getattr(p, "_data", p) for p in params if p is not None]   # Tensors: stats
    if not given or all(p.dtype == input_dtype for p in given):
        return
    if given[0].dtype != input_dtype:
        if any(p.dtype != _F32 for p in given):
            raise RuntimeError("mixed dtype (CPU): expect parameter to have scalar type of "
                               "Float")
        if input_dtype != _F16:
            raise RuntimeError("mixed dtype (CPU): all inputs must share same datatype.")
        return
    for p in given:
        if p.dtype != input_dtype:
            raise RuntimeError(f"expected scalar type {_type_name(input_dtype)} but found "
                               f"{_type_name(p.dtype)}")


def _acc(dtype):
    return np.float64 if dtype == np.float32 or dtype == np.float16 else dtype


def _axes(ndim: int) -> tuple:
    return (0,) + tuple(range(2, ndim))


def _channel_shape(ndim: int, c: int) -> tuple:
    return (1, c) + (1,) * (ndim - 2)


def native_batch_norm(input, weight, bias, running_mean, running_var, training, momentum,
                      eps):
    """Normalize each channel (dim 1) by batch statistics (training) or running ones."""
    if input.dtype.kind != "f":
        raise NotImplementedError(f'"batch_norm" not implemented for '
                                  f"'{_type_name(input.dtype)}'")
    check_norm_dtypes(input.dtype, (weight, bias, running_mean, running_var))
    if input.ndim < 2:   # the kernel reads input.size(1) (seed 137: a Python IndexError leaked)
        from .shape import wrap_dim
        wrap_dim(1, input.ndim)
    axes = _axes(input.ndim)
    c = input.shape[1]
    if training:
        acc = input.astype(_acc(input.dtype), copy=False)
        mean = acc.mean(axis=axes)
        var = np.square(acc - mean.reshape(_channel_shape(input.ndim, c))).mean(axis=axes)
        n = input.size // c
        if running_mean is not None:
            rm = running_mean._data
            rm[...] = (1 - momentum) * rm + momentum * mean
        if running_var is not None:
            rv = running_var._data
            rv[...] = (1 - momentum) * rv + momentum * var * (n / (n - 1) if n > 1 else np.inf)
        invstd = 1.0 / np.sqrt(var + eps)
    else:
        mean = running_mean._data.astype(_acc(input.dtype))
        invstd = 1.0 / np.sqrt(running_var._data.astype(_acc(input.dtype)) + eps)
    shape = _channel_shape(input.ndim, c)
    if input.dtype == np.float16:
        # PyTorch's kernel: alpha = invstd * weight and beta = bias - mean * alpha in float,
        # then input * alpha + beta in float, rounded to half once (an input equal to its
        # mean gives 0 exactly)
        f = np.float32
        alpha = invstd.astype(f) if weight is None else invstd.astype(f) * weight.astype(f)
        m = mean.astype(f) * alpha
        beta = -m if bias is None else bias.astype(f) - m
        out = input.astype(f) * alpha.reshape(shape)
        out += beta.reshape(shape)
        return out.astype(np.float16)
    # PyTorch's kernel, in the input's type: alpha = invstd * weight, beta = bias - mean *
    # alpha fused, then input * alpha + beta fused (a channel of one value leaves the rounding
    # residue of its product, not 0; fuzz seeds 152, 154). Training saves mean and invstd
    # (computed in double) in the input's type; eval takes invstd in it from the start.
    dt = input.dtype.type
    if training:
        mean, invstd = mean.astype(dt), invstd.astype(dt)
    else:
        mean = running_mean._data.astype(dt)
        invstd = dt(1) / np.sqrt(running_var._data.astype(dt) + dt(eps))
    alpha = invstd if weight is None else invstd * weight
    fma = fma32 if dt is np.float32 else fma64
    beta = fma(-mean, alpha, np.zeros_like(alpha) if bias is None else bias)
    return fused(input, alpha.reshape(shape), beta.reshape(shape), input.size)


def _batch_stats(input, running_mean, running_var, training, eps):
    """(input - mean, invstd) as leafgrad tensors, each broadcastable to the input."""
    axes = list(_axes(input.dim()))
    if training or running_mean is None:
        centered = input - input.mean(axes, keepdim=True)
        var = (centered * centered).mean(axes, keepdim=True)
        return centered, (var + eps).rsqrt()
    shape = _channel_shape(input.dim(), input.shape[1])
    centered = input - running_mean.reshape(shape)
    return centered, (running_var.reshape(shape) + eps).rsqrt()


# PyTorch's one formula for the three saves input, weight and the running statistics
# whichever needs a gradient: each of these declares them all, so an in-place change of any
# is caught
# Under create_graph the three come from one recorded native_batch_norm_backward, as
# PyTorch's (Note [Normalization backward ops] in norm_backward.py)
def native_batch_norm_input(grad, input, weight, running_mean, running_var, training, eps):
    if _mode.grad_enabled:
        return _joint(0, grad, input, weight, running_mean, running_var, training, eps)
    axes = list(_axes(input.dim()))
    shape = _channel_shape(input.dim(), input.shape[1])
    gy = grad if weight is None else grad * weight.reshape(shape)
    centered, invstd = _batch_stats(input, running_mean, running_var, training, eps)
    if not training and running_mean is not None:
        return gy * invstd
    xhat = centered * invstd
    inner = gy - gy.mean(axes, keepdim=True) - xhat * (gy * xhat).mean(axes, keepdim=True)
    return inner * invstd


def native_batch_norm_weight(grad, input, weight, running_mean, running_var, training, eps):
    if _mode.grad_enabled:
        return _joint(1, grad, input, weight, running_mean, running_var, training, eps)
    centered, invstd = _batch_stats(input, running_mean, running_var, training, eps)
    return (grad * (centered * invstd)).sum(list(_axes(input.dim())))


def native_batch_norm_bias(grad, input, weight, running_mean, running_var, training, eps):
    if _mode.grad_enabled:
        return _joint(2, grad, input, weight, running_mean, running_var, training, eps)
    return grad.sum(list(_axes(grad.dim())))


def _joint(which, *args):
    from .norm_backward import joint_batch_norm   # (it imports this module's FAMILY users)
    return joint_batch_norm(which, *args)


def _bn_samples(make, shapes):
    call = "nn.functional.batch_norm"
    return [
        Sample((make((4, 3, 5)), None, None, make((3,)), make((3,)) + 3.0), {"training": True},
               call=call),
        Sample((make((3, 2, 4, 3)), None, None, make((2,)), make((2,))), {"training": True,
                                                                          "eps": 0.1}, call=call),
    ]   # eval mode needs running statistics that do not require grad: tests/nn/test_batchnorm.py


NATIVE_BATCH_NORM = defop(
    "native_batch_norm", native_batch_norm, inputs=("input", "weight", "bias"),
    derivatives={"input": native_batch_norm_input, "weight": native_batch_norm_weight,
                 "bias": native_batch_norm_bias},
    dtype="same", methods=(), functions=(), family=FAMILY, samples=_bn_samples,
    layout=suggested_layout)   # empty_like(input, input.suggest_memory_format())


# -- group norm ---------------------------------------------------------------------------------
def native_group_norm(input, weight, bias, N, C, HxW, group, eps):
    """Normalize each group of ``C // group`` channels of each sample, then scale per channel."""
    check_norm_dtypes(input.dtype, (weight, bias))
    if input.dtype.kind != "f":
        raise NotImplementedError(f'"GroupNormKernelImpl" not implemented for '
                                  f"'{_type_name(input.dtype)}'")
    if input.size == 0:   # no group to normalize (PyTorch's kernel returns at once)
        return np.zeros(input.shape, input.dtype)
    x = np.ascontiguousarray(input).reshape(N, group, -1)   # PyTorch's output is contiguous
    acc = x.astype(_acc(input.dtype), copy=False)
    mean = acc.mean(axis=-1, keepdims=True)
    var = np.square(acc - mean).mean(axis=-1, keepdims=True)
    # (float16: the same in float32, rounded to half once, as PyTorch's kernels in opmath)
    dt = np.float32 if input.dtype == _F16 else input.dtype.type
    if input.dtype == _F16:
        x = x.astype(dt)
        weight = None if weight is None else weight.astype(dt, copy=False)
        bias = None if bias is None else bias.astype(dt, copy=False)
    rstd = (1.0 / np.sqrt(var.astype(dt).astype(np.float64) + eps)).astype(dt)
    mean = mean.astype(dt)
    if weight is None and bias is None:
        out = (x - mean) * rstd
    else:
        d = C // group
        scale = rstd if weight is None else rstd * weight.reshape(group, d)   # (N, group, d)
        scale = np.broadcast_to(scale, (N, group, d))
        beta = np.zeros((group, d), dt) if bias is None else bias.reshape(group, d)
        fma = fma32 if dt is np.float32 else fma64
        shift = fma(-scale, np.broadcast_to(mean, scale.shape),
                    np.broadcast_to(beta, scale.shape))
        out = fused(x.reshape(N, group, d, -1), scale[..., None], shift[..., None], x.size)
    return out.reshape(input.shape).astype(input.dtype, copy=False)


def _group_xhat(input, N, group, eps):
    x = input.reshape(N, group, -1)
    centered = x - x.mean(-1, keepdim=True)
    var = (centered * centered).mean(-1, keepdim=True)
    invstd = (var + eps).rsqrt()
    return centered * invstd, invstd


# input and weight, whichever needs a gradient, as PyTorch's one formula for the three
def native_group_norm_input(grad, input, weight, N, C, group, eps):
    if input._data.size == 0:
        return _wrap(np.zeros(input._data.shape, input._data.dtype))
    if _mode.grad_enabled:   # PyTorch's nodes (see _GroupGraph)
        return _GroupGraph(grad, input, N, C, group, eps, weight).input(weight, input.shape)
    dtype = input.dtype
    grad, input = _mixed_up(grad, input, weight)
    xhat, invstd = _group_xhat(input, N, group, eps)
    gy = grad if weight is None else grad * weight.reshape(_channel_shape(grad.dim(), C))
    gy = gy.reshape(N, group, -1)
    inner = gy - gy.mean(-1, keepdim=True) - xhat * (gy * xhat).mean(-1, keepdim=True)
    out = (inner * invstd).reshape(input.shape)
    # (a float32 weight of a float16 input: the engine casts the gradient to the input's type)
    return out if out.dtype == dtype else out.to(dtype)


def _mixed_up(grad, input, weight):
    """A float16 input with a float32 weight: PyTorch's mixed-type backward kernel computes in
    float32 (its mean and rstd are float32)."""
    if weight is not None and weight.dtype != input.dtype:
        return grad.to(weight.dtype), input.to(weight.dtype)
    return grad, input


def _gn_rows(t, N, C, group):
    """(N, C, *) as PyTorch's (N, G, C // G, HxW) view."""
    hxw = t._data.size // (N * C) if N * C else 0
    return t.view(N, group, C // group, hxw)


class _GroupGraph:
    """PyTorch's infinitely_differentiable_native_group_norm_backward, which it runs under
    create_graph: its ops on the (N, G, D, HxW) views, so the gradients' nodes are PyTorch's.
    PyTorch differentiates the forward's saved mean / rstd (its outputs); here they are
    leafgrad expressions of the input, with the same derivatives."""

    def __init__(self, grad, input, N, C, group, eps, weight=None):
        xs = input.reshape(N, group, -1)
        if weight is not None and weight.dtype != input.dtype:
            # mixed types (a float16 input, float32 weight): PyTorch's forward saves mean and
            # rstd in the weight's type, so the gradients are float32 and the engine casts the
            # input's back (ToCopyBackward0; fuzz seed 138)
            xs = xs.to(weight.dtype)
        mean = xs.mean(-1)
        centered = xs - mean.unsqueeze(-1)
        rstd = (centered * centered).mean(-1).add(eps).rsqrt()
        self.mean, self.rstd = mean.view(N, group, 1, 1), rstd.view(N, group, 1, 1)
        self.dy, self.x = _gn_rows(grad, N, C, group), _gn_rows(input, N, C, group)
        self.n, self.d = self.x._data.shape[3] * (C // group), C // group
        self.group, self.C = group, C
        self._sums = None

    def sums(self):
        """sum over HxW of dY * X and of dY, as (N, G, D, 1): computed once, shared by the
        three gradients as in PyTorch's function."""
        if self._sums is None:
            self._sums = ((self.dy * self.x).sum(3).unsqueeze_(-1),
                          self.dy.sum(3).unsqueeze_(-1))
        return self._sums

    def input(self, weight, shape):
        from .pointwise_common import scale
        ds, db = self.sums()
        if weight is not None:
            gamma = weight.view(1, self.group, self.d, 1)
            ds, db = (ds * gamma).sum(2).unsqueeze_(-2), (db * gamma).sum(2).unsqueeze_(-2)
            a = self.rstd * gamma
        else:
            ds, db = ds.sum(2).unsqueeze_(-2), db.sum(2).unsqueeze_(-2)
            a = self.rstd
        r, mean, s = self.rstd, self.mean, 1.0 / self.n if self.n else float("inf")
        b = scale((db * mean - ds) * (r * r * r), s)
        c = -b * mean - scale(db * r, s)
        out = (a * self.dy + b * self.x + c).view(shape)
        # mixed types: the engine casts the float32 gradient to the input's type (ToCopy)
        return out if out.dtype == self.x.dtype else out.to(self.x.dtype)

    def weight(self):
        ds, db = self.sums()
        return ((ds - db * self.mean) * self.rstd).sum(0).view(self.C)

    def bias(self):
        return self.sums()[1].sum(0).view(self.C)


def native_group_norm_weight(grad, input, weight, N, C, group, eps):
    if input._data.size == 0:   # no sample: zero; samples of no element: NaN statistics
        return _wrap(np.full((C,), 0 if N == 0 else np.nan, input._data.dtype))
    if _mode.grad_enabled:   # PyTorch's nodes (see _GroupGraph)
        return _GroupGraph(grad, input, N, C, group, eps, weight).weight()
    grad, input = _mixed_up(grad, input, weight)
    xhat, _ = _group_xhat(input, N, group, eps)
    return (grad * xhat.reshape(input.shape)).sum(list(_axes(grad.dim())))


def native_group_norm_bias(grad, input, weight, N, C, group, eps):
    if weight is None:
        # PyTorch cannot give a bias its gradient without a weight: its backward kernel
        # reads the undefined weight's device, its create_graph formula views the sum as
        # the weight's 0 elements
        if _mode.grad_enabled:
            raise RuntimeError(f"shape '[0]' is invalid for input of size {C}")
        raise RuntimeError("tensor does not have a device")
    if not _mode.grad_enabled and weight.dtype != grad.dtype:
        grad = grad.to(weight.dtype)   # the mixed-type kernel sums in float32
    return grad.sum(list(_axes(grad.dim())))


def native_group_norm_backward(grad, input, weight, N, C, group, eps, output_mask):
    """PyTorch's one formula for the three (Note [Joint formulas] in autograd/graph.py):
    under create_graph its infinitely differentiable form, whose sums the gradients share."""
    if not _mode.grad_enabled:
        args = (grad, input, weight, N, C, group, eps)
        return [f(*args) if m else None for f, m in zip(
            (native_group_norm_input, native_group_norm_weight, native_group_norm_bias),
            output_mask)]
    graph = _GroupGraph(grad, input, N, C, group, eps, weight)   # PyTorch's nodes (see _GroupGraph)
    if output_mask[0] or output_mask[1] or output_mask[2]:
        graph.sums()
    g_input = graph.input(weight, input.shape) if output_mask[0] else None
    g_weight = graph.weight() if output_mask[1] else None
    g_bias = None
    if output_mask[2]:
        if weight is None:
            native_group_norm_bias(grad, input, weight, N, C, group, eps)   # (raises)
        g_bias = graph.bias()
    return g_input, g_weight, g_bias


def _gn_samples(make, shapes):
    call = "nn.functional.group_norm"
    return [Sample((make((3, 4, 5)), 2, make((4,)), make((4,))), call=call),
            Sample((make((2, 6, 3, 2)), 3), call=call),
            Sample((make((2, 4)), 4, make((4,)), None), call=call)]


NATIVE_GROUP_NORM = defop(
    "native_group_norm", native_group_norm, inputs=("input", "weight", "bias"),
    derivatives={("input", "weight", "bias"): native_group_norm_backward},
    dtype="same", methods=(), functions=(), family=FAMILY, samples=_gn_samples)
