"""``F.cross_entropy``'s everyday case, ``log_softmax`` then ``nll_loss``, in one frame.

Note [Fused cross_entropy]
``cross_entropy(x, y)`` for class-index targets is, as in PyTorch, two ops:
``log_softmax(x, 1)`` (``LogSoftmaxBackward0``) and ``nll_loss`` of it (``NllLossBackward0``).
Through the public paths that is some twenty Python frames (argument checks, the method
template, the dispatchers and the two dtype rules, the forwards and their helpers) around a
dozen NumPy calls; in a small MLP's training step that was a third of the forward's Python
(bench/README.md, W3). :func:`cross_entropy_2d` does the same work for the everyday case
only: plain tensors, a 2-D C-contiguous float input with at least one row and one class, a
1-D int64 target of one entry per row, grad mode on, no ``_meta`` flags, and the caller's
default arguments (no weight, ``reduction='mean'``, a negative ``ignore_index``, no label
smoothing). It runs the same NumPy calls in the same order as ``log_softmax``'s and
``nll_loss``'s forwards (so the values are the same bits), and records both nodes through
``record_node`` with the arguments the dispatchers pass (``(x, 1, None)`` and
``(log_probs, y, None, 1, ignore_index)``), so the graph, the saved values, anomaly traces,
saved-tensor hooks and the backward (double backward included) are the general path's.
A target that is not a class of every row (an ignored or out-of-range entry) makes the
``nll_loss`` half take the general path, which raises or ignores as PyTorch does; anything
else answers None before any work and the caller takes the general path.
"""
from __future__ import annotations

import numpy as np

from ..grad_mode import state as _mode
from ..tensor import Tensor, _wrap
from . import dispatch as _dispatch
from .registry import RECORDS

__all__ = ["cross_entropy_2d"]

_ndarray = np.ndarray
_max = np.maximum.reduce
_add = np.add.reduce
_F32 = np.dtype(np.float32)
_exp = np.exp
_log = np.log
_subtract = np.subtract
_asarray = np.asarray
_INT64 = np.dtype(np.int64)
_UINT64 = np.dtype(np.uint64)

_ST: list = []   # filled on first use: plain types, records and helpers (nn_ops is lazy)


def _setup():
    from ..nn.parameter import Parameter
    from . import nll_loss, nn_ops
    _ST[:] = [{Tensor, Parameter}, RECORDS["log_softmax"], nll_loss.NLL_LOSS,
              nn_ops._shifted, nll_loss._flat, nn_ops._log_softmax_f32_shifted]


def cross_entropy_2d(input, target, ignore_index):
    """``nll_loss(log_softmax(input, 1), target, ignore_index=ignore_index)`` with mean
    reduction for the everyday case, else None (Note above)."""
    if not _ST:
        _setup()
    plain, log_softmax, nll, shifted, flat, f32_lastdim = _ST
    if type(input) not in plain or type(target) is not Tensor or not _mode.grad_enabled:
        return None
    xd = input._data
    td = target._data
    if (type(xd) is not _ndarray or type(td) is not _ndarray or xd.ndim != 2
            or td.ndim != 1 or td.dtype is not _INT64 and td.dtype != _INT64
            or xd.dtype.kind != "f" or xd.itemsize == 2 or not xd.flags.c_contiguous
            or input._meta is not None or target._meta is not None):
        return None
    n, c = xd.shape   # (float16: log_softmax computes in float32, its general path)
    if td.shape[0] != n or n == 0 or c == 0:
        return None
    record = _dispatch.record_node   # read each call: integer_history_seen rebinds it
    # log_softmax(input, 1): nn_ops.log_softmax's forward for a non-empty matrix
    z = shifted(xd, 1)
    if xd.dtype == _F32:   # Note [float32 softmax over the last dim] in nn_ops
        z = f32_lastdim(z)
    else:
        lse = _add(_exp(z), axis=1, keepdims=True)
        _log(lse, out=lse)
        z -= lse
    log_probs = _wrap(z)
    if input._requires_grad:
        record(log_softmax, (input, 1, None), (log_probs,))
    # nll_loss(log_probs, target, None, 1, ignore_index): _nll's path when every target is a
    # class (seen as unsigned, a negative target is huge: one reduction checks them all)
    if 0 <= ignore_index < c or int(_max(td.view(_UINT64))) >= c:
        return nll.public(log_probs, target, None, 1, ignore_index)
    picked = z.take(flat(z.shape, td))
    total = _add(picked, axis=None)
    result = _wrap(_asarray(-total / n + 0, dtype=z.dtype))   # (+ 0: never -0, as _nll)
    if input._requires_grad:
        record(nll, (log_probs, target, None, 1, ignore_index), (result,))
    return result
