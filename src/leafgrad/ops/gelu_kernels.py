"""float32 ``gelu`` (exact form) as PyTorch's CPU kernels compute it: oneDNN's eltwise
``gelu_erf`` for a contiguous input of two elements or more (its avx2 kernel, or its
avx512_core one where oneDNN runs those: ``leafgrad._cpu``), ATen's kernel for the others.

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

ATen's own float kernel (non-contiguous inputs, a single element, 0-d) is
``x * 0.5 * (1 + erf(x * sqrt(1/2)))``: in its vector blocks with the same A&S erf but
Sleef's ``expf`` inside it (``_sleef.expf_u10``) and no fused final step, elsewhere with the
C library's ``erff`` (Note [ATen gelu's vector blocks]).
"""
from __future__ import annotations

import numpy as np

from .._cpu import ATEN_CAPABILITY, ONEDNN_AVX512_CORE
from .._exactmath import fma32
from .._libm import erff
from .._sleef import expf_u10, vector_lanes

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

__all__ = ["gelu_onednn", "gelu_onednn_avx2", "gelu_onednn_avx512", "gelu_aten",
           "gelu_aten_vectorized"]

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
    """Sleef's ``expf`` (``Vectorized<float>::exp``)."""
    return expf_u10(v)


def _erf(x: np.ndarray, exp=_exp) -> np.ndarray:
    a = np.abs(x)
    t = _F32(1) / _fma(_ERF_P, a, _F32(1))
    neg_e = -exp(-(x * x)) * t
    poly = np.full_like(x, _ERF_POLY[4])
    for c in (_ERF_POLY[3], _ERF_POLY[2], _ERF_POLY[1], _ERF_POLY[0]):
        poly = _fma(poly, t, c)
    return np.copysign(_fma(neg_e, poly, _F32(1)), x)


def gelu_onednn_avx2(s: np.ndarray) -> np.ndarray:
    """gelu of a float32 array, as oneDNN's avx2 ``gelu_erf`` (Note [oneDNN gelu])."""
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
        if not s.ndim:
            return _aten_steps(s)
        flat = s.reshape(-1)
        out = np.empty(flat.shape, _F32)
        for i in range(0, flat.shape[0], _BLOCK):
            out[i:i + _BLOCK] = _aten_block(flat[i:i + _BLOCK])
        return out.reshape(s.shape)


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


# Note [ATen gelu's vector blocks]
# ATen's float kernel (cpu_kernel_vec) runs each contiguous piece of its walk (a row of the
# innermost dimension, coalesced, or a parallel_for chunk of it) through the vectorized
# function in blocks of two vectors (16 float32 on AVX2, 32 on AVX-512), and what is left of
# the piece (a whole short row, a 0-d or inner-strided input) through its scalar loop:
# ``x * 0.5f * (1 + std::erf(x * M_SQRT1_2))``, with the C library's ``erff``. (GeluKernel is
# one of the few kernels ATen registers for AVX-512 too: most run their AVX2 build there.)
# The DEFAULT build's vectorized erf maps ``std::erf`` over its lanes: the scalar loop's bits.
_ATEN_BLOCK = {"AVX512": 32, "AVX2": 16}.get(ATEN_CAPABILITY)
_GELU_PARALLEL = 16384        # GeluKernelImpl: above this, grain = numel / threads


def _aten_scalar(s):
    return s * _F32(0.5) * (_F32(1) + erff(s * _SQRT_HALF))


def gelu_aten(s: np.ndarray, threads: int = 1) -> np.ndarray:
    """gelu of a float32 (or float16) array as ATen's CPU kernel (Note [ATen gelu's vector
    blocks]); float16 is computed in float32 and rounded once, in blocks of twice as many
    lanes."""
    half = s.dtype == np.float16
    block = _ATEN_BLOCK and (2 * _ATEN_BLOCK if half else _ATEN_BLOCK)
    with np.errstate(invalid="ignore", over="ignore"):
        s32 = s.astype(_F32) if half else s
        if block is None or s.ndim == 0 or s.size < block:
            out = _aten_scalar(s32)
        else:
            n = s.size
            grain = n // threads if n > _GELU_PARALLEL else None
            vec = vector_lanes(s, block, threads, grain)
            if vec is None or not vec.any():
                out = _aten_scalar(s32)
            elif vec.all():
                out = gelu_aten_vectorized(s32)
            else:
                out = np.empty(s.shape, _F32)
                out[vec] = gelu_aten_vectorized(s32[vec])
                scalar = ~vec
                out[scalar] = _aten_scalar(s32[scalar])
        return out.astype(np.float16) if half else out


# Note [oneDNN gelu on AVX-512]
# oneDNN's avx512_core kernels compute gelu_erf without exp or a division: erf(s / sqrt 2)
# is a degree-5 polynomial in |s| (Horner's fmas, float32), one of 24 chosen by |s|'s bit
# pattern: ``(bits(|s|) + 0xc21fffff) >> 21`` (arithmetic shift: the exponent and two
# mantissa bits, so four intervals per binade from about 0.156 up), clamped to [1, 24], and 23
# (whose polynomial is the constant 1) above a bound of about 5.54. The polynomial gets s's
# sign by an exclusive or, then ``gelu = (s * (erf + 1)) * 0.5``, rounded at each step.
# (+-inf land on the constant polynomial, whose Horner steps multiply 0 by inf: NaN.)
def _hex_table(*words):
    return np.array(words, np.uint32).view(_F32)


# coefficient of |s|^k for each of the 25 intervals (0 unused), from degree 0 to 5
_MINIMAX = np.stack([_hex_table(*row) for row in (
    (0xa6f2cb94, 0x32827792, 0x3381cc0c, 0x34523d4a, 0x351ac44d, 0x35f36d88, 0x36ee8229,
     0x37b8a3bb, 0x3867a213, 0x3940033b, 0x3a2a5a1d, 0x3ae35863, 0x3b7828f2, 0x3c08b14b,
     0x3c515ed3, 0xbb503236, 0xbd8d8e5e, 0xbe8abcd9, 0xbf0c19a2, 0xbeccb328, 0x3e176ced,
     0x3f470d99, 0x3f7abb28, 0x3f800000, 0x00000000),
    (0x3f4c422a, 0x3f4c421f, 0x3f4c4207, 0x3f4c41cb, 0x3f4c413b, 0x3f4c3fad, 0x3f4c3a2f,
     0x3f4c2d40, 0x3f4c146a, 0x3f4bc341, 0x3f4ad08c, 0x3f48f8cf, 0x3f45fac7, 0x3f404e07,
     0x3f3b980f, 0x3f48dff3, 0x3f78b21b, 0x3fbb0704, 0x40019c32, 0x3fe536d6, 0x3f81331e,
     0x3e6c8684, 0x3c98f936, 0x00000000, 0x3f800000),
    (0xb62173f4, 0x3735e4cf, 0x37f2ff89, 0x388c23be, 0x3917535c, 0x39ab2ab0, 0x3a60fadb,
     0x3af9b960, 0x3b6e5491, 0x3c0a4ec5, 0x3ca5aa8c, 0x3d2138d9, 0x3d8737d4, 0x3ddfb660,
     0x3e0f27ab, 0x3d94004b, 0xbe0efdeb, 0xbf1d96c3, 0xbf89db58, 0xbf6d9897, 0xbef69fb8,
     0xbdc4f8a8, 0xbbde6422, 0x00000000, 0x00000000),
    (0xbe081a19, 0xbe084570, 0xbe08639b, 0xbe089837, 0xbe08f409, 0xbe09ab95, 0xbe0b66d0,
     0xbe0e400a, 0xbe124df8, 0xbe1bde02, 0xbe2f19c9, 0xbe4931bf, 0xbe685fbc, 0xbe89c95f,
     0xbe96cbca, 0xbe8044aa, 0xbe0550f2, 0x3dcfd6a1, 0x3e94c826, 0x3e79345f, 0x3decec91,
     0x3ca46568, 0x3aa1e00a, 0x00000000, 0x00000000),
    (0xba3d61db, 0x39f097a3, 0x3a5845dc, 0x3ab1fa35, 0x3b0cefb8, 0x3b653ab6, 0x3bcae527,
     0x3c221712, 0x3c6c5840, 0x3cc0a703, 0x3d1dcc19, 0x3d63656d, 0x3d955907, 0x3dbf9910,
     0x3dd53f69, 0x3db7dcef, 0x3d639ebe, 0xba6ede48, 0xbd22be69, 0xbd041cf1, 0xbc64f5ab,
     0xbb097a32, 0xb8ebf380, 0x00000000, 0x00000000),
    (0x3cb7d80c, 0x3c9b6050, 0x3c978d11, 0x3c92e850, 0x3c8d058b, 0x3c848454, 0x3c6cd623,
     0x3c4c824b, 0x3c2a7935, 0x3be0b390, 0x3b0651ac, 0xbb232f53, 0xbbd42fa0, 0xbc2c5366,
     0xbc492c9e, 0xbc2a7aa6, 0xbbd55d04, 0xba823a76, 0x3b102aa8, 0x3ae25a7e, 0x3a31f792,
     0x38b84375, 0x3689bb5a, 0x00000000, 0x00000000),
)])
_MINIMAX64 = _MINIMAX.astype(_F64)
_IDX_BIAS = np.int32(np.uint32(0xc21fffff).view(np.int32))
_RBOUND = np.uint32(0x40b15cee).view(_F32)
_SIGN = np.uint32(0x80000000)


def gelu_onednn_avx512(s: np.ndarray) -> np.ndarray:
    """gelu of a float32 array as oneDNN's avx512_core ``gelu_erf`` (Note [oneDNN gelu on
    AVX-512])."""
    flat = s.reshape(-1)
    out = np.empty(flat.shape, _F32)
    with np.errstate(invalid="ignore", over="ignore"):
        for i in range(0, flat.shape[0], _BLOCK):
            _minimax_block(flat[i:i + _BLOCK], out[i:i + _BLOCK])
    return out.reshape(s.shape)


def _minimax_block(s, out):
    bits = s.view(np.uint32)
    pos_bits = bits & np.uint32(0x7FFFFFFF)
    pos = pos_bits.view(_F32)
    idx = (pos_bits.view(np.int32) + _IDX_BIAS) >> 21
    np.clip(idx, 1, 24, out=idx)
    idx[_RBOUND < pos] = 23
    pos64 = pos.astype(_F64)
    tot = np.empty((5,) + s.shape, _F64)
    # Horner: pol = fma(pol, |s|, c_k), k = 4 .. 0 (Note [Fast float32 fma blocks])
    pol = _MINIMAX[5][idx]
    for j, k in enumerate((4, 3, 2, 1, 0)):
        row = tot[j]
        np.multiply(pol, pos64, out=row)
        row += _MINIMAX64[k][idx]
        pol = row.astype(_F32)
    if _halfway(tot) is not None:     # a double rounding somewhere: redo with true fmas
        pol = _MINIMAX[5][idx]
        for k in (4, 3, 2, 1, 0):
            pol = fma32(pol, pos, _MINIMAX[k][idx])
    pol = (pol.view(np.uint32) ^ (bits & _SIGN)).view(_F32)
    pol += _ONE
    np.multiply(s, pol, out=out)
    out *= _F32(0.5)


gelu_onednn = gelu_onednn_avx512 if ONEDNN_AVX512_CORE else gelu_onednn_avx2
