"""The values of ``arange`` and ``linspace``, bit for bit as PyTorch's CPU kernels make them.

Note [Range kernels]
PyTorch fills a range in blocks: an AVX2 loop writes two vectors of 32 bytes at a time (8
float32, 4 float64, 4 int64 ...), each vector from a *base* value computed for its first index
and then ``base + j * step``; the leftover tail (fewer than two vectors) is written one value
at a time. The compiler fuses ``a * b + c`` into one fused multiply-add (a single rounding).
``arange`` computes in double for float32/float64 (``start + step * i``) and rounds the base
to the output dtype before adding ``j * step``. ``linspace`` writes one value at a time in the
output dtype, counting up from ``start`` for the first half and down from ``end`` for the
second.
Matching those roundings makes ``torch.arange(-2, 0.5, 0.07)`` equal to PyTorch's to the last
bit. (Ranges longer than 32768 are split across threads in PyTorch; that split depends on
the machine and is not modelled.)
"""
from __future__ import annotations

import math

import numpy as np

__all__ = ["arange_values", "linspace_values", "fma"]

_VECTOR_BYTES = 32   # AVX2, and on AVX-512 machines too: no AVX-512 build (leafgrad._cpu)


def _split(a):
    # Dekker's split: a == hi + lo, each half fits in 26 bits
    c = a * 134217729.0
    hi = c - (c - a)
    return hi, a - hi


def fma(a, b, c):
    """``a * b + c`` with one rounding, in float64 (error-free transforms; NumPy has no fma).

    >>> float(fma(0.1, 10.0, -1.0))
    5.551115123125783e-17
    """
    a, b, c = (np.asarray(v, dtype=np.float64) for v in (a, b, c))
    with np.errstate(all="ignore"):
        p = a * b
        ah, al = _split(a)
        bh, bl = _split(b)
        e = ((ah * bh - p) + ah * bl + al * bh) + al * bl      # p + e == a * b exactly
        s = p + c
        bb = s - p
        t = (p - (s - bb)) + (c - bb)                           # s + t == p + c exactly
        out = s + (t + e)
    return np.where(np.isfinite(p), out, p + c)


def _blocked(n: int, itemsize: int, scalar, vector, out_dtype) -> np.ndarray:
    """Fill ``n`` values the way PyTorch's vectorised serial loop does."""
    width = _VECTOR_BYTES // itemsize
    n_vec = (n // (2 * width)) * (2 * width)
    out = np.empty(n, out_dtype)
    if n_vec:
        first = np.arange(0, n_vec, width, dtype=np.int64)
        out[:n_vec] = vector(first, np.arange(width, dtype=np.float64)).reshape(-1)
    if n_vec < n:
        out[n_vec:] = scalar(np.arange(n_vec, n, dtype=np.int64))
    return out


def arange_values(start, step, n: int, np_dtype) -> np.ndarray:
    """``start + i * step`` for ``i < n``, for a float or integer output dtype."""
    np_dtype = np.dtype(np_dtype)
    if np_dtype.kind != "f":
        # integer outputs accumulate in int64 (start and step already truncated)
        values = int(start) + int(step) * np.arange(n, dtype=np.int64)
        return values.astype(np_dtype)
    start, step = float(start), float(step)
    if np_dtype == np.float16:
        # half accumulates in float; close enough: round once from double
        return (start + step * np.arange(n, dtype=np.float64)).astype(np_dtype)

    def scalar(idx):
        return fma(step, idx.astype(np.float64), start).astype(np_dtype)

    def vector(first, j):
        base = fma(step, first.astype(np.float64), start).astype(np_dtype).astype(np.float64)
        return fma(j[None, :], step, base[:, None]).astype(np_dtype)

    with np.errstate(all="ignore"):
        return _blocked(n, np_dtype.itemsize, scalar, vector, np_dtype)


def linspace_values(start, end, steps: int, np_dtype) -> np.ndarray:
    """``steps`` values from ``start`` to ``end`` as PyTorch's linspace kernel writes them."""
    np_dtype = np.dtype(np_dtype)
    if steps == 0:
        return np.empty(0, np_dtype)
    is_float = np_dtype.kind == "f"
    if is_float:
        s = np_dtype.type(start)
        e = np_dtype.type(end)
    else:
        s = np.array(math.trunc(start)).astype(np_dtype)
        e = np.array(math.trunc(end)).astype(np_dtype)
    if steps == 1:
        return np.full(1, s, np_dtype)
    if is_float:
        with np.errstate(all="ignore"):
            step = (e - s) / np_dtype.type(steps - 1)      # in the output dtype
        compute = np_dtype if np_dtype != np.float16 else np.dtype(np.float32)
    else:
        step = (float(e) - float(s)) / (steps - 1)        # double for integer outputs
        compute = np.dtype(np.float64)
    s64, e64, step64 = float(s), float(e), float(step)
    halfway = steps // 2

    def rnd(x):
        # fma in float64 rounds once; to float32 that is the float fma (products are exact)
        return np.asarray(x).astype(compute).astype(np_dtype) if is_float else \
            np.trunc(np.asarray(x)).astype(np_dtype)

    def at(idx):
        idx = idx.astype(np.float64)
        up = fma(step64, idx, s64)
        down = fma(-step64, steps - idx - 1, e64)
        return np.where(idx < halfway, up, down)

    with np.errstate(all="ignore"):
        return rnd(at(np.arange(steps, dtype=np.int64)))
