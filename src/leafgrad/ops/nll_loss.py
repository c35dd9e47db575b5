"""Negative log-likelihood as single records: ``nll_loss`` (``NllLossBackward0``, 1-D and 2-D
inputs) and ``nll_loss2d`` (``NllLoss2DBackward0``, 4-D inputs), with their backward ops
(``NllLossBackwardBackward0``, ``NllLoss2DBackwardBackward0``), as PyTorch records them.

``F.cross_entropy`` is ``log_softmax`` then ``nll_loss``: two records, and on the backward two
ops (``nll_loss_backward`` then ``_log_softmax_backward_data``), each one NumPy pass.

Note [Total weight]
PyTorch's forward returns the loss and ``total_weight`` (the summed weights of the targets that
are not ignored, the divisor of ``reduction='mean'``) and saves the latter for backward. Here the
backward op recomputes it from ``target`` and ``weight``, one pass over the targets, so the
forward has a single output like every other loss record.

>>> import leafgrad as torch
>>> x = torch.tensor([[0.0, -1.0], [-2.0, -3.0]], requires_grad=True)
>>> loss = torch.nn.functional.nll_loss(x, torch.tensor([1, 0]))
>>> loss, loss.grad_fn.name()
(tensor(1.5000, grad_fn=<NllLossBackward0>), 'NllLossBackward0')
"""
from __future__ import annotations

import numpy as np

from .. import dtypes as _dt
from ..grad_mode import state as _mode
from ..tensor import Tensor, _wrap
from .iter_layout import RED
from .pointwise_common import zeros_grad
from .registry import Sample, defop

FAMILY = "losses"

__all__ = ["NLL_LOSS", "NLL_LOSS2D", "not_differentiable"]


def _type_name(dtype) -> str:
    return _dt.from_numpy_dtype(np.dtype(dtype)).tensor_type[:-6]


def not_differentiable(function: str, positions: dict, base=None):
    """A dtype rule that first raises PyTorch's error for a tensor that requires grad in an
    argument the op cannot differentiate (``positions``: name -> argument index)."""
    def rule(rec, args):
        if _mode.grad_enabled:
            for name, pos in positions.items():
                a = args[pos]
                if a is not None and getattr(a, "_requires_grad", False):
                    raise RuntimeError(
                        f"The function '{function}' is not differentiable with respect to "
                        f"argument '{name}'. This input cannot have requires_grad True.")
        return (None, None) if base is None else base(rec, args)
    return rule


# -- the forward ---------------------------------------------------------------------------
def _np(value):
    """The array of a tensor argument that is not an op input (target, weight)."""
    return value._data if isinstance(value, Tensor) else value


def _targets(target, ignore_index, n_classes):
    """(safe class indices, mask of kept targets or None when none is ignored)."""
    if target.size == 0:
        return target, None
    if not 0 <= ignore_index < n_classes:
        # Fast path, one reduction: seen as unsigned, a negative target is huge, so a maximum
        # below n_classes means every target is a class (and none is ignore_index).
        u = target.view(np.uint64) if target.dtype == np.int64 else target
        # (a 1-D target reduces over its one axis without the keyword; int() compares a
        # uint64 with a Python int on NumPy's fast path)
        if int(_max(u) if u.ndim == 1 else _max(u, None)) < n_classes:
            return target, None
    keep = target != ignore_index
    if keep.all():
        keep, idx = None, target
    else:
        idx = np.where(keep, target, 0)
    lo, hi = idx.min(), idx.max()
    if lo < 0 or hi >= n_classes:
        bad = (idx < 0) | (idx >= n_classes)
        if keep is not None:
            bad &= keep   # (an ignored target's stand-in 0 is no class when there are none)
        if bad.any():
            raise IndexError(f"Target {target[bad].flat[0]} is out of bounds.")
    return idx, keep


_INT64 = np.dtype(np.int64)
_UINT64 = np.dtype(np.uint64)
_max = np.maximum.reduce   # what ndarray.max / np.sum call, without their Python frames
_add = np.add.reduce
_ROWS: dict = {}


def _rows(n: int) -> np.ndarray:
    """``np.arange(n)`` (int64), cached read-only: the row index of every batched pick."""
    rows = _ROWS.get(n)
    if rows is None:
        rows = np.arange(n, dtype=np.int64)
        rows.flags.writeable = False
        if len(_ROWS) > 64:
            _ROWS.clear()
        _ROWS[n] = rows
    return rows


def _flat(shape, idx) -> np.ndarray:
    """The flat (C order) positions of ``idx``'s class in each row of a ``(N, C)`` array:
    ``take``/``put`` on them cost a third of indexing with two index arrays."""
    key = shape
    starts = _ROWS.get(key)
    if starts is None:   # ``arange(N) * C``, cached read-only as ``_rows``
        starts = np.arange(shape[0], dtype=np.int64) * shape[1]
        starts.flags.writeable = False
        if len(_ROWS) > 64:
            _ROWS.clear()
        _ROWS[key] = starts
    return np.add(starts, idx)


def _check_target_dtype(target):
    if target.dtype != np.int64 and target.dtype != np.uint8:
        raise RuntimeError(f"expected target dtype to be Long or Byte, but got "
                           f"{_type_name(target.dtype)}")


def _check_weight(self, weight, n_classes):
    if weight is None:
        return None
    if weight.ndim > 1 or weight.size != n_classes:
        raise RuntimeError(f"weight tensor should be defined either for all {n_classes} classes "
                           f"or no classes but got weight tensor of shape: "
                           f"[{', '.join(map(str, weight.shape))}]")
    if weight.dtype != self.dtype:
        raise RuntimeError(f"expected scalar type {_type_name(self.dtype)} but found "
                           f"{_type_name(weight.dtype)}")
    return weight.reshape(-1)


def _check_float(self, kernel):
    if self.dtype.kind != "f":
        raise NotImplementedError(f'"{kernel}" not implemented for \'{_type_name(self.dtype)}\'')


def _pick(self, idx, class_axis):
    """``self`` at the target class of each position (the class axis removed)."""
    if class_axis == 0:
        return self[idx]
    if self.ndim == 2:
        if self.flags.c_contiguous:
            return self.take(_flat(self.shape, idx))   # every index is a class here
        return self[_rows(self.shape[0]), idx]
    return np.take_along_axis(self, np.expand_dims(idx, 1), 1).squeeze(1)


def _nll(self, target, weight, reduction, ignore_index, class_axis):
    """The loss of ``self`` (log-probabilities, classes along ``class_axis``)."""
    n_classes = self.shape[class_axis]
    weight = _check_weight(self, weight, n_classes)
    idx, keep = _targets(target, ignore_index, n_classes)
    if n_classes == 0:   # no class at all: every target was ignore_index (else out of bounds)
        picked = np.zeros(np.shape(idx), self.dtype)
        w = None if weight is None else np.zeros(np.shape(idx), weight.dtype)
    else:
        picked = _pick(self, idx, class_axis)
        w = None if weight is None else weight[idx]
    if keep is not None:
        # np.where, not a product: an ignored -inf must not turn into NaN
        picked = np.where(keep, picked, 0)
        w = keep.astype(self.dtype) if w is None else np.where(keep, w, 0)
    if reduction == 0:
        out = -picked if w is None else -(picked * w)
        if keep is not None:
            out = np.where(keep, out, 0)   # an ignored target's loss is written as +0
        return np.asarray(out, dtype=self.dtype)
    total = _add(picked if w is None else picked * w, axis=None)   # np.sum's reduction
    # (+ 0: PyTorch's sums start from +0, so a zero loss is never -0)
    if reduction == 2:
        return np.asarray(-total + 0, dtype=self.dtype)
    count = picked.size if w is None else np.sum(w)
    # 0 / 0 is NaN, as in PyTorch, for a batch whose targets are all ignored
    return np.asarray((-total / count if count else -total / self.dtype.type(0)) + 0,
                      dtype=self.dtype)


def nll_loss(self, target, weight=None, reduction=1, ignore_index=-100):
    """Negative log-likelihood of ``target``'s class in ``self`` (1-D ``(C,)`` or 2-D
    ``(N, C)`` log-probabilities); ``reduction``: 0 none, 1 mean, 2 sum."""
    target, weight = _np(target), _np(weight)
    if self.ndim not in (1, 2):
        raise RuntimeError("input tensor should be 1D or 2D")
    if target.ndim > 1:
        raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
    if self.ndim == 1:
        _check_target_dtype(target)
        if target.ndim == 1:
            if target.shape[0] != 1:
                raise ValueError(f"For 1D input, 1D target must have size 1, but got target "
                                 f"size: {target.shape[0]}")
            target = target.reshape(())
    elif target.ndim == 0:
        raise IndexError("Dimension specified as 0 but tensor has no dimensions")
    elif self.shape[0] != target.shape[0]:
        raise RuntimeError(f"size mismatch (got input: [{', '.join(map(str, self.shape))}], "
                           f"target: [{target.shape[0]}])")
    _check_target_dtype(target)   # (after the shape checks, before the weight's)
    _check_float(self, "nll_loss_out_frame")
    return _nll(self, target, weight, reduction, ignore_index, self.ndim - 1)


def _check_2d(self, target, weight):
    if target.ndim != 3:
        raise RuntimeError(f"only batches of spatial targets supported (3D tensors) but got "
                           f"targets of dimension: {target.ndim}")
    if self.ndim != 4:
        raise RuntimeError(f"only batches of spatial inputs supported (4D tensors), but got "
                           f"input of dimension: {self.ndim}")
    _check_target_dtype(target)
    if weight is not None and weight.size != self.shape[1]:
        raise RuntimeError("weight tensor should be defined either for all or no classes")
    if self.shape[0] != target.shape[0] or self.shape[2:] != target.shape[1:]:
        raise RuntimeError(f"size mismatch (got input: [{', '.join(map(str, self.shape))}] , "
                           f"target: [{', '.join(map(str, target.shape))}]")


def nll_loss2d(self, target, weight=None, reduction=1, ignore_index=-100):
    """``nll_loss`` for ``(N, C, H, W)`` log-probabilities and ``(N, H, W)`` targets."""
    target, weight = _np(target), _np(weight)
    _check_2d(self, target, weight)
    _check_float(self, "nll_loss2d_forward_out_frame")
    return _nll(self, target, weight, reduction, ignore_index, 1)


# -- the backward op -----------------------------------------------------------------------
def _nll_grad(grad_output, self, target, weight, reduction, ignore_index, class_axis):
    """The gradient of ``_nll`` given the loss's gradient: ``-grad * w`` at each target class
    (divided by the total weight for 'mean'), zero elsewhere (see Note [Total weight])."""
    target, weight = _np(target), _np(weight)
    if class_axis == 0 and target.ndim == 1:
        target = target.reshape(())
    n_classes = self.shape[class_axis]
    idx, keep = _targets(target, ignore_index, n_classes)
    if n_classes == 0:   # every target ignored (see _nll): nothing to write
        return np.zeros(self.shape, self.dtype)
    w = None if weight is None else weight.reshape(-1)[idx]
    if reduction == 1:
        if w is None:
            count = idx.size if keep is None else np.count_nonzero(keep)
        else:
            count = np.sum(w if keep is None else np.where(keep, w, 0))
        coef = -grad_output / count if count else -grad_output / self.dtype.type(0)
    else:
        coef = -grad_output
    if w is not None:
        coef = coef * w
    if keep is not None:
        coef = np.where(keep, coef, 0)   # ignored targets get no gradient, even 0/0
    out = np.zeros(self.shape, self.dtype) if self.flags.c_contiguous else np.zeros_like(self)
    if class_axis == 0:
        out[idx] = coef
    elif self.ndim == 2:
        if out.flags.c_contiguous:
            out.put(_flat(out.shape, idx), coef)   # a number goes to every row
        else:
            out[_rows(self.shape[0]), idx] = coef   # a number broadcasts over the rows
    else:
        if np.ndim(coef):
            coef = np.expand_dims(coef, 1)
        np.put_along_axis(out, np.expand_dims(idx, 1), coef, 1)
    return out


def nll_loss_backward(grad_output, self, target, weight, reduction, ignore_index):
    """nll_loss's gradient with respect to ``self`` (see Note [Total weight])."""
    return _nll_grad(grad_output, self, target, weight, reduction, ignore_index, self.ndim - 1)


def nll_loss2d_backward(grad_output, self, target, weight, reduction, ignore_index):
    """nll_loss2d's gradient with respect to ``self``."""
    return _nll_grad(grad_output, self, target, weight, reduction, ignore_index, 1)


# -- formulas ------------------------------------------------------------------------------
def nll_loss_self(grad, self, target, weight, reduction, ignore_index):
    if not _mode.grad_enabled:   # Note [Plain NumPy without create_graph] in ops/linalg.py
        sd = self._data
        td = target._data if type(target) is Tensor else target
        if (weight is None and reduction == 1 and sd.ndim == 2 and td.ndim == 1
                and td.dtype == _INT64 and td.size and sd.flags.c_contiguous
                and not 0 <= ignore_index < sd.shape[1]
                and int(_max(td.view(_UINT64))) < sd.shape[1]):
            # _nll_grad's path for a mean over class indices that are all classes (the
            # target is checked again here: it may have changed through NumPy since)
            out = np.zeros(sd.shape, sd.dtype)
            out.put(_flat(sd.shape, td), -grad._data / td.shape[0])
            return _wrap(out)
        return _wrap(nll_loss_backward(grad._data, self._data, target, weight, reduction,
                                       ignore_index))
    return NLL_LOSS_BACKWARD.public(grad, self, target, weight, reduction, ignore_index)


def nll_loss_backward_grad_output(grad, target, weight, reduction, ignore_index):
    # nll_loss_backward is linear in grad_output, with nll_loss as its transpose
    return NLL_LOSS.public(grad, target, weight, reduction, ignore_index)


def nll_loss2d_self(grad, self, target, weight, reduction, ignore_index):
    return NLL_LOSS2D_BACKWARD.public(grad, self, target, weight, reduction, ignore_index)


def nll_loss2d_backward_grad_output(grad, target, weight, reduction, ignore_index):
    return NLL_LOSS2D.public(grad, target, weight, reduction, ignore_index)


def nll_loss_backward_self(grad):
    return zeros_grad(grad)


# -- samples (weights cannot require grad, so weighted calls are in tests/test_nn_ops*.py) ---
def _log_probs(make, shape, axis):
    x = make(shape, -3.0, 1.0)
    return x - np.log(np.exp(x).sum(axis=axis, keepdims=True))


def _nll_samples(make, shapes):
    call = "nn.functional.nll_loss"
    n = (shapes[0] or (1,))[0]
    x = _log_probs(make, (n, 5), 1)
    target = make((n,), 0, 5, np.int64)
    target[0] = -100
    out = [Sample((x, make((n,), 0, 5, np.int64)), {"reduction": r}, call=call)
           for r in ("mean", "sum", "none")]
    out.append(Sample((x, target), call=call))          # ignore_index
    out.append(Sample((_log_probs(make, (4,), 0), make((), 0, 4, np.int64)), call=call))
    out.append(Sample((x.astype(np.float32), make((n,), 0, 5, np.int64)), call=call, atol=1e-5))
    return out


def _nll2d_samples(make, shapes):
    call = "nn.functional.nll_loss"
    x = _log_probs(make, (2, 3, 4, 2), 1)
    target = make((2, 4, 2), 0, 3, np.int64)
    target[0, 0, 0] = 1
    ignored = target.copy()
    ignored[1, 1, 1] = -100
    return [Sample((x, target), {"reduction": r}, call=call) for r in ("mean", "sum", "none")] \
        + [Sample((x, ignored), {"ignore_index": -100}, call=call)]


NLL_LOSS = defop(
    "nll_loss", nll_loss, inputs=("self",), derivatives={"self": nll_loss_self},
    dtype=not_differentiable("nll_loss_forward", {"weight": 2}),
    methods=(), functions=(), family=FAMILY, samples=_nll_samples)
NLL_LOSS_BACKWARD = defop(
    "nll_loss_backward", nll_loss_backward, inputs=("grad_output", "self"),
    derivatives={"grad_output": nll_loss_backward_grad_output, "self": nll_loss_backward_self},
    dtype="same", methods=(), functions=(), family=FAMILY)
NLL_LOSS2D = defop(
    "nll_loss2d", nll_loss2d, inputs=("self",), derivatives={"self": nll_loss2d_self}, layout=RED,
    dtype=not_differentiable("nll_loss2d_forward", {"weight": 2}), grad_fn_name="NllLoss2DBackward0",
    methods=(), functions=(), family=FAMILY, samples=_nll2d_samples)
NLL_LOSS2D_BACKWARD = defop(
    "nll_loss2d_backward", nll_loss2d_backward, inputs=("grad_output", "self"),
    derivatives={"grad_output": nll_loss2d_backward_grad_output, "self": nll_loss_backward_self},
    dtype="same", grad_fn_name="NllLoss2DBackwardBackward0", methods=(), functions=(),
    family=FAMILY)
