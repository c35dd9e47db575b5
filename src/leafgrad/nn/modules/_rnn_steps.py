"""One time step of each recurrent cell, shared by the layers (rnn.py) and the cells
(rnn_cell.py).

Each step takes ``xt``, the input half of the gates already computed (``x W_ih^T`` plus the
biases that can be folded in, see Note [Recurrent loop] in rnn.py), and the transposed
recurrent weight, so a step is one ``addmm`` plus the gate arithmetic. Gate order and
formulas are PyTorch's (ATen's ``RNN.cpp`` cells compute the same expressions).
"""
from __future__ import annotations

from ... import ops as _ops

__all__ = ["gru_step", "lstm_step", "rnn_step"]

_addmm = _ops.registry.FUNCTIONS["addmm"]


def rnn_step(xt, h, w_hh_t, relu: bool = False):
    """``h' = tanh(xt + h W_hh^T)`` (``relu`` for nonlinearity='relu'); ``xt`` holds both
    biases."""
    pre = _addmm(xt, h, w_hh_t)
    return pre.relu() if relu else pre.tanh()


def lstm_step(xt, h, c, w_hh_t, w_hr_t=None):
    """Gates i, f, g, o = chunks of ``xt + h W_hh^T`` (``xt`` holds both biases);
    ``c' = f c + i g``, ``h' = o tanh(c')``, projected by ``W_hr^T`` when there is one."""
    i, f, g, o = _addmm(xt, h, w_hh_t).chunk(4, 1)
    c = f.sigmoid() * c + i.sigmoid() * g.tanh()
    h = o.sigmoid() * c.tanh()
    if w_hr_t is not None:
        h = h.mm(w_hr_t)
    return h, c


def gru_step(xt, h, w_hh_t, b_hh=None):
    """Gates r, z, n: ``xt`` = ``x W_ih^T + b_ih`` and ``h W_hh^T + b_hh`` are added for r
    and z, but n = tanh(x_n + r * (h W_hn^T + b_hn)); ``h' = (h - n) z + n``."""
    hg = h.mm(w_hh_t) if b_hh is None else _addmm(b_hh, h, w_hh_t)
    xr, xz, xn = xt.chunk(3, 1)
    hr, hz, hn = hg.chunk(3, 1)
    r = (xr + hr).sigmoid()
    z = (xz + hz).sigmoid()
    n = (xn + r * hn).tanh()
    return (h - n) * z + n
