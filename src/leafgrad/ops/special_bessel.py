"""The modified Bessel functions I0, I1 and their exponentially scaled forms, as PyTorch's
CPU kernels compute them (``i0``, ``special.i0e``, ``special.i1``, ``special.i1e``).

Note [Cephes Bessel kernels]
PyTorch evaluates all four with the Cephes method: ``e^-|x| I(|x|)`` as a Chebyshev series
in ``|x|/2 - 2`` on [0, 8], ``e^-|x| sqrt(|x|) I(|x|)`` as one in ``32/|x| - 2`` beyond 8,
summed by Clenshaw's recurrence ``b0 = y*b1 - b2 + c``, then ``i0 = exp(|x|) * series``
(and ``/ sqrt(|x|)`` beyond 8), ``i1`` the same times ``|x|`` on [0, 8], odd in ``x``. What
makes the bits PyTorch's:

- the recurrence step is built with FMA contraction: ``fma(y, b1, -b2) + c`` (``fma32`` /
  ``fma64``, exact emulations); its first step, where ``b2`` is 0, folds to one
  ``fma(y, c0, c1)``;
- float (and half, computed in float) evaluates in float32 with the coefficients rounded to
  float; for I1 the float kernel drops the leading, negligible coefficients (17 of 29 on
  [0, 8], 7 of 25 beyond); I0's float kernel keeps them all;
- ``exp`` is libm's (``math.exp`` for float64, not NumPy's); float32 takes it through float64 (within 1 ulp of glibc's ``expf``,
  which is not correctly rounded either).

The coefficients are Cephes' published tables (NumPy holds I0's; I1's are below).
"""
from __future__ import annotations

import math

import numpy as np

from .._exactmath import fma32, fma64
from .._sleef import vector_lanes

__all__ = ["i0_array", "i0e_array", "i1_array", "i1e_array"]

# Cephes' Chebyshev coefficients of exp(-x) I1(x) on [0, 8] (highest order first) ...
_I1_A = (
    2.77791411276104639959E-18, -2.11142121435816608115E-17, 1.55363195773620046921E-16,
    -1.10559694773538630805E-15, 7.60068429473540693410E-15, -5.04218550472791168711E-14,
    3.22379336594557470981E-13, -1.98397439776494371520E-12, 1.17361862988909016308E-11,
    -6.66348972350202774223E-11, 3.62559028155211703701E-10, -1.88724975172282928790E-9,
    9.38153738649577178388E-9, -4.44505912879632808065E-8, 2.00329475355213526229E-7,
    -8.56872026469545474066E-7, 3.47025130813767847674E-6, -1.32731636560394358279E-5,
    4.78156510755005422638E-5, -1.61760815825896745588E-4, 5.12285956168575772895E-4,
    -1.51357245063125314899E-3, 4.15642294431288815669E-3, -1.05640848946261981558E-2,
    2.47264490306265168283E-2, -5.29459812080949914269E-2, 1.02643658689847095384E-1,
    -1.76416518357834055153E-1, 2.52587186443633654823E-1)
# ... and of exp(-x) sqrt(x) I1(x) on (8, inf), in 32/x - 2
_I1_B = (
    7.51729631084210481353E-18, 4.41434832307170791151E-18, -4.65030536848935832153E-17,
    -3.20952592199342395980E-17, 2.96262899764595013876E-16, 3.30820231092092828324E-16,
    -1.88035477551078244854E-15, -3.81440307243700780478E-15, 1.04202769841288027642E-14,
    4.27244001671195135429E-14, -2.10154184277266431302E-14, -4.08355111109219731823E-13,
    -7.19855177624590851209E-13, 2.03562854414708950722E-12, 1.41258074366137813316E-11,
    3.25260358301548823856E-11, -1.89749581235054123450E-11, -5.58974346219658380687E-10,
    -3.83538038596423702205E-9, -2.63146884688951950684E-8, -2.51223623787020892529E-7,
    -3.88256480887769039346E-6, -1.10588938762623716291E-4, -9.76109749136146840777E-3,
    7.78576235018280120474E-1)
_I1_FLOAT_TERMS = (17, 7)   # the float kernel's table lengths (the tables' tails)

_TABLES = {}


def _tables(order: int, dtype):
    """(near, far) coefficient arrays for I<order> in ``dtype`` (float32 or float64)."""
    key = (order, dtype)
    if key not in _TABLES:
        if order == 0:
            try:
                from numpy.lib import _function_base_impl as impl
            except ImportError:   # NumPy < 2
                from numpy.lib import function_base as impl
            near, far = impl._i0A, impl._i0B
        else:
            near, far = _I1_A, _I1_B
            if dtype == np.float32:
                near, far = near[-_I1_FLOAT_TERMS[0]:], far[-_I1_FLOAT_TERMS[1]:]
        _TABLES[key] = (np.asarray(near, dtype), np.asarray(far, dtype))
    return _TABLES[key]


def _chbevl(y: np.ndarray, coeffs: np.ndarray) -> np.ndarray:
    """Clenshaw's sum of the Chebyshev series at ``y``, each step one FMA then an add."""
    fma = fma32 if y.dtype == np.float32 else fma64
    # the first step has b2 == 0, which the compiler folds away: one fma, y*c0 + c1
    b1 = np.full_like(y, coeffs[0])
    b0 = fma(y, b1, coeffs[1])
    b2 = b1
    for c in coeffs[2:]:
        b2, b1 = b1, b0
        b0 = fma(y, b1, -b2) + c
    return (b0 - b2) * y.dtype.type(0.5)


# glibc's expf: 2^(k/32) from a table times a cubic in the remainder, all in float64, then
# one rounding to float (its bits, where float64 exp rounded to float is off by an ulp in
# ~1e-3 of the cases)
_EXPF_N = 32
_EXPF_INV_LN2_N = float.fromhex("0x1.71547652b82fep+0") * _EXPF_N
_EXPF_POLY = (float.fromhex("0x1.c6af84b912394p-5") / _EXPF_N ** 3,
              float.fromhex("0x1.ebfce50fac4f3p-3") / _EXPF_N ** 2,
              float.fromhex("0x1.62e42ff0c52d6p-1") / _EXPF_N)
_EXPF_SHIFT = float.fromhex("0x1.8p+52")   # adding it rounds to an integer (ties to even)
_EXPF_TABLE = []


def _expf_table() -> np.ndarray:
    """2^(i/32) rounded to float64, less i << 47 (the exponent part added back per k)."""
    if not _EXPF_TABLE:
        from fractions import Fraction
        rows = []
        for i in range(_EXPF_N):
            # the float64 nearest 2^(i/32), by bisection on exact rationals
            lo, hi = 1.0, 2.0
            while np.nextafter(lo, 2.0) < hi:
                mid = (lo + hi) / 2
                if Fraction(mid) ** _EXPF_N < 2 ** i:
                    lo = mid
                else:
                    hi = mid
            mid = (Fraction(lo) + Fraction(hi)) / 2
            best = hi if mid ** _EXPF_N < 2 ** i else lo
            rows.append(int(np.float64(best).view(np.uint64)) - (i << 47))
        _EXPF_TABLE.append(np.array(rows, np.uint64))
    return _EXPF_TABLE[0]


def _exp(a: np.ndarray) -> np.ndarray:
    """exp as libm computes it: glibc's ``expf`` for float32, its ``exp`` for float64
    (``math.exp``; NumPy's own float64 exp differs from it in ~4% of the last bits)."""
    if a.dtype != np.float32:
        return _exp64(a)
    xd = a.astype(np.float64)
    with np.errstate(invalid="ignore", over="ignore"):
        z = _EXPF_INV_LN2_N * xd
        kd = z + _EXPF_SHIFT
        ki = kd.view(np.uint64)
        kd = kd - _EXPF_SHIFT
        r = z - kd
        s = (_expf_table()[ki % np.uint64(_EXPF_N)] + (ki << np.uint64(47))).view(np.float64)
        c0, c1, c2 = _EXPF_POLY
        y = (c0 * r + c1) * (r * r) + (c2 * r + 1.0)
        out = (y * s).astype(np.float32)
    # the table trick holds on glibc's range; outside it (and for nan) exp itself answers
    odd = ~(np.abs(a) < np.float32(87))
    if odd.any():
        with np.errstate(over="ignore"):
            out = np.where(odd, np.exp(xd).astype(np.float32), out)
    return out


def _exp64(a: np.ndarray) -> np.ndarray:
    """glibc's ``exp`` of a float64 array, through ``math.exp`` (run in C by ``map``); NumPy
    answers where ``math.exp`` would overflow or the input is nan (inf, nan: the same)."""
    a = np.asarray(a)
    inside = np.abs(a) <= 709.78
    vals = np.where(inside, a, 0.0)
    out = np.fromiter(map(math.exp, vals.ravel().tolist()), np.float64, a.size)
    out = out.reshape(a.shape)
    if not inside.all():
        with np.errstate(over="ignore"):
            out = np.where(inside, out, np.exp(a))
    return out


def _compute_dtype(x: np.ndarray):
    """float64 stays; every other dtype (half, integers, bools) computes in float32."""
    return np.float64 if x.dtype == np.float64 else np.float32


def _finish(out: np.ndarray, x: np.ndarray) -> np.ndarray:
    return out.astype(np.float16, copy=False) if x.dtype == np.float16 else out


def _scaled(order: int, a: np.ndarray):
    """(near series, far series / sqrt(a), near mask) for |x| = ``a``."""
    near_t, far_t = _tables(order, a.dtype)
    t = a.dtype.type
    near = a <= t(8)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        ns = _chbevl(a / t(2) - t(2), near_t)
        fs = _chbevl(t(32) / a - t(2), far_t)
    return ns, fs, near


def i0e_array(x: np.ndarray) -> np.ndarray:
    """``exp(-|x|) I0(x)``."""
    a = np.abs(x.astype(_compute_dtype(x), copy=False))
    ns, fs, near = _scaled(0, a)
    with np.errstate(divide="ignore", invalid="ignore"):
        out = np.where(near, ns, fs / np.sqrt(a))
    out = _finish(out, x)
    if x.dtype == np.float16:
        # Note [half i0e]: ATen's scalar loop (a 0-d input, each vectorized piece's tail)
        # runs calc_i0e in half arithmetic (no float overload, unlike i0, i1 and i1e)
        from .tensor_utils import get_num_threads   # (late: it loads the op table)
        lanes = vector_lanes(x, 32, get_num_threads())
        scalar = np.ones(x.shape, bool) if lanes is None else ~lanes
        if scalar.any():
            out = np.array(out)
            out[scalar] = _i0e_half(x[scalar])
    return out


def _i0e_half(x: np.ndarray) -> np.ndarray:
    """calc_i0e<c10::Half>: the tables rounded to half, every step rounded to half (each a
    float operation, then the rounding), the far branch's ``/ sqrt(x)`` in float."""
    h = np.float16
    a = np.abs(x)
    near_t, far_t = (t.astype(np.float32).astype(h) for t in _tables(0, np.float64))
    with np.errstate(all="ignore"):
        near = a <= h(8)
        fs = _chbevl_half(h(32) / a - h(2), far_t)
        far = (fs.astype(np.float32) / np.sqrt(a.astype(np.float32))).astype(h)
        return np.where(near, _chbevl_half(a / h(2) - h(2), near_t), far)


def _chbevl_half(y: np.ndarray, coeffs: np.ndarray) -> np.ndarray:
    b0 = np.full_like(y, coeffs[0])
    b1 = np.zeros_like(y)
    b2 = b1
    for c in coeffs[1:]:
        b2, b1 = b1, b0
        b0 = y * b1 - b2 + c
    return np.float16(0.5) * (b0 - b2)


def i0_array(x: np.ndarray) -> np.ndarray:
    """``I0(x)`` (inf from |x| ~ 88.7 in float32, ~713 in float64)."""
    a = np.abs(x.astype(_compute_dtype(x), copy=False))
    ns, fs, near = _scaled(0, a)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        e = _exp(a)
        out = np.where(near, e * ns, e * fs / np.sqrt(a))
    return _finish(out, x)


def i1e_array(x: np.ndarray) -> np.ndarray:
    """``exp(-|x|) I1(x)``, odd in ``x``."""
    v = x.astype(_compute_dtype(x), copy=False)
    a = np.abs(v)
    ns, fs, near = _scaled(1, a)
    with np.errstate(divide="ignore", invalid="ignore"):
        out = np.where(near, ns * a, fs / np.sqrt(a))
    return _finish(np.where(v < 0, -out, out), x)


def i1_array(x: np.ndarray) -> np.ndarray:
    """``I1(x)``, odd in ``x``."""
    v = x.astype(_compute_dtype(x), copy=False)
    a = np.abs(v)
    ns, fs, near = _scaled(1, a)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        e = _exp(a)
        out = np.where(near, e * a * ns, e * fs / np.sqrt(a))
    return _finish(np.where(v < 0, -out, out), x)
