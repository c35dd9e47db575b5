"""The C library's double-precision functions over NumPy arrays, bit for bit.

Note [libm, not NumPy's SIMD]: PyTorch's CPU kernels call the C library (std::log, std::exp,
...) one value at a time in many places (its samplers, Cephes-style special functions).
NumPy's float64 loops give the same bits on AVX2 machines, but on AVX-512 ones NumPy uses its
own vector log/exp/log1p/tan, which round about one value in a thousand (exp: several in a
hundred) differently. ``libm`` checks once per function whether NumPy agrees with ``math``
(the C library) on this machine, and otherwise maps ``math``'s function over the values
(~0.2 µs a value).
"""
from __future__ import annotations

import functools
import math

import numpy as np

__all__ = ["libm", "erff", "pow_c"]

_PROBES = {"log": (1e-12, 1.0), "log1p": (-1.0 + 1e-12, 0.0), "exp": (-30.0, 30.0),
           "tan": (-1.5707963, 1.5707963), "cos": (0.0, 6.3), "sin": (0.0, 6.3)}
_NUMPY_AGREES: dict = {}


def libm(name: str, x: np.ndarray) -> np.ndarray:
    """``math.<name>`` of every value of the float64 array ``x`` (NumPy's where it agrees)."""
    agrees = _NUMPY_AGREES.get(name)
    if agrees is None:
        lo, hi = _PROBES[name]
        probe = np.random.default_rng(0).uniform(lo, hi, 4096)
        agrees = _NUMPY_AGREES[name] = bool(np.array_equal(
            getattr(np, name)(probe), np.fromiter(map(getattr(math, name), probe.tolist()),
                                                  np.float64, probe.size)))
    if agrees:
        return getattr(np, name)(x)
    x = np.asarray(x, dtype=np.float64)
    f, g = getattr(math, name), getattr(np, name)

    def safe(v):
        try:
            return f(v)
        except (OverflowError, ValueError):   # inf, -inf or nan: C's answer, as NumPy's
            with np.errstate(all="ignore"):
                return float(g(np.float64(v)))
    return np.fromiter(map(safe, x.ravel().tolist()), np.float64, x.size).reshape(x.shape)


@functools.lru_cache(maxsize=None)
def _load(name, kind, nargs):
    """The C library's function ``name`` taking and returning ``kind`` ("float"/"double"),
    loaded on first use (``import leafgrad`` should not pay for ctypes and the library
    lookup); None where no C library loads."""
    import ctypes
    ctype = ctypes.c_float if kind == "float" else ctypes.c_double
    for candidate in ("libm.so.6", None):
        try:
            if candidate is None:
                import ctypes.util
                candidate = ctypes.util.find_library("m")
                if candidate is None:
                    return None
            fn = getattr(ctypes.CDLL(candidate), name)
            break
        except (OSError, AttributeError):
            continue
    else:
        return None
    fn.restype, fn.argtypes = ctype, [ctype] * nargs
    return fn


_POW = {np.dtype(np.float32): ("powf", "float"), np.dtype(np.float64): ("pow", "double")}


def pow_c(x: np.ndarray, y: float) -> np.ndarray:
    """The C library's ``powf`` (float32) or ``pow`` (float64) of every value of ``x`` to the
    power ``y`` (in ``x``'s dtype), as ATen's scalar code calls ``std::pow``: NumPy's AVX-512
    power loops round about a third of float32 (a tenth of float64) results differently.
    A value at a time: for the few values that need it. NumPy's where no C library loads."""
    x = np.asarray(x)
    spec = _POW.get(x.dtype)
    fn = None if spec is None else _load(spec[0], spec[1], 2)
    yv = x.dtype.type(y)
    if fn is None:
        with np.errstate(all="ignore"):
            return np.power(x, yv)
    out = np.fromiter((fn(v, float(yv)) for v in x.ravel().tolist()), np.float64, x.size)
    return out.astype(x.dtype).reshape(x.shape)


def erff(x: np.ndarray) -> np.ndarray:
    """The C library's float ``erff`` of every value of the float32 array ``x``: what ATen's
    scalar loops call for ``std::erf(float)`` (glibc's is not correctly rounded: about one
    value in fifty differs from ``math.erf`` rounded to float). Without a loadable C library,
    ``math.erf`` rounded."""
    x = np.asarray(x, dtype=np.float32)
    f = _load("erff", "float", 1) or math.erf
    return np.fromiter(map(f, x.ravel().tolist()), np.float64, x.size).astype(
        np.float32).reshape(x.shape)
