"""The recurrent layers over a ``PackedSequence`` (see ``nn/utils/rnn.py``).

Note [Packed recurrence]
Packed data holds, time step after time step, the rows of the sequences still running
(``batch_sizes[t]`` rows, longest sequences first). Going forward in time the batch only
shrinks: when it does, the rows that stop are set aside as those sequences' final state and
the step continues on the first rows. Going backward in time the batch only grows: the initial
states of the sequences that join are appended. This is ATen's ``PackedLayer`` /
``ReversedPackedLayer``, so the final states (``h_n``, ``c_n``) are each sequence's true last
step and the values and gradients are PyTorch's. As for padded input, the input half of the
gates is one ``linear`` over all packed rows (Note [Recurrent loop] in rnn.py).
"""
from __future__ import annotations

from ... import ops as _ops
from .. import functional as F
from ._rnn_steps import gru_step, lstm_step, rnn_step

__all__ = ["run_packed"]

_FUNCTIONS = _ops.registry.FUNCTIONS
_cat = _FUNCTIONS["cat"]
_stack = _FUNCTIONS["stack"]


def _cell(mode, w, bias, proj, x):
    """(input projection of all packed rows, step function(xt, state) -> state)."""
    w_ih, w_hh = w[0], w[1]
    b_ih, b_hh = (w[2], w[3]) if bias else (None, None)
    w_hh_t = w_hh.t()
    if mode == "GRU":
        return F.linear(x, w_ih, b_ih), lambda xt, s: (gru_step(xt, s[0], w_hh_t, b_hh),)
    xproj = F.linear(x, w_ih, None if b_ih is None else b_ih + b_hh)
    if mode == "LSTM":
        w_hr_t = w[-1].t() if proj else None
        return xproj, lambda xt, s: lstm_step(xt, s[0], s[1], w_hh_t, w_hr_t)
    relu = mode == "RNN_RELU"
    return xproj, lambda xt, s: (rnn_step(xt, s[0], w_hh_t, relu),)


def _forward_in_time(xproj, state, step, batch_sizes):
    outputs, finished = [], []
    offset, last = 0, int(batch_sizes[0])
    for bs in batch_sizes:
        bs = int(bs)
        if bs < last:
            finished.append(tuple(s[bs:last] for s in state))
            state = tuple(s[:bs] for s in state)
        state = step(xproj[offset:offset + bs], state)
        outputs.append(state[0])
        offset += bs
        last = bs
    finished.append(state)
    finished.reverse()
    final = tuple(_cat([f[k] for f in finished], 0) for k in range(len(state)))
    return _cat(outputs, 0), final


def _backward_in_time(xproj, state0, step, batch_sizes):
    outputs = []
    offset = xproj.shape[0]
    last = int(batch_sizes[-1])
    state = tuple(s[:last] for s in state0)
    for bs in reversed(batch_sizes):
        bs = int(bs)
        if bs > last:
            state = tuple(_cat([s, s0[last:bs]], 0) for s, s0 in zip(state, state0))
        state = step(xproj[offset - bs:offset], state)
        outputs.append(state[0])
        offset -= bs
        last = bs
    outputs.reverse()
    return _cat(outputs, 0), state


def run_packed(rnn, data, batch_sizes, hx, cx=None):
    """Every layer and direction of ``rnn`` over packed ``data``; returns the packed output
    and the stacked final states (Note [Packed recurrence])."""
    num_directions = 2 if rnn.bidirectional else 1
    h0s = hx.unbind(0)
    c0s = cx.unbind(0) if cx is not None else None
    weights = rnn._flat_weights
    per_dir = len(weights) // (rnn.num_layers * num_directions)
    dropout = rnn.dropout if rnn.training else 0.0
    proj = rnn.proj_size > 0
    h_last, c_last = [], []
    x = data
    for layer in range(rnn.num_layers):
        outputs = []
        for direction in range(num_directions):
            k = layer * num_directions + direction
            w = weights[k * per_dir:(k + 1) * per_dir]
            xproj, step = _cell(rnn.mode, w, rnn.bias, proj, x)
            state = (h0s[k],) if c0s is None else (h0s[k], c0s[k])
            run = _backward_in_time if direction == 1 else _forward_in_time
            out, final = run(xproj, state, step, batch_sizes)
            outputs.append(out)
            h_last.append(final[0])
            if c0s is not None:
                c_last.append(final[1])
        x = outputs[0] if num_directions == 1 else _cat(outputs, 1)
        if dropout and layer < rnn.num_layers - 1:
            x = F.dropout(x, dropout, True)
    h_n = _stack(h_last, 0)
    if cx is None:
        return x, h_n
    return x, h_n, _stack(c_last, 0)
