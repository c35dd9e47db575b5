"""PyTorch's memory layouts where they decide an outcome: the strides TensorIterator gives a
new elementwise output, and the strides ``view`` computes (or the refusal it raises).

NumPy's ``order='K'`` ufunc output usually agrees with TensorIterator, but not for broadcast
operands whose own layouts disagree (NumPy and PyTorch break ties differently), and a later
``view`` of such an output succeeds or fails according to that layout (``kron`` is such a
composite). Strides here are in elements.
"""
from __future__ import annotations

import numpy as np

VIEW_ERROR = ("view size is not compatible with input tensor's size and stride (at least one "
              "dimension spans across two contiguous subspaces). Use .reshape(...) instead.")


def elem_strides(a: np.ndarray) -> tuple:
    return tuple(s // a.itemsize for s in a.strides)


def view_strides(oldshape, oldstride, newshape):
    """PyTorch's ``computeStride``: the strides of ``view(newshape)`` of a tensor with
    ``oldshape``/``oldstride``, or None where no view exists. Chunks of dims that are
    contiguous among themselves are matched from the innermost outwards; size-1 dims of the
    new shape take the stride of the position they sit at."""
    oldshape, newshape = tuple(oldshape), tuple(newshape)
    if 0 in oldshape:
        return oldstride if oldshape == newshape else contiguous(newshape)
    newstride = [0] * len(newshape)
    if not oldshape:   # a 0-d tensor: every new dim has size 1
        return tuple(1 for _ in newshape)
    view_d = len(newshape) - 1
    chunk_base = oldstride[-1]
    tensor_numel = view_numel = 1
    for tensor_d in range(len(oldshape) - 1, -1, -1):
        tensor_numel *= oldshape[tensor_d]
        if tensor_d == 0 or (oldshape[tensor_d - 1] != 1
                             and oldstride[tensor_d - 1] != tensor_numel * chunk_base):
            while view_d >= 0 and (view_numel < tensor_numel or newshape[view_d] == 1):
                newstride[view_d] = view_numel * chunk_base
                view_numel *= newshape[view_d]
                view_d -= 1
            if view_numel != tensor_numel:
                return None
            if tensor_d > 0:
                chunk_base = oldstride[tensor_d - 1]
                tensor_numel = view_numel = 1
    if view_d != -1:
        return None
    return tuple(newstride)


def contiguous(shape) -> tuple:
    out, step = [], 1
    for n in reversed(tuple(shape)):
        out.append(step)
        step *= max(n, 1)
    return tuple(reversed(out))


def elementwise_strides(shape, operands) -> tuple:
    """The strides TensorIterator gives the output of shape ``shape`` computed from
    ``operands`` (a list of ``(shape, strides)`` already broadcastable to it), when they do not
    all share one shape (its fast setup handles that case): the dims sorted by the inputs'
    strides, the first operand that orders a pair deciding (broadcast dims, stride 0, abstain;
    equal strides put the smaller dim first), ties keeping the row-major order."""
    nd = len(shape)
    if nd <= 1:
        return contiguous(shape)
    ops = []
    for oshape, ostride in operands:
        lead = nd - len(oshape)
        full = [0] * lead + [0 if (n == 1 and shape[lead + i] != 1) else s
                             for i, (n, s) in enumerate(zip(oshape, ostride))]
        ops.append(full)

    def should_swap(d0, d1):
        for st in ops:
            s0, s1 = st[d0], st[d1]
            if s0 == 0 or s1 == 0:
                continue
            if s0 < s1:
                return -1
            if s0 > s1:
                return 1
            if shape[d0] > shape[d1]:
                return 1
        return 0

    perm = list(range(nd - 1, -1, -1))   # perm[0]: the fastest-moving dim
    for i in range(1, nd):
        d1 = i
        for d0 in range(i - 1, -1, -1):
            c = should_swap(perm[d0], perm[d1])
            if c > 0:
                perm[d0], perm[d1] = perm[d1], perm[d0]
                d1 = d0
            elif c < 0:
                break
    strides = [0] * nd
    step = 1
    for d in perm:
        strides[d] = step
        step *= shape[d]
    return tuple(strides)


def strided_empty(shape, strides, dtype) -> np.ndarray:
    """An uninitialised array with the given shape and (non-negative, dense) element strides."""
    dtype = np.dtype(dtype)
    n = int(np.prod(shape)) if len(shape) else 1
    buf = np.empty(max(n, 1), dtype)
    return np.lib.stride_tricks.as_strided(buf, shape, tuple(s * dtype.itemsize for s in strides))


def as_view(a: np.ndarray, shape, strides) -> np.ndarray:
    """``a``'s memory seen with ``shape``/``strides`` (elements), as ``view`` leaves it."""
    return np.lib.stride_tricks.as_strided(a, tuple(shape),
                                           tuple(s * a.itemsize for s in strides))
