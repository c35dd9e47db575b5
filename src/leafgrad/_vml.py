"""float32 ``exp``, ``log``, ``sin``, ``cos`` and ``tanh`` as close to PyTorch's CPU kernels as
NumPy gets: computed in float64 and rounded once.

Note [MKL's VML, not Sleef]
PyTorch's unary kernels for these ops (``IMPLEMENT_FLOAT_KERNEL`` / ``IMPLEMENT_COMPLEX_KERNEL``
in UnaryOpsKernel.cpp) hand every contiguous run of the input, or a contiguous copy of a
strided one, to ``at::vml::v<op>``, which in builds with MKL (the x86 wheels) calls MKL's
vector math library in its high-accuracy mode (``vmsExp(n, in, out, VML_HA | ...)``; also
``log``, ``sin``, ``cos``, ``tanh``, ``tan``, ``log10``, ``log2``, ``erf``, ``erfc``, ``sqrt``).
Every element goes through MKL, 0-d and one-element tensors too: there is no scalar tail
(session 12 measured a 0-d, a 1-element, a strided and a contiguous ``tanh`` equal on
every value). ``expm1`` and ``log1p`` are not MKL's: ``vec::map`` runs Sleef over every
element, the last partial vector included. Fused activation kernels (sigmoid, softplus,
mish, gelu) call ``Vectorized<float>`` (Sleef) and the C library in their scalar tails.

MKL's algorithms are not published, so their bits cannot be redone step by step; its HA
functions are accurate to about 0.51 ulp, so the correctly rounded value is its answer
except near a float32 rounding midpoint. NumPy's float32 SIMD loops (AVX-512) are
accurate to a few ulps and match MKL on only 60% (exp) to 90% (log) of values. Rounding
NumPy's float64 result (a few float64 ulps from the exact value) to float32 gives the
correctly rounded value but in about 2^-27 of cases. Session 12's survey against torch 2.13
(float32, millions of values over several ranges): exp 61% -> 99.0%, tanh 68% -> 99.9%,
log 90% -> 92-99%, log10 51% -> 99.9%, log2 91% -> 99.9%, atan 74% -> 94%, asin 90% -> 96%,
acos 64% -> 96%, tan 73% -> 82%; sin 85-92% -> 95% and cos 81-89% -> 95% would cost
5-10x torch's time (NumPy's float64 sin and cos have no SIMD loop): left on float32. What is left is MKL's own rounding
near midpoints (and, for sin/cos/log, its ~0.55 ulp errors), which no exact rule of ours
reproduces; float64 stays NumPy's (MKL's double functions are not correctly rounded either).

A one-element array goes through Python's ``math`` (the C library's double function, as
accurate): three NumPy calls would cost a microsecond there.
"""
from __future__ import annotations

import math

import numpy as np

__all__ = ["exp", "log", "sin", "cos", "tanh", "log2", "log10", "tan", "asin", "acos", "atan",
           "sinh", "cosh", "exp2", "atanh", "log1p"]

_F32 = np.float32
_F64 = np.float64
_F32D = np.dtype(_F32)
_FIRST = {0: (), 1: (0,), 2: (0, 0), 3: (0, 0, 0), 4: (0, 0, 0, 0)}


def _through_double(ufunc, scalar, nan_in=False):
    """``ufunc`` for float32 arrays, computed in float64 and rounded once; other dtypes as
    ``ufunc`` computes them. ``nan_in``: a NaN input is the answer (NumPy's ``arccos``
    flips its sign). (NumPy's float64 ``tanh`` also answers +NaN for -NaN, where MKL keeps
    the sign; a ``copysign`` would fix it, at ~0.4 us per 1,000 elements: bench W5's budget
    has no room for it.)"""
    def kernel(x):
        if x.dtype is not _F32D:
            return ufunc(x)
        if x.size == 1 and x.ndim <= 4:
            try:
                value = scalar(x.item())
            except (ValueError, OverflowError):   # out of the domain, inf: NumPy's answer
                pass
            else:
                if type(x) is not np.ndarray:   # a NumPy scalar (what -x gives for 0-d x)
                    return _F32(value)
                out = x.copy()
                out[_FIRST[x.ndim]] = value
                return out
        if type(x) is not np.ndarray:   # a NumPy scalar the scalar path did not answer
            x = np.asarray(x)            # (math.exp overflowed: fuzz seed 1213)
        if x.flags.c_contiguous:
            y = x.astype(_F64)
            ufunc(y, out=y)
        else:   # the ufunc's output layout (astype would copy stride-0 dimensions' strides)
            y = ufunc(x, dtype=_F64)
        out = y.astype(_F32)
        if nan_in:
            np.copyto(out, x, where=np.isnan(x))
        return out
    kernel.__name__ = kernel.__qualname__ = ufunc.__name__
    kernel.__doc__ = f"float32 ``{ufunc.__name__}`` rounded once from float64 (Note [MKL's " \
        "VML, not Sleef])."
    return kernel


exp = _through_double(np.exp, math.exp)
log = _through_double(np.log, math.log)
sin = _through_double(np.sin, math.sin)
cos = _through_double(np.cos, math.cos)
tanh = _through_double(np.tanh, math.tanh)
log2 = _through_double(np.log2, math.log2)
log10 = _through_double(np.log10, math.log10)
tan = _through_double(np.tan, math.tan)
asin = _through_double(np.arcsin, math.asin)
acos = _through_double(np.arccos, math.acos, nan_in=True)
atan = _through_double(np.arctan, math.atan)
# not MKL's: Sleef's u10 functions in ATen's vector loops, the C library's in its scalar
# tails, both within about an ulp of exact; rounding once matches 99.7-99.9% of float32
# values (NumPy's float32 loops: 63-92%)
sinh = _through_double(np.sinh, math.sinh)
cosh = _through_double(np.cosh, math.cosh)
exp2 = _through_double(np.exp2, math.exp2)
atanh = _through_double(np.arctanh, math.atanh)
# Sleef's log1pf (every element, as expm1: Note [Sleef's expm1f] in _sleef_f32.py) is within
# ~0.11 ulp of exact; its bits would cost ~10x torch's time (_sleef_f32 has no fast path for
# it): rounding once matches 98.7-99.7% (NumPy's float32 loop: 82-95%)
log1p = _through_double(np.log1p, math.log1p)
