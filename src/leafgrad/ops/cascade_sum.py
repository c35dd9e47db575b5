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

LANES = {np.dtype(np.float32): 8, np.dtype(np.float64): 4}   # on AVX-512 too (leafgrad._cpu)
MAX_EXACT = 32768       # at::internal::GRAIN_SIZE: larger sums may be split between threads
_ILP = 4
_LEVELS = 4


def _ceil_log2(n: int) -> int:
    return 0 if n <= 1 else (n - 1).bit_length()


def _sequential(rows: np.ndarray, axis: int) -> np.ndarray:
    """``rows`` added one at a time along ``axis``, from the first element.

    Along an axis with contiguous axes inside it, ``np.add.reduce`` runs ``out += row`` row
    after row (NumPy adds pairwise only along the innermost axis); there, cumsum, which is
    strictly sequential, takes its place."""
    if axis != rows.ndim - 1:
        return np.add.reduce(rows, axis=axis)
    # (a copy: the last column of the running sums is a strided view, and a sum's result is
    # contiguous, as PyTorch's: ``x.sum(1).view(...)`` works)
    return np.add.accumulate(rows, axis=axis)[..., -1].copy()   # np.cumsum's ufunc call


def _multi_row_sum(rows: np.ndarray) -> np.ndarray:
    """Sum ``rows`` (shape (B, m, *unit)) over axis 1 with the block cascade; (B, *unit)."""
    m = rows.shape[1]
    power = max(4, _ceil_log2(m) // _LEVELS)
    step = 1 << power
    nblocks = m // step
    if not nblocks:                 # short rows (the common case): one sequential run
        return _sequential(rows, 1) if m else np.zeros(rows.shape[:1] + rows.shape[2:],
                                                        rows.dtype)
    block_sums = _sequential(
        rows[:, :nblocks * step].reshape(rows.shape[:1] + (nblocks, step) + rows.shape[2:]), 2)
    groups = nblocks // step
    if not groups and m == nblocks * step:
        # A few whole blocks (a bias gradient over a batch of 64): below, that is
        # ((0 + level1) + 0) + 0 with level1 the block sums added in order, the same bits as
        # level1 + 0 (adding +0 only turns -0 into +0), in one add instead of three and no
        # zero arrays.
        return _sequential(block_sums, 1) + rows.dtype.type(0)
    if groups < step:
        # Within MAX_EXACT: level 1 adds the block sums; every ``step`` blocks it is flushed
        # into level 2 (which then adds the group sums); level 3 stays empty.
        zero = np.zeros(rows.shape[:1] + rows.shape[2:], rows.dtype)
        level2 = zero if not groups else _sequential(
            block_sums[:, :groups * step].reshape(
                block_sums.shape[:1] + (groups, step) + block_sums.shape[2:]), 2).cumsum(
                    axis=1)[:, -1]
        rest = block_sums[:, groups * step:]
        level1 = _sequential(rest, 1) if rest.shape[1] else zero
        acc = [zero, level1, level2, zero]
    else:
        acc = _levels(block_sums, step, power)
    if m > nblocks * step:
        acc[0] = _sequential(np.concatenate([acc[0][:, None], rows[:, nblocks * step:]],
                                            axis=1), 1)
    return ((acc[0] + acc[1]) + acc[2]) + acc[3]


def _levels(block_sums: np.ndarray, step: int, power: int) -> list:
    """The general cascade over block sums, one block at a time (long rows only)."""
    mask = step - 1
    acc = [np.zeros_like(block_sums[:, 0]) for _ in range(_LEVELS)]
    i = 0
    for b in range(block_sums.shape[1]):
        i += step
        acc[1] = acc[1] + block_sums[:, b]        # acc[0] was zero: it holds the block sum
        for j in range(2, _LEVELS):
            if i & (mask << ((j - 1) * power)):
                break
            acc[j] = acc[j] + acc[j - 1]
            acc[j - 1] = np.zeros_like(acc[j - 1])
    return acc


def _row_sum(units: np.ndarray) -> np.ndarray:
    """PyTorch's ``row_sum`` over axis 1 of ``units`` (B, n, *unit): 4-way ILP cascade."""
    b, n = units.shape[:2]
    m = n // _ILP
    if m:
        partial = _multi_row_sum(units[:, :m * _ILP].reshape((b, m, _ILP) + units.shape[2:]))
        p0 = partial[:, 0]
    else:
        partial = None
        p0 = np.zeros((b,) + units.shape[2:], units.dtype)
    for k in range(m * _ILP, n):                  # leftovers (< 4) go to accumulator 0
        p0 = p0 + units[:, k]
    if partial is not None:
        p0 = ((p0 + partial[:, 1]) + partial[:, 2]) + partial[:, 3]
    return p0


def cascade_sum_last(x: np.ndarray) -> np.ndarray:
    """Sum over the last axis of a 2-D float32/float64 array ``x`` (B, n) as PyTorch does."""
    lanes = LANES[x.dtype]
    b, n = x.shape
    if n < lanes:
        return _row_sum(x) + x.dtype.type(0)      # torch starts from +0.0: no -0.0 sums
    nvec = n // lanes
    vec_acc = _row_sum(x[:, :nvec * lanes].reshape(b, nvec, lanes))      # (B, lanes)
    # 0, then the tail elements, then the lanes in order: one sequential run
    run = np.concatenate([np.zeros((b, 1), x.dtype), x[:, nvec * lanes:], vec_acc], axis=1)
    return _sequential(run, 1)


_ZERO = {d: np.zeros(1, d) for d in LANES}
_add = np.add.reduce
_accumulate = np.add.accumulate
_concat = np.concatenate


def _short_row(x: np.ndarray):
    """The whole-tensor sum of a 1-D contiguous row too short for the block cascade
    (fewer than 16 vectors per ILP accumulator): the same additions as
    :func:`cascade_sum_last` in a few NumPy calls, since losses and small activations are
    summed on every training step. With ``m`` vectors per ILP accumulator: one reduction
    adds the 4 accumulators' vectors row after row (``part``: their 4 sums side by side);
    a second one runs the chain accumulator 0, the leftover vectors, accumulators 1, 2, 3
    (rows of a ``(k, lanes)`` array, added row after row); then 0, the tail elements and the
    lanes are added in order (``add.accumulate`` is sequential, NumPy's ``sum`` pairwise)."""
    dt = x.dtype
    lanes = LANES[dt]
    nvec = x.size // lanes
    body = nvec * lanes
    m = nvec >> 2
    if m:
        q = m * 4 * lanes
        part = _add(x[:q].reshape(m, 4 * lanes), axis=0)   # row after row
        if q < body:
            part = _concat((part[:lanes], x[q:body], part[lanes:]))
        acc = _add(part.reshape(-1, lanes), axis=0)
    else:
        acc = _ZERO[dt]
        for k in range(0, body, lanes):
            acc = acc + x[k:k + lanes]
    return _accumulate(_concat((_ZERO[dt], x[body:], acc)))[-1:].reshape(())


def sum_like_torch(a: np.ndarray, axis=None, keepdims: bool = False):
    """``np.sum(a, axis, keepdims=keepdims)`` added in PyTorch's order (Note [Cascade sum]),
    or None where that order is not reproduced here (other dtypes, rows longer than
    ``MAX_EXACT``, reductions over other than the trailing dims of a dense array): the caller
    then uses NumPy's sum."""
    if a.dtype not in LANES or a.size == 0:
        return None
    ndim = a.ndim
    if axis is None and a.flags.c_contiguous:      # the common case, kept short
        if a.size > MAX_EXACT:
            return None
        if LANES[a.dtype] <= a.size < LANES[a.dtype] * 64:    # the short rows of most steps
            out = _short_row(a.reshape(-1))
            return out.reshape((1,) * ndim) if keepdims else out
        out = cascade_sum_last(a.reshape(1, a.size))
        return out.reshape((1,) * ndim) if keepdims else out.reshape(())
    if ndim == 2 and (axis == (0,) or axis == 0) and a.flags.c_contiguous:
        # a bias gradient, (N, out) over dim 0: what _grouped_sum does for it, without its
        # general dim bookkeeping (size-1 dims take the general path: they coalesce away)
        r, c = a.shape
        if r > 1 and c > 1 and r * c <= MAX_EXACT:
            if r < 256 and not c % (LANES[a.dtype] << 2):
                out = _batch_sum(a, r, c)
                return out.reshape(1, c) if keepdims else out
            lanes = LANES[a.dtype]
            if (c < 4 or lanes <= c < lanes << 2) and not r & 3 and (
                    r < 64 or (not r & 63 and r < 1024)):
                out = _narrow_sum(a, r, c)
                return out.reshape(1, c) if keepdims else out
            out = _outer_sum(a.reshape(1, r, c))
            return out.reshape(1, c) if keepdims else out.reshape(c)
    if axis is None:
        axes = tuple(range(ndim))
    else:
        axes = tuple(sorted(d % ndim for d in ((axis,) if isinstance(axis, int) else axis)))
    if axis is None and not a.flags.c_contiguous and a.flags.f_contiguous:
        flat = a.ravel(order="K")       # torch walks a transposed tensor in memory order
        out = cascade_sum_last(flat.reshape(1, -1)) if flat.size <= MAX_EXACT else None
        return None if out is None else out.reshape((1,) * ndim if keepdims else ())
    if not a.flags.c_contiguous:
        from .strided_sum import strided_sum   # (a module of its own: Note [Strided sums])
        return strided_sum(a, axes, keepdims)
    if 1 in a.shape:
        return _without_unit_dims(a, axes, keepdims)
    if axes != tuple(range(ndim - len(axes), ndim)):
        return _grouped_sum(a, axes, keepdims)
    kept = a.shape[:ndim - len(axes)]
    n = 1
    for d in a.shape[ndim - len(axes):]:
        n *= d
    if n > MAX_EXACT or n == 0:
        return None
    out = cascade_sum_last(a.reshape(-1, n)).reshape(kept)
    if keepdims:
        out = out.reshape(kept + (1,) * len(axes))
    return out


def _batch_sum(a: np.ndarray, r: int, c: int) -> np.ndarray:
    """:func:`_outer_sum` of a C-contiguous ``(r, c)`` over its rows for the shapes of a bias
    gradient (``c`` a multiple of 4 vectors, fewer than 16 blocks of 16 rows), in one to three
    NumPy reductions: each block of 16 rows added row after row, then the block sums in
    order, from +0 (PyTorch's start; ``initial=0`` adds it first instead of last, which
    changes nothing but the sign of a zero sum, and that comes out +0 either way); the rows
    left over go to PyTorch's accumulator 0, which is then added to the block sums.
    """
    nb = r >> 4
    zero = a.dtype.type(0)
    if not nb or r == 16:       # at most one block: one sequential run over the rows
        return _add(a, axis=0, initial=zero)
    body = nb << 4
    out = _add(a[:body].reshape(nb, 16, c), axis=1)
    out = _add(out, axis=0, initial=zero)
    if r > body:
        out = _add(a[body:], axis=0) + out + zero
    return out


def _narrow_sum(a: np.ndarray, r: int, c: int) -> np.ndarray:
    """:func:`_outer_sum` of a C-contiguous ``(r, c)`` over its rows when none of its columns
    takes the block path there (``c`` from one vector to below 4 vectors, or below 4 scalars:
    a classifier's bias gradient, ``(64, 10)`` float32) and the rows split into the 4
    ILP accumulators with no leftover (``r = 4 m``) and ``m`` below one block or in whole
    blocks of 16 with no level-2 group: all of ``c`` goes through ``row_sum``. Accumulator
    ``k`` adds rows ``4 i + k`` row after row (``m`` of them, or, in blocks, each block row
    after row and then the block sums in order), then accumulators 0, 1, 2, 3 are added in
    order, then +0: four NumPy reductions along non-innermost axes (each adds row after row),
    the same additions as ``_outer_sum``'s. The +0 that ``_multi_row_sum`` puts on the block
    sums is dropped: it can only turn a -0 into +0, and the final +0 does that to the result
    (a zero's sign cannot change a non-zero sum)."""
    m = r >> 2
    if m < 16:
        part = _add(a.reshape(m, 4, c), axis=0)
    else:
        part = _add(_add(a.reshape(m >> 4, 16, 4, c), axis=1), axis=0)
    return _add(part, axis=0) + a.dtype.type(0)


def _without_unit_dims(a: np.ndarray, axes: tuple, keepdims: bool):
    """Size-1 dims are no dims to PyTorch's TensorIterator (it coalesces them away): a
    ``(20, 1)`` column summed over dim 0 is a contiguous row of 20."""
    keep = [d for d in range(a.ndim) if a.shape[d] != 1]
    sq_axes = tuple(i for i, d in enumerate(keep) if d in axes)
    if not sq_axes:
        return None         # only size-1 dims reduced: nothing is added
    if len(sq_axes) == len(keep):        # a whole-tensor sum: the short-row path
        out = sum_like_torch(a.reshape(-1))
    else:
        out = sum_like_torch(a.reshape([a.shape[d] for d in keep]), sq_axes, False)
    if out is None:
        return None
    shape = tuple(1 if d in axes else s for d, s in enumerate(a.shape)) if keepdims else \
        tuple(s for d, s in enumerate(a.shape) if d not in axes)
    return out.reshape(shape)


def _grouped_sum(a: np.ndarray, axes: tuple, keepdims: bool):
    """A reduction over dims other than the trailing ones of a C-contiguous array without
    size-1 dims. TensorIterator merges neighbouring dims that are both reduced or both kept
    into groups, puts the reduced groups innermost and runs its 2-D loop over the two
    innermost dims, the others outside it:

    * one reduced group with kept dims after it (``(N, out)`` over dim 0, ``(B, T, C)`` over
      dim 1): the outer reduction, once per leading kept index (:func:`_outer_sum`);
    * several reduced groups (batch norm's ``(N, C, H, W)`` over ``(0, 2, 3)``): each row
      along the last reduced group is summed (as an inner reduction where that group is the
      last dim, element by element where it is strided), and the row sums are added one by
      one, from 0, in index order."""
    groups = []                     # [size, reduced] per run of dims
    for d, size in enumerate(a.shape):
        red = d in axes
        if groups and groups[-1][1] == red:
            groups[-1][0] *= size
        else:
            groups.append([size, red])
    if a.size > MAX_EXACT or a.size == 0:
        return None
    out_shape = tuple(1 if d in axes else s for d, s in enumerate(a.shape)) if keepdims else \
        tuple(s for d, s in enumerate(a.shape) if d not in axes)
    n_red = sum(1 for _, red in groups if red)
    if n_red == 1:
        lead = groups[0][0] if not groups[0][1] else 1
        r = next(size for size, red in groups if red)
        out = _outer_sum(a.reshape(lead, r, a.size // (lead * r)))
        return out.reshape(out_shape)
    dims = [size for size, _ in groups]
    red_idx = [i for i, (_, red) in enumerate(groups) if red]
    order = [i for i, (_, red) in enumerate(groups) if not red] + red_idx
    x = a.reshape(dims).transpose(order)
    kept = 1
    for size, red in groups:
        if not red:
            kept *= size
    x = x.reshape(-1, dims[red_idx[-1]])
    # a contiguous last group is an inner reduction (lanes when long enough); a strided one
    # is summed element by element (row_sum over scalars)
    rows = (cascade_sum_last(x) if groups[-1][1] else _row_sum(x)).reshape(kept, -1)
    run = np.concatenate([np.zeros((kept, 1), a.dtype), rows], axis=1)
    # (contiguous, as PyTorch's result: a reshape of it is then a view, ViewBackward0)
    return np.ascontiguousarray(_sequential(run, 1).reshape(out_shape))


def _outer_sum(x: np.ndarray, scalar: bool = False) -> np.ndarray:
    """Sums of ``x`` (B, R, C), C-contiguous, over axis 1, in the order of PyTorch's outer
    reduction (a bias gradient: ``(N, out)`` over dim 0): the C kept elements are summed
    column by column over the R rows. Columns taken 4 vectors (or, below one vector of
    columns, 4 scalars) at a time run one block cascade down all R rows; the remaining
    columns go through ``row_sum`` (rows dealt to 4 ILP accumulators), like the inner
    reduction's vectors. Each output is then added to 0. Returns (B, C). ``scalar``: ATen's
    scalar_outer_sum (a strided kept dim: ops/strided_sum.py), always 4 columns at a time."""
    c = x.shape[2]
    lanes = LANES[x.dtype]
    group = 4 * lanes if c >= lanes and not scalar else 4
    split = c - c % group
    parts = []
    if split:
        parts.append(_multi_row_sum(x[:, :, :split]))
    if split < c:
        parts.append(_row_sum(x[:, :, split:]))
    out = parts[0] if len(parts) == 1 else np.concatenate(parts, axis=1)
    return out + x.dtype.type(0)
