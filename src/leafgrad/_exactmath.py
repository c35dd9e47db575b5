"""Float arithmetic exactly as PyTorch's CPU random kernels do it, on NumPy arrays.

Two things keep NumPy from reproducing those kernels with plain expressions:

* Fused multiply-add. PyTorch's AVX2 kernels are built with FMA enabled and GCC's default
  contraction, so ``x * (to - from) + from`` (uniform), ``val * std + mean`` (normal) and
  the polynomial steps of the vectorised log / sin / cos round once, not twice. ``fma32``
  and ``fma64`` give the once-rounded result (see Note [Exact FMA]).
* The vectorised Box-Muller of ``randn`` for float32 uses float32 polynomial approximations
  of log, sin and cos (the cephes-derived ``log256_ps`` / ``sincos256_ps`` of
  ``avx_mathfun.h``), not correctly rounded libm calls. ``log_ps`` and ``sincos_ps`` redo
  the same float32 steps with the same constants, each step rounded as the hardware rounds
  it, so they return the same bits.

>>> import numpy as np
>>> float(fma64(np.array([0.1]), 10.0, -1.0)[0])   # 0.1*10 rounds to 1.0; fused it does not
5.551115123125783e-17
"""
from __future__ import annotations

import numpy as np

__all__ = ["fma32", "fma64", "fused", "log_ps", "sincos_ps"]

_F32 = np.float32
_F64 = np.float64

# Note [Exact FMA]
# float32: a*b of two float32 is exact in float64, so only the addition rounds. Rounding
# it first to float64 and then to float32 could round twice; doing the float64 addition
# with round-to-odd instead makes the second rounding the correct one (Boldo & Melquiond,
# "Emulation of FMA and correctly rounded sums: proved algorithms using rounding to odd").
# float64: split a*b into an exact pair (Dekker's product), add c with an exact TwoSum,
# add the two low parts rounding to odd, then one ordinary rounding (same paper, sec. 5).


def _sum_round_odd(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """a + b in float64 rounded to odd: on an inexact sum, the neighbour with an odd last
    bit (the rounded sum if its last bit is odd, else one step from it toward the exact
    sum: one integer step of its bits, away from zero where the error has the sum's sign)."""
    s = np.asarray(a + b)
    bb = s - a
    err = (a - (s - bb)) + (b - bb)
    bits = s.view(np.int64)
    even = (err != 0) & ((bits & 1) == 0)
    step = np.where(np.signbit(err) == np.signbit(s), 1, -1)
    return (bits + step * even).view(_F64)

def fma32(a, b, c) -> np.ndarray:
    """``fmaf(a, b, c)`` element-wise on float32 values (any broadcastable arrays)."""
    exact = np.multiply(a, b, dtype=_F64)        # exact: 24 + 24 bits
    total = np.add(exact, c, out=exact if exact.ndim else None, dtype=_F64)
    result = total.astype(_F32)
    # Rounding twice can only go wrong when the float64 sum sits exactly halfway between
    # two float32 values (low 29 bits 1000...0); redo those few with rounding to odd.
    halfway = (total.view(np.uint64) & np.uint64(0x1FFFFFFF)) == np.uint64(0x10000000)
    if halfway.any():
        where = np.flatnonzero(halfway)
        a64, b64, c64 = (np.broadcast_to(v, total.shape).reshape(-1)[where].astype(_F64)
                         for v in (a, b, c))
        result.reshape(-1)[where] = _sum_round_odd(a64 * b64, c64).astype(_F32)
    return result


_SPLITTER = 134217729.0   # 2**27 + 1: splits a float64 into two 26-bit halves


def _split(a: np.ndarray):
    t = _SPLITTER * a
    hi = t - (t - a)
    return hi, a - hi


def fma64(a, b, c) -> np.ndarray:
    """``fma(a, b, c)`` element-wise on float64 values (finite, far from overflow)."""
    a, b, c = np.broadcast_arrays(np.asarray(a, _F64), np.asarray(b, _F64),
                                  np.asarray(c, _F64))
    hi = a * b
    ah, al = _split(a)
    bh, bl = _split(b)
    lo = ((ah * bh - hi) + ah * bl + al * bh) + al * bl      # a*b == hi + lo exactly
    th = c + hi
    bb = th - c
    tl = (c - (th - bb)) + (hi - bb)                          # c + hi == th + tl exactly
    low = _sum_round_odd(tl, lo)
    # an exact sum is th itself, with its sign: (-0) * x + (-0) is -0, not th + (+0)
    return np.where(low == 0, th, th + low)


# Note [Fused up to a size]
# The normalization layers round their last multiply-adds once, as PyTorch's kernels do
# (ops/norm.py, ops/nn_layers.py): fma32 costs ~2x NumPy's two roundings, fma64 ~5x (a
# (64, 512) float64 layer_norm: 0.3 -> 1.5 ms). Over FUSED_MAX elements (per type) they take
# the two roundings, at NumPy's speed: the two differ by at most one rounding of the
# product, and the statistics (two-pass here, Welford in ATen) already differ in the last
# place for many rows at such sizes. Tests, the fuzz and small models stay under it.
FUSED_MAX = {np.dtype(np.float32): 1 << 16, np.dtype(np.float64): 1 << 12}


def fused(a, b, c, size: int) -> np.ndarray:
    """``a * b + c`` in the operands' float type (float32 or float64): rounded once for up
    to ``FUSED_MAX`` elements (``size``), else twice (Note [Fused up to a size])."""
    dtype = np.result_type(a, b, c)
    if size > FUSED_MAX[dtype]:
        return np.asarray(np.multiply(a, b, dtype=dtype) + c, dtype=dtype)
    return np.asarray((fma32 if dtype == _F32 else fma64)(a, b, c), dtype=dtype)


# -- the float32 log of avx_mathfun.h (cephes logf), with GCC's FMA contractions ------------
_LOG_POLY = [_F32(v) for v in (7.0376836292E-2, -1.1514610310E-1, 1.1676998740E-1,
                                -1.2420140846E-1, 1.4249322787E-1, -1.6668057665E-1,
                                2.0000714765E-1, -2.4999993993E-1, 3.3333331174E-1)]
_LOG_Q1 = _F32(-2.12194440e-4)
_LOG_Q2 = _F32(0.693359375)
_SQRT_HALF = _F32(0.707106781186547524)
_MIN_NORMAL = _F32(1.17549435e-38)


def log_ps(x: np.ndarray) -> np.ndarray:
    """Natural log of positive float32 values, bit-identical to ``log256_ps`` as built."""
    x = np.maximum(x, _MIN_NORMAL)
    bits = x.view(np.uint32)
    # x = m * 2**e with m in [0.5, 1)
    e = ((bits >> np.uint32(23)).astype(np.int32) - 127).astype(_F32) + _F32(1)
    m = ((bits & np.uint32(0x807FFFFF)) | np.uint32(0x3F000000)).view(_F32)
    small = m < _SQRT_HALF                 # then use 2m - 1 and e - 1
    m = (m - _F32(1)) + np.where(small, m, _F32(0))
    e = e - small.astype(_F32)
    z = m * m
    y = np.full_like(m, _LOG_POLY[0])
    for p in _LOG_POLY[1:]:
        y = fma32(y, m, p)
    y = y * m
    y = fma32(y, z, e * _LOG_Q1)
    y = y - z * _F32(0.5)                  # z * 0.5 is exact: fused or not, the same
    return fma32(e, _LOG_Q2, m + y)


# -- the float32 sincos of avx_mathfun.h (cephes sinf / cosf) -------------------------------
_FOUR_OVER_PI = _F32(1.27323954473516)
_DP = (_F32(-0.78515625), _F32(-2.4187564849853515625e-4), _F32(-3.77489497744594108e-8))
_SIN_POLY = (_F32(-1.9515295891E-4), _F32(8.3321608736E-3), _F32(-1.6666654611E-1))
_COS_POLY = (_F32(2.443315711809948E-005), _F32(-1.388731625493765E-003),
             _F32(4.166664568298827E-002))


def sincos_ps(x: np.ndarray):
    """(sin x, cos x) of float32 values, bit-identical to ``sincos256_ps`` as built."""
    negative = np.signbit(x)
    x = np.abs(x)
    octant = (x * _FOUR_OVER_PI).astype(np.int32)     # truncation, as cvttps
    octant = (octant + 1) & ~1
    y = octant.astype(_F32)
    for dp in _DP:                                    # x - y*pi/4 in three exact-ish parts
        x = fma32(y, dp, x)
    sin_negative = negative ^ ((octant & 4) != 0)
    cos_negative = (~(octant - 2) & 4) != 0
    near_zero = (octant & 2) == 0                     # which polynomial is the sine
    z = x * x
    cos_poly = fma32(fma32(np.full_like(x, _COS_POLY[0]), z, _COS_POLY[1]), z, _COS_POLY[2])
    cos_poly = fma32(cos_poly * z, z, -(z * _F32(0.5))) + _F32(1)
    sin_poly = fma32(fma32(np.full_like(x, _SIN_POLY[0]), z, _SIN_POLY[1]), z, _SIN_POLY[2])
    sin_poly = fma32(sin_poly * z, x, x)
    sin = np.where(near_zero, sin_poly, cos_poly)
    cos = np.where(near_zero, cos_poly, sin_poly)
    return np.where(sin_negative, -sin, sin), np.where(cos_negative, -cos, cos)
