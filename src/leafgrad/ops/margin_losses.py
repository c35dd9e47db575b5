"""Multi-class margin losses as single records: ``multi_margin_loss``
(``MultiMarginLossBackward0``) and ``multilabel_margin_loss``
(``MultilabelMarginLossBackward0``), with backward records of their own.

Both losses are sums of hinges ``max(0, margin - x[target] + x[j])`` (squared for
``p == 2``). The forwards and backwards follow PyTorch's CPU loops operation for operation, so
the bits agree: hinge sums in the input's dtype (multi_margin) or in double (multilabel) in
class order, the batch sum in double, gradients built from ``g = 1 / (N C)`` (or ``1 / C``) by
repeated addition, then scaled by the incoming gradient. PyTorch has no double backward for
these ops: their backward records are ``NotImplemented`` nodes ("derivative for
aten::multi_margin_loss_backward is not implemented"). Only float32 and float64 run.

>>> import leafgrad as torch
>>> torch.nn.functional.multi_margin_loss(torch.tensor([[0.1, 0.2, 0.4]]), torch.tensor([2]))
tensor(0.5000)
"""
from __future__ import annotations

import numpy as np

from .. import dtypes as _dt
from .nll_loss import not_differentiable
from .pointwise_common import not_implemented_for, not_implemented_formula
from .registry import Sample, defop

FAMILY = "losses"

__all__ = ["MULTI_MARGIN_LOSS", "MULTILABEL_MARGIN_LOSS"]


def _np(value):
    """A leafgrad tensor argument (target, weight) as its array; None stays None."""
    return getattr(value, "_data", value)


def _shape(shape) -> str:
    return f"[{', '.join(map(str, shape))}]"


def _as_matrix(self, target, name):
    # an empty batch is allowed, no classes is not (seed 163: a (5, 0) input)
    if self.ndim > 2 or self.ndim >= 1 and self.shape[-1] == 0:
        raise RuntimeError(f"Expected non-empty vector or matrix with optional 0-dim batch "
                           f"size, but got: {_shape(self.shape)}")
    x = self.reshape(1, -1) if self.ndim <= 1 else self
    return x


def _type_name(np_dtype) -> str:
    return _dt.from_numpy_dtype(np.dtype(np_dtype)).tensor_type[:-6]


def _floating(x, kernel):
    """AT_DISPATCH_FLOATING_TYPES: float32 and float64 only."""
    if x.dtype != np.float32 and x.dtype != np.float64:
        raise not_implemented_for(kernel, x.dtype)


def _running_sum(values, start=None):
    """Sums along the last axis added one by one, left to right (a C loop's order): NumPy's
    ``cumsum`` accumulates sequentially; ``start`` is the accumulator's first value."""
    if start is not None:
        values = np.concatenate([start[..., None], values], axis=-1)
    if values.shape[-1] == 0:
        return np.zeros(values.shape[:-1], values.dtype)
    return np.cumsum(values, axis=-1)[..., -1]


def _batch_total(per_sample, reduction, n, divide=None):
    """The double accumulator over samples (``accscalar_t``), then ``/ divide`` and, for
    'mean', ``/ n``, stored in the input's dtype."""
    total = _running_sum(per_sample.astype(np.float64))
    if divide is not None:
        total = total / divide
    if reduction == 1:
        total = total / n
    return np.asarray(total, dtype=per_sample.dtype)


def _scaled(grad_input, grad_output, reduction, dtype):
    """The kernel's last loop: every row times the incoming gradient (one number, or one per
    sample for reduction='none')."""
    go = np.asarray(grad_output, dtype=dtype)
    if reduction != 0 or go.ndim == 0:
        return grad_input * go.reshape(())
    return grad_input * go.reshape(-1, 1)


def _unit(reduction, n, c, dtype):
    """PyTorch's ``g``: 1 / (N C) for 'mean', else 1 / C, computed in double, then stored."""
    return dtype.type(1.0 / (n * c) if reduction == 1 else 1.0 / c)


# -- multi_margin_loss ---------------------------------------------------------------------------
def _mm_parts(self, target, p, margin, weight):
    x = _as_matrix(self, target, "multi_margin_loss")
    n, c = x.shape
    y = np.asarray(target).reshape(-1)
    if self.ndim == 2 and (np.asarray(target).ndim != 1 or y.size != n) or y.size != n:
        raise RuntimeError(f"multi_margin_loss: target tensor should be 1-D with size equal to "
                           f"the number of input samples (batch size). Expected target size "
                           f"[{n}], but got {_shape(np.shape(target))}. Input has shape "
                           f"{_shape(self.shape)}.")
    if weight is not None and weight.size != c:
        raise RuntimeError(f"inconsistent weight size, expected {c} but got "
                           f"{_shape(weight.shape)}")
    if x.size == 0:
        return x, y, None, None, None, c
    _floating(x, "multi_margin_loss_cpu_kernel")
    if weight is not None and weight.dtype != x.dtype:   # read as the input's scalar type
        raise RuntimeError(f"expected scalar type {_type_name(x.dtype)} but found "
                           f"{_type_name(weight.dtype)}")
    if np.any((y < 0) | (y >= c)):
        raise RuntimeError("target out of range")
    rows = np.arange(n)
    # z = margin - x[y] + x[d], in the input's dtype, the margin rounded to it first
    z = (x.dtype.type(margin) - x[rows, y])[:, None] + x
    active = z > 0
    active[rows, y] = False
    w = None if weight is None else np.asarray(weight)[y][:, None]
    return x, y, z, active, w, c


def multi_margin_loss(self, target, p=1, margin=1, weight=None, reduction=1):
    """``sum_{j != y} max(0, margin - x[y] + x[j]) ** p * weight[y] / C`` per sample."""
    x, y, z, active, w, c = _mm_parts(self, _np(target), p, margin, _np(weight))
    per_sample_out = reduction == 0 and np.ndim(_np(target)) > 0
    if z is None:   # an empty batch: PyTorch returns its (uninitialised) output as it is
        return np.zeros((x.shape[0],) if per_sample_out else (), self.dtype)
    h = z if p == 1 else z * z
    if w is not None:
        h = h * w
    sums = _running_sum(np.where(active, h, x.dtype.type(0))) / x.dtype.type(c)
    if per_sample_out:
        return sums
    return _batch_total(sums, reduction, x.shape[0])


def multi_margin_loss_self(grad, self, target, p, margin, weight, reduction):
    return MULTI_MARGIN_LOSS_BACKWARD.public(grad, self, target, p, margin, weight, reduction)


def multi_margin_loss_backward(grad_output, self, target, p, margin, weight, reduction):
    """PyTorch's backward loop: ``h = g`` (``2 g z`` for p=2, times ``weight[y]``) at each
    active class, ``0`` at the others, and at the target ``0 - h - h ...`` in class order."""
    x, y, z, active, w, c = _mm_parts(self, _np(target), p, margin, _np(weight))
    if z is None:
        return np.zeros(self.shape, self.dtype)
    n = x.shape[0]
    g = _unit(reduction, n, c, x.dtype)
    h = np.broadcast_to(g, z.shape) if p == 1 else (2 * g) * z
    if w is not None:
        h = h * w
    out = np.where(active, h, x.dtype.type(0))
    out[np.arange(n), y] = _running_sum(np.where(active, -h, x.dtype.type(0)),
                                        start=np.zeros(n, x.dtype))
    return _scaled(out, _np(grad_output), reduction, x.dtype).reshape(self.shape)


def _mm_samples(make, shapes):
    call = "nn.functional.multi_margin_loss"
    t = np.array([1, 0, 3, 2])
    return [Sample((make((4, 5)), t), call=call, grad=False),
            Sample((make((4, 5)), t), {"p": 2, "margin": 0.7, "reduction": "sum"}, call=call,
                   grad=False),
            Sample((make((4, 5)), t), {"reduction": "none"}, call=call, grad=False),
            Sample((make((5,)), np.array(3)), call=call, grad=False)]


MULTI_MARGIN_LOSS = defop(
    "multi_margin_loss", multi_margin_loss, inputs=("self",),
    derivatives={"self": multi_margin_loss_self},
    dtype=not_differentiable("multi_margin_loss", {"weight": 4}), methods=(), functions=(),
    family=FAMILY, samples=_mm_samples)
MULTI_MARGIN_LOSS_BACKWARD = defop(
    "multi_margin_loss_backward", multi_margin_loss_backward,
    inputs=("grad_output", "self"),
    derivatives={"grad_output": not_implemented_formula("multi_margin_loss_backward"),
                 "self": not_implemented_formula("multi_margin_loss_backward")},
    dtype="same", grad_fn_name="NotImplemented", methods=(), functions=(), family=FAMILY)


# -- multilabel_margin_loss ----------------------------------------------------------------------
def _ml_parts(self, target):
    x = _as_matrix(self, target, "multilabel_margin_loss")
    n, c = x.shape
    t = np.asarray(target)
    if t.shape != self.shape:
        raise RuntimeError(f"inconsistent target size: {_shape(t.shape)} for input of size: "
                           f"{_shape(self.shape)}")
    t = t.reshape(n, c)
    if x.size == 0:
        return x, t, None, None, c
    if np.any((t < -1) | (t >= c)):
        raise RuntimeError("argument #2 'target' is out of range")
    _floating(x, "multilabel_margin_loss_forward_out_frame")
    # the targets of a sample are its entries before the first -1
    valid = np.cumprod(t >= 0, axis=1).astype(bool)
    is_target = np.zeros((n, c), bool)
    r, k = np.nonzero(valid)
    is_target[r, t[r, k]] = True
    return x, t, valid, is_target, c


def _ml_slots(x, t, valid, is_target):
    """For each target slot k in order: (slot k valid per sample, its target class per sample,
    the hinges z = 1 - x[t_k] + x[d] over classes d in the input's dtype, which count)."""
    one = x.dtype.type(1)
    rows = np.arange(x.shape[0])
    for k in range(int(valid.sum(1).max(initial=0))):
        j = np.where(valid[:, k], t[:, k], 0)
        z = (one - x[rows, j])[:, None] + x
        yield j, z, valid[:, k, None] & ~is_target & (z > 0)


def multilabel_margin_loss(self, target, reduction=1):
    """``sum_{j in targets, i not in targets} max(0, 1 - x[j] + x[i]) / C`` per sample."""
    t_arr = _np(target)
    x, t, valid, is_target, c = _ml_parts(self, t_arr)
    scalar_out = reduction != 0 or np.ndim(t_arr) <= 1
    if valid is None:   # an empty batch: PyTorch returns its (uninitialised) output as it is
        return np.zeros(() if scalar_out else (x.shape[0],), self.dtype)
    acc = np.zeros(x.shape[0])   # accscalar_t, hinges added in (slot, class) order
    for _, z, count in _ml_slots(x, t, valid, is_target):
        acc = _running_sum(np.where(count, z, x.dtype.type(0)).astype(np.float64), start=acc)
    sums = acc.astype(x.dtype)   # the inner sum returns the input's dtype
    if scalar_out:
        return _batch_total(sums, reduction, x.shape[0], divide=c)
    return sums / x.dtype.type(c)


def multilabel_margin_loss_self(grad, self, target, reduction):
    return MULTILABEL_MARGIN_LOSS_BACKWARD.public(grad, self, target, reduction)


def _repeated(g, times):
    """``0 + g + g ...`` (``times`` additions each) in g's dtype, as the kernel's ``+= g``."""
    out = np.zeros(times.shape, g.dtype)
    for i in range(int(times.max(initial=0))):
        out = np.where(times > i, out + g, out)
    return out


def multilabel_margin_loss_backward(grad_output, self, target, reduction):
    """PyTorch's backward loop: for each counted hinge (slot k, class d), ``grad[t_k] -= g``
    and ``grad[d] += g``; a class is a target or not, so each entry is ``g`` added (or
    taken away) as many times as it was counted."""
    x, t, valid, is_target, c = _ml_parts(self, _np(target))
    if valid is None:
        return np.zeros(self.shape, self.dtype)
    n = x.shape[0]
    g = _unit(reduction, n, c, x.dtype)
    plus = np.zeros((n, c), np.int64)
    minus = np.zeros((n, c), np.int64)
    rows = np.arange(n)
    for j, _, count in _ml_slots(x, t, valid, is_target):
        plus += count
        np.add.at(minus, (rows, j), count.sum(1))
    out = np.where(is_target, -_repeated(g, minus), _repeated(g, plus))
    out = np.where((minus == 0) & is_target, x.dtype.type(0), out)   # untouched: +0
    return _scaled(out, _np(grad_output), reduction, x.dtype).reshape(self.shape)


def _ml_samples(make, shapes):
    call = "nn.functional.multilabel_margin_loss"
    t = np.array([[3, 0, -1, 1, 2], [0, 1, 2, 4, 3], [1, -1, 0, 0, 2]])
    return [Sample((make((3, 5)), t), call=call, grad=False),
            Sample((make((3, 5)), t), {"reduction": "none"}, call=call, grad=False),
            Sample((make((3, 5)), t), {"reduction": "sum"}, call=call, grad=False),
            Sample((make((4,)), np.array([2, 0, -1, 1])), call=call, grad=False)]


MULTILABEL_MARGIN_LOSS = defop(
    "multilabel_margin_loss", multilabel_margin_loss, inputs=("self",),
    derivatives={"self": multilabel_margin_loss_self}, dtype="same", methods=(), functions=(),
    grad_fn_name="MultilabelMarginLossBackward0", family=FAMILY, samples=_ml_samples)
MULTILABEL_MARGIN_LOSS_BACKWARD = defop(
    "multilabel_margin_loss_backward", multilabel_margin_loss_backward,
    inputs=("grad_output", "self"),
    derivatives={"grad_output": not_implemented_formula("multilabel_margin_loss_backward"),
                 "self": not_implemented_formula("multilabel_margin_loss_backward")},
    dtype="same", grad_fn_name="NotImplemented", methods=(), functions=(), family=FAMILY)
