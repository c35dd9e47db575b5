"""Which out-of-bounds index PyTorch's CPU gather/scatter kernel meets first (the one its
message names), when a slice holds several.

Note [gather/scatter visiting order]
The kernel runs over a TensorIterator of the index's shape with ``dim`` squashed to size 1;
the operands are the index and the other tensors restrided to the index's sizes (``self``
and a tensor ``src``, or gather's result), their stride along ``dim`` set to 0. The iterator
merges neighbouring dims (fastest first) where every operand's strides allow; the fastest
merged group is the inner loop. For ``dim`` the last dim, each inner element walks the whole
index dim, which is plain row-major order; otherwise the index dim runs outside the inner
loop: (outer dims row-major, then ``dim``, then the inner group row-major). Contiguous
operands are assumed (leafgrad does not keep PyTorch's strides for every tensor).
"""
from __future__ import annotations

import numpy as np

__all__ = ["first_visited"]


def _contiguous_strides(shape):
    strides, step = [], 1
    for size in reversed(shape):
        strides.append(step)
        step *= max(size, 1)
    return strides[::-1]


def _inner_group(sizes, operand_strides):
    """The tensor dims that TensorIterator's coalescing merges into the fastest loop."""
    nd = len(sizes)
    shape = [sizes[d] for d in range(nd - 1, -1, -1)]
    strides = [[s[d] for d in range(nd - 1, -1, -1)] for s in operand_strides]
    group = [nd - 1]
    merged = shape[0]
    for k in range(1, nd):
        if not (merged == 1 or shape[k] == 1
                or all(merged * s[0] == s[k] for s in strides)):
            break
        if merged == 1:
            for s in strides:
                s[0] = s[k]
        merged *= shape[k]
        group.append(nd - 1 - k)
    return sorted(group)


def first_visited(bad, d, shapes):
    """The position (a tuple) of the first True of ``bad`` (the index's out-of-bounds mask)
    in the kernel's order; ``shapes``: the restrided operands' own shapes (self, src)."""
    positions = np.argwhere(bad)   # row-major
    nd = bad.ndim
    if d == nd - 1 or len(positions) == 1:
        return tuple(positions[0])
    sizes = list(bad.shape)
    sizes[d] = 1
    operands = [_contiguous_strides(bad.shape)]
    for shape in shapes:
        strides = _contiguous_strides(shape)
        strides[d] = 0
        operands.append(strides)
    inner = [k for k in _inner_group(sizes, operands) if k != d]
    outer = [k for k in range(nd) if k != d and k not in inner]
    columns = outer + [d] + inner
    first = np.lexsort(positions[:, columns[::-1]].T)[0]
    return tuple(positions[first])
