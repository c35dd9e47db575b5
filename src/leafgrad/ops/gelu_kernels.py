"""float32 ``gelu`` (exact form) as PyTorch's CPU kernels compute it: oneDNN's eltwise
``gelu_erf`` for a contiguous input of two elements or more, ATen's vectorized kernel for
other inputs whose innermost dimension is contiguous.

Note [oneDNN gelu]
PyTorch hands contiguous float32 gelu (``approximate="none"``) to oneDNN, whose JIT kernel
evaluates, all in float32 with fused multiply-adds:

- ``erf(s / sqrt 2)`` by Abramowitz & Stegun 7.1.26: ``t = 1 / fma(p, |x|, 1)``, a quartic
  in ``t`` by Horner's fmas, ``erf = sign(x) * fma(-exp(-x^2) * t, poly, 1)``;
- ``exp`` by its own range reduction: ``n = floor(x log2(e) + 1/2)``,
  ``r = fma(-n, ln 2, x)``, a degree-5 polynomial in ``r`` (Horner's fmas), times
  ``2^(n-1)`` then ``2`` (arguments below ``ln(FLT_MIN)`` give 0, above ``ln(FLT_MAX)``
  are clamped);
- ``gelu = fma(S, erf, S)`` with ``S = s / 2``.

Its answers differ from the exact gelu by up to a few float32 ulps (more, relatively, for
negative inputs where gelu is tiny); this reproduces them bit for bit.

ATen's own vectorized float kernel (non-contiguous inputs with a contiguous innermost
dimension, and a single element) is ``x * 0.5 * (1 + erf(x * sqrt(1/2)))`` with the same
A&S erf, but Sleef's ``expf`` inside it (taken here as the correctly rounded exp: about 1% of
the results are an ulp off) and no fused final step. A 0-d or an inner-strided input takes
its scalar loop (``std::erf``: the exact erf, activation.py).
"""
from __future__ import annotations

import numpy as np

from .._exactmath import fma32

_F64 = np.float64


def _fma(a, b, c):
    """fmaf(a, b, c) on float32 operands: the product is exact in float64 and the sum
    rounds there first; the second rounding to float32 can only differ from fmaf's when
    that sum falls exactly halfway between two floats, which ``fma32`` then corrects."""
    total = np.multiply(a, b, dtype=_F64)
    total += c
    out = total.astype(_F32)
    if ((total.view(np.uint64) & np.uint64(0x1FFFFFFF)) == np.uint64(0x10000000)).any():
        return fma32(a, b, c)
    return out

__all__ = ["gelu_onednn", "gelu_aten_vectorized", "aten_vectorizes"]

_F32 = np.float32


def _bits(*words):
    return [v for v in np.array(words, np.uint32).view(_F32)]


# oneDNN's float constants, as bit patterns
_EXP_POLY = _bits(0x3f7ffffb, 0x3efffee3, 0x3e2aad40, 0x3d2b9d0d, 0x3c07cfce)   # r^1..r^5
_LN2, _LOG2E = _bits(0x3f317218, 0x3fb8aa3b)
_LN_FLT_MIN = _F32(np.log(np.finfo(np.float32).tiny))
_LN_FLT_MAX = _F32(np.log(np.finfo(np.float32).max))
# Abramowitz & Stegun 7.1.26
_ERF_P = _F32(0.3275911)
_ERF_POLY = [_F32(v) for v in (0.254829592, -0.284496736, 1.421413741, -1.453152027,
                               1.061405429)]
_SQRT_HALF = _F32(np.sqrt(0.5))


def _exp(v: np.ndarray) -> np.ndarray:
    under = v < _LN_FLT_MIN
    v = np.clip(v, _LN_FLT_MIN, _LN_FLT_MAX).astype(_F32, copy=False)
    n = np.floor(v * _LOG2E + _F32(0.5))
    r = _fma(-n, _LN2, v)
    scale = np.ldexp(_F32(1), (n - _F32(1)).astype(np.int32)).astype(_F32)
    scale[under] = 0
    y = np.full_like(v, _EXP_POLY[4])
    for c in (_EXP_POLY[3], _EXP_POLY[2], _EXP_POLY[1], _EXP_POLY[0], _F32(1)):
        y = _fma(y, r, c)
    return y * scale * _F32(2)


def _exp_rounded(v: np.ndarray) -> np.ndarray:
    with np.errstate(over="ignore"):
        return np.exp(v.astype(np.float64)).astype(_F32)


def _erf(x: np.ndarray, exp=_exp) -> np.ndarray:
    a = np.abs(x)
    t = _F32(1) / _fma(_ERF_P, a, _F32(1))
    neg_e = -exp(-(x * x)) * t
    poly = np.full_like(x, _ERF_POLY[4])
    for c in (_ERF_POLY[3], _ERF_POLY[2], _ERF_POLY[1], _ERF_POLY[0]):
        poly = _fma(poly, t, c)
    return np.copysign(_fma(neg_e, poly, _F32(1)), x)


def gelu_onednn(s: np.ndarray) -> np.ndarray:
    """gelu of a float32 array, as oneDNN's ``gelu_erf`` (Note [oneDNN gelu])."""
    flat = s.reshape(-1)
    out = np.empty(flat.shape, _F32)
    with np.errstate(invalid="ignore", over="ignore"):
        for i in range(0, flat.shape[0], _BLOCK):
            _gelu_block(flat[i:i + _BLOCK], out[i:i + _BLOCK])
    return out.reshape(s.shape)


def _gelu_steps(s):
    """oneDNN's gelu, one checked fma at a time (Note [Fast float32 fma blocks])."""
    half = s * _F32(0.5)
    return _fma(half, _erf(s * _SQRT_HALF), half)


def gelu_aten_vectorized(s: np.ndarray) -> np.ndarray:
    """gelu of a float32 array as ATen's vectorized CPU kernel (Note [oneDNN gelu])."""
    with np.errstate(invalid="ignore", over="ignore"):
        if s.ndim and s.size <= _BLOCK:
            return _aten_block(s)
        return _aten_steps(s)


def _aten_steps(s):
    return s * _F32(0.5) * (_F32(1) + _erf(s * _SQRT_HALF, _exp_rounded))


# Note [Fast float32 fma blocks]
# ``_fma`` checks every sum for a halfway case (three NumPy calls and an ``any``), and the
# steps above mix float32 and float64 operands, which NumPy runs through its slower casting
# loops: on small arrays the ~115 NumPy calls, not the arithmetic, were the cost (~170 us
# for 64 elements). The block kernels below run the same operations in the same order, with
# every fma's operands as float64 copies of their float32 values (the product of two is
# exact), the float64 sum kept in one row of a per-block buffer and rounded to float32 from
# there. All the sums are checked for a halfway case at once, at the end: where there is
# none, each fma was rounded once, correctly, and the result is the one ``_fma`` gives.
# Halfway sums are rare (the float64 sum must end in a 1 and 28 zero bits) except in
# gelu's last step, ``fma(S, erf, S)`` with ``erf`` within a few ulps of 1 (|x| around 4-6):
# elements with one there are redone with ``fma32``; elements with one in an earlier step
# (whose rounding later steps used) are recomputed by the step-by-step path above. Every
# step is element-wise, so doing a subset again gives the subset's results. Large inputs
# go block by block (``_BLOCK`` elements keep the buffers in the cache).

_BLOCK = 4096
_LOW29 = np.uint64(0x1FFFFFFF)
_HALFWAY = np.uint64(0x10000000)
_ONE = _F32(1)
# float64 copies of float32 constants (exact)
_D_EXP_POLY = [float(c) for c in _EXP_POLY]
_D_NEG_LN2 = -float(_LN2)
_D_ERF_P = float(_ERF_P)
_D_ERF_POLY = [float(c) for c in _ERF_POLY]


def _fma_row(row, a, b, c):
    """``fma(a, b, c)`` of float64 operands holding float32 values, the float64 sum left in
    ``row``; the float32 result."""
    np.multiply(a, b, out=row)
    row += c
    return row.astype(_F32)


def _exp_block(w, tot):
    """``_exp(w)`` for ``w = -(x*x)`` (so ``w <= 0`` or NaN: the upper clamp never acts),
    a float32 block changed in place; its 6 fmas in rows 0-5 of ``tot``."""
    under = w < _LN_FLT_MIN
    np.copyto(w, _LN_FLT_MIN, where=under)   # clip: NaN stays NaN, as in np.clip
    n = w * _LOG2E
    n += _F32(0.5)
    np.floor(n, out=n)
    # r = fma(-n, ln 2, w); (-n) * ln 2 == n * (-ln 2) exactly
    r = _fma_row(tot[0], n.astype(_F64), _D_NEG_LN2, w.astype(_F64))
    n -= _ONE
    scale = np.ldexp(_ONE, n.astype(np.int32))
    scale[under] = 0
    r = r.astype(_F64)
    # Horner: y = fma(y, r, c), starting from y = the r^5 coefficient
    y = _fma_row(tot[1], r, _D_EXP_POLY[4], _D_EXP_POLY[3])
    for k, c in zip((2, 3, 4), (_D_EXP_POLY[2], _D_EXP_POLY[1], _D_EXP_POLY[0])):
        y = _fma_row(tot[k], y.astype(_F64), r, c)
    y = _fma_row(tot[5], y.astype(_F64), r, 1.0)
    y *= scale
    y *= _F32(2)
    return y


def _erf_block(x, tot, at, exp_value):
    """``_erf`` of a float32 block, ``exp(-x^2)`` given (a float32 array it changes); its 6
    fmas in rows ``at`` to ``at + 5`` of ``tot``."""
    d = _fma_row(tot[at], np.abs(x).astype(_F64), _D_ERF_P, 1.0)
    t = np.divide(_ONE, d)
    np.multiply(exp_value, t, out=exp_value)
    np.negative(exp_value, out=exp_value)      # -exp(-x^2) * t
    t = t.astype(_F64)
    p = _fma_row(tot[at + 1], t, _D_ERF_POLY[4], _D_ERF_POLY[3])
    for k, c in zip((2, 3, 4), (_D_ERF_POLY[2], _D_ERF_POLY[1], _D_ERF_POLY[0])):
        p = _fma_row(tot[at + k], p.astype(_F64), t, c)
    e = _fma_row(tot[at + 5], exp_value.astype(_F64), p.astype(_F64), 1.0)
    np.copysign(e, x, out=e)
    return e


def _halfway(tot):
    """Which float64 sums of ``tot`` are halfway between two float32 values, or None when
    none is (Note [Fast float32 fma blocks]); ``tot`` is spent."""
    bits = tot.view(np.uint64)
    np.bitwise_and(bits, _LOW29, out=bits)
    halfway = np.equal(bits, _HALFWAY)
    return halfway if np.count_nonzero(halfway) else None


def _neg_square(x):
    e = x * x
    np.negative(e, out=e)
    return e


def _gelu_block(s, out):
    """oneDNN's gelu of a 1-D float32 block into ``out`` (Note [Fast float32 fma
    blocks])."""
    tot = np.empty((13,) + s.shape, _F64)
    x = s * _SQRT_HALF
    erf = _erf_block(x, tot, 6, _exp_block(_neg_square(x), tot))
    # gelu = fma(half, erf, half)
    half = s * _F32(0.5)
    half64 = half.astype(_F64)
    row = tot[12]
    np.multiply(half64, erf.astype(_F64), out=row)
    row += half64
    np.copyto(out, row, casting="unsafe")
    halfway = _halfway(tot)
    if halfway is not None:
        last = halfway[12]
        earlier = halfway[:12].any(axis=0)
        if last.any():
            i = np.flatnonzero(last)
            out[i] = fma32(half[i], erf[i], half[i])
        if earlier.any():
            i = np.flatnonzero(earlier)
            out[i] = _gelu_steps(s[i])


def _aten_block(s):
    """ATen's vectorized gelu of a float32 array (Note [Fast float32 fma blocks])."""
    tot = np.empty((6,) + s.shape, _F64)
    x = s * _SQRT_HALF
    erf = _erf_block(x, tot, 0, _exp_rounded(_neg_square(x)))
    erf += _ONE
    out = s * _F32(0.5)
    out *= erf
    halfway = _halfway(tot)
    if halfway is not None:
        redo = halfway.any(axis=0)
        out[redo] = _aten_steps(s[redo])
    return out


def aten_vectorizes(a: np.ndarray) -> bool:
    """Whether ATen's TensorIterator runs its vectorized loop over ``a`` (its innermost
    dimension in memory order, of size > 1 and not broadcast, is contiguous), or a single
    element."""
    if a.ndim == 0:
        return False
    if a.size == 1:
        return True
    dims = [(abs(st), n) for st, n in zip(a.strides, a.shape) if n > 1 and st != 0]
    return bool(dims) and min(dims)[0] == a.itemsize
