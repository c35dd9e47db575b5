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
    with np.errstate(invalid="ignore", over="ignore"):
        half = s * _F32(0.5)
        return _fma(half, _erf(s * _SQRT_HALF), half)


def gelu_aten_vectorized(s: np.ndarray) -> np.ndarray:
    """gelu of a float32 array as ATen's vectorized CPU kernel (Note [oneDNN gelu])."""
    with np.errstate(invalid="ignore", over="ignore"):
        return s * _F32(0.5) * (_F32(1) + _erf(s * _SQRT_HALF, _exp_rounded))


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
