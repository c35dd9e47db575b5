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

    perm = insertion_order(list(range(nd - 1, -1, -1)), should_swap)   # [0]: fastest dim
    strides = [0] * nd
    step = 1
    for d in perm:
        strides[d] = step
        step *= shape[d]
    return tuple(strides)


def insertion_order(perm: list, should_swap) -> list:
    """TensorIterator's ``reorder_dimensions``: an insertion sort of ``perm`` (innermost
    first) with ambiguous comparisons: ``should_swap(a, b)`` > 0 swaps, < 0 stops the scan,
    0 looks further out. Sorts ``perm`` in place and returns it."""
    for i in range(1, len(perm)):
        j = i
        for i0 in range(i - 1, -1, -1):
            c = should_swap(perm[i0], perm[j])
            if c > 0:
                perm[i0], perm[j] = perm[j], perm[i0]
                j = i0
            elif c < 0:
                break
    return perm


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


# -- elementwise records: the dispatcher's post-pass ------------------------------------------
# A record's output layout kind (``defop(layout=...)``, read as ``rec.layout`` by the
# dispatcher's ``fix_layout``): ITER: TensorIterator over the tensor inputs in order (Note
# below); REV: the same, the first two inputs swapped (``rsub`` computes other - self); SELF:
# as ``self`` alone (ops that clone ``self`` preserving its layout, then write into it);
# STRIDES: ``self``'s very strides (the ``*_scatter`` ops start from
# ``clone_preserve_strides``); CONTIG: always C-contiguous (PyTorch's kernel makes its input
# or output contiguous); OWN: the forward's own layout; WHERE: ITER, the first input
# (``where``'s bool condition) never converted; TARGET: as the second input alone
# (binary_cross_entropy_with_logits starts from 1 - target, then works in place); RED:
# C-contiguous strides exactly, size-1 dims included (reductions allocate their outputs
# contiguous: NumPy's keep the input's dim order). A function instead of a kind is the record's
# own rule: ``rule(out, arrays)`` answers ``out`` laid out, ``arrays`` the tensor inputs' arrays
# in input order (None for an input that is not a tensor); such records take the general
# dispatcher (``suggested_layout`` below, convolution's in conv.py).
OWN, ITER, CONTIG, SELF, REV, STRIDES, WHERE, TARGET, RED = 0, 1, 2, 3, 4, 5, 6, 7, 8
ITER_FAMILIES = ("pointwise", "nn_activations", "backward")


def default_layout(name: str, family: str, view: bool) -> int:
    """The layout kind of a record that names none: RED for reductions, ITER for out-of-place
    non-view records of the elementwise families, else OWN. Every other record says its kind
    with ``defop(layout=...)``."""
    if family == "reduction":
        return RED
    if family in ITER_FAMILIES and not name.endswith("_") and not view:
        return ITER
    return OWN


# Note [Elementwise output layouts]
# PyTorch's TensorIterator lays a new output out (i) C-contiguous when every operand has the
# output's shape and is contiguous, (ii) with the operands' strides when they all have the
# output's shape and one non-overlapping, dense layout, (iii) else by sorting the dims on the
# operands' strides (``elementwise_strides``). NumPy's ufuncs (order 'K') agree whenever every
# input is C-contiguous (the common case: the dispatcher calls ``relayout`` only when one is
# not, and only for outputs of two or more dims, where a layout can differ at all) and for a
# single strided input; they differ for inputs whose layouts disagree (NumPy keeps C order on
# a conflict, PyTorch follows the first operand that has an opinion) and for forwards that are
# not one ufunc (they build C-ordered results). The layout decides what a later ``view``
# accepts, so the output is copied into PyTorch's layout where they differ.

def _dense_strides(shape, strides):
    """Whether ``strides`` lay ``shape`` out without gaps or overlaps (size-1 dims aside)."""
    step = 1
    for st, n in sorted((st, n) for st, n in zip(strides, shape) if n != 1):
        if st != step:
            return False
        step *= n
    return True


def iter_strides(shape, arrays) -> tuple:
    """The element strides TensorIterator gives an output of ``shape`` computed from the input
    arrays ``arrays`` (in the op's operand order): Note [Elementwise output layouts]."""
    shape = tuple(shape)
    if all(a.shape == shape for a in arrays):
        if all(a.flags.c_contiguous for a in arrays):
            return contiguous(shape)
        first = elem_strides(arrays[0])
        if min(first, default=0) >= 0 and _dense_strides(shape, first) \
                and all(elem_strides(a) == first for a in arrays[1:]):
            return first
    return elementwise_strides(shape, [(a.shape, elem_strides(a)) for a in arrays])


def odd_strides(a: np.ndarray) -> bool:
    """Whether ``a`` is C-contiguous but a size-1 dim has another stride than a new contiguous
    tensor gives it (a transposed column: (4, 1) with strides (1, 4)), a stride 0 aside
    (so ``a`` is dense: its strides can be given to a new array). NumPy's (and
    PyTorch's ``is_contiguous``) rule ignores such strides, but TensorIterator orders the
    dims by them where the operands' shapes differ (``x + 1``), and ``empty_like`` keeps them
    (``.to()``, ``clone``); a later ``view`` or matmul's fold decision reads them."""
    shape = a.shape
    if 1 not in shape or len(shape) < 2 or not a.size or not a.flags.c_contiguous:
        return False
    step = a.itemsize
    for n, st in zip(reversed(shape), reversed(a.strides)):
        if st != step and (n != 1 or st != 0):
            return True
        step *= n
    return False


def like_strides(a: np.ndarray):
    """The strides ``empty_like(a)`` (``memory_format=torch.preserve_format``) gives: ``a``'s
    own where it is dense (a size-1 dim's stride too), else TensorIterator's order of its
    dims; None where that is C-contiguous (or ``a`` is empty)."""
    if a.ndim < 2 or not a.size:
        return None
    if a.flags.c_contiguous:
        return elem_strides(a) if odd_strides(a) else None
    strides = iter_strides(a.shape, [a])
    return None if strides == contiguous(a.shape) else strides


def relayout_sorted(out: np.ndarray, arrays) -> np.ndarray:
    """``out`` laid out by TensorIterator's sort over ``arrays`` (operands of other shapes,
    Python numbers among them, so its same-shape fast setup does not apply)."""
    target = elementwise_strides(out.shape, [(a.shape, elem_strides(a)) for a in arrays])
    if elem_strides(out) == target:
        return out
    fixed = strided_empty(out.shape, target, out.dtype)
    fixed[...] = out
    return fixed


def relayout(out: np.ndarray, arrays) -> np.ndarray:
    """``out`` laid out as TensorIterator would lay out the result of ``arrays`` (a copy only
    where the layouts differ)."""
    if out.size <= 1 or not arrays:
        return out
    target = iter_strides(out.shape, arrays)
    if elem_strides(out) == target:
        return out
    fixed = strided_empty(out.shape, target, out.dtype)
    fixed[...] = out
    return fixed


def contiguous_result(out: np.ndarray) -> np.ndarray:
    """``out`` C-contiguous (ops whose PyTorch kernel writes a fresh contiguous tensor)."""
    if out.flags.c_contiguous and elem_strides(out) == contiguous(out.shape):
        return out
    fixed = np.empty(out.shape, out.dtype)
    fixed[...] = out
    return fixed


def preserve_strides(out: np.ndarray, like: np.ndarray) -> np.ndarray:
    """``out`` with exactly ``like``'s strides, gaps included (PyTorch's
    ``clone_preserve_strides``, which the ``*_scatter`` ops start from); an input whose
    elements overlap (expanded) is cloned densely instead."""
    strides = elem_strides(like)
    if elem_strides(out) == strides:
        return out
    if any(st <= 0 and n > 1 for st, n in zip(strides, like.shape)):
        return relayout(out, [like])
    extent = 1 + sum((n - 1) * st for n, st in zip(like.shape, strides))
    fixed = as_view(np.empty(extent, out.dtype), out.shape, strides)
    fixed[...] = out
    return fixed


def cast_layout(a: np.ndarray) -> np.ndarray:
    """A stand-in (strides only: never read) for ``a`` converted to another dtype, as
    TensorIterator converts an input to the common dtype before it orders the dims: the copy
    keeps a dense layout, otherwise gets the dims sorted by ``a``'s strides (``.to()``)."""
    strides = iter_strides(a.shape, [a])
    return np.lib.stride_tricks.as_strided(np.empty(1, a.dtype), a.shape,
                                           tuple(s * a.itemsize for s in strides))


# -- advanced indexing: x[idx] --------------------------------------------------------------
def _is_contiguous(shape, strides) -> bool:
    step = 1
    for n, st in zip(reversed(tuple(shape)), reversed(tuple(strides))):
        if n != 1:
            if st != step:
                return False
            step *= n
    return True


def operand_strides(shape, ops) -> tuple:
    """``iter_strides`` for operands given as ``(shape, strides)`` pairs (metadata only: the
    intermediate tensors of a composite op, never built)."""
    shape = tuple(shape)
    if all(tuple(sh) == shape for sh, _ in ops):
        if all(_is_contiguous(sh, st) for sh, st in ops):
            return contiguous(shape)
        first = tuple(ops[0][1])
        if min(first, default=0) >= 0 and _dense_strides(shape, first) \
                and all(tuple(st) == first for _, st in ops[1:]):
            return first
    return elementwise_strides(shape, ops)


def index_result(out: np.ndarray, src: np.ndarray, indices) -> np.ndarray:
    """``out`` (``src`` advanced-indexed by ``indices``: per leading dim an integer array or
    None) laid out as PyTorch's index kernel lays it out: a TensorIterator over ``src``
    restrided (the indexed dims replaced by the indices' shape, stride 0; moved to the front
    first when they are not adjacent) and the indices broadcast together, reshaped to the
    output's dims. Contiguous operands give a contiguous result (no work here)."""
    if out.ndim < 2 or out.size <= 1:
        return out
    idx = [i for i in indices if i is not None]
    if src.flags.c_contiguous and all(i.flags.c_contiguous for i in idx):
        # (exactly C-contiguous: NumPy may give a size-1 dim another stride)
        return out if out.flags.c_contiguous and 1 not in out.shape else contiguous_result(out)
    full = list(indices) + [None] * (src.ndim - len(indices))
    pos = [k for k, i in enumerate(full) if i is not None]
    shape, strides = list(src.shape), list(elem_strides(src))
    if pos[-1] - pos[0] + 1 != len(pos):   # transposeToFront
        order = pos + [k for k in range(src.ndim) if full[k] is None]
        shape = [shape[k] for k in order]
        strides = [strides[k] for k in order]
        before = 0
    else:
        before = pos[0]
    idx = np.broadcast_arrays(*idx)   # expand_outplace: stride 0 where broadcast
    rshape = idx[0].shape
    rest = before + len(pos)
    if tuple(shape[:before]) + rshape + tuple(shape[rest:]) != out.shape:
        return out   # (not an advanced index this function knows)
    after = len(shape) - rest
    ops = [(out.shape, tuple(strides[:before]) + (0,) * len(rshape) + tuple(strides[rest:]))]
    for a in idx:
        nshape = (1,) * before + rshape + (1,) * after
        st = view_strides(rshape, elem_strides(a), nshape)
        ops.append((nshape, st if st is not None else contiguous(nshape)))
    target = operand_strides(out.shape, ops)
    if elem_strides(out) == target:
        return out
    fixed = strided_empty(out.shape, target, out.dtype)
    fixed[...] = out
    return fixed


# -- memory formats: PyTorch's channels-last layouts ------------------------------------------
# Some kernels allocate their output in the memory format their input "suggests" (batch norm's
# ``empty_like(input, input.suggest_memory_format())``, convolution's backend format): NCHW
# tensors whose strides are ordered C, W, H, N (NCDHW: C, W, H, D, N) are channels-last.

def channels_last_like(shape, strides) -> bool:
    """PyTorch's ``is_channels_last_strides_2d`` (4 dims) / ``_3d`` (5 dims), strides in
    elements: whether ``suggest_memory_format()`` answers a channels-last format."""
    nd = len(shape)
    if nd == 4:
        order = (1, 3, 2, 0)
    elif nd == 5:
        order = (1, 4, 3, 2, 0)
    else:
        return False
    if strides[1] == 0:
        return False
    low = 0
    for d in order:
        if shape[d] == 0 or strides[d] < low:
            return False
        if d == 0 and low == strides[1]:
            return False   # ambiguous (N111 tensors...): PyTorch falls back to contiguous
        low = strides[d] * shape[d] if shape[d] > 1 else strides[d]
    return True


def channels_last_strides(shape) -> tuple:
    """The strides of a new channels-last tensor of ``shape`` (4 or 5 dims)."""
    strides = [0] * len(shape)
    strides[1] = 1
    step = shape[1]
    for d in range(len(shape) - 1, 1, -1):
        strides[d] = step
        step *= shape[d]
    strides[0] = step
    return tuple(strides)


def with_strides(out: np.ndarray, strides) -> np.ndarray:
    """``out`` with exactly ``strides`` (dense, elements): a copy only where they differ."""
    strides = tuple(strides)
    if elem_strides(out) == strides:
        return out
    if strides == contiguous(out.shape):
        fixed = np.empty(out.shape, out.dtype)
        fixed[...] = out
        return fixed
    fixed = strided_empty(out.shape, strides, out.dtype)
    fixed[...] = out
    return fixed


def suggested_layout(out: np.ndarray, arrays) -> np.ndarray:
    """A record's ``layout=`` rule: ``out`` as ``empty_like(input, input.suggest_memory_format())``
    lays it out (channels-last when the first input is, else contiguous)."""
    x = arrays[0]
    if x is not None and x.ndim == out.ndim and channels_last_like(x.shape, elem_strides(x)):
        return with_strides(out, channels_last_strides(out.shape))
    return contiguous_result(out)


# -- a leaf's .grad: AccumulateGrad's layout contract -----------------------------------------
def _dense(a: np.ndarray) -> bool:
    strides = elem_strides(a)
    return all(st > 0 for st, n in zip(strides, a.shape) if n != 1) \
        and _dense_strides(a.shape, strides)


dense_layout = _dense   # (PyTorch's is_non_overlapping_and_dense, for positive strides)


def grad_layout(g: np.ndarray, leaf: np.ndarray) -> np.ndarray:
    """``g`` laid out as PyTorch stores a leaf's first gradient: with the leaf's strides when
    the leaf is dense (size-1 dims aside), else C-contiguous; a copy only where ``g`` differs
    (PyTorch's ``obeys_layout_contract`` / ``clone_obey_contract``)."""
    if _dense(leaf):
        want = elem_strides(leaf)
        have = elem_strides(g)
        if all(h == w if n != 1 else (h != 0 and w != 0)
               for h, w, n in zip(have, want, g.shape)):
            return g
        fixed = strided_empty(leaf.shape, want, g.dtype)
        fixed[...] = g
        return fixed
    return g if g.flags.c_contiguous else np.ascontiguousarray(g)


def grad_buffer(leaf: np.ndarray) -> np.ndarray:
    """An empty array for a leaf's first gradient under create_graph, laid out as above."""
    if leaf.flags.c_contiguous or not _dense(leaf):
        return np.empty(leaf.shape, leaf.dtype)
    return strided_empty(leaf.shape, elem_strides(leaf), leaf.dtype)
