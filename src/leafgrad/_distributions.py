"""PyTorch's CPU sampling kernels on NumPy: the same draws, transformed the same way.

Each function takes an ``Engine`` (leafgrad/_mt19937.py) and returns a flat ndarray in the
order PyTorch's serial CPU kernels fill a contiguous tensor. What each kernel does
(PyTorch 2.13, x86-64 build with AVX2, read from ATen's DistributionsHelper.h,
TransformationHelper.h, native/cpu/DistributionTemplates.h, DistributionKernels.cpp,
MultinomialKernel.cpp and TensorFactories.cpp):

* uniform: float32/float16 take 24 bits of ``random()``, float64 53 bits of
  ``random64()``; then ``fma(x, to - from, from)`` in float32 (float64), and a value equal
  to ``to`` after rounding becomes ``from``.
* normal (tensor of >= 16 elements, contiguous): all uniforms first, then Box-Muller on
  blocks of 16 (u1 = 1 - first eight, u2 = last eight), and when the size is not a multiple
  of 16, 16 fresh uniforms recompute the last 16 values. float32 (and float16 through a
  float32 buffer) use the AVX2 polynomial log/sincos (leafgrad/_exactmath.py); float64 uses
  libm. Fewer than 16 elements: the scalar Box-Muller of ``normal_distribution<double>``
  (two 53-bit uniforms give ``r cos`` now and cache ``r sin`` in the generator for the next
  scalar draw).
* integers: ``random() % range + from``, or ``random64()`` once the range reaches 2**28.
* bernoulli with a number p: a 53-bit uniform ``u < p`` (the MKL stream PyTorch uses on
  Intel CPUs is not reproduced: see Note [bernoulli on Intel]); with a tensor p: 53 bits when p
  is float64, otherwise 24 bits compared in float32.
* exponential / geometric / cauchy / log-normal: one 53-bit uniform each (log-normal: one
  scalar normal), transformed in float64 and rounded to the tensor's dtype.
* randperm: the identity, then for i in 0..n-2 swap i with i + ``random() % (n - i)``.
* multinomial: without replacement (or one sample) the exponential trick,
  ``topk(p / Exp(1))``; with replacement a float cumulative sum searched by 53-bit uniforms.

>>> from leafgrad._mt19937 import Engine
>>> uniform(Engine(0), 2, "float32").tolist()
[0.49625658988952637, 0.7682217955589294]
"""
from __future__ import annotations

import math

import numpy as np

from ._exactmath import fma32, fma64, log_ps, sincos_ps
from ._libm import libm as _libm  # Note [libm, not NumPy's SIMD]

__all__ = ["uniform", "normal", "standard_normal_pairs", "random_from_to", "random_full",
           "bernoulli_scalar", "bernoulli_tensor", "exponential", "geometric", "log_normal",
           "cauchy", "randperm", "multinomial"]

_F32, _F64 = np.float32, np.float64
_MASK24, _MASK53 = np.uint64((1 << 24) - 1), np.uint64((1 << 53) - 1)
_TWO_PI = 2.0 * math.pi

# Note [bernoulli on Intel]
# With MKL on an Intel CPU, PyTorch's bernoulli_(p) with a number p (hence dropout) seeds
# MKL's MCG31 stream from one random() and samples with it; on other CPUs (and in builds
# without MKL) it is the serial kernel reproduced here. leafgrad follows the latter on
# every machine, so on Intel machines dropout masks differ from PyTorch's (their
# distribution does not).


def _unit32(engine, n: int) -> np.ndarray:
    """``n`` float32 uniforms in [0, 1) as ``uniform_real_distribution<float>`` makes them."""
    return (engine.random32(n) & _MASK24).astype(_F32) * _F32(2.0 ** -24)


def _unit64(engine, n: int) -> np.ndarray:
    return (engine.random64(n) & _MASK53).astype(_F64) * 2.0 ** -53


def uniform(engine, n: int, np_dtype, low: float = 0.0, high: float = 1.0) -> np.ndarray:
    np_dtype = np.dtype(np_dtype)
    if np_dtype == _F64:
        x = _unit64(engine, n)
        value = x if (low == 0.0 and high == 1.0) else fma64(x, high - low, low)
    else:   # float32; float16 computes in float32 and rounds
        x = _unit32(engine, n)
        lo, hi = _F32(low), _F32(high)
        value = x if (lo == 0 and hi == 1) else fma32(x, hi - lo, lo)
        value = value.astype(np_dtype, copy=False)
    top = np_dtype.type(high)
    if n and value.max() >= top:          # rounding reached `to`: PyTorch returns `from`
        value = np.where(value == top, np_dtype.type(low), value)
    return value


# -- normal -------------------------------------------------------------------------------
def _box_muller16_f32(u: np.ndarray, mean: float, std: float) -> np.ndarray:
    """u: (blocks, 16) float32 uniforms -> (blocks, 16) normals (AVX2 NormalFill16)."""
    u1 = _F32(1) - u[:, :8]
    radius = np.sqrt(_F32(-2) * log_ps(u1))
    sin, cos = sincos_ps(_F32(_TWO_PI) * u[:, 8:])
    out = np.concatenate([radius * cos, radius * sin], axis=1)
    mean, std = _F32(mean), _F32(std)
    return out if (mean == 0 and std == 1) else fma32(out, std, mean)


def _box_muller16_f64(u: np.ndarray, mean: float, std: float) -> np.ndarray:
    radius = np.sqrt(-2.0 * _libm("log", 1.0 - u[:, :8]))
    theta = _TWO_PI * u[:, 8:]
    out = np.concatenate([radius * _libm("cos", theta), radius * _libm("sin", theta)],
                         axis=1)
    return out if (mean == 0.0 and std == 1.0) else fma64(out, std, mean)


def _normal_fill(engine, n: int, np_dtype, mean: float, std: float) -> np.ndarray:
    double = np_dtype == _F64
    unit, box = (_unit64, _box_muller16_f64) if double else (_unit32, _box_muller16_f32)
    tail = 16 if n % 16 else 0
    full = n - n % 16
    # float32/float64 fill the whole tensor with uniforms first (so the last n % 16 draws
    # are overwritten); float16 goes through a 16-value buffer and draws only what it uses.
    direct = np_dtype in (np.dtype(_F32), np.dtype(_F64))
    u = unit(engine, (n if direct else full) + tail)
    out = np.empty(n, dtype=_F64 if double else _F32)
    out[:full] = box(u[:full].reshape(-1, 16), mean, std).reshape(-1)
    if tail:
        out[n - 16:] = box(u[-16:].reshape(1, 16), mean, std).reshape(-1)
    return out.astype(np_dtype, copy=False)


def standard_normal_pairs(engine, n: int) -> np.ndarray:
    """``n`` draws of the scalar ``normal_distribution<double>`` (mean 0, std 1), using and
    leaving the generator's cached second value as PyTorch does."""
    out = np.empty(n, dtype=_F64)
    start = 0
    if n and engine.normal_double is not None:
        out[0] = engine.normal_double
        engine.normal_double = None
        start = 1
    pairs = (n - start + 1) // 2
    if pairs:
        u = _unit64(engine, 2 * pairs).reshape(pairs, 2)
        radius = np.sqrt(-2.0 * _libm("log1p", -u[:, 1]))
        theta = _TWO_PI * u[:, 0]
        both = np.stack([radius * _libm("cos", theta), radius * _libm("sin", theta)],
                        axis=1).reshape(-1)
        out[start:] = both[:n - start]
        if (n - start) % 2:
            engine.normal_double = float(both[-1])
    return out


def normal(engine, n: int, np_dtype, mean: float = 0.0, std: float = 1.0,
           vectorised: bool = True) -> np.ndarray:
    """``normal_`` of ``n`` elements; ``vectorised`` is PyTorch's "contiguous" condition."""
    np_dtype = np.dtype(np_dtype)
    if n >= 16 and vectorised:
        return _normal_fill(engine, n, np_dtype, mean, std)
    z = standard_normal_pairs(engine, n)
    if mean != 0.0 or std != 1.0:
        z = fma64(z, std, mean)
    return z.astype(np_dtype, copy=False)


# -- integers -------------------------------------------------------------------------------
def random_from_to(engine, n: int, low: int, high: int) -> np.ndarray:
    """int64 values in [low, high) (``random_(from, to)`` / ``randint``)."""
    span = high - low
    draws = engine.random64(n) if span >= 1 << 28 else engine.random32(n)
    return ((draws % np.uint64(span)) + np.uint64(low % (1 << 64))).view(np.int64)


def random_full(engine, n: int, np_dtype) -> np.ndarray:
    """``random_()`` with no bounds: [0, max] of an integer dtype, [0, 2**mantissa] of a
    float dtype, 0/1 for bool; already in ``np_dtype``."""
    np_dtype = np.dtype(np_dtype)
    wide = np_dtype in (np.dtype(np.int64), np.dtype(_F64))
    draws = engine.random64(n) if wide else engine.random32(n)
    if np_dtype == np.bool_:
        return (draws & np.uint64(1)).astype(np.bool_)
    if np_dtype.kind == "f":
        modulus = (1 << (np.finfo(np_dtype).nmant + 1)) + 1
    else:
        modulus = int(np.iinfo(np_dtype).max) + 1
    return (draws % np.uint64(modulus)).astype(np_dtype)


# -- bernoulli and the one-uniform continuous distributions ---------------------------------
def bernoulli_scalar(engine, n: int, p: float) -> np.ndarray:
    """bool array: ``bernoulli_(p)`` with a number p (see Note [bernoulli on Intel])."""
    return _unit64(engine, n) < p


def bernoulli_tensor(engine, p: np.ndarray) -> np.ndarray:
    """bool array shaped like ``p`` (already broadcast to the output's shape)."""
    if p.dtype == _F64:
        return _unit64(engine, p.size).reshape(p.shape) < p
    return _unit32(engine, p.size).reshape(p.shape) < p.astype(_F32)


def exponential(engine, n: int, lambd: float) -> np.ndarray:
    return (-1.0 / lambd) * _libm("log1p", -_unit64(engine, n))


def geometric(engine, n: int, p: float) -> np.ndarray:
    return np.ceil(_libm("log", _unit64(engine, n)) / math.log1p(-p))


def cauchy(engine, n: int, median: float, sigma: float) -> np.ndarray:
    return fma64(sigma, _libm("tan", math.pi * (_unit64(engine, n) - 0.5)), median)


def log_normal(engine, n: int, mean: float, std: float) -> np.ndarray:
    return _libm("exp", fma64(standard_normal_pairs(engine, n), std, mean))


# -- permutations and categorical draws -----------------------------------------------------
def randperm(engine, n: int) -> np.ndarray:
    """int64 permutation of 0..n-1 as PyTorch's CPU randperm makes it."""
    if n >= (2 ** 32 - 1) // 20:
        # PyTorch switches to an inside-out shuffle with random64() here.
        cells = [0] * n
        for i, draw in enumerate(engine.random64(n).tolist()):
            z = draw % (i + 1)
            cells[i] = i
            cells[i] = cells[z]
            cells[z] = i
        return np.asarray(cells, dtype=np.int64)
    cells = list(range(n))
    if n > 1:
        offsets = engine.random32(n - 1) % np.arange(n, 1, -1, dtype=np.uint64)
        for i, z in enumerate(offsets.tolist()):
            j = i + z
            cells[i], cells[j] = cells[j], cells[i]
    return np.asarray(cells, dtype=np.int64)


def multinomial(engine, rows: np.ndarray, n_sample: int, replacement: bool) -> np.ndarray:
    """int64 (n_rows, n_sample) indices from non-negative rows (validated by the caller)."""
    if not replacement or n_sample == 1:
        q = exponential(engine, rows.size, 1.0).astype(rows.dtype).reshape(rows.shape)
        keys = rows / q
        if n_sample == 1:
            return np.argmax(keys, axis=1)[:, None].astype(np.int64)
        order = np.argsort(-keys, axis=1, kind="stable")
        return order[:, :n_sample].astype(np.int64)
    acc = _F64 if rows.dtype == _F64 else _F32
    out = np.empty((rows.shape[0], n_sample), dtype=np.int64)
    for i, row in enumerate(rows.astype(acc, copy=False)):
        cum = np.cumsum(row, dtype=acc)
        total = cum[-1]
        if total > 0 or 0.99999 < total < 1.00001:
            cum = cum / total
        cum[-1] = 1
        out[i] = np.searchsorted(cum, _unit64(engine, n_sample), side="left")
    return out
