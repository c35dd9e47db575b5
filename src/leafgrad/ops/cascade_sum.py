"""Float sums added in the order PyTorch's CPU kernel adds them, so ``loss.item()`` prints the
same last digits.

Note [Cascade sum]
A float32 sum's last bits depend on the order of the additions. NumPy adds pairwise; PyTorch's
CPU ``sum`` (and ``mean``, which is ``sum`` then a division) runs a "cascade" over SIMD
vectors (AVX2: 8 float32 / 4 float64 lanes):

* the row is cut into vectors; the vectors are dealt round-robin to 4 accumulators (ILP);
* each accumulator adds its vectors in blocks of ``2**p`` (``p = max(4, ceil(log2(m)) / 4)``
  for ``m`` vectors per accumulator), and block sums climb up to 3 more levels: a level is
  flushed into the next whenever the running index is a multiple of its size;
* leftover vectors go into accumulator 0, then accumulators 1, 2, 3 are added to it;
* the tail elements (fewer than a vector) are added one by one to 0, then the lanes of the
  vector, lane 0 first.
Rows shorter than one vector use the same scheme on single elements. Reproduced here with
NumPy float adds in the same order (each IEEE add rounds identically). Applies to a reduction
over the innermost, contiguous dims, up to 32768 elements per row (above that PyTorch splits
the work between threads).
"""
from __future__ import annotations

import numpy as np

__all__ = ["cascade_sum_last", "sum_like_torch", "LANES", "MAX_EXACT"]

LANES = {np.dtype(np.float32): 8, np.dtype(np.float64): 4}
MAX_EXACT = 32768       # at::internal::GRAIN_SIZE: larger sums may be split between threads
_ILP = 4
_LEVELS = 4


def _ceil_log2(n: int) -> int:
    return 0 if n <= 1 else (n - 1).bit_length()


def _multi_row_sum(rows: np.ndarray) -> np.ndarray:
    """Sum ``rows`` (shape (B, m, *unit)) over axis 1 with the block cascade; (B, *unit)."""
    m = rows.shape[1]
    power = max(4, _ceil_log2(m) // _LEVELS)
    step = 1 << power
    mask = step - 1
    acc = [np.zeros((rows.shape[0],) + rows.shape[2:], rows.dtype) for _ in range(_LEVELS)]
    nblocks = m // step
    if nblocks:
        # a block's sum added one row at a time from zero: cumsum is strictly sequential
        blocks = rows[:, :nblocks * step].reshape((rows.shape[0], nblocks, step)
                                                  + rows.shape[2:])
        block_sums = np.cumsum(blocks, axis=2)[:, :, -1]
        i = 0
        for b in range(nblocks):
            i += step
            acc[1] = acc[1] + block_sums[:, b]     # acc[0] was zero: it holds the block sum
            for j in range(2, _LEVELS):
                if i & (mask << ((j - 1) * power)):
                    break
                acc[j] = acc[j] + acc[j - 1]
                acc[j - 1] = np.zeros_like(acc[j - 1])
    tail = rows[:, nblocks * step:]
    if tail.shape[1]:
        acc[0] = np.cumsum(np.concatenate([acc[0][:, None], tail], axis=1), axis=1)[:, -1]
    for j in range(1, _LEVELS):
        acc[0] = acc[0] + acc[j]
    return acc[0]


def _row_sum(units: np.ndarray) -> np.ndarray:
    """PyTorch's ``row_sum`` over axis 1 of ``units`` (B, n, *unit): 4-way ILP cascade."""
    b, n = units.shape[:2]
    m = n // _ILP
    partial = _multi_row_sum(units[:, :m * _ILP].reshape((b, m, _ILP) + units.shape[2:]))
    # partial: (B, 4, *unit)
    p0 = partial[:, 0]
    for k in range(m * _ILP, n):
        p0 = p0 + units[:, k]
    for k in range(1, _ILP):
        p0 = p0 + partial[:, k]
    return p0


def cascade_sum_last(x: np.ndarray) -> np.ndarray:
    """Sum over the last axis of a 2-D float32/float64 array ``x`` (B, n) as PyTorch does."""
    lanes = LANES[x.dtype]
    b, n = x.shape
    if n < lanes:
        return _row_sum(x)
    nvec = n // lanes
    vec_acc = _row_sum(x[:, :nvec * lanes].reshape(b, nvec, lanes))      # (B, lanes)
    final = np.zeros(b, x.dtype)
    for k in range(nvec * lanes, n):
        final = final + x[:, k]
    for k in range(lanes):
        final = final + vec_acc[:, k]
    return final


def sum_like_torch(a: np.ndarray, axis=None, keepdims: bool = False):
    """``np.sum(a, axis, keepdims=keepdims)`` added in PyTorch's order (Note [Cascade sum]),
    or None where that order is not reproduced here (other dtypes, rows longer than
    ``MAX_EXACT``, reductions over other than the trailing dims of a dense array): the caller
    then uses NumPy's sum."""
    if a.dtype not in LANES or a.size == 0:
        return None
    ndim = a.ndim
    if axis is None:
        axes = tuple(range(ndim))
    else:
        axes = tuple(sorted(d % ndim for d in ((axis,) if isinstance(axis, int) else axis)))
    if axis is None and not a.flags.c_contiguous and a.flags.f_contiguous:
        flat = a.ravel(order="K")       # torch walks a transposed tensor in memory order
        out = cascade_sum_last(flat.reshape(1, -1)) if flat.size <= MAX_EXACT else None
        return None if out is None else out.reshape((1,) * ndim if keepdims else ())
    if not a.flags.c_contiguous or axes != tuple(range(ndim - len(axes), ndim)):
        return None
    kept = a.shape[:ndim - len(axes)]
    n = a.size // max(1, int(np.prod(kept, dtype=np.int64)))
    if n > MAX_EXACT or n == 0:
        return None
    out = cascade_sum_last(a.reshape(-1, n)).reshape(kept)
    if keepdims:
        out = out.reshape(kept + (1,) * len(axes))
    return out
