"""Convolution kernels over flat windows: the fast path of ``ops/conv.py``.

Note [Flat windows]
With stride 1, the input an output position ``o`` sees at kernel offset ``idx`` is
``x[o + idx * dilation]``. Flatten the (padded) spatial dims P = (P1, ..., Pd) with strides
``sf_k = prod(P[k+1:])`` and give the output the same flat strides ("an output grid as wide as
the input"): position ``o`` is ``q(o) = sum o_k sf_k``, and offset ``idx`` reads
``x_flat[q + off(idx)]`` with ``off(idx) = sum idx_k dilation_k sf_k``. So one kernel offset's
window over every output position is the contiguous run ``x_flat[off : off + L]``, where
``L = q(O - 1) + 1``: im2col is prod(kernel) contiguous copies per (sample, channel), and
col2im as many contiguous additions, where the strided kernels of ``ops/conv.py`` copy rows of
O_d elements. The grid's positions with some ``o_k >= O_k`` (k >= 2; ``P_k - O_k`` of every
row) are "garbage" columns: computed, never part of the result. The products get
``prod(P[1:]) / prod(O[1:])`` as many columns (8% more for W6's 26x26 -> 24x24).

Garbage must not leak into a result:
- forward: its columns are dropped when the product is copied out;
- input gradient: the gradient is laid out with zeros at the garbage positions, so the
  columns there hold ``W^T 0`` and their additions into real input positions add zeros. The
  sums start from +0, so adding +-0 changes no value and no sign; only a non-finite weight
  (inf * 0 = NaN) breaks this, and then the strided kernel runs (``input_grad_ok``);
- weight gradient: the garbage entries of the columns are set to 0 before the product (an
  inf in the input, times the gradient's zero, would be NaN).

Note [Strided flat windows]
With stride s, output ``o`` reads ``x[o * s + idx * dilation]``. Split the padded input into
its ``prod(s)`` phase images, ``x[..., a1::s1, a2::s2]`` (one strided copy; zeros where a
dim is not a multiple of s), each of shape Q = ceil(P / s): the position ``o * s + t`` is
``o + t // s`` in phase ``t % s``, so each kernel offset reads a stride-1 window of one phase
image, and the grid is as wide as a phase image (Q_k - O_k garbage columns per row, as
above). The input gradient adds into phase images and interleaves them back. Stride 1 is the
case of one phase (a reshape, no copy).

The samples run in chunks of about ``_CHUNK_BYTES`` of columns, which stay in cache: for W6's
second convolution OpenBLAS multiplies (32, 288) @ (288, 624) at ~90 GFLOPS on one core, and
the whole batch's (288, 36864) product (42 MB of columns, in no cache) at ~50. Results agree
with the strided kernels to rounding, not bit for bit: BLAS's blocking, and so its summation
order, depends on the product's width, and the weight gradient sums the chunks' products.
(Neither is PyTorch's kernel: float32 convolutions there are oneDNN's, float64 ones MKL's.)
The columns are no longer kept from the forward for the weight gradient (Note [im2col reuse]):
rebuilding them chunk by chunk costs less than one pass over 42 MB.
"""
from __future__ import annotations

import itertools
import math

import numpy as np

_CHUNK_BYTES = 2 << 20
_BLAS = (np.dtype(np.float32), np.dtype(np.float64))


def usable(dtype, weight_dtype, stride, groups) -> bool:
    """Whether the flat kernels apply: a BLAS dtype on both sides."""
    return dtype in _BLAS and weight_dtype == dtype


def input_grad_ok(w) -> bool:
    """The flat input gradient needs a finite weight (see the Note)."""
    return bool(np.isfinite(w).all())


def _geometry(padded, out, kernel, dilation, stride):
    """(kernel offsets, L, LP, grid shape, phase shape Q): each kernel position's (phase,
    flat offset in that phase image), the length of each window's run, the grid's length and
    its shape (O1, Q2, ..., Qd) (Note [Strided flat windows])."""
    q = [-(-p // s) for p, s in zip(padded, stride)]
    sf = [math.prod(q[k + 1:]) for k in range(len(q))]
    offs = []
    for idx in itertools.product(*[range(k) for k in kernel]):
        at = [i * d for i, d in zip(idx, dilation)]
        phase = 0
        for a, s in zip(at, stride):
            phase = phase * s + a % s
        offs.append((phase, sum(a // s * f for a, s, f in zip(at, stride, sf))))
    run = sum((o - 1) * f for o, f in zip(out, sf)) + 1
    return offs, run, out[0] * sf[0], (out[0],) + tuple(q[1:]), tuple(q)


def _phases(xp, stride, q):
    """``xp`` (N, C, *P) as its phase images (N, C, prod(stride), prod(Q)): phase ``a`` holds
    ``xp[..., a1::s1, a2::s2, ...]`` (zero-padded to Q), so a strided window is a contiguous
    run of one phase image (for stride 1, a reshape)."""
    n, c = xp.shape[:2]
    if all(s == 1 for s in stride):
        return xp.reshape(n, c, 1, -1)
    whole = tuple(qq * s for qq, s in zip(q, stride))
    if whole != xp.shape[2:]:
        grown = np.zeros((n, c) + whole, xp.dtype)
        grown[(Ellipsis,) + tuple(slice(0, p) for p in xp.shape[2:])] = xp
        xp = grown
    d = len(stride)
    split = xp.reshape((n, c) + tuple(v for qq, s in zip(q, stride) for v in (qq, s)))
    order = (0, 1) + tuple(3 + 2 * k for k in range(d)) + tuple(2 + 2 * k for k in range(d))
    return np.ascontiguousarray(split.transpose(order)).reshape(n, c, math.prod(stride), -1)


def _unphased(ph, stride, q, padded):
    """The inverse of :func:`_phases`: (N, C, S, prod(Q)) -> (N, C, *padded)."""
    n, c = ph.shape[:2]
    if all(s == 1 for s in stride):
        return ph.reshape((n, c) + tuple(padded))
    d = len(stride)
    split = ph.reshape((n, c) + tuple(stride) + tuple(q))
    order = (0, 1) + tuple(v for k in range(d) for v in (2 + d + k, 2 + k))
    whole = split.transpose(order).reshape((n, c) + tuple(qq * s for qq, s in zip(q, stride)))
    return np.ascontiguousarray(whole[(Ellipsis,) + tuple(slice(0, p) for p in padded)])


def _valid(out) -> tuple:
    """The index of the real positions in a grid (..., O1, P2, ..., Pd)."""
    return (Ellipsis, slice(None)) + tuple(slice(0, o) for o in out[1:])


def _padded(x, padding):
    """``x`` (N, C, *S) zero-padded, C-contiguous."""
    if not any(padding):
        return np.ascontiguousarray(x)
    spatial = x.shape[2:]
    xp = np.zeros(x.shape[:2] + tuple(s + 2 * p for s, p in zip(spatial, padding)), x.dtype)
    xp[(Ellipsis,) + tuple(slice(p, p + s) for s, p in zip(spatial, padding))] = x
    return xp


def _chunks(n, per_sample_bytes):
    """(start, size) of each chunk of samples."""
    size = max(1, min(n, _CHUNK_BYTES // max(per_sample_bytes, 1)))
    return [(n0, min(size, n - n0)) for n0 in range(0, n, size)], size


def _columns(buf, xr, n0, s, offs, run):
    """The chunk's columns (C, prod(kernel), s, LP) in ``buf``: one copy per offset."""
    for k, (ph, off) in enumerate(offs):
        buf[:, k, :, :run] = xr[n0:n0 + s, :, ph, off:off + run].transpose(1, 0, 2)
    return buf


class _Buffers:
    """Zeroed work arrays for a chunk size, remade (zeroed) for a smaller last chunk."""

    def __init__(self, shapes, dtype):
        self.shapes, self.dtype, self.size, self.arrays = shapes, dtype, None, None

    def get(self, s):
        if s != self.size:
            self.size = s
            self.arrays = [np.zeros(shape(s), self.dtype) for shape in self.shapes]
        return self.arrays


def _per_group(a, groups):
    """A (rows, cols) product operand as (groups, rows / groups, cols): the channels of a
    group are consecutive rows, so each group's product is one of a batched matmul (for one
    group, the plain 2-d product)."""
    return a if groups == 1 else a.reshape(groups, a.shape[0] // groups, a.shape[1])


def forward(x, w, b, stride, padding, dilation, groups=1):
    """conv(x, w) + b (N, O, *out), C-contiguous."""
    n, c = x.shape[:2]
    o = w.shape[0]
    kernel = w.shape[2:]
    xp = _padded(x, padding)
    padded = xp.shape[2:]
    out = tuple((p - d * (k - 1) - 1) // s + 1
                for p, k, d, s in zip(padded, kernel, dilation, stride))
    offs, run, lp, grid, q = _geometry(padded, out, kernel, dilation, stride)
    ckk = c * len(offs)
    chunks, _ = _chunks(n, ckk * lp * x.itemsize)
    xr = _phases(xp, stride, q)
    wm = _per_group(w.reshape(o, ckk // groups), groups)
    bias = None if b is None else b[:, None]
    result = np.empty((n, o) + out, x.dtype)
    bufs = _Buffers([lambda s: (c, len(offs), s, lp), lambda s: (o, s * lp)], x.dtype)
    valid = _valid(out)
    for n0, s in chunks:
        cols, prod = bufs.get(s)
        _columns(cols, xr, n0, s, offs, run)
        np.matmul(wm, _per_group(cols.reshape(ckk, s * lp), groups),
                  out=_per_group(prod, groups))
        if bias is not None:
            prod += bias
        result[n0:n0 + s] = prod.reshape((o, s) + grid)[valid].swapaxes(0, 1)
    return result


def _gradient_grid(buf, g, n0, s):
    """The chunk of ``g`` (N, O, *out) in ``buf`` (O, s, *grid) at the real positions (the
    garbage positions stay zero: the buffers are zeroed when made)."""
    out = g.shape[2:]
    buf[_valid(out)] = g[n0:n0 + s].swapaxes(0, 1)
    return buf


def input_grad(g, w, x_shape, stride, padding, dilation, groups=1):
    """A_w^T g for an input of shape ``x_shape`` (finite ``w``)."""
    n, c = x_shape[:2]
    o = w.shape[0]
    kernel = w.shape[2:]
    out = g.shape[2:]
    padded = tuple(s + 2 * p for s, p in zip(x_shape[2:], padding))
    offs, run, lp, grid, q = _geometry(padded, out, kernel, dilation, stride)
    ckk = c * len(offs)
    chunks, _ = _chunks(n, ckk * lp * g.itemsize)
    # W^T per group, contiguous: OpenBLAS multiplies a transposed view ~3x slower here
    wt = np.ascontiguousarray(w.reshape(groups, o // groups, ckk // groups).transpose(0, 2, 1))
    wt = wt.reshape(ckk, o // groups) if groups > 1 else wt[0]
    gr = np.zeros((n, c, math.prod(stride), math.prod(q)), g.dtype)   # phase images
    bufs = _Buffers([lambda s: (o, s) + grid, lambda s: (ckk, s * lp)], g.dtype)
    for n0, s in chunks:
        gg, cols = bufs.get(s)
        _gradient_grid(gg, g, n0, s)
        np.matmul(_per_group(wt, groups), _per_group(gg.reshape(o, s * lp), groups),
                  out=_per_group(cols, groups))
        c4 = cols.reshape(c, len(offs), s, lp)
        dest = gr[n0:n0 + s]
        for k, (ph, off) in enumerate(offs):
            dest[:, :, ph, off:off + run] += c4[:, k, :, :run].swapaxes(0, 1)
    gxp = _unphased(gr, stride, q, padded)
    if not any(padding):
        return gxp
    inner = gxp[(Ellipsis,) + tuple(slice(p, p + s) for s, p in zip(x_shape[2:], padding))]
    return np.ascontiguousarray(inner)


def weight_grad(g, x, w_shape, stride, padding, dilation, groups=1):
    """B_x^T g for a weight of shape ``w_shape``."""
    n, c = x.shape[:2]
    o = w_shape[0]
    kernel = tuple(w_shape[2:])
    out = g.shape[2:]
    xp = _padded(x, padding)
    padded = xp.shape[2:]
    offs, run, lp, grid, q = _geometry(padded, out, kernel, dilation, stride)
    ckk = c * len(offs)
    chunks, _ = _chunks(n, ckk * lp * x.itemsize)
    xr = _phases(xp, stride, q)
    m = o // groups
    gwt = np.zeros((ckk, m), x.dtype)   # per group: (C/G * prod(kernel), O/G) blocks
    part = np.empty((ckk, m), x.dtype)
    bufs = _Buffers([lambda s: (o, s) + grid, lambda s: (c, len(offs), s, lp)], x.dtype)
    garbage = [(Ellipsis,) + (slice(None),) * k + (slice(e, None),)
               + (slice(None),) * (len(out) - 2 - k)
               for k, e in enumerate(out[1:]) if e < q[k + 1]]
    for n0, s in chunks:
        gg, cols = bufs.get(s)
        _gradient_grid(gg, g, n0, s)
        _columns(cols, xr, n0, s, offs, run)
        cg = cols.reshape((c, len(offs), s) + grid)
        for where in garbage:
            cg[where] = 0
        np.matmul(_per_group(cols.reshape(ckk, s * lp), groups),
                  np.swapaxes(_per_group(gg.reshape(o, s * lp), groups), -1, -2),
                  out=_per_group(part, groups))
        gwt += part
    return np.ascontiguousarray(np.swapaxes(_per_group(gwt, groups), -1, -2)).reshape(w_shape)
