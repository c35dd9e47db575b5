"""Connectionist temporal classification: the ``_ctc_loss`` record (grad_fn
``CtcLossBackward0``) and its backward ``_ctc_loss_backward`` (grad_fn ``NotImplemented``:
PyTorch has no double backward for CTC). ``F.ctc_loss`` (nn/functional/ctc.py) adds the
unbatched form, ``zero_infinity``'s ``where`` and the reductions around it, as ATen does.

Note [CTC in log space]
The loss of one sample is ``-log p(target | input)``, summed over all alignments. With the
extended target ``l' = (blank, l1, blank, l2, ..., blank)`` (length 2S+1), the forward
variables ``alpha_t(s)`` (log of the mass of alignment prefixes ending at ``l'_s`` at time t)
obey ``alpha_t(s) = lp[t, l'_s] + lse(alpha_{t-1}(s), alpha_{t-1}(s-1), alpha_{t-1}(s-2))``,
the last term only when ``l'_s`` is a label different from ``l'_{s-2}``; the backward
variables ``beta`` mirror them from the sample's last frame. Everything stays in log space,
each log-sum-exp shifted by its maximum (0 when all terms are -inf), vectorized over the batch
and the extended positions with a Python loop over time only.

The gradient w.r.t. ``log_probs`` is PyTorch's, which is not the plain derivative: it is
``exp(lp) - exp(lse_{s: l'_s = c}(alpha_t(s) + beta_t(s)) + nll - lp)``, i.e. the gradient
w.r.t. the logits of a log_softmax feeding the loss (the extra ``exp(lp)`` term is killed by
log_softmax's backward, whose null direction it lies in). Frames past a sample's input length
get zero, and with ``zero_infinity`` an infinite loss gets a zero gradient.

>>> import leafgrad as torch
>>> lp = torch.zeros(2, 1, 2)                     # two frames, uniform over {blank, 1}
>>> torch.nn.functional.ctc_loss(lp.log_softmax(2), torch.tensor([[1]]), [2], [1],
...                              reduction="sum")
tensor(0.2877)
"""
from __future__ import annotations

import numpy as np

from .pointwise_common import not_implemented_formula
from .registry import Sample, defop

FAMILY = "losses"

__all__ = ["CTC_LOSS", "CTC_LOSS_BACKWARD", "padded_targets"]

_CHECKING = " (while checking arguments for ctc_loss_allocate_outputs)"
_TYPE = {"float16": "Half", "int32": "Int", "int64": "Long", "int16": "Short", "int8": "Char",
         "uint8": "Byte", "bool": "Bool", "bfloat16": "BFloat16"}


def padded_targets(log_probs, targets, input_lengths, target_lengths, blank):
    """ATen's ctc_loss_allocate_outputs checks, in its order; returns the targets as an
    (N, max target length) int64 array."""
    if log_probs.dtype.kind != "f" or log_probs.dtype == np.float16:
        raise NotImplementedError(f'"ctc_loss_cpu" not implemented for '
                                  f"'{_TYPE.get(str(log_probs.dtype), log_probs.dtype)}'")
    if log_probs.ndim != 3:
        raise RuntimeError(f"Expected 3-dimensional tensor, but got {log_probs.ndim}-dimensional "
                           f"tensor for argument #1 'log_probs'{_CHECKING}")
    if targets.ndim not in (1, 2):
        raise RuntimeError(f"Expected 1 to 2 dimensions, but got {targets.ndim}-dimensional "
                           f"tensor for argument #2 'targets'{_CHECKING}")
    T, N, C = log_probs.shape
    if not 0 <= blank < C:
        raise RuntimeError("blank must be in label range")
    if len(input_lengths) != N:
        raise RuntimeError("input_lengths must be of size batch_size")
    if len(target_lengths) != N:
        raise RuntimeError("target_lengths must be of size batch_size")
    for v in target_lengths:
        if v < 0:
            raise RuntimeError(f"Expected target_lengths to have value at least 0, but got "
                               f"value {v}{_CHECKING}")
    longest = max(target_lengths, default=0)
    targets = targets.astype(np.int64, copy=False)
    if targets.ndim == 1:
        total = sum(target_lengths)
        if targets.shape[0] != total:
            raise RuntimeError(f"Expected tensor to have size {total} at dimension 0, but got "
                               f"size {targets.shape[0]} for argument #2 'targets'{_CHECKING}")
        starts = np.concatenate([[0], np.cumsum(target_lengths)[:-1]]).astype(np.int64)
        cols = np.arange(longest)
        index = np.minimum(starts[:, None] + cols, max(total - 1, 0))
        padded = targets[index] if total else np.zeros((N, longest), np.int64)
    else:
        if targets.shape[0] != N:
            raise RuntimeError(f"Expected tensor to have size {N} at dimension 0, but got size "
                               f"{targets.shape[0]} for argument #2 'targets'{_CHECKING}")
        if targets.shape[1] < longest:
            raise RuntimeError(f"Expected tensor to have size at least {longest} at dimension 1, "
                               f"but got size {targets.shape[1]} for argument #2 "
                               f"'targets'{_CHECKING}")
        padded = targets[:, :longest]
    for v in input_lengths:
        if v < 0:
            raise RuntimeError(f"Expected input_lengths to have value at least 0, but got value "
                               f"{v}{_CHECKING}")
        if v > T:
            raise RuntimeError(f"Expected input_lengths to have value at most {T}, but got "
                               f"value {v}{_CHECKING}")
    tl = np.asarray(target_lengths, np.int64).reshape(N)
    padded = np.where(np.arange(longest) < tl[:, None], padded, blank)
    # out-of-range labels read memory in PyTorch; here they are refused
    if padded.size and (padded.min() < 0 or padded.max() >= C):
        raise RuntimeError("ctc_loss: target label out of range (0 <= label < number of "
                           "classes)")
    return padded


class _Lattice:
    """The extended targets of a batch and their per-frame log-probabilities."""

    def __init__(self, log_probs, padded, input_lengths, target_lengths, blank):
        T, N, _ = log_probs.shape
        S = padded.shape[1]
        L = 2 * S + 1
        ext = np.full((N, L), blank, np.int64)
        ext[:, 1::2] = padded
        self.skip = np.zeros((N, L), bool)       # may come from s - 2
        self.skip[:, 3::2] = ext[:, 3::2] != ext[:, 1:-2:2]
        self.il = np.asarray(input_lengths, np.int64).reshape(N)
        self.tl = np.asarray(target_lengths, np.int64).reshape(N)
        self.inside = np.arange(L)[None, :] < (2 * self.tl + 1)[:, None]
        self.ext = ext
        self.lpe = np.take_along_axis(log_probs, np.broadcast_to(ext[None], (T, N, L)), axis=2)
        self.shape = (T, N, L)
        self.dtype = log_probs.dtype


def _lse(*terms):
    """Log-sum-exp of equally shaped arrays, shifted by their maximum (0 when all -inf)."""
    m = terms[0]
    for t in terms[1:]:
        m = np.maximum(m, t)
    m = np.where(m == -np.inf, 0, m)
    total = sum(np.exp(t - m) for t in terms)
    return np.log(total) + m


def _shift(a, k):
    """``a`` moved k places right along the last axis, -inf entering."""
    out = np.full_like(a, -np.inf)
    if k < a.shape[1]:
        out[:, k:] = a[:, :-k]
    return out


def _unshift(a, k):
    out = np.full_like(a, -np.inf)
    if k < a.shape[1]:
        out[:, :-k] = a[:, k:]
    return out


def _alphas(lat):
    T, N, L = lat.shape
    la = np.full((T, N, L), -np.inf, lat.dtype)
    if T == 0:
        return la
    la[0, :, 0] = lat.lpe[0, :, 0]
    if L > 1:
        la[0, :, 1] = np.where(lat.tl > 0, lat.lpe[0, :, 1], -np.inf)
    neg = np.asarray(-np.inf, lat.dtype)
    for t in range(1, T):
        prev = la[t - 1]
        a3 = np.where(lat.skip, _shift(prev, 2), neg)
        la[t] = np.where(lat.inside, _lse(prev, _shift(prev, 1), a3) + lat.lpe[t], neg)
    return la


def _nll(lat, la):
    N = lat.shape[1]
    rows = np.arange(N)
    last = np.maximum(lat.il - 1, 0)
    end = la[last, rows, 2 * lat.tl]
    before = np.where(lat.tl > 0, la[last, rows, np.maximum(2 * lat.tl - 1, 0)], -np.inf)
    ll = _lse(end, before.astype(lat.dtype))
    # no frames: probability 1 for an empty target, 0 otherwise
    ll = np.where(lat.il == 0, np.where(lat.tl == 0, 0, -np.inf), ll)
    return (-ll).astype(lat.dtype)


def _betas(lat):
    T, N, L = lat.shape
    lb = np.full((T, N, L), -np.inf, lat.dtype)
    rows = np.arange(N)
    skip_next = np.zeros((N, L), bool)      # may go on to s + 2
    skip_next[:, :-2] = lat.skip[:, 2:]
    neg = np.asarray(-np.inf, lat.dtype)
    start = np.full((N, L), -np.inf, lat.dtype)
    for t in range(T - 1, -1, -1):
        if t + 1 < T:
            nxt = lb[t + 1]
            b3 = np.where(skip_next, _unshift(nxt, 2), neg)
            inner = _lse(nxt, _unshift(nxt, 1), b3) + lat.lpe[t]
        else:
            inner = np.full((N, L), -np.inf, lat.dtype)
        ending = lat.il - 1 == t
        if ending.any():
            start.fill(-np.inf)
            start[rows, 2 * lat.tl] = lat.lpe[t, rows, 2 * lat.tl]
            has = lat.tl > 0
            start[rows[has], 2 * lat.tl[has] - 1] = lat.lpe[t, rows[has], 2 * lat.tl[has] - 1]
        row = np.where(ending[:, None], start, np.where((t < lat.il - 1)[:, None], inner, neg))
        lb[t] = np.where(lat.inside, row, neg)
    return lb


def _class_lse(lat, ab, C):
    """For every (t, n, c): log-sum-exp of ``ab`` over the extended positions labelled c."""
    T, N, L = lat.shape
    flat = ((np.arange(T)[:, None, None] * N + np.arange(N)[None, :, None]) * C
            + lat.ext[None]).reshape(-1)
    values = ab.reshape(-1)
    peak = np.full(T * N * C, -np.inf, lat.dtype)
    np.maximum.at(peak, flat, values)
    shift = np.where(peak == -np.inf, 0, peak)
    total = np.zeros(T * N * C, lat.dtype)
    np.add.at(total, flat, np.exp(values - shift[flat]))
    return (np.log(total) + shift).reshape(T, N, C)


# -- the records ---------------------------------------------------------------------------------
def _ctc_loss(log_probs, targets, input_lengths, target_lengths, blank=0, zero_infinity=False):
    """Per-sample negative log-likelihoods (N,) of ``log_probs`` (T, N, C)."""
    padded = padded_targets(log_probs, targets, input_lengths, target_lengths, blank)
    lat = _Lattice(log_probs, padded, input_lengths, target_lengths, blank)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        return _nll(lat, _alphas(lat))


def _ctc_loss_backward(grad, log_probs, neg_log_likelihood, targets, input_lengths,
                       target_lengths, blank, zero_infinity):
    """PyTorch's gradient of ``_ctc_loss`` w.r.t. ``log_probs`` (Note [CTC in log space])."""
    padded = padded_targets(log_probs, targets, input_lengths, target_lengths, blank)
    lat = _Lattice(log_probs, padded, input_lengths, target_lengths, blank)
    T, N, C = log_probs.shape
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        la = _alphas(lat)
        nll = _nll(lat, la)
        lcab = _class_lse(lat, la + _betas(lat), C)
        out = np.exp(log_probs) - np.exp(lcab + nll[None, :, None] - log_probs)
    out = out * grad.reshape(1, N, 1)
    live = np.arange(T)[:, None] < lat.il[None, :]
    if zero_infinity:
        live = live & (nll != np.inf)[None, :]
    return np.where(live[:, :, None], out, 0).astype(log_probs.dtype, copy=False)


CTC_LOSS_BACKWARD = defop(
    "_ctc_loss_backward", _ctc_loss_backward, inputs=("log_probs", "neg_log_likelihood"),
    derivatives={"log_probs": not_implemented_formula("_ctc_loss_backward"),
                 "neg_log_likelihood": not_implemented_formula("_ctc_loss_backward")},
    dtype="same", grad_fn_name="NotImplemented", methods=(), functions=(), family=FAMILY)


def _ctc_loss_log_probs(grad, log_probs, result, targets, input_lengths, target_lengths, blank,
                        zero_infinity):
    # the loss is an input of the backward (as in ATen), so a graph built by create_graph=True
    # leads from it back to CtcLossBackward0
    return CTC_LOSS_BACKWARD.public(grad, log_probs, result, targets, input_lengths,
                                    target_lengths, blank, zero_infinity)


def _samples(make, shapes):
    def lp(shape):
        x = make(shape)
        return x - np.log(np.exp(x).sum(-1, keepdims=True))
    call = "nn.functional.ctc_loss"
    tg = np.array([[1, 2, 2], [3, 1, 0], [2, 0, 0]])
    return [Sample((lp((6, 3, 4)), tg, (6, 5, 4), (3, 2, 1)), {"reduction": "none"}, call=call,
                   grad=False),
            Sample((lp((6, 3, 4)), np.array([1, 2, 2, 3, 1, 2]), (6, 5, 3), (3, 2, 1)),
                   {"reduction": "sum"}, call=call, grad=False),
            Sample((lp((5, 2, 3)), np.array([[1, 1, 1], [2, 1, 2]]), (5, 2), (3, 3)),
                   {"zero_infinity": True, "reduction": "none"}, call=call, grad=False)]


CTC_LOSS = defop(
    "_ctc_loss", _ctc_loss, inputs=("log_probs",),
    derivatives={"log_probs": _ctc_loss_log_probs}, dtype="same",
    grad_fn_name="CtcLossBackward0", methods=(), functions=(), family=FAMILY,
    samples=_samples)
