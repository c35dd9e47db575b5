"""Sleef's float32 ``expm1`` (``Sleef_expm1f16_u10``), bit for bit, and the fast path that
makes it affordable.

Note [Sleef's expm1f]
PyTorch's ``expm1`` kernel hands every element to ``Vectorized<float>::expm1`` (``vec::map``
runs the last partial vector too: no scalar tail), which is Sleef's u10 function (AVX2 and
AVX-512 builds, with fmas, give the same bits). Sleef computes ``e^a`` as a float-float
pair (``expk2f``: ``q = rint(a / ln 2)``, ``s = a - q ln 2`` in two parts, a degree-7
polynomial whose low terms are float-float steps, then ``2^q``), subtracts 1 in
float-float and rounds the pair's sum once. Its error is a few 2^-30 relative: its answer
is the correctly rounded one except where the exact value lies within ~0.01 float32 ulp of
a rounding midpoint. ``expm1f`` rounds NumPy's float64 ``expm1`` (a few float64 ulps from
exact) and applies Sleef's bounds (``-1`` below -16.6355, where the exact value still
rounds to ``-0.99999994``); with ``exact=True`` it also redoes with the float-float steps
(``expm1f_u10``) the elements whose float64 value lies near a midpoint (Note [Sleef's
expm1f, the cost]).
"""
from __future__ import annotations

import numpy as np

from ._exactmath import fma32

__all__ = ["expm1f", "expm1f_u10"]

_F32 = np.float32
_F64 = np.float64
_R_LN2F = _F32(1.442695040888963407359924681001892137426645954152985934135449406931)
_L2UF, _L2LF = _F32(0.693145751953125), _F32(1.428606765330187045e-06)
_EXPK_POLY = tuple(_F32(v) for v in (0.1980960224e-3, 0.1394256484e-2, 0.8333456703e-2,
                                     0.4166637361e-1))
_C5 = _F32(0.166666659414234244790680580464)
_HALF, _ONE = _F32(0.5), _F32(1)
_EXPM1_HI = _F32(88.72283172607421875)
_EXPM1_LO = _F32(-16.635532333438687426013570)


# float-float steps of Sleef's df.h (FMA build); a pair is (hi, lo), all float32
def _add2_ff_f(x, y):            # dfadd2_vf2_vf2_vf
    s = x[0] + y
    v = s - x[0]
    return s, ((x[0] - (s - v)) + (y - v)) + x[1]


def _add2_ff_ff(x, y):           # dfadd2_vf2_vf2_vf2
    s = x[0] + y[0]
    v = s - x[0]
    return s, ((x[0] - (s - v)) + (y[0] - v)) + (x[1] + y[1])


def _add_f_ff(x, y):             # dfadd_vf2_vf_vf2
    s = x + y[0]
    return s, ((x - s) + y[0]) + y[1]


def _mul_ff_f(x, y):             # dfmul_vf2_vf2_vf
    s = x[0] * y
    return s, fma32(x[1], y, fma32(x[0], y, -s))


def _mul_ff_ff(x, y):            # dfmul_vf2_vf2_vf2
    s = x[0] * y[0]
    return s, fma32(x[0], y[1], fma32(x[1], y[0], fma32(x[0], y[0], -s)))


def _squ_ff(x):                  # dfsqu_vf2_vf2
    s = x[0] * x[0]
    return s, fma32(x[0] + x[0], x[1], fma32(x[0], x[0], -s))


def _ldexp2(v, q):               # vldexp2_vf_vf_vi2: two exact-power products
    half = q >> 1
    v = v * np.ldexp(_ONE, half).astype(_F32)
    return v * np.ldexp(_ONE, q - half).astype(_F32)


def _expk2f(a):
    """Sleef's ``expk2f`` of the pair ``(a, 0)``: ``e^a`` as a float-float pair."""
    q = np.rint(a * _R_LN2F)
    qi = q.astype(np.int32)
    s = _add2_ff_f((a, np.zeros_like(a)), q * -_L2UF)
    s = _add2_ff_f(s, q * -_L2LF)
    u = fma32(_EXPK_POLY[0], s[0], _EXPK_POLY[1])
    u = fma32(u, s[0], _EXPK_POLY[2])
    u = fma32(u, s[0], _EXPK_POLY[3])
    t = _add2_ff_f(_mul_ff_f(s, u), _C5)
    t = _add2_ff_f(_mul_ff_ff(s, t), _HALF)
    t = _add2_ff_ff(s, _mul_ff_ff(_squ_ff(s), t))
    t = _add_f_ff(_ONE, t)
    hi, lo = _ldexp2(t[0], qi), _ldexp2(t[1], qi)
    under = a < _F32(-104)
    return np.where(under, _F32(0), hi), np.where(under, _F32(0), lo)


def expm1f_u10(a: np.ndarray) -> np.ndarray:
    """``Sleef_expm1f16_u10`` of a float32 array (Note [Sleef's expm1f])."""
    a = np.asarray(a, _F32)
    with np.errstate(all="ignore"):
        x = np.clip(a, _F32(-200), _F32(200))
        d = _add2_ff_f(_expk2f(x), -_ONE)
        out = d[0] + d[1]
        out = np.where(a > _EXPM1_HI, _F32(np.inf), out)
        out = np.where(a < _EXPM1_LO, -_ONE, out)
        out = np.where(a == 0, a, out)          # -0.0 stays
        return np.where(np.isnan(a), a, out).astype(_F32)


# Where Sleef's answer can differ from the correctly rounded one (session 12, every float32
# in [2^-22, 2^-16) and [2^-6, 128), both signs, and 2^21 random values elsewhere): its
# float-float error is ~2^-30 relative (up to 0.018 ulp, for |a| in [1/8, 1/4)), plus, for
# small |a|, the float precision of the pair's low part after 1 cancels: 2^-26 / |a| ulps.
# Elements whose float64 value lies within 0.08 ulp of a midpoint are redone; so are those
# with |a| < 2^-19 (the second term alone passes 0.04 ulp there).
_NEAR = 0.08
_TINY = _F32(2.0 ** -19)
_LOW29 = np.uint64(0x1FFFFFFF)
_SHIFT = np.uint64(0x10000000 + int(_NEAR * 2 ** 29))   # midpoint - width at 0
_WIDTH = np.uint64(2 * int(_NEAR * 2 ** 29))


def expm1f(a: np.ndarray, exact: bool = False) -> np.ndarray:
    """float32 ``expm1`` as PyTorch's kernel (Sleef's; Note [Sleef's expm1f]); the output
    laid out as a ufunc's. Without ``exact``, the correctly rounded value within Sleef's
    bounds (99.7% of values equal Sleef's); with it, Sleef's bits: the elements near a
    midpoint (~8% of them) redone step by step, ~1 ms whenever there is one (NumPy calls on
    small arrays): too slow to be the default (Note [Sleef's expm1f, the cost])."""
    a = np.asarray(a)
    if a.flags.c_contiguous:
        y = a.astype(_F64)
        np.expm1(y, out=y)
    else:
        y = np.expm1(a, dtype=_F64)
    out = np.asarray(y.astype(_F32))
    if not exact:
        np.copyto(out, -_ONE, where=a < _EXPM1_LO)   # Sleef's -1 (exact: -0.99999994)
        return out
    bits = y.view(np.uint64)
    bits += _SHIFT
    bits &= _LOW29
    near = bits < _WIDTH
    near |= np.abs(a) < _TINY
    # Sleef's bounds (the exact value overflows / rounds to -0.99999994 there)
    near |= a > _EXPM1_HI
    near |= a < _EXPM1_LO
    if near.any():
        out[near] = expm1f_u10(a[near])
    return out


# Note [Sleef's expm1f, the cost]
# The exact path costs three float64 passes and a bit test per element, cheap, but the
# step-by-step emulation of the elements near a midpoint is ~150 NumPy calls (each fma
# checked for double rounding), ~0.8 ms on this machine whatever their number, and with
# the bound it needs (0.04 ulp, plus 2^-24 / |a| for small |a|) about 8% of elements are
# near: any array of more than a few elements pays it (1,000 elements: ~1 ms, torch 2 us).
# What would make it affordable: a float64 model of Sleef's float-float value (its
# polynomial with its coefficients, on its exactly reduced argument: ~35 NumPy calls,
# ~25 us per 1,000 elements), whose distance to a midpoint bounds Sleef's rounding
# to ~2^-14 ulp, so the emulation would run on ~0.01% of elements.
