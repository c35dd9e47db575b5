"""Multi-class margin losses as single records: ``multi_margin_loss``
(``MultiMarginLossBackward0``) and ``multilabel_margin_loss``
(``MultilabelMarginLossBackward0``).

Both losses are sums of hinges ``max(0, margin - x[target] + x[j])`` (squared for
``p == 2``), so the gradient w.r.t. the input is a per-element coefficient times the incoming
gradient. The formulas compute those coefficients from the saved input in NumPy: PyTorch has no
double backward for these ops ("derivative for aten::multi_margin_loss_backward is not
implemented"), so nothing is lost by not writing them in leafgrad ops, and the gradient stays
differentiable w.r.t. the incoming gradient.

>>> import leafgrad as torch
>>> torch.nn.functional.multi_margin_loss(torch.tensor([[0.1, 0.2, 0.4]]), torch.tensor([2]))
tensor(0.5000)
"""
from __future__ import annotations

import numpy as np

from ..tensor import _wrap
from .nll_loss import not_differentiable
from .registry import Sample, defop

FAMILY = "losses"

__all__ = ["MULTI_MARGIN_LOSS", "MULTILABEL_MARGIN_LOSS"]


def _np(value):
    """A leafgrad tensor argument (target, weight) as its array; None stays None."""
    return getattr(value, "_data", value)


def _shape(shape) -> str:
    return f"[{', '.join(map(str, shape))}]"


def _as_matrix(self, target, name):
    if self.ndim > 2 or self.size == 0 and self.ndim != 2:
        raise RuntimeError(f"Expected non-empty vector or matrix with optional 0-dim batch "
                           f"size, but got: {_shape(self.shape)}")
    x = self.reshape(1, -1) if self.ndim <= 1 else self
    return x


def _reduce(loss, reduction, dtype):
    if reduction == 1:
        return np.asarray(loss.mean(), dtype=dtype)
    if reduction == 2:
        return np.asarray(loss.sum(), dtype=dtype)
    return loss.astype(dtype, copy=False)


def _grad_scale(grad, reduction, n, vector):
    """The incoming gradient as an (N, 1) factor (mean divides by N)."""
    if reduction == 0:
        return grad.reshape(-1, 1)
    return grad / n if reduction == 1 else grad


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
    if np.any((y < 0) | (y >= c)):
        raise RuntimeError("target out of range")
    rows = np.arange(n)
    z = margin - x[rows, y][:, None] + x
    z[rows, y] = 0
    active = z > 0
    w = 1.0 if weight is None else np.asarray(weight, dtype=x.dtype)[y][:, None]
    return x, y, z, active, w, c


def multi_margin_loss(self, target, p=1, margin=1, weight=None, reduction=1):
    """``sum_{j != y} max(0, margin - x[y] + x[j]) ** p * weight[y] / C`` per sample."""
    x, y, z, active, w, c = _mm_parts(self, _np(target), p, margin, _np(weight))
    h = np.where(active, z, 0)
    loss = ((h if p == 1 else h * h) * w).sum(1) / c
    if self.ndim <= 1 and reduction == 0:
        loss = loss.reshape(())
    return _reduce(loss, reduction, self.dtype)


def multi_margin_loss_self(grad, self, target, p, margin, weight, reduction):
    x, y, z, active, w, c = _mm_parts(self._data, target._data, p, margin,
                                      None if weight is None else weight._data)
    coef = np.where(active, 1.0 if p == 1 else 2 * z, 0) * w / c
    coef[np.arange(len(y)), y] = -coef.sum(1)
    out = _wrap(coef.astype(x.dtype)) * _grad_scale(grad, reduction, len(y), self.dim() <= 1)
    return out.reshape(self.shape)


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


# -- multilabel_margin_loss ----------------------------------------------------------------------
def _ml_parts(self, target):
    x = _as_matrix(self, target, "multilabel_margin_loss")
    n, c = x.shape
    t = np.asarray(target)
    if t.shape != self.shape:
        raise RuntimeError(f"inconsistent target size: {_shape(t.shape)} for input of size: "
                           f"{_shape(self.shape)}")
    t = t.reshape(n, c)
    if np.any((t < -1) | (t >= c)):
        raise RuntimeError("argument #2 'target' is out of range")
    # the targets of a sample are its entries before the first -1
    valid = np.cumprod(t >= 0, axis=1).astype(bool)
    is_target = np.zeros((n, c), bool)
    r, k = np.nonzero(valid)
    is_target[r, t[r, k]] = True
    return x, t, valid, is_target, c


def _ml_hinges(x, t, valid, is_target):
    """(N, C targets slot, C classes) hinge values and which of them count."""
    n = x.shape[0]
    xt = np.take_along_axis(x, np.where(valid, t, 0), axis=1)        # x[target_k]
    z = 1 - (xt[:, :, None] - x[:, None, :])
    count = valid[:, :, None] & ~is_target[:, None, :] & (z > 0)
    del n
    return z, count


def multilabel_margin_loss(self, target, reduction=1):
    """``sum_{j in targets, i not in targets} max(0, 1 - (x[j] - x[i])) / C`` per sample."""
    x, t, valid, is_target, c = _ml_parts(self, _np(target))
    z, count = _ml_hinges(x, t, valid, is_target)
    loss = np.where(count, z, 0).sum((1, 2)) / c
    if self.ndim <= 1 and reduction == 0:
        loss = loss.reshape(())
    return _reduce(loss, reduction, self.dtype)


def multilabel_margin_loss_self(grad, self, target, reduction):
    x, t, valid, is_target, c = _ml_parts(self._data, target._data)
    _, count = _ml_hinges(x, t, valid, is_target)
    coef = count.sum(1).astype(x.dtype) / c                         # +1/C per class i
    n = x.shape[0]
    minus = count.sum(2).astype(x.dtype) / c                        # -1/C per target slot
    np.add.at(coef, (np.repeat(np.arange(n), c), np.where(valid, t, 0).reshape(-1)),
              -np.where(valid, minus, 0).reshape(-1))
    out = _wrap(coef.astype(x.dtype)) * _grad_scale(grad, reduction, n, self.dim() <= 1)
    return out.reshape(self.shape)


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
