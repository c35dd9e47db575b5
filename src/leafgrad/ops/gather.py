"""Reading by index tensors: index_select, gather, take, masked_select, and nonzero /
where(cond) (no gradient); registered with indexing.py, which imports this module.

>>> import leafgrad as torch
>>> torch.tensor([[1, 2], [3, 4]]).gather(1, torch.tensor([[1], [0]]))
tensor([[2],
        [3]])
"""
from __future__ import annotations

import numpy as np

from .iter_layout import CONTIG
from .registry import Sample, bind_method, defop, export_function
from .shape import at_least, wrap_dim
from ..autograd.graph import sum_to
from ..tensor import _wrap
from .indexing import zeros_of

FAMILY = "indexing"


# -- index_select / gather / take / masked_select -------------------------------------------
def index_select_op(self, dim, index):
    """Entries ``index`` (a vector) along ``dim``; PyTorch's checks in its order."""
    d = wrap_dim(dim, self.ndim)
    if index.ndim > 1:
        raise IndexError("index_select(): Index is supposed to be a vector")
    if self.ndim == 0 and index.size != 1:
        raise RuntimeError("index_select(): Index to scalar can have only 1 value, got "
                           f"{index.size} value(s)")
    if index.dtype not in (np.int64, np.int32):
        raise RuntimeError("index_select(): Expected dtype int32 or int64 for index")
    n = self.shape[d] if self.ndim else 1
    empty_matrix = self.ndim >= 2 and self.size == 0   # (an empty result: checks only)
    if empty_matrix and index.size and n == 0:
        raise RuntimeError("index_select(): self indexing axis dim should be positive")
    if index.size and (index.max() >= n or index.min() < 0):   # no negative indices here
        if self.ndim >= 2 and (d == 1 or empty_matrix):   # these kernels have their own message
            bad = index[(index >= n) | (index < 0)]
            raise RuntimeError(f"INDICES element is out of DATA bounds, id={int(bad.flat[0])} "
                               f"axis_dim={n}")
        raise IndexError("index out of range in self")
    if self.ndim == 0:
        return self.copy()
    return np.take(self, index.reshape(-1), axis=d)


def index_select_self(grad, self_shape, dim, index):
    if not self_shape:
        return grad
    zeros = zeros_of(self_shape, grad._data.dtype)
    return zeros.index_add(dim, index.reshape(-1) if index.ndim == 0 else index, grad)


def _index_select_samples(make, shapes):
    s = at_least(shapes[0], 1)
    return [Sample((make(s), 0, make((5,), 0, s[0], np.int64))),
            Sample((make(s), -1, make((2,), 0, s[-1], np.int64)), call="Tensor.index_select")]


defop("index_select", index_select_op, inputs=("self", "index"),
      derivatives={"self": index_select_self}, dtype="same", samples=_index_select_samples,
      family=FAMILY)


def gather_check(name, self_shape, dim, index_shape, dims_word="self"):
    """PyTorch's shape rules shared by gather and scatter (gather says "input" once)."""
    if len(index_shape) != len(self_shape) and not (
            len(index_shape) <= 1 and len(self_shape) <= 1):
        raise RuntimeError(f"Index tensor must have the same number of dimensions as "
                           f"{dims_word} tensor")
    d = wrap_dim(dim, len(self_shape))
    for k, (i, s) in enumerate(zip(index_shape, self_shape)):
        if k != d and i > s:
            raise RuntimeError(f"Size does not match at dimension {k} expected index "
                               f"[{', '.join(map(str, index_shape))}] to be no larger than "
                               f"self [{', '.join(map(str, self_shape))}] apart from "
                               f"dimension {d}")
    return d


def bounds_check(index, n, d, operands=None):
    """PyTorch's error for the first index outside ``[0, n)``; ``operands``: for gather and
    scatter, the shapes of the kernel's other tensors, which decide the order it visits the
    index in (Note [gather/scatter visiting order])."""
    if index.size:
        mask = (index >= n) | (index < 0)
        bad = index[mask]
        if bad.size:
            first = bad.flat[0]
            if operands is not None and (bad != first).any():
                from .scatter_order import first_visited
                first = index[first_visited(mask, d, operands)]
            raise RuntimeError(f"index {int(first)} is out of bounds for dimension {d} "
                               f"with size {n}")


def gather_op(self, dim, index, *, sparse_grad=False):
    """``out[i][j] = self[index[i][j]][j]`` for dim 0 (and so on)."""
    if index.dtype != np.int64 and index.dtype != np.int32:   # PyTorch 2.13 takes both
        raise RuntimeError("gather(): Expected dtype int32/int64 for index")
    d = gather_check("gather", self.shape, dim, index.shape, "input")
    if self.ndim == 0:
        bounds_check(index, 1, 0)
        return np.broadcast_to(self, index.shape).copy()   # (every index is 0)
    bounds_check(index, self.shape[d], d, (self.shape,))
    if index.ndim == 0:   # a 0-d index counts as one element (PyTorch's ensure_nonempty_dim)
        return np.take_along_axis(self, index.reshape(1), axis=d).reshape(())
    sub = self[tuple(slice(0, s) if k != d else slice(None)
                     for k, s in enumerate(index.shape))]
    return np.take_along_axis(sub, index, axis=d)


def gather_self(grad, self, dim, index):
    # PyTorch's GatherBackward0 saves self (an in-place change of it fails the backward)
    return zeros_of(self._data.shape, grad._data.dtype).scatter_add(dim, index, grad)


def _gather_samples(make, shapes):
    s = at_least(shapes[0], 1)
    idx = tuple(max(1, k - 1) for k in s)
    return [Sample((make(s), 0, make(idx, 0, s[0], np.int64))),
            Sample((make(s), -1, make(s, 0, s[-1], np.int64)), call="Tensor.gather")]


defop("gather", gather_op, inputs=("self", "index"), derivatives={"self": gather_self},
      dtype="same", samples=_gather_samples, family=FAMILY, layout=CONTIG)


def take_op(self, index):
    """Entries of the flattened ``self`` at ``index``; the result has ``index``'s shape."""
    n = self.size
    if index.size:
        if not n:
            raise IndexError("take(): tried to take from an empty tensor")
        bad = index[(index >= n) | (index < -n)]
        if bad.size:
            raise IndexError(f"out of range: tried to access index {int(bad.flat[0])} on a "
                             f"tensor of {n} elements.")
    return np.take(self.reshape(-1), index)


def take_self(grad, self, index):   # self (not only its shape): what PyTorch saves
    return zeros_of(self._data.shape, grad._data.dtype).put(index, grad, accumulate=True)


defop("take", take_op, inputs=("self", "index"), derivatives={"self": take_self},
      dtype="same", family=FAMILY,
      samples=lambda make, shapes: [Sample((make(shapes[0]),
                                            make((2, 3), 0, max(1, int(np.prod(shapes[0]))),
                                                 np.int64)))])


def masked_select_op(self, mask):
    """The entries where ``mask`` (broadcast with ``self``) is True, as a 1-d tensor."""
    if mask.dtype != np.bool_:
        raise RuntimeError("masked_select: expected BoolTensor for mask")
    a, m = _broadcast_pair(self, mask)
    return a[m]


def _broadcast_pair(a, b):
    try:
        return np.broadcast_arrays(a, b)
    except ValueError:
        sa, sb = np.shape(a), np.shape(b)
        n = max(len(sa), len(sb))
        sa, sb = (1,) * (n - len(sa)) + sa, (1,) * (n - len(sb)) + sb
        for k in range(n - 1, -1, -1):
            if sa[k] != sb[k] and 1 not in (sa[k], sb[k]):
                raise RuntimeError(f"The size of tensor a ({sb[k]}) must match the size of "
                                   f"tensor b ({sa[k]}) at non-singleton dimension {k}") \
                    from None
        raise


def masked_select_self(grad, self, mask):   # self (not only its shape): what PyTorch saves
    self_shape = self._data.shape
    shape = np.broadcast_shapes(self_shape, tuple(mask.shape))
    g = zeros_of(shape, grad._data.dtype).masked_scatter(mask, grad)
    # the engine's sum_to, only where the shapes differ (sum_to to a 0-d shape always sums)
    return g if shape == self_shape else sum_to(g, self_shape)


defop("masked_select", masked_select_op, inputs=("self", "mask"),
      derivatives={"self": masked_select_self}, dtype="same", family=FAMILY,
      samples=lambda make, shapes: [Sample((make(shapes[1]), np.asarray(make(shapes[2]) > 0)))])


# -- nonzero / where(cond) (no gradient) ------------------------------------------------------
def nonzero(self, *, as_tuple=False):
    """Indices of the non-zero entries: an ``(n, ndim)`` tensor, or one tensor per dim."""
    data = self._data
    if as_tuple:   # PyTorch: nonzero().unbind(1), views sharing one version counter
        if data.ndim == 0:
            data = data.reshape(1)
        return nonzero(_wrap(data)).unbind(1)
    if data.ndim == 0:
        return _wrap(np.zeros((int(data != 0), 0), np.int64))
    # PyTorch's CPU kernel writes the (n, ndim) result column-major: strides (1, n)
    from .linalg_common import lapack_layout   # (linalg modules load on first use)
    return _wrap(lapack_layout(np.argwhere(data).astype(np.int64)))


def argwhere(self):
    return nonzero(self)


def where_condition(condition):
    """``torch.where(condition)``: the same as ``nonzero(condition, as_tuple=True)``."""
    return nonzero(condition, as_tuple=True)


bind_method("nonzero", nonzero)
export_function("nonzero", nonzero)
bind_method("argwhere", argwhere)
export_function("argwhere", argwhere)
