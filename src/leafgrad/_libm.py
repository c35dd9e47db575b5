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

import ctypes
import ctypes.util
import math

import numpy as np

__all__ = ["libm", "erff"]

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


def _load_erff():
    try:
        lib = ctypes.CDLL(ctypes.util.find_library("m") or "libm.so.6")
        fn = lib.erff
    except (OSError, AttributeError):
        return None
    fn.restype, fn.argtypes = ctypes.c_float, [ctypes.c_float]
    return fn


_ERFF = _load_erff()


def erff(x: np.ndarray) -> np.ndarray:
    """The C library's float ``erff`` of every value of the float32 array ``x``: what ATen's
    scalar loops call for ``std::erf(float)`` (glibc's is not correctly rounded: about one
    value in fifty differs from ``math.erf`` rounded to float). Without a loadable C library,
    ``math.erf`` rounded."""
    x = np.asarray(x, dtype=np.float32)
    f = _ERFF if _ERFF is not None else math.erf
    return np.fromiter(map(f, x.ravel().tolist()), np.float64, x.size).astype(
        np.float32).reshape(x.shape)
