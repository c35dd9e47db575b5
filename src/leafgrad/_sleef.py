"""Sleef's float64 ``erf`` (``Sleef_erfd8_u10``), bit for bit, on NumPy arrays.

PyTorch's CPU kernels evaluate ``Vectorized<double>::erf()`` with Sleef, built for AVX-512
(or AVX2) with fused multiply-adds; its answers differ from the correctly rounded erf (and
from glibc's ``erf``, which ``math.erf`` calls) in a few percent of the last bits. ``erf_u1``
redoes Sleef's steps: an Estrin polynomial of degree 20 in ``|x|`` (each step one fma), a
double-double tail, and ``1 - (1 + x p(x))^-16`` for ``|x| <= 2.5`` or ``1 - exp(p(x))``
above (Sleef's own double-double ``expk``). Every fused step goes through ``fma64``
(Note [Exact FMA] in ``_exactmath.py``), every plain one is the same NumPy float64 operation.

>>> import numpy as np
>>> float(erf_u1(np.array([0.5]))[0])
0.5204998778130465
"""
from __future__ import annotations

import functools

import numpy as np

from ._exactmath import fma32, fma64

__all__ = ["erf_u1", "expf_u10", "vector_lanes"]

_F64 = np.float64

# Estrin coefficients (highest first) for |x| <= 2.5 and for 2.5 < |x| < 6
_ERF_POLY_SMALL = (
    -0.2083271002525222097e-14, +0.7151909970790897009e-13, -0.1162238220110999364e-11,
    +0.1186474230821585259e-10, -0.8499973178354613440e-10, +0.4507647462598841629e-9,
    -0.1808044474288848915e-8, +0.5435081826716212389e-8, -0.1143939895758628484e-7,
    +0.1215442362680889243e-7, +0.1669878756181250355e-7, -0.9808074602255194288e-7,
    +0.1389000557865837204e-6, +0.2945514529987331866e-6, -0.1842918273003998283e-5,
    +0.3417987836115362136e-5, +0.3860236356493129101e-5, -0.3309403072749947546e-4,
    +0.1060862922597579532e-3, +0.2323253155213076174e-3, +0.1490149719145544729e-3)
_ERF_POLY_BIG = (
    -0.4024015130752621932e-18, +0.3847193332817048172e-16, -0.1749316241455644088e-14,
    +0.5029618322872872715e-13, -0.1025221466851463164e-11, +0.1573695559331945583e-10,
    -0.1884658558040203709e-9, +0.1798167853032159309e-8, -0.1380745342355033142e-7,
    +0.8525705726469103499e-7, -0.4160448058101303405e-6, +0.1517272660008588485e-5,
    -0.3341634127317201697e-5, -0.2515023395879724513e-5, +0.6539731269664907554e-4,
    -0.3551065097428388658e-3, +0.1210736097958368864e-2, -0.2605566912579998680e-2,
    +0.1252823202436093193e-2, +0.1820191395263313222e-1, -0.1021557155453465954e+0)
# the three double-double coefficients (c2, c1, c0) after the polynomial
_ERF_DD_SMALL = ((0.0092877958392275604405, 7.9287559463961107493e-19),
                 (0.042275531758784692937, 1.3785226620501016138e-19),
                 (0.07052369794346953491, 9.5846628070792092842e-19))
_ERF_DD_BIG = ((-0.63691044383641748361, -2.4249477526539431839e-17),
               (-1.1282926061803961737, -6.2970338860410996505e-17),
               (-1.2261313785184804967e-05, -5.5329707514490107044e-22))
_EXP_POLY = (2.51069683420950419527139e-08, 2.76286166770270649116855e-07,
             2.75572496725023574143864e-06, 2.48014973989819794114153e-05,
             0.000198412698809069797676111, 0.0013888888939977128960529,
             0.00833333333332371417601081, 0.0416666666665409524128449,
             0.166666666666666740681535, 0.500000000000000999200722)
_R_LN2 = 1.442695040888963407359924681001892137426645954152985934135449406931
_L2U = .69314718055966295651160180568695068359375
_L2L = .28235290563031577122588448175013436025525412068e-12
_TWO_OVER_SQRT_PI = 1.12837916709551262756245475959


def _estrin(x, powers, coefs):
    """Sleef's POLYn macros: Estrin's scheme with one fma per step (``coefs`` highest
    first; ``powers`` = (x^2, x^4, x^8, x^16))."""
    c = [np.broadcast_to(_F64(v), x.shape) if np.ndim(v) == 0 else v for v in coefs[::-1]]

    def poly(lo, n):              # c[lo] + c[lo+1] x + ... (n terms), as POLYn builds it
        if n == 1:
            return c[lo]
        if n == 2:
            return fma64(x, c[lo + 1], c[lo])
        half = 1 << ((n - 1).bit_length() - 1)      # the largest power of two below n
        level = powers[half.bit_length() - 2]       # x^half
        return fma64(level, poly(lo + half, n - half), poly(lo, half))
    return poly(0, len(c))


# double-double steps (Sleef's dd.h with ENABLE_FMA_DP); a pair is (hi, lo)
def _dd_add_dd_dd(x, y):          # ddadd_vd2_vd2_vd2 (|x| >= |y|)
    s = x[0] + y[0]
    return s, (((x[0] - s) + y[0]) + x[1]) + y[1]


def _dd_add_d_dd(x, y):           # ddadd_vd2_vd_vd2
    s = x + y[0]
    return s, ((x - s) + y[0]) + y[1]


def _dd_add2_dd_d(x, y):          # ddadd2_vd2_vd2_vd
    s = x[0] + y
    v = s - x[0]
    return s, ((x[0] - (s - v)) + (y - v)) + x[1]


def _dd_mul_dd_d(x, y):           # ddmul_vd2_vd2_vd
    s = x[0] * y
    return s, fma64(x[1], y, fma64(x[0], y, -s))


def _dd_squ(x):                   # ddsqu_vd2_vd2
    s = x[0] * x[0]
    return s, fma64(x[0] + x[0], x[1], fma64(x[0], x[0], -s))


def _dd_rec(d):                   # ddrec_vd2_vd2
    s = 1.0 / d[0]
    return s, s * fma64(-d[1], s, fma64(-d[0], s, 1.0))


def _dd_mla(x, y, z):             # ddmla_vd2_vd_vd2_vd2: z + y * x
    return _dd_add_dd_dd(z, _dd_mul_dd_d(y, x))


def _expk(d):
    """Sleef's ``expk``: exp of a double-double, to a double."""
    u = (d[0] + d[1]) * _R_LN2
    dq = np.rint(u)
    s = _dd_add2_dd_d(d, dq * -_L2U)
    s = _dd_add2_dd_d(s, dq * -_L2L)
    hi = s[0] + s[1]
    s = hi, (s[0] - hi) + s[1]                       # ddnormalize
    s2 = s[0] * s[0]
    s4 = s2 * s2
    s8 = s4 * s4
    u = _estrin(s[0], (s2, s4, s8), _EXP_POLY)
    t = _dd_add_d_dd(1.0, s)
    t = _dd_add_dd_dd(t, _dd_mul_dd_d(_dd_squ(s), u))
    out = np.ldexp(t[0] + t[1], dq.astype(np.int64))
    return np.where(d[0] < -1000, 0.0, out)


_BLOCK = 16384   # elements per pass: the ~60 temporaries stay in cache (3x faster)


def erf_u1(a: np.ndarray) -> np.ndarray:
    """``Sleef_erfd8_u10`` of a float64 array (same shape)."""
    a = np.asarray(a, _F64)
    if a.size <= _BLOCK:
        return _erf_u1(a)
    flat = a.reshape(-1)
    out = np.empty(flat.shape, _F64)
    for start in range(0, flat.size, _BLOCK):
        out[start:start + _BLOCK] = _erf_u1(flat[start:start + _BLOCK])
    return out.reshape(a.shape)


def _erf_u1(a: np.ndarray) -> np.ndarray:
    with np.errstate(all="ignore"):
        x = np.minimum(np.abs(a), 6.0)               # 6 and above give 1 (kept finite)
        x = np.where(np.isnan(x), 0.0, x)
        x2 = x * x
        x4 = x2 * x2
        x8 = x4 * x4
        x16 = x8 * x8
        small = x <= 2.5
        coefs = [np.where(small, s, b) for s, b in zip(_ERF_POLY_SMALL, _ERF_POLY_BIG)]
        t = _estrin(x, (x2, x4, x8, x16), coefs)
        (c2h, c2l), (c1h, c1l), (c0h, c0l) = (
            (np.where(small, s[0], b[0]), np.where(small, s[1], b[1]))
            for s, b in zip(_ERF_DD_SMALL, _ERF_DD_BIG))
        # poly4dd(x, t, c2, c1, c0) = (c0 + c1 x) + x^2 (c2 + t x)
        t2 = _dd_mla(x2, _dd_mla(x, (t, np.zeros_like(t)), (c2h, c2l)),
                     _dd_mla(x, (c1h, c1l), (c0h, c0l)))
        s2 = _dd_add_d_dd(1.0, _dd_mul_dd_d(t2, x))
        for _ in range(4):
            s2 = _dd_squ(s2)
        s2 = _dd_rec(s2)
        if not small.all():
            e = _expk(t2)
            s2 = (np.where(small, s2[0], e), np.where(small, s2[1], 0.0))
        r = _dd_add2_dd_d(s2, -1.0)
        z = -(r[0] + r[1])
        z = np.where(x < 1e-8, x * _TWO_OVER_SQRT_PI, z)
        z = np.where(x >= 6, 1.0, z)
        z = np.where(a == 0, 0.0, z)
        z = np.copysign(z, a)
        return np.where(np.isnan(a), a, z)


# -- which elements ATen's cpu_kernel_vec hands to the vectorized function -----------------
_GRAIN_SIZE = 32768          # at::internal::GRAIN_SIZE


def vector_lanes(a: np.ndarray, block: int, threads: int, grain: int | None = None,
                 others=()):
    """A bool array shaped like ``a``: True where ATen's ``cpu_kernel_vec`` computes the
    element with its vectorized function (Sleef), False where its scalar loop does (libm);
    None for a layout this does not model (a negative stride).

    TensorIterator walks ``a`` in memory order with its dimensions coalesced; the walk is
    split into ``parallel_for`` chunks (``grain`` elements at least: ``GRAIN_SIZE`` unless
    the kernel passes its own), and into rows of the innermost dimension, which is
    vectorized only where its stride is one element. Each piece runs whole ``block``s
    (two vectors) from its start through the vectorized function and the rest through
    the scalar one. ``others`` (inputs broadcast to ``a``'s shape) must coalesce the
    same way, and be contiguous in the innermost dimension too, but for one broadcast there.
    """
    n = a.size
    ops = [a.strides] + [np.broadcast_to(o, a.shape).strides for o in others]
    dims = [(st, sz, ax) for ax, (sz, st) in enumerate(zip(a.shape, a.strides)) if sz > 1]
    if any(s[ax] < 0 for s in ops for _, _, ax in dims):
        return None

    def outer_first(d0, d1):
        # TensorIterator's order: the first operand with neither stride 0 decides; a
        # broadcast everywhere keeps the given order
        for s in ops:
            s0, s1 = s[d0[2]], s[d1[2]]
            if s0 and s1 and s0 != s1:
                return -1 if s0 > s1 else 1
        return 0
    dims.sort(key=functools.cmp_to_key(outer_first))
    row = 1
    inner = [s[dims[-1][2]] for s in ops] if dims else []
    if dims and all(s in (0, a.itemsize) for s in inner) and inner.count(0) <= 1:
        # a contiguous innermost dimension, or one broadcast input there (the output is
        # contiguous): both vectorize, coalesced with the dimensions outside them that
        # continue them in every operand
        expected = inner
        for _, sz, ax in reversed(dims):
            if [s[ax] for s in ops] != expected:
                break
            row *= sz
            expected = [s[ax] * sz for s in ops]
    grain = _GRAIN_SIZE if grain is None else grain
    chunk = n
    if threads > 1 and n >= grain:
        chunk = -(-n // min(threads, -(-n // grain)))
    if row == 1:
        vec = np.zeros(n, bool)
    elif chunk % row == 0:     # whole rows in every piece: the same mask in each row
        keep = np.arange(row) < row - row % block
        vec = np.broadcast_to(keep, (n // row, row)).reshape(n)
    else:
        lin = np.arange(n)
        start = np.maximum(lin - lin % chunk, lin - lin % row)
        end = np.minimum(np.minimum(lin - lin % chunk + chunk, lin - lin % row + row), n)
        length = end - start
        vec = (lin - start) < length - length % block
    order = [ax for _, _, ax in dims]
    rest = [ax for ax in range(a.ndim) if ax not in order]
    perm = rest + order
    walked = vec.reshape([a.shape[ax] for ax in perm])
    return walked.transpose(np.argsort(perm))


# -- Sleef's float64 exp (Sleef_expd8_u10) ------------------------------------------------
_EXPD_POLY = (+0.2081276378237164457e-8, +0.2511210703042288022e-7,
              +0.2755762628169491192e-6, +0.2755723402025388239e-5,
              +0.2480158687479686264e-4, +0.1984126989855865850e-3,
              +0.1388888888914497797e-2, +0.8333333333314938210e-2,
              +0.4166666666666602598e-1, +0.1666666666666669072e+0)
_LOG_DBL_MAX = 709.782712893384


def exp_u10(d: np.ndarray) -> np.ndarray:
    """``Sleef_expd8_u10`` of a float64 array: ``2^q e^s`` with ``s`` reduced by a two-part
    ln 2 (fmas), an Estrin polynomial and three fmas, then ``2^(q/2) 2^(q - q/2)``."""
    d = np.asarray(d, _F64)
    with np.errstate(all="ignore"):
        x = np.clip(np.where(np.isnan(d), 0.0, d), -1000.0, 710.0)
        u = np.rint(x * _R_LN2)
        q = u.astype(np.int64)
        s = fma64(u, -_L2U, x)
        s = fma64(u, -_L2L, s)
        s2 = s * s
        s4 = s2 * s2
        s8 = s4 * s4
        p = _estrin(s, (s2, s4, s8), _EXPD_POLY)
        p = fma64(p, s, 0.5)
        p = fma64(p, s, 1.0)
        p = fma64(p, s, 1.0)
        half = q >> 1
        out = p * np.ldexp(1.0, half) * np.ldexp(1.0, q - half)
        out = np.where(d > _LOG_DBL_MAX, np.inf, out)
        out = np.where(d < -1000, 0.0, out)
        return np.where(np.isnan(d), d, out)


# -- Sleef's float32 exp (Sleef_expf8_u10 / Sleef_expf16_u10) ------------------------------
_F32 = np.float32
_R_LN2F = _F32(1.442695040888963407359924681001892137426645954152985934135449406931)
_L2UF, _L2LF = _F32(0.693145751953125), _F32(1.428606765330187045e-06)
_EXPF_POLY = tuple(_F32(v) for v in (
    0.000198527617612853646278381, 0.00139304355252534151077271,
    0.00833336077630519866943359, 0.0416664853692054748535156, 0.166666671633720397949219,
    0.5))


def expf_u10(d: np.ndarray) -> np.ndarray:
    """Sleef's float32 ``expf`` (u10, with fmas: the same bits in its AVX2 and AVX-512
    builds), what ``Vectorized<float>`` calls: ``q = rint(d / ln 2)``, ``s`` reduced by a
    two-part ln 2, a degree-5 Horner polynomial, ``1 + (s^2 u + s)``, times
    ``2^(q >> 1) 2^(q - (q >> 1))``; 0 below -104, inf above 100.

    Each fma's float32 operands are multiplied exactly in float64 and the sum rounded there
    (one row of a buffer per fma), then to float32; where some sum was halfway between two
    float32 values (a double rounding could err) the element is redone with ``fma32``."""
    d = np.asarray(d, _F32)
    with np.errstate(all="ignore"):
        dd = np.clip(d, -200, 200)
        np.copyto(dd, _F32(0), where=np.isnan(d))
        q = np.rint(dd * _R_LN2F)
        rows = np.empty((8,) + d.shape, np.float64)
        out = _expf_core(q, d, rows)
        bits = rows.view(np.uint64)
        bits &= _LOW29
        halfway = (bits == _HALF29).any(axis=0)
        if halfway.any():
            where = np.flatnonzero(halfway)
            out.reshape(-1)[where] = _expf_core(q.reshape(-1)[where], d.reshape(-1)[where])
        out[d < -104] = 0
        out[d > 100] = np.inf
        nan = np.isnan(d)
        if nan.any():
            out[nan] = d[nan]
        return out


_LOW29, _HALF29 = np.uint64(0x1FFFFFFF), np.uint64(0x10000000)


def _expf_core(q, d, rows=None):
    """The steps of ``expf_u10``: fmas in float64 rows of ``rows`` (checked by the caller),
    or with ``fma32`` when ``rows`` is None."""
    it = iter(range(8))

    def fma(a, b, c):
        if rows is None:
            return fma32(a, b, c)
        total = rows[next(it)]
        np.multiply(a, b, out=total, dtype=np.float64)
        total += c
        return total.astype(_F32)
    s = fma(q, -_L2UF, d)
    s = fma(q, -_L2LF, s)
    u = fma(_EXPF_POLY[0], s, _EXPF_POLY[1])
    for c in _EXPF_POLY[2:]:
        u = fma(u, s, c)
    u = fma(s * s, u, s)
    u += _F32(1)
    qi = q.astype(np.int32)
    half = qi >> 1
    u *= np.ldexp(_F32(1), half).astype(_F32, copy=False)
    u *= np.ldexp(_F32(1), qi - half).astype(_F32, copy=False)
    return u
