"""``nn.Linear``'s forward on a matrix, ``addmm(bias, input, weight.t())``, in one frame.

Note [Fused linear]
``F.linear(x, w, b)`` on a 2-D ``x`` is, as in PyTorch, two ops: ``w.t()`` (a view:
``TBackward0``) and ``addmm(b, x, w.t())`` (``AddmmBackward0``). Through the public paths
that is a dozen Python frames per layer (the ``t`` template, ``dispatch_view``,
``_make_view``, ``addmm_public``'s checks, the general ``dispatch`` and its dtype rule, the
forward) around two NumPy calls; a training step of a small MLP spends a quarter of its
forward there (bench/README.md, W3). :func:`linear_2d` does the same work for the everyday
case only (plain tensors of one floating dtype, shapes that fit, grad mode on): the same
view tensor for ``w.t()`` (its array ``w._data.T``, the weight's version counter, the
weight as base, the version it was made at), the same product (``np.matmul`` then ``+=``
the bias: ``addmm``'s forward for ``alpha = beta = 1``), and the same two nodes, recorded
by ``record_node`` with the very arguments the dispatchers pass (so the specialised
recorders, anomaly traces and the integer-history check are the ones of the general path).
Anything else answers None and the caller takes the general path, which has every check
and message.
"""
from __future__ import annotations

import numpy as np

from ..grad_mode import state as _mode
from ..tensor import Tensor, _wrap
from . import dispatch as _dispatch
from .registry import RECORDS

__all__ = ["linear_2d"]

_matmul = np.matmul
_T = RECORDS["t"]
_ADDMM = RECORDS["addmm"]


def _plain_types():
    from ..nn.parameter import Parameter
    return {Tensor, Parameter}


_PLAIN: set = set()   # filled on first use (nn imports this module's users, not the reverse)


def linear_2d(input, weight, bias):
    """``addmm(bias, input, weight.t())`` for the everyday case, else None (Note above)."""
    if not _PLAIN:
        _PLAIN.update(_plain_types())
    # plain tensors only: a subclass may override ``t`` (the general path calls it)
    if (type(weight) not in _PLAIN or type(input) not in _PLAIN or type(bias) not in _PLAIN
            or not _mode.grad_enabled):
        return None
    wd = weight._data
    xd = input._data
    bd = bias._data
    dt = wd.dtype
    if (xd.dtype is not dt or bd.dtype is not dt or dt.kind != "f" or xd.ndim != 2
            or wd.ndim != 2 or xd.shape[1] != wd.shape[1] or bd.shape != wd.shape[:1]
            or weight._base is not None or weight._meta is not None
            or input._meta is not None or bias._meta is not None):
        return None
    # weight.t(): dispatch_view + _make_view for a weight that is no view (grad mode on)
    wtd = wd.T
    wt = _wrap(wtd)
    vc = weight._vc
    wt._vc = vc
    wt._base = weight
    wt._view_version = vc[0]
    record = _dispatch.record_node   # read each call: integer_history_seen rebinds it
    if weight._requires_grad:
        record(_T, (weight,), (wt,))
    # addmm(bias, input, wt): its forward for alpha = beta = 1 and a bias row
    out = _matmul(xd, wtd)
    out += bd
    result = _wrap(out)
    if input._requires_grad or weight._requires_grad or bias._requires_grad:
        record(_ADDMM, (bias, input, wt, 1, 1), (result,))
    return result
