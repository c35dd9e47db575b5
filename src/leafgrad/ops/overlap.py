"""PyTorch's memory-overlap checks for ops that write into a tensor (``x.add_(y)``, ``copy_``).

Note [Memory overlap]
PyTorch refuses two kinds of writes before it computes anything (after autograd's own in-place
checks, before broadcasting and dtype checks):

* the written-to tensor has *internal* overlap: a stride-0 dimension of size > 1, as in an
  expanded view (``x[0].expand(2, 3).add_(1)``): "more than one element of the written-to
  tensor refers to a single memory location";
* an input *partially* overlaps the written-to tensor (``x.add_(x[0])``, ``x.t().add_(x)``):
  "some elements of the input tensor and the written-to tensor refer to a single memory
  location". An input that is exactly the output (same start, size and strides: ``x.add_(x)``)
  is fine. PyTorch decides this only when both are "non-overlapping and dense" (a permutation
  of a contiguous layout); otherwise (``x.mul_(x[:, :1])``) it does not know and lets the write
  happen.

``fill_``, ``zero_`` and ``masked_fill_`` skip these checks in PyTorch (they write one value),
so they write through expanded views. The common case costs one ``0 in strides`` test and,
per tensor input, an identity test plus ``np.may_share_memory`` (a bounds comparison).
"""
from __future__ import annotations

import numpy as np

from .._zerotensor import IMMUTABLE, is_zero_array
from ..tensor import Tensor

__all__ = [
    "INTERNAL_OVERLAP",
    "PARTIAL_OVERLAP",
    "check_internal_overlap",
    "check_partial_overlap",
    "check_setitem",
    "check_write",
    "writable",
]

INTERNAL_OVERLAP = ("unsupported operation: more than one element of the written-to tensor "
                    "refers to a single memory location. Please clone() the tensor before "
                    "performing the operation.")
PARTIAL_OVERLAP = ("unsupported operation: some elements of the input tensor and the "
                   "written-to tensor refer to a single memory location. Please clone() the "
                   "tensor before performing the operation.")


def check_internal_overlap(out: np.ndarray) -> None:
    """Raise PyTorch's error if ``out`` has a stride-0 dimension of size > 1."""
    strides = out.strides
    if 0 in strides and out.size:     # (an empty tensor has no element to share)
        for size, stride in zip(out.shape, strides):
            if stride == 0 and size > 1:
                raise RuntimeError(INTERNAL_OVERLAP)


def _dense(a: np.ndarray) -> bool:
    """PyTorch's ``is_non_overlapping_and_dense``: the strides, sorted, are a contiguous
    layout's (size-1 dims do not count)."""
    expected = a.itemsize
    for stride, size in sorted((s, n) for n, s in zip(a.shape, a.strides) if n != 1):
        if stride != expected:
            return False
        expected *= size
    return True


def check_partial_overlap(out: np.ndarray, inp: np.ndarray, exact: bool = False) -> None:
    """Raise PyTorch's error if ``inp`` and ``out`` share some but not all of their memory.

    ``exact``: compare the strides of size-1 dims too, as PyTorch does, for arrays whose
    strides leafgrad made PyTorch's (the views ``x[index]`` makes)."""
    if inp is out or not np.may_share_memory(out, inp):
        return
    if out.size == 0 or inp.size == 0 or not (_dense(out) and _dense(inp)):
        return   # PyTorch: "too hard" to tell, the write goes ahead
    begin_out = out.__array_interface__["data"][0]
    begin_in = inp.__array_interface__["data"][0]
    if (begin_out == begin_in and out.nbytes == inp.nbytes and out.itemsize == inp.itemsize
            and len(out.strides) == len(inp.strides)
            and all(a == b or (n == 1 and not exact)
                    for n, a, b in zip(out.shape, out.strides, inp.strides))):
        # the same memory with the same strides: PyTorch calls it a full overlap (an
        # elementwise op may read as it writes), the shapes need not agree (a (2, 1) tensor
        # and its transpose), the output-shape check comes next. leafgrad's views carry
        # PyTorch's strides, size-1 dims included; ``exact=False`` lets those go free.
        return
    raise RuntimeError(PARTIAL_OVERLAP)


def check_write(self: Tensor, args: tuple, kwargs: dict | None = None) -> None:
    """The checks of a TensorIterator op writing into ``self`` from the tensors in ``args`` and
    ``kwargs`` (Note [Memory overlap])."""
    out = self._data
    if 0 in out.strides:
        check_internal_overlap(out)
    # (PyTorch's next check, the output shape, stays with commit_inplace: ops such as lerp_
    # and autograd's view checks come before it in PyTorch)
    for a in (*args, *kwargs.values()) if kwargs else args:
        if isinstance(a, Tensor) and a._data is not out:
            check_partial_overlap(out, a._data, exact=True)


def writable(data: np.ndarray) -> np.ndarray:
    """``data``, or a writable alias of it when it is a read-only view (an expanded tensor's
    ``np.broadcast_to`` result) of writable memory: ``fill_``/``zero_`` write through expanded
    views as PyTorch's do. Raises PyTorch's error when the memory itself is read-only."""
    if data.flags.writeable:
        return data
    if is_zero_array(data):   # (Note [Zero tensors] in _zerotensor.py)
        raise RuntimeError(IMMUTABLE)
    alias = data.view()
    try:
        alias.flags.writeable = True
    except ValueError:
        # a view of the read-only view (an expanded tensor's diagonal, row, transpose): NumPy
        # refuses it the flag, so alias the writable memory under it directly
        root = data
        while root.base is not None:
            base = root.base
            if not isinstance(base, np.ndarray):   # as_strided's holder of the array
                base = getattr(base, "base", None)
                if not isinstance(base, np.ndarray):
                    break
            root = base
        if not root.flags.writeable or not root.flags.c_contiguous:
            raise RuntimeError(INTERNAL_OVERLAP) from None
        offset = data.__array_interface__["data"][0] - root.__array_interface__["data"][0]
        alias = np.ndarray(data.shape, data.dtype, buffer=root, offset=offset,
                           strides=data.strides)
    return alias


def check_setitem(target: np.ndarray, value, advanced: bool) -> bool:
    """The checks of ``x[index] = value`` on ``target`` (the basic part of the index applied
    as a view). A basic index writes with ``copy_`` (both checks); an advanced one with
    ``index_put_``, which allows an expanded ``target`` but no overlap at all with ``value``,
    not even an exact one (``x[[0, 1]] = x`` is refused). True: the value is the target's
    own memory (``same_data``), nothing is checked."""
    if not advanced:
        if 0 in target.strides:
            if isinstance(value, Tensor) and same_data(target, value._data):
                return True   # copy_ of a tensor onto its own memory: PyTorch returns early
            check_internal_overlap(target)
        if isinstance(value, Tensor) and value._data is not target:
            v = value._data
            if v.shape == target.shape:
                check_partial_overlap(target, v, exact=True)
            elif v.ndim:   # (a 0-d value is written with fill_, which checks nothing)
                _check_expanded_source(target, v)
    elif isinstance(value, Tensor):
        v = value._data
        if (np.may_share_memory(target, v) and target.size and v.size and _dense(target)
                and _dense(v)):
            raise RuntimeError(PARTIAL_OVERLAP)


def _expanded_strides(v: np.ndarray, shape) -> tuple:
    """The strides PyTorch's ``expand`` gives ``v`` (already without leading size-1 dims) for
    ``shape``: 0 where a dim is broadcast, the contiguous stride over the next dim for a new
    leading dim (0 when ``v`` is 0-d)."""
    strides = [0] * len(shape)
    new = len(shape) - v.ndim
    for i in range(len(shape) - 1, -1, -1):
        if i >= new:
            size, stride = v.shape[i - new], v.strides[i - new]
        else:
            size = 1
            stride = shape[i + 1] * strides[i + 1] if i + 1 < len(shape) else 0
        strides[i] = stride if size == shape[i] else 0
    return tuple(strides)


def _strip_leading_ones(v: np.ndarray) -> np.ndarray:
    """``v`` without its leading size-1 dims, as PyTorch's ``copy_to`` passes a value
    (Ellipsis: a 0-d view, not a NumPy scalar)."""
    lead = 0
    while lead < v.ndim and v.shape[lead] == 1:
        lead += 1
    return v[(0,) * lead + (Ellipsis,)]


def same_data(target: np.ndarray, v: np.ndarray) -> bool:
    """Whether ``x[index] = v`` copies ``v`` onto exactly the memory it reads (same start,
    dtype and strides once ``copy_to`` dropped its leading size-1 dims and expanded it):
    PyTorch's ``copy_`` then returns before its overlap checks (``x[0] = x[0]`` on an
    expanded ``x``). A value of the target's shape is copied as it is (``copy_to``'s
    shortcut), strides and all."""
    if v.shape == target.shape:
        return (v.dtype == target.dtype and v.strides == target.strides
                and target.__array_interface__["data"][0] == v.__array_interface__["data"][0])
    v = _strip_leading_ones(v)
    if v.ndim > target.ndim or v.dtype != target.dtype:
        return False
    return (target.__array_interface__["data"][0] == v.__array_interface__["data"][0]
            and _expanded_strides(v, target.shape) == target.strides)


def _check_expanded_source(target: np.ndarray, v: np.ndarray) -> None:
    """``copy_``'s partial-overlap check on the value as PyTorch's ``copy_to`` passes it: all
    its leading size-1 dims dropped, then expanded to the target's shape.

    The expand gives the new leading dims strides of its own (0 when the stripped value is
    0-d, else the contiguous stride over the next dim; 0 where a dim is broadcast), and
    PyTorch calls the overlap "full" only when these strides equal the target's: ``x[0] = x``
    for ``x`` of shape (1, 1) is refused (strides (0,) against (1,)) while shape (1,) or
    (1, 1, 3) is allowed. An expanded value is otherwise "too hard" to check."""
    v = _strip_leading_ones(v)
    shape = target.shape
    if v.ndim > len(shape):
        return   # expand refuses it (checked before)
    if not np.may_share_memory(target, v):
        return
    src = np.broadcast_to(v, shape)
    if target.size == 0 or not (_dense(target) and _dense(src)):
        return
    if (target.__array_interface__["data"][0] == src.__array_interface__["data"][0]
            and target.nbytes == src.nbytes and target.itemsize == src.itemsize):
        # full overlap only with the same strides (size-1 dims included, as in PyTorch)
        if _expanded_strides(v, shape) == target.strides:
            return
    raise RuntimeError(PARTIAL_OVERLAP)
