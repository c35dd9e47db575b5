"""Float sums of non-contiguous arrays in PyTorch's order (the strided side of
``ops/cascade_sum.py``).

Note [Strided sums]
A view that is not C-contiguous (``x[:, 1:]``, ``x[:, ::2]``, ``x.t()``, a permute) is summed by
PyTorch's TensorIterator over its own dims, not over a contiguous copy's, and the order of the
additions follows from three steps, reproduced here:

1. dim order: reduced dims innermost; among them the smaller input stride inside (equal strides:
   the smaller size inside); kept dims in the output's order (the output is allocated
   contiguous, so the last kept dim is innermost). An insertion sort starting from the
   reversed dims, as TensorIterator's ``reorder_dimensions``;
2. coalescing: neighbouring dims merge where ``stride_outer == stride_inner * size_inner`` for
   the input and the output (a reduced dim, output stride 0, never merges with a kept one);
3. ``cascade_sum``'s 2-d loop over the two innermost dims (size0, size1): a contiguous inner
   reduction (``row_sum`` over vectors: :func:`cascade_sum_last`) when size0 has unit stride
   and at least one vector, else a contiguous outer reduction (:func:`_outer_sum`) when size1
   is kept with unit stride and at least a vector, else the scalar ``row_sum`` of each row
   (when size0's stride is the smaller or size1 < 4), else a scalar outer reduction
   (:func:`_outer_sum` with ``scalar``: four columns at a time);
   each row's sum is added to the output, which starts at 0, row after row (the outer dims in
   index order).

The sizes covered are those of one thread (``MAX_EXACT`` elements); a layout outside these
cases (negative or zero strides, a scalar outer reduction over four or more columns) answers
None and the caller sums with NumPy.
"""
from __future__ import annotations

import numpy as np

from .cascade_sum import LANES, MAX_EXACT, _outer_sum, _row_sum, _sequential, cascade_sum_last
from .iter_layout import insertion_order

__all__ = ["strided_sum"]


def _order(dims: list) -> list:
    """TensorIterator's dim order, innermost first, of ``dims`` = [(size, in_stride,
    out_stride, reduced, index)] (Note [Strided sums], step 1)."""
    perm = list(reversed(dims))

    def should_swap(d0, d1) -> int:
        for k in (2, 1):                      # the output, then the input
            s0, s1 = d0[k], d1[k]
            if k == 2 and (s0 == 0) != (s1 == 0):
                return 1 if s1 == 0 else -1   # reduced dims to the front
            if s0 == 0 or s1 == 0:
                continue
            if s0 != s1:
                return -1 if s0 < s1 else 1
            if d0[0] > d1[0]:
                return 1
        return 0

    return insertion_order(perm, should_swap)


def _coalesce(perm: list) -> list:
    """Runs of ``perm`` (innermost first) that merge: [[dims...]], each run innermost first."""
    runs = [[perm[0]]]
    for d in perm[1:]:
        last = runs[-1][-1]
        if (d[3] == last[3] and d[1] == last[1] * last[0] and d[2] == last[2] * last[0]):
            runs[-1].append(d)
        else:
            runs.append([d])
    return runs


def strided_sum(a: np.ndarray, axes: tuple, keepdims: bool):
    """``np.sum(a, axes)`` of a non-contiguous float32/float64 ``a`` in PyTorch's order, or
    None (Note [Strided sums])."""
    if a.size > MAX_EXACT or a.size == 0:
        return None
    item = a.itemsize
    kept_shape = [a.shape[d] for d in range(a.ndim) if d not in axes and a.shape[d] != 1]
    out_strides, acc = {}, 1
    for d in reversed(range(a.ndim)):
        if d not in axes and a.shape[d] != 1:
            out_strides[d] = acc
            acc *= a.shape[d]
    dims = []
    for d in range(a.ndim):
        size, stride = a.shape[d], a.strides[d]
        if size == 1:
            continue
        if stride <= 0 or stride % item:
            return None
        red = d in axes
        dims.append((size, stride // item, 0 if red else out_strides[d], red, d))
    if not any(d[3] for d in dims):
        return None
    runs = _coalesce(_order(dims))
    reduced = [r for r in runs if r[0][3]]
    kept = [r for r in runs if not r[0][3]]
    if any(not r[0][3] for r in runs[:len(reduced)]):
        return None                     # (reduced dims are always innermost)
    lanes = LANES[a.dtype]
    size0 = _run_size(runs[0])
    stride0 = runs[0][0][1]
    second = runs[1] if len(runs) > 1 else None
    stride1 = second[0][1] if second is not None else 0
    size1 = _run_size(second) if second is not None else 1
    # the array in iteration order: kept dims (outer, in their order), reduced runs outer to
    # inner; each run's dims outer to inner
    order = [d[4] for r in reversed(kept) for d in reversed(r)]
    red_order = [d[4] for r in reversed(reduced) for d in reversed(r)]
    n_kept = int(np.prod([_run_size(r) for r in kept])) if kept else 1
    if stride0 == 1 and size0 >= lanes:
        how = "inner"
    elif second is not None and not second[0][3] and stride1 == 1 and size1 >= lanes:
        how = "outer"
    elif stride0 < stride1 or size1 < 4:
        how = "scalar"                  # scalar_inner_sum, or scalar_outer_sum's tail loop
    elif not second[0][3]:
        how = "scalar_outer"            # columns 4 at a time, each its own block cascade
    else:
        return None
    if how in ("outer", "scalar_outer"):
        if len(reduced) != 1:
            return None
        inner_kept = [d[4] for d in reversed(second)]
        outer_kept = [d for d in order if d not in inner_kept]
        x = np.ascontiguousarray(_squeezed(a).transpose(_positions(a, outer_kept + red_order
                                                                      + inner_kept)))
        x = x.reshape(n_kept // size1, size0, size1)
        out = _outer_sum(x, scalar=how == "scalar_outer").reshape(-1)
    else:
        x = np.ascontiguousarray(_squeezed(a).transpose(_positions(a, order + red_order)))
        rows = x.reshape(-1, size0)
        sums = (cascade_sum_last(rows) if how == "inner" else
                _row_sum(rows) + a.dtype.type(0)).reshape(n_kept, -1)
        run = np.concatenate([np.zeros((n_kept, 1), a.dtype), sums], axis=1)
        out = _sequential(run, 1)
    out = np.ascontiguousarray(out.reshape(kept_shape) if kept_shape else out.reshape(()))
    shape = tuple(1 if d in axes else s for d, s in enumerate(a.shape)) if keepdims else \
        tuple(s for d, s in enumerate(a.shape) if d not in axes)
    return out.reshape(shape)


def _run_size(run) -> int:
    n = 1
    for d in run:
        n *= d[0]
    return n


def _squeezed(a: np.ndarray) -> np.ndarray:
    return a.reshape([s for s in a.shape if s != 1]) if 1 in a.shape else a


def _positions(a: np.ndarray, dims: list) -> list:
    """Original dim indices -> their positions once the size-1 dims are dropped."""
    pos = {d: i for i, d in enumerate(d for d in range(a.ndim) if a.shape[d] != 1)}
    return [pos[d] for d in dims]
