"""More indexing: index_copy, index_fill, slice/select/diagonal_scatter, sum_to_size,
tensor_split (hsplit, vsplit, dsplit), take_along_dim; this family also registers the
non-differentiable searches and counts of search_count.py (searchsorted, bucketize,
bincount, histc, unique, unique_consecutive).

>>> import leafgrad as torch
>>> torch.zeros(2, 3).index_fill(1, torch.tensor([0, 2]), 1.0)
tensor([[1., 0., 1.],
        [1., 0., 1.]])
"""
from __future__ import annotations

import numpy as np

from .. import dtypes as _dt
from ..errors import no_dims_error
from ..tensor import Tensor, _wrap
from .iter_layout import SELF, STRIDES
from .matrix_extra import diagonal_view
from .pointwise_common import inplace_of
from .expanded_write import through_expanded, write_where
from .reduction import _wrap_dim
from .select import checked_scalar, checked_value
from .registry import Sample, bind_method, defop, export_function, publish as _public

__all__: list = []

FAMILY = "indexing"


def _index_array(index, name):
    data = index._data if isinstance(index, Tensor) else np.asarray(index)
    if data.dtype.kind not in "iu":
        raise IndexError(f"{name}(): Expected a long tensor for index, but got "
                         f"{_dt.from_numpy_dtype(data.dtype).tensor_type[:-6]}")
    return data.reshape(-1).astype(np.int64, copy=False)


def _along(ndim, dim, idx):
    key = [slice(None)] * max(ndim, 1)
    key[_wrap_dim(dim, max(ndim, 1))] = idx
    return tuple(key) if ndim else ()


# -- index_copy / index_fill -----------------------------------------------------------------
def index_copy(self, dim, index, source):
    """``self`` with the slices ``index`` along ``dim`` replaced by ``source``'s."""
    out = self.copy()
    idx = _index_array(index, "index_copy")
    if self.ndim:
        out[_along(self.ndim, dim, idx)] = source
    elif idx.size:   # (an empty index copies nothing, whatever source's shape)
        out[...] = source.reshape(())
    return out


def index_copy_self(grad, dim, index):
    return grad.index_fill(dim, index, 0)


def index_copy_source(grad, dim, index, source):
    # PyTorch's source.dim() > 0 ? grad.index_select(dim, index).expand_as(source)
    # : grad.index_select(dim, index.squeeze(0)): its nodes under create_graph. It saves
    # source itself (expand_as), so changing it in place before backward raises
    if source.dim():
        return grad.index_select(dim, index).expand(source.shape)
    return grad.index_select(dim, index.reshape(()))


def _long(values):
    return np.asarray(values, dtype=np.int64)


def _index_copy_rule(rec, args):
    """index_copy's checks in PyTorch's order (its meta function, then the kernel's index
    bounds); no promotion: self and source must share a dtype."""
    self, dim, index, source = args[0]._data, args[1], args[2], args[3]._data
    nd = self.ndim
    d = _wrap_dim(dim, max(nd, 1))
    idx = index._data if isinstance(index, Tensor) else np.asarray(index)
    if idx.ndim >= 2:
        raise IndexError(f"index_copy_(): Index should have dimension 1 or 0 (got {idx.ndim})")
    if source.ndim == 0 and idx.size != 1:
        raise IndexError(f"index_copy_(): When source is scalar, index should have one element "
                         f"(got {idx.size})")
    if source.ndim != nd and source.ndim and nd:
        raise IndexError(f"index_copy_(): When source and destination are not scalars, their "
                         f"dimensionality must match. Source dimensionality ({source.ndim}), "
                         f"destination dimensionality ({nd})")
    if idx.dtype != np.int64:
        raise RuntimeError(f"index_copy_(): Expected a long tensor for index, but got "
                           f"{_dt.from_numpy_dtype(idx.dtype).tensor_type[:-6]}")
    if self.dtype != source.dtype:
        raise RuntimeError(f"index_copy_(): self and source expected to have the same dtype, but "
                           f"got (self) {_dt.from_numpy_dtype(self.dtype).tensor_type[:-6]} and "
                           f"(source) {_dt.from_numpy_dtype(source.dtype).tensor_type[:-6]}")
    mine = [s for i, s in enumerate(self.shape) if i != d]
    theirs = [s for i, s in enumerate(source.shape) if i != d]
    if mine != theirs:
        raise RuntimeError(f"index_copy_(): Source/destination tensor must have same slice "
                           f"shapes. Destination slice shape: {' '.join(map(str, mine))} at "
                           f"dimension {d} and source slice shape: {' '.join(map(str, theirs))} "
                           f"at dimension 0.")
    if source.ndim and idx.size != source.shape[d]:
        raise IndexError(f"index_copy_(): Number of indices ({idx.size}) should be equal to "
                         f"source.size(dim) ({source.shape[d]})")
    size = self.shape[d] if nd else 1
    for i in idx.reshape(-1).tolist():
        if not 0 <= i < size:
            raise IndexError(f"index_copy_(): index {i} is out of bounds for dimension {d} "
                             f"with size {size}")
    return None, None


defop("index_copy", index_copy, inputs=("self", "source"),
      derivatives={"self": index_copy_self, "source": index_copy_source},
      saved_tensor_args=("index",),   # PyTorch saves the index: freed by backward
      dtype=_index_copy_rule, inplace="index_copy_", family=FAMILY, samples=lambda make, shapes: [
          Sample((make((3, 4)), 0, _long([2, 0]), make((2, 4)))),
          Sample((make((3, 4)), 1, _long([3]), make((3, 1)))),
          Sample((make((3, 4)), -1, _long([1, 0]), make((3, 2))), call="Tensor.index_copy_")])


def index_fill(self, dim, index, value):
    """``self`` with the slices ``index`` along ``dim`` set to ``value``."""
    # PyTorch's checks in its order: value's rank, index's dtype, dim, index's rank
    if isinstance(value, (Tensor, np.ndarray)):   # (index_fill_tensor passes an ndarray)
        if value.ndim:
            raise RuntimeError("index_fill_ only supports a 0-dimensional value tensor, but "
                               f"got tensor with {value.ndim} dimension(s).")
        value = value._data if isinstance(value, Tensor) else value
    idx = index._data if isinstance(index, Tensor) else np.asarray(index)
    if idx.dtype != np.int64:
        raise IndexError("index_fill_(): Expected dtype int64 for index.")
    d = _wrap_dim(dim, max(self.ndim, 1))
    if idx.ndim > 1:
        raise RuntimeError("Index has to be a vector/scalar")
    idx = idx.reshape(-1)
    out = self.copy()
    if self.size == 0 and self.ndim:
        _empty_fill_check(self.shape, d, idx.size, self.dtype.itemsize)
        return out
    n = self.shape[d] if self.ndim else 1
    for i in idx.tolist():   # negative indices count from the end, as PyTorch's
        if not -n <= i < n:
            raise IndexError(f"index {i} is out of bounds for dimension {d} with size {n}")
    if isinstance(value, np.ndarray):
        checked_scalar(value.item(), self.dtype)
    else:
        value = checked_value(value, self.dtype)   # (uint8 takes -1 as 255)
    if self.ndim:
        out[_along(self.ndim, dim, idx)] = value
    else:
        _wrap_dim(dim, 1)   # a 0-d self still checks dim, as one of size 1
        if idx.size:        # no index: nothing filled (fuzz seed 50)
            out[...] = value
    return out


class _EmptyFill(Exception):
    """Raised by the forward over an empty ``self``; ``index_fill_public`` turns it into
    PyTorch's error with the tensor's own strides (the forward sees only the ndarray)."""

    def __init__(self, shape, d, k, itemsize):
        super().__init__(shape, d, k, itemsize)
        self.shape, self.d, self.k, self.itemsize = shape, d, k, itemsize

    def error(self, strides):
        sizes = list(self.shape)
        sizes[self.d] = self.k
        strides = list(strides)
        strides[self.d] = 0
        need = self.itemsize * (1 + sum((a - 1) * b for a, b in zip(sizes, strides)))
        return RuntimeError(f"setStorage: sizes [{', '.join(map(str, sizes))}], strides "
                            f"[{', '.join(map(str, strides))}], storage offset 0, and itemsize "
                            f"{self.itemsize} requiring a storage size of {need} are out of "
                            f"bounds for storage of size 0")


def _empty_fill_check(shape, d, k, itemsize):
    """PyTorch fills through a view of ``self`` with ``dim`` restrided to the ``k`` indices
    (stride 0): over an empty ``self`` that view needs storage unless it is empty too, and the
    indices are never read (so never bounds-checked)."""
    sizes = list(shape)
    sizes[d] = k
    if 0 not in sizes:
        raise _EmptyFill(shape, d, k, itemsize)


def index_fill_self(grad, dim, index):
    return grad.index_fill(dim, index, 0)


_fill0 = defop("index_fill", index_fill, inputs=("self",), saved_tensor_args=("index",),
               derivatives={"self": index_fill_self}, dtype="same", methods=(),
               functions=(), family=FAMILY, samples=lambda make, shapes: [
                   Sample((make((3, 4)), 1, _long([2, 0]), -1.5), call="index_fill"),
                   Sample((make((3, 4)), 0, _long([1]), 2), call="Tensor.index_fill")], layout=SELF)
def index_fill_tensor_value(grad, dim, index):
    # PyTorch's formula: the filled positions' gradients, each position once (the unique
    # indices), summed; index_select takes no negative index (IndexError in backward)
    positions = _wrap(np.unique(index._data.reshape(-1)))
    return grad.index_select(dim, positions).sum()


_fill1 = defop("index_fill_tensor", index_fill, layout=SELF, inputs=("self", "value"),
               saved_tensor_args=("index",),
               derivatives={"self": index_fill_self, "value": index_fill_tensor_value},
               dtype="same",
               grad_fn_name="IndexFillBackward1", methods=(), functions=(), family=FAMILY)


def index_fill_public(input, dim, index, value):
    """``input`` with the slices ``index`` along ``dim`` set to ``value``."""
    try:
        if isinstance(value, Tensor):
            return _fill1.public(input, dim, index, value)
        return _fill0.public(input, dim, index, value)
    except _EmptyFill as exc:   # the restrided view of an empty input: its strides
        raise exc.error(input.stride()) from None


_public("index_fill", index_fill_public)
def _index_fill_write(self, dim, index, value):
    """index_fill_ through an expanded ``self`` (Note [Expanded writes])."""
    result = index_fill_public(self, dim, index, value)   # PyTorch's checks, the values
    write_where(self, result._data, index_fill(np.zeros(self._data.shape, bool), dim, index,
                                               True))


bind_method("index_fill_", through_expanded(
    "index_fill_", inplace_of(index_fill_public, "index_fill_", saves_self=False),
    _index_fill_write))


# -- slice_scatter / select_scatter / diagonal_scatter ---------------------------------------
def _slice_key(ndim, dim, start, end, step):
    key = [slice(None)] * ndim
    key[_wrap_dim(dim, ndim)] = slice(start, end, step)
    return tuple(key)


def slice_scatter(self, src, dim=0, start=None, end=None, step=1):
    """``self`` with ``self[..., start:end:step, ...]`` (along ``dim``) replaced by ``src``."""
    out = self.copy()
    key = _slice_key(self.ndim, dim, start, end, step)
    if out[key].shape != src.shape:
        raise RuntimeError(f"expected src to have a size equal to the slice of self. src "
                           f"size = {list(src.shape)}, slice size = {list(out[key].shape)}")
    out[key] = src
    return out


def slice_scatter_self(grad, src_shape, dim, start, end, step):
    return grad.slice_scatter(_wrap(np.zeros(src_shape, grad._data.dtype)), dim, start, end,
                              step)


def slice_scatter_src(grad, dim, start, end, step):
    return grad[_slice_key(grad._data.ndim, dim, start, end, step)]


defop("slice_scatter", slice_scatter, layout=STRIDES, inputs=("self", "src"),
      derivatives={"self": slice_scatter_self, "src": slice_scatter_src}, family=FAMILY,
      dtype=lambda rec, args: _scatter_into_rule("slice")(rec, args),
      samples=lambda make, shapes: [Sample((make((4, 3)), make((2, 3)), 0, 0, 2)),
                                    Sample((make((4, 3)), make((4, 1)), 1, 2)),
                                    Sample((make((5, 3)), make((2, 3)), 0, 1, 5, 2))])


def select_scatter(self, src, dim, index):
    """``self`` with ``self.select(dim, index)`` replaced by ``src``."""
    out = self.copy()
    key = [slice(None)] * self.ndim
    d = _wrap_dim(dim, self.ndim)
    n = self.shape[d]
    if not -n <= index < n:
        raise IndexError(f"select(): index {index} out of range for tensor of size "
                         f"{list(self.shape)} at dimension {d}")
    key[d] = index
    if out[tuple(key)].shape != src.shape:
        raise RuntimeError(f"expected src to have a size equal to the slice of self. src "
                           f"size = {list(src.shape)}, slice size = {list(out[tuple(key)].shape)}")
    out[tuple(key)] = src
    return out


def _scatter_into_rule(view_name):
    """The ``*_scatter`` ops: the result has self's dtype (src is cast to it); a 0-d self
    has no dim to select or slice (PyTorch's view error)."""
    def rule(rec, args):
        d = args[0]._data
        if view_name and d.ndim == 0:
            raise IndexError(f"{view_name}() cannot be applied to a 0-dim tensor.")
        return d.dtype, d.dtype
    return rule


def select_scatter_self(grad, src_shape, dim, index):
    return grad.select_scatter(_wrap(np.zeros(src_shape, grad._data.dtype)), dim, index)


def select_scatter_src(grad, dim, index):
    return grad.select(dim, index)


defop("select_scatter", select_scatter, layout=STRIDES, inputs=("self", "src"),
      derivatives={"self": select_scatter_self, "src": select_scatter_src}, family=FAMILY,
      dtype=_scatter_into_rule("select"),
      samples=lambda make, shapes: [Sample((make((4, 3)), make((3,)), 0, 1)),
                                    Sample((make((4, 3)), make((4,)), -1, -1))])


def diagonal_scatter(self, src, offset=0, dim1=0, dim2=1):
    """``self`` with ``self.diagonal(offset, dim1, dim2)`` replaced by ``src``."""
    out = self.copy()
    view = diagonal_view(out, offset, dim1, dim2)
    if view.shape != src.shape:
        raise RuntimeError(f"expected src to have a size equal to the slice of self. src "
                           f"size = {list(src.shape)}, slice size = {list(view.shape)}")
    view[...] = src
    return out


def diagonal_scatter_self(grad, src_shape, offset, dim1, dim2):
    return grad.diagonal_scatter(_wrap(np.zeros(src_shape, grad._data.dtype)), offset, dim1,
                                 dim2)


def diagonal_scatter_src(grad, offset, dim1, dim2):
    return grad.diagonal(offset, dim1, dim2)


defop("diagonal_scatter", diagonal_scatter, layout=STRIDES, inputs=("self", "src"),
      derivatives={"self": diagonal_scatter_self, "src": diagonal_scatter_src}, family=FAMILY,
      dtype=_scatter_into_rule(None),
      samples=lambda make, shapes: [Sample((make((3, 4)), make((3,)))),
                                    Sample((make((3, 4)), make((3,)), 1)),
                                    Sample((make((2, 3, 4)), make((3, 1)), -1, 0, 2))])


# -- sum_to_size -----------------------------------------------------------------------------
def sum_to_size(self, *size):
    """Sum ``self`` down to ``size`` (which must broadcast to ``self``'s shape)."""
    if len(size) == 1 and isinstance(size[0], (tuple, list)):
        size = tuple(size[0])
    shape = tuple(self.shape)
    if len(size) > len(shape) or any(s != 1 and s != d for s, d in
                                     zip(reversed(size), reversed(shape))):
        raise RuntimeError(f"size {{[{', '.join(map(str, size))}]}} is not expandable to size "
                           f"{{[{', '.join(map(str, shape))}]}}.")
    if tuple(size) == shape:
        return self
    lead = len(shape) - len(size)
    dims = list(range(lead)) + [lead + i for i, s in enumerate(size) if s == 1 and
                                shape[lead + i] != 1]
    out = self.sum(dims, keepdim=True)
    return out.view(size) if lead else out


bind_method("sum_to_size", sum_to_size)


# -- tensor_split / hsplit / vsplit / dsplit -------------------------------------------------
def tensor_split(input, indices_or_sections, dim=0):
    """Split into ``n`` nearly equal parts, or at the given indices, along ``dim`` (views)."""
    if input.ndim == 0:
        raise RuntimeError("tensor_split expected at least a 1-dimensional tensor, but got a "
                           "tensor with 0 dims")
    d = _wrap_dim(dim, input.ndim)
    size = input.shape[d]
    ios = indices_or_sections
    if isinstance(ios, Tensor):
        ios = ios.tolist() if ios.ndim else int(ios)
    if isinstance(ios, int):
        if ios <= 0:
            raise RuntimeError(f"number of sections must be larger than 0, got {ios}")
        base, extra = divmod(size, ios)
        bounds, start = [], 0
        for i in range(ios):
            stop = start + base + (1 if i < extra else 0)
            bounds.append((start, stop))
            start = stop
    else:
        # PyTorch slices between consecutive indices, wrapping negative ones as slice() does
        cuts = [0] + [int(i) for i in ios] + [size]
        cuts = [min(max(c + size if c < 0 else c, 0), size) for c in cuts]
        bounds = [(a, max(a, b)) for a, b in zip(cuts, cuts[1:])]
    # narrow: SliceBackward0 even for the whole range (x[a:b] would be an alias)
    return tuple(input.narrow(d, a, b - a) for a, b in bounds)


def _nsplit(name, dim, min_dims):
    def split(input, indices_or_sections):
        if input.ndim < min_dims:
            raise RuntimeError(f"torch.{name} requires a tensor with at least {min_dims} "
                               f"dimension, but got a tensor with {input.ndim} dimensions!")
        d = 0 if (name == "hsplit" and input.ndim == 1) else dim
        if isinstance(indices_or_sections, int) and input.shape[d] % indices_or_sections:
            raise RuntimeError(f"torch.{name} attempted to split along dimension {d}, but the "
                               f"size of the dimension {input.shape[d]} is not divisible by "
                               f"the split_size {indices_or_sections}!")
        return tensor_split(input, indices_or_sections, d)
    split.__name__ = split.__qualname__ = name
    split.__doc__ = f"``tensor_split`` along dim {dim}, into equal parts when given a number."
    return split


_public("tensor_split", tensor_split)
_public("hsplit", _nsplit("hsplit", 1, 1))
_public("vsplit", _nsplit("vsplit", 0, 2))
_public("dsplit", _nsplit("dsplit", 2, 3))


# -- take_along_dim (composite, as PyTorch; repeat_interleave is in repeat_interleave.py) -
def take_along_dim(input, indices, dim=None):
    """``gather`` with ``indices`` broadcast against ``input`` (all but ``dim``)."""
    if dim is None:
        # PyTorch views both flat: a layout no view can flatten raises view's error
        return input.view(-1).gather(0, indices.view(-1))
    if input.ndim != indices.ndim:
        raise RuntimeError("torch.take_along_dim(): input and indices should have the same "
                           f"number of dimensions, but got {input.ndim} dimensions for input, "
                           f"and {indices.ndim} dimensions for indices")
    d = _wrap_dim(dim, max(input.ndim, 1))
    if input.ndim == 0:
        raise no_dims_error(d)
    shape_in = list(input.shape)
    shape_idx = list(indices.shape)
    shape_in[d] = shape_idx[d] = 1
    common = list(np.broadcast_shapes(tuple(shape_in), tuple(shape_idx)))
    want_in = common.copy()
    want_in[d] = input.shape[d]
    want_idx = common.copy()
    want_idx[d] = indices.shape[d]
    src = input.expand(want_in)   # a view even when no dim grows, as PyTorch's broadcast_to
    idx = indices if list(indices.shape) == want_idx else indices.expand(want_idx)
    return src.gather(d, idx)


_public("take_along_dim", take_along_dim)


# the searches and counts (their own module, loaded with this family)
from .search_count import (  # noqa: E402,F401
    bincount, bucketize, histc, searchsorted, unique, unique_consecutive)
