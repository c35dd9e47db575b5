"""Sorting: sort, argsort, topk. The values are differentiable, the indices are not.

The backward writes each value's gradient back where the value came from:
``zeros.scatter(dim, indices, grad)`` (ScatterBackward0 in a second derivative), with the
indices output saved (``result1``) as PyTorch does, so changing it in place is caught.

>>> import leafgrad as torch
>>> torch.tensor([3.0, 1.0, 2.0]).sort()
torch.return_types.sort(
values=tensor([1., 2., 3.]),
indices=tensor([1, 2, 0]))
"""
from __future__ import annotations

import numpy as np

from .iter_layout import RED, SELF
from .numpy_aliases import NA as _NA, dim_keepdim as _aliased
from .registry import Sample, bind_method, defop, export_function
from .joins import materialize_zeros, variable_outputs
from .out_tuples import tuple_out
from .shape import at_least, wrap_dim
from .. import return_types
from .._argparse import Signatures
from ..tensor import _wrap

FAMILY = "indexing"


def _order(a, dim, descending, ties_reversed=False, stable=True):
    """Positions that sort ``a`` along ``dim``. Ties keep their order, as PyTorch's stable
    sort does; ``topk`` (``ties_reversed``) lists tied values last-first, as PyTorch's topk
    does; ``stable=False`` leaves them where PyTorch's ``std::sort`` does (Note [unstable
    sort])."""
    if a.ndim == 0:
        wrap_dim(dim, 0)     # a 0-d tensor still has dims -1 and 0 only
        return np.zeros((), np.int64)
    d = wrap_dim(dim, a.ndim)
    if descending:
        # dense ranks (NaN largest, -0.0 equal to 0.0), then a stable sort of their negation
        _, ranks = np.unique(a, return_inverse=True)
        ranks = -ranks.reshape(a.shape)
        if ties_reversed:
            # sort the reversed ranks, map the positions back
            idx = np.argsort(np.flip(ranks, d), axis=d, kind="stable")
            return (a.shape[d] - 1 - idx).astype(np.int64)
        idx = np.argsort(ranks, axis=d, kind="stable").astype(np.int64)
    else:
        idx = np.argsort(a, axis=d, kind="stable").astype(np.int64)
    return idx if stable else _unstable(a, d, descending, idx)


# Note [unstable sort]
# PyTorch's CPU sort with stable=False runs std::sort (libstdc++'s introsort) on the
# (value, index) pairs of each slice, comparing values only (NaN largest, -0.0 equal to 0.0),
# so equal values end in the order the algorithm leaves them. A slice of at most 16 is
# insertion-sorted (stable); longer slices with ties get the replay
# (stl_select.std_sort_order). A slice whose stride is 0 (an expanded tensor) is not sorted
# at all: its indices count up.
def _unstable(a, d, descending, idx):
    n = a.shape[d]
    if a.strides[d] == 0 and n > 1:
        return np.broadcast_to(np.arange(n, dtype=np.int64).reshape(
            (n,) + (1,) * (a.ndim - d - 1)), a.shape).copy()
    if n <= _INSERTION or not a.size:
        return idx
    rows = _tied_rows(np.moveaxis(np.take_along_axis(a, idx, d), d, -1).reshape(-1, n))
    if not rows:
        return idx
    from .stl_select import std_sort_order
    flat = np.moveaxis(a, d, -1).reshape(-1, n)
    out = np.moveaxis(idx, d, -1).reshape(-1, n).copy()
    for r in rows:
        _, ranks = np.unique(flat[r], return_inverse=True)   # NaNs one rank, -0.0 == 0.0
        out[r] = std_sort_order(-ranks if descending else ranks)
    return np.moveaxis(out.reshape(np.moveaxis(a, d, -1).shape), -1, d)


_INSERTION = 16     # libstdc++'s _S_threshold


def _tied_rows(s):
    """The rows of the sorted 2-d ``s`` holding two equal neighbours (NaNs equal)."""
    head, nxt = s[:, :-1], s[:, 1:]
    same = head == nxt
    if s.dtype.kind == "f":
        same |= np.isnan(head) & np.isnan(nxt)
    return np.nonzero(same.any(axis=-1))[0].tolist()


def sort_op(self, dim=-1, descending=False, stable=False):
    """Values sorted along ``dim`` and where each came from."""
    idx = _order(self, dim, descending, stable=bool(stable))
    if self.ndim == 0:
        wrap_dim(dim, 0)     # a 0-d tensor still has dims -1 and 0 only
        return [self.copy(), idx]
    return [np.take_along_axis(self, idx, wrap_dim(dim, self.ndim)), idx]


def _scatter_back(grad, self_shape, dim, indices):
    """PyTorch's value_selecting_reduction_backward: zeros (one in-place fill) with the
    gradient scattered in place by the saved indices: version 2."""
    zeros = _wrap(np.zeros(self_shape, grad._data.dtype))
    out = zeros.scatter(wrap_dim(dim, max(len(self_shape), 1)), indices, grad)
    out._vc[0] = 2
    return out


def sort_self(grads, self_shape, dim, result1):
    # (SortBackward0's _saved_indices)
    return _scatter_back(grads[0], self_shape, dim, result1)


def _sort_samples(make, shapes):
    s = at_least(shapes[0], 1)
    return [Sample((make(s),), call="sort"), Sample((make(s), 0, True), call="Tensor.sort")]


_sort = variable_outputs(defop(
    "sort", sort_op, layout=SELF, derivatives={"self": sort_self}, dtype="same", n_outputs=2,
    differentiable_outputs=(True, False), materialize=materialize_zeros, methods=(),
    functions=(), samples=_sort_samples, family=FAMILY))


def sort(self, dim=-1, descending=False, stable=False, *, axis=_NA):
    """``(values, indices)`` as ``torch.return_types.sort``."""
    if axis is not _NA:   # Note [NumPy aliases at no cost]
        dim = _aliased("sort", dim, -1, False, axis, _NA)[0]
    return return_types.sort(_sort.public(self, dim, descending, stable))


def argsort(self, dim=-1, descending=False, stable=False, *, axis=_NA):
    """Where each sorted value came from (no gradient)."""
    if axis is not _NA:   # Note [NumPy aliases at no cost]
        dim = _aliased("argsort", dim, -1, False, axis, _NA)[0]
    return _wrap(_order(self._data, dim, descending, stable=bool(stable)))


def topk_op(self, k, dim=-1, largest=True, sorted=True):
    """The ``k`` largest (or smallest) values along ``dim`` and their indices."""
    wrap_dim(dim, self.ndim)
    if self.dtype == np.bool_:
        raise RuntimeError("topk does not support bool dtypes on CPU")
    n = self.shape[wrap_dim(dim, self.ndim)] if self.ndim else 1
    if not 0 <= k <= n:
        raise RuntimeError("selected index k out of range")
    if self.ndim == 0:
        return [self.copy(), np.zeros((), np.int64)]
    d = wrap_dim(dim, self.ndim)
    idx = _topk_indices(self, k, d, largest, sorted)
    return [np.take_along_axis(self, idx, d), idx]


def _topk_indices(a, k, d, largest, sorted):
    """Where topk's ``k`` values come from along ``d``: NumPy's sort for slices of distinct
    values, PyTorch's own selection order for slices with ties or unsorted results (Note
    [topk order] in stl_select.py)."""
    order = _order(a, d, largest, ties_reversed=True)
    idx = np.take(order, np.arange(k), axis=d)
    moved = np.moveaxis(a, d, -1)
    n = moved.shape[-1]
    if n < 2 or not k or not moved.size:
        return idx
    flat = moved.reshape(-1, n)
    if sorted:
        # only ties among the k results, or at the k-th value, can change the answer: the
        # first k + 1 values in topk's order (NaN counted largest), neighbours compared
        first = np.take(order, np.arange(min(k + 1, n)), axis=d)
        rows = _tied_rows(np.moveaxis(np.take_along_axis(a, first, d), d, -1).reshape(
            flat.shape[0], -1))
        if not rows:
            return idx
    else:
        rows = range(flat.shape[0])
    from .stl_select import topk_order
    out = np.moveaxis(idx, d, -1).reshape(-1, k).copy()
    for r in rows:
        out[r] = topk_order(flat[r].tolist(), k, largest, sorted)
    return np.moveaxis(out.reshape(moved.shape[:-1] + (k,)), -1, d)


def topk_self(grads, self_shape, dim, result1):
    # (TopkBackward0's _saved_indices)
    return _scatter_back(grads[0], self_shape, dim, result1)


def _topk_samples(make, shapes):
    s = at_least(shapes[0], 1)
    return [Sample((make(s), 1), call="topk"),
            Sample((make(s), s[0], 0, False), call="Tensor.topk")]


_topk = variable_outputs(defop(
    "topk", topk_op, derivatives={"self": topk_self}, dtype="same", n_outputs=2, layout=RED,
    differentiable_outputs=(True, False), materialize=materialize_zeros, methods=(),
    functions=(), samples=_topk_samples, family=FAMILY))


def topk(self, k, dim=-1, largest=True, sorted=True, *, axis=_NA):
    """``(values, indices)`` of the ``k`` largest entries, as ``torch.return_types.topk``."""
    if axis is not _NA:   # Note [NumPy aliases at no cost]
        dim = _aliased("topk", dim, -1, False, axis, _NA)[0]
    return return_types.topk(_topk.public(self, k, dim, largest, sorted))


# PyTorch's overloads of sort / argsort, for its parser's errors (``x.argsort(0, True, True)``:
# stable is keyword-only) before leafgrad's functions bind the arguments
_SIGS = {
    ("sort", True): Signatures(
        "sort", "(*, bool? stable, int dim = -1, bool descending = False)",
        "(int dim = -1, bool descending = False)"),
    ("sort", False): Signatures(
        "sort", "(Tensor input, *, bool? stable, int dim = -1, bool descending = False, tuple "
        "of Tensors out = None)", "(Tensor input, int dim = -1, bool descending = False, *, "
        "tuple of Tensors out = None)"),
    ("argsort", True): Signatures(
        "argsort", "(*, bool stable, int dim = -1, bool descending = False)",
        "(int dim = -1, bool descending = False)"),
    ("argsort", False): Signatures(
        "argsort", "(Tensor input, *, bool stable, int dim = -1, bool descending = False, "
        "Tensor out = None)", "(Tensor input, int dim = -1, bool descending = False)"),
}


def _parsed(fn, name, method):
    sigs = _SIGS[name, method]

    def checked(*args, **kwargs):
        sigs.parse(args[1:] if method else args, kwargs)
        if not method and "input" in kwargs:
            args = (kwargs.pop("input"),) + args
        return fn(*args, **kwargs)
    checked.__name__ = checked.__qualname__ = name
    checked.__doc__ = fn.__doc__
    checked.__wrapped__ = fn   # (inspect.signature: the function's own)
    return checked


for _name, _fn in (("sort", sort), ("argsort", argsort), ("topk", topk)):
    if _name == "topk":
        bind_method(_name, _fn)
        export_function(_name, tuple_out(_name, _fn))
        continue
    bind_method(_name, _parsed(_fn, _name, True))
    export_function(_name, _parsed(_fn if _name == "argsort" else tuple_out(_name, _fn), _name,
                                   False))
