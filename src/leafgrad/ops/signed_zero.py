"""Which zero a max/min-like op returns when its two sides are equal zeros of opposite sign.

Note [signed zero ties]
NumPy's maximum/minimum/fmax/fmin return either side on a tie depending on the dtype, the
length and the SIMD path, so leafgrad never relies on them there. PyTorch's CPU kernels:
* with a number bound (relu, clamp/clamp_min/clamp_max with numbers, hardtanh): ``self``
  (``std::max(a, b)`` keeps ``a``; the vector kernel is ``max(bound, a)``, also ``a``);
* fmax/fmin: ``self`` always;
* maximum/minimum and clamp with tensor bounds: ``self`` where the scalar loop runs, the
  other side where the vector loop runs: TensorIterator's inner loop (the trailing dims it
  can coalesce) is vectorised in blocks of two vectors (AVX2: 8 double, 16 float, 32 half)
  when every operand in it is contiguous or one of them is a broadcast scalar; the tail of
  each inner run, and every other layout, take the scalar loop.
Only zeros differ (equal non-zero values are the same bits), so the fix-up runs only where
the result has a zero. For float and double NumPy's maximum/minimum return their second
argument on a tie on every path (tests/fuzz/test_lo7_s7.py holds it), so ``keep_self``
puts ``self`` second there at no cost.
"""
from __future__ import annotations

import numpy as np

# (the AVX2 build runs on AVX-512 machines too: leafgrad._cpu)
_BLOCK = {np.dtype(np.float64): 8, np.dtype(np.float32): 16, np.dtype(np.float16): 32}


_SECOND_WINS = (np.dtype(np.float64), np.dtype(np.float32))


def keep_self(fn, self, other):
    """``fn`` (np.maximum or np.minimum) of ``self`` and a bound, ``self`` on a tie."""
    if self.dtype in _SECOND_WINS:
        return fn(other, self)
    return zero_ties(fn(self, other), self, other)


def lanes_tie(fn, self, other):
    """``fn`` (np.maximum or np.minimum) of two tensors' data as PyTorch's kernel resolves
    ties: ``self``, or ``other`` in the vector loop's lanes."""
    return zero_ties(keep_self(fn, self, other), self, other, lanes=True)


def zero_ties(r, self, other, lanes=False):
    """``r`` (max/min of ``self`` and ``other``) with ties between zeros resolved: ``self``,
    or (``lanes``) ``other`` where PyTorch's vector loop runs."""
    if r.dtype.kind != "f" or r.all():
        return r
    tie = (self == 0) & (other == 0)
    if not tie.any():
        return r
    vector = vector_lanes(self, other) if lanes else None
    pick = self if vector is None else np.where(vector, other, self)
    return np.where(tie, pick, r)


def clamp_ties(self, lo, hi):
    """clamp with two tensor bounds, ``min(max(self, lo), hi)``: the scalar loop keeps the
    left side of each step on a tie, the vector loop (all three operands in its lanes)
    the bound."""
    r = keep_self(np.minimum, keep_self(np.maximum, self, lo), hi)
    if r.dtype.kind != "f" or r.all():
        return r
    vector = vector_lanes(self, lo, hi)
    if vector is None:
        return r
    low = np.maximum(self, lo)
    low = np.where((self == 0) & (lo == 0), lo, low)
    v = np.where((low == 0) & (hi == 0), hi, np.minimum(low, hi))
    return np.where(vector, v, r)


def vector_lanes(*operands):
    """Where PyTorch's kernel takes the vector loop (Note [signed zero ties]): a boolean mask
    over the broadcast shape, or None where it never does.

    TensorIterator walks the dims in its output's memory order (``iter_strides``: the
    operands' layouts decide it, a transposed input is walked along its rows), coalesces
    the fastest dims whose strides chain in every operand into the inner loop, and runs
    that loop vectorized, in blocks, when the output and every input are contiguous in it or
    exactly one input is a broadcast scalar there."""
    first = operands[0]
    block = _BLOCK.get(first.dtype)
    if block is None or any(a.dtype != first.dtype for a in operands):
        return None
    shape = np.broadcast_shapes(*(a.shape for a in operands))
    if not shape:
        return None
    from .iter_layout import iter_strides
    out = iter_strides(shape, operands)
    ops = [out] + [[s // a.itemsize if n > 1 else 0
                    for s, n in zip(np.broadcast_to(a, shape).strides, shape)]
                   for a in operands]
    order = sorted((d for d in range(len(shape)) if shape[d] > 1), key=lambda d: out[d])
    if not order:
        return None
    # the inner loop: the fastest dims whose strides chain (coalesce) in every operand
    base = [op[order[0]] for op in ops]
    run, dims = 1, []
    for d in order:
        if any(op[d] != b * run for op, b in zip(ops, base)):
            break
        dims.append(d)
        run *= shape[d]
    if run < block or base[0] != 1:
        return None
    # every operand contiguous in the run, or exactly one input a broadcast scalar
    if any(b not in (0, 1) for b in base) or base.count(0) > 1:
        return None
    pos = np.zeros(shape, np.int64)
    step = 1
    for d in dims:
        along = [1] * len(shape)
        along[d] = shape[d]
        pos = pos + np.arange(shape[d]).reshape(along) * step
        step *= shape[d]
    return pos < run // block * block
