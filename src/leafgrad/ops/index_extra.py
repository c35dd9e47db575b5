"""More indexing: index_copy, index_fill, slice/select/diagonal_scatter, sum_to_size,
tensor_split (hsplit, vsplit, dsplit), take_along_dim, and the
non-differentiable searches and counts: searchsorted, bucketize, bincount, histc, unique,
unique_consecutive.

>>> import leafgrad as torch
>>> torch.zeros(2, 3).index_fill(1, torch.tensor([0, 2]), 1.0)
tensor([[1., 0., 1.],
        [1., 0., 1.]])
"""
from __future__ import annotations

import numpy as np

from .. import dtypes as _dt
from ..tensor import Tensor, _wrap
from .matrix_extra import diagonal_view
from .pointwise_common import inplace_of, not_implemented_for, not_implemented_formula
from .reduction import _wrap_dim
from .registry import Sample, bind_method, defop, export_function

__all__: list = []

FAMILY = "indexing"


def _public(name, fn, method=True, function=True):
    if function:
        export_function(name, fn)
    if method:
        bind_method(name, fn)


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


def index_copy_source(grad, dim, index):
    return grad.index_select(dim, index) if grad._data.ndim else grad


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
    if self.ndim:
        out[_along(self.ndim, dim, idx)] = value
    else:
        _wrap_dim(dim, 1)   # a 0-d self still checks dim, as one of size 1
        out[...] = value
    return out


def _empty_fill_check(shape, d, k, itemsize):
    """PyTorch fills through a view of ``self`` with ``dim`` restrided to the ``k`` indices
    (stride 0): over an empty ``self`` that view needs storage unless it is empty too, and the
    indices are never read (so never bounds-checked)."""
    sizes = list(shape)
    sizes[d] = k
    if 0 in sizes:
        return
    strides, step = [], 1
    for size in reversed(shape):   # contiguous strides, as PyTorch's (size 0 counts as 1)
        strides.append(step)
        step *= max(size, 1)
    strides.reverse()
    strides[d] = 0
    need = itemsize * (1 + sum((a - 1) * b for a, b in zip(sizes, strides)))
    raise RuntimeError(f"setStorage: sizes [{', '.join(map(str, sizes))}], strides "
                       f"[{', '.join(map(str, strides))}], storage offset 0, and itemsize "
                       f"{itemsize} requiring a storage size of {need} are out of bounds for "
                       f"storage of size 0")


def index_fill_self(grad, dim, index):
    return grad.index_fill(dim, index, 0)


_fill0 = defop("index_fill", index_fill, inputs=("self",), saved_tensor_args=("index",),
               derivatives={"self": index_fill_self}, dtype="same", methods=(),
               functions=(), family=FAMILY, samples=lambda make, shapes: [
                   Sample((make((3, 4)), 1, _long([2, 0]), -1.5), call="index_fill"),
                   Sample((make((3, 4)), 0, _long([1]), 2), call="Tensor.index_fill")])
def index_fill_tensor_value(grad, dim, index):
    # the filled positions' gradients summed (each position once, duplicated indices or not)
    return grad.sum() - grad.index_fill(dim, index, 0).sum()


_fill1 = defop("index_fill_tensor", index_fill, inputs=("self", "value"),
               saved_tensor_args=("index",),
               derivatives={"self": index_fill_self, "value": index_fill_tensor_value},
               dtype="same",
               grad_fn_name="IndexFillBackward1", methods=(), functions=(), family=FAMILY)


def index_fill_public(input, dim, index, value):
    """``input`` with the slices ``index`` along ``dim`` set to ``value``."""
    if isinstance(value, Tensor):
        return _fill1.public(input, dim, index, value)
    return _fill0.public(input, dim, index, value)


_public("index_fill", index_fill_public)
bind_method("index_fill_", inplace_of(index_fill_public, "index_fill_", saves_self=False))


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


defop("slice_scatter", slice_scatter, inputs=("self", "src"),
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


defop("select_scatter", select_scatter, inputs=("self", "src"),
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


defop("diagonal_scatter", diagonal_scatter, inputs=("self", "src"),
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
        return input.reshape(-1).gather(0, indices.reshape(-1))
    d = _wrap_dim(dim, max(input.ndim, 1))
    if input.ndim != indices.ndim:
        raise RuntimeError("torch.take_along_dim(): input and indices should have the same "
                           f"number of dimensions, but got {input.ndim} dimensions for input, "
                           f"and {indices.ndim} dimensions for indices")
    shape_in = list(input.shape)
    shape_idx = list(indices.shape)
    shape_in[d] = shape_idx[d] = 1
    common = list(np.broadcast_shapes(tuple(shape_in), tuple(shape_idx)))
    want_in = common.copy()
    want_in[d] = input.shape[d]
    want_idx = common.copy()
    want_idx[d] = indices.shape[d]
    src = input if list(input.shape) == want_in else input.expand(want_in)
    idx = indices if list(indices.shape) == want_idx else indices.expand(want_idx)
    return src.gather(d, idx)


_public("take_along_dim", take_along_dim)


# -- searchsorted / bucketize / bincount / histc (no gradients) ------------------------------
def _out_dtype(out_int32):
    return np.int32 if out_int32 else np.int64


def _searchsorted_checks(seq, vals, sorter):
    """PyTorch's checks of searchsorted's arguments, in its order (before the dtype's)."""
    if sorter is not None:
        srt = sorter._data
        if srt.shape != seq.shape:
            raise RuntimeError("torch.searchsorted(): boundary and sorter must have the same "
                               f"size, but got boundary tensor {list(seq.shape)}and got sorter "
                               f"tensor {list(srt.shape)}")
        if srt.dtype != np.int64:
            raise RuntimeError("torch.searchsorted(): sorter must be a tensor of long dtype but "
                               f"got dtype {_dt.from_numpy_dtype(srt.dtype).tensor_type[:-6]}")
        if srt.size and (srt.min() < 0 or srt.max() >= srt.shape[-1]):
            raise RuntimeError("torch.searchsorted(): sorter index out of range")
    if vals.ndim == 0 and seq.ndim != 1:
        raise RuntimeError("torch.searchsorted(): input value can be a scalar only when "
                           "boundaries tensor dimension is 1, but we got boundaries tensor "
                           f"dim({seq.ndim}) and input value's dim(0) numel(1)")
    if seq.ndim == 0:
        raise RuntimeError("torch.searchsorted(): boundaries tensor should have positive "
                           "dimension, but got 0 dimension")
    if seq.ndim != 1 and (vals.ndim != seq.ndim or vals.shape[:-1] != seq.shape[:-1]):
        raise RuntimeError("torch.searchsorted(): boundaries tensor should be 1 dimension or "
                           "the first N-1 dimensions of boundaries tensor and input value "
                           "tensor must match, but we got boundaries tensor "
                           f"{list(seq.shape)} and input value tensor {list(vals.shape)}")


def searchsorted(sorted_sequence, input, *, out_int32=False, right=False, side=None,
                 sorter=None):
    """Where ``input``'s values would go in the (last dim of) ``sorted_sequence``."""
    if side is not None:
        if side not in ("left", "right"):
            raise RuntimeError(f"torch.searchsorted(): side can only be 'left' or 'right' but "
                               f"got {side}")
        if right and side == "left":
            raise RuntimeError("torch.searchsorted(): side and right can't be set to opposites, "
                               "got side of left while right was True")
        right = side == "right"
    seq = sorted_sequence._data
    scalar = not isinstance(input, Tensor)
    vals = np.asarray(input) if scalar else input._data
    _searchsorted_checks(seq, vals, sorter)
    # the kernel runs in the common dtype (a Python number counts as a wrapped scalar)
    if seq.dtype == np.bool_ and vals.dtype == np.bool_:
        raise NotImplementedError("\"searchsorted_out_cpu\" not implemented for 'Bool'")
    if sorter is not None:
        seq = np.take_along_axis(seq, sorter._data, -1)
    how = "right" if right else "left"
    if seq.ndim <= 1:
        out = np.searchsorted(seq, vals, side=how)
    else:
        rows_s = seq.reshape(-1, seq.shape[-1])
        rows_v = vals.reshape(-1, vals.shape[-1])
        out = np.stack([np.searchsorted(s, v, side=how) for s, v in zip(rows_s, rows_v)])
        out = out.reshape(vals.shape)
    return _wrap(np.asarray(out, dtype=_out_dtype(out_int32)))


def bucketize(input, boundaries, *, out_int32=False, right=False):
    """The bucket of each value of ``input`` among the 1-d sorted ``boundaries``."""
    if boundaries.ndim != 1:
        raise RuntimeError("boundaries tensor must be 1 dimension, but got dim(" +
                           f"{boundaries.ndim})")
    return searchsorted(boundaries, input, out_int32=out_int32, right=right)


def bincount(input, weights=None, minlength=0):
    """How often each non-negative integer occurs (or the sum of its ``weights``)."""
    data = input._data
    if data.dtype.kind not in "iu":   # the kernel's dtype dispatch comes first
        raise not_implemented_for("bincount_cpu", data.dtype)
    if minlength < 0:
        raise RuntimeError("minlength should be >= 0")
    if data.ndim == 1 and data.size == 0:   # zero counts, whatever the weights
        return _wrap(np.zeros(minlength, np.int64))
    if data.ndim != 1 or data.min() < 0:
        raise RuntimeError("bincount only supports 1-d non-negative integral inputs.")
    if weights is None:
        return _wrap(np.bincount(data, minlength=minlength).astype(np.int64))
    w = weights._data
    if w.shape != data.shape:
        raise RuntimeError("weights should be 1-d and have the same length as input")
    # differentiable weights get PyTorch's NotImplemented node
    return _bincount_weighted.public(data, weights, minlength)


def _bincount_weighted_forward(self, weights, minlength):
    """``np.bincount`` of the indices ``self`` (an array) weighted by ``weights``: float32
    and float64 weights keep their dtype, others count in float64 (as PyTorch's)."""
    dt = weights.dtype if weights.dtype in (np.float32, np.float64) else np.float64
    return np.bincount(self, weights=weights, minlength=minlength).astype(dt)


_bincount_weighted = defop(
    "bincount_weighted", _bincount_weighted_forward, inputs=("weights",),
    derivatives={"weights": not_implemented_formula("bincount")},
    grad_fn_name="NotImplemented", dtype="same", methods=(), functions=(), family=FAMILY)


def _edge_text(x, from_data):
    # C++'s default stream format; a NaN found in the data prints as -nan
    return "-nan" if from_data and x != x else f"{x:g}"


def histc(input, bins=100, min=0, max=0):
    """A histogram of ``input`` with ``bins`` equal bins over [min, max] (the data's range
    when both are equal); values outside are ignored. PyTorch checks ``bins`` and the range
    before the dtype (the bin edges' linspace rejects bool, the kernel integers)."""
    data = input._data
    if bins <= 0:
        raise RuntimeError(f"torch.histogram(): bins must be > 0, but got {bins} for "
                           "dimension 0")
    lo, hi = float(min), float(max)
    from_data = lo == hi and data.size > 0
    if from_data:
        lo, hi = float(data.min()), float(data.max())
        if lo == hi and np.isinf(lo) and data.dtype in (np.float32, np.float64):
            # (what PyTorch reports for a range of one infinite value)
            big = float(np.finfo(data.dtype).max)
            lo, hi = (big, hi) if lo > 0 else (lo, -big)
    if lo == hi:
        lo, hi = lo - 1, hi + 1
    if not (np.isfinite(lo) and np.isfinite(hi)):
        raise RuntimeError(f"torch.histc: range of [{_edge_text(lo, from_data)}, "
                           f"{_edge_text(hi, from_data)}] is not finite")
    if not lo < hi:
        raise RuntimeError("torch.histc: max must be larger than min")
    if data.dtype.kind != "f":
        raise not_implemented_for("linspace_cpu" if data.dtype == np.bool_ else
                                  "histogram_cpu", data.dtype)
    flat = data.reshape(-1)
    flat = flat[(flat >= lo) & (flat <= hi)]
    pos = ((flat.astype(np.float64) - lo) * bins / (hi - lo)).astype(np.int64)
    pos = np.minimum(pos, bins - 1)
    return _wrap(np.bincount(pos, minlength=bins).astype(data.dtype))


for _name, _fn in (("searchsorted", searchsorted), ("bucketize", bucketize),
                   ("bincount", bincount), ("histc", histc)):
    _public(_name, _fn, method=_name != "searchsorted")


# -- unique / unique_consecutive -------------------------------------------------------------
def _unique_values(self, values):
    """``values`` (computed by the wrapper) behind a Unique2Backward0 node."""
    return values


def _unique_grad(grad):
    raise NotImplementedError("the derivative for '_unique2' is not implemented.")


_unique_rec = defop("unique_values", _unique_values, inputs=("self",),
                    derivatives={"self": _unique_grad}, dtype="same",
                    grad_fn_name="Unique2Backward0", methods=(), functions=(), family=FAMILY)


def _unique_dim_grad(grad):
    raise NotImplementedError("the derivative for 'unique_dim' is not implemented.")


def _unique_consecutive_grad(grad):
    raise NotImplementedError("the derivative for 'unique_consecutive' is not implemented.")


_unique_dim_rec = defop("unique_dim_values", _unique_values, inputs=("self",),
                        derivatives={"self": _unique_dim_grad}, dtype="same",
                        grad_fn_name="UniqueDimBackward0", methods=(), functions=(),
                        family=FAMILY)
_unique_consecutive_rec = defop(
    "unique_consecutive_values", _unique_values, inputs=("self",),
    derivatives={"self": _unique_consecutive_grad}, dtype="same",
    grad_fn_name="UniqueConsecutiveBackward0", methods=(), functions=(), family=FAMILY)


def _pack(values, inverse, counts, return_inverse, return_counts):
    out = [values]
    if return_inverse:
        out.append(_wrap(np.asarray(inverse, np.int64)))
    if return_counts:
        out.append(_wrap(np.asarray(counts, np.int64)))
    return out[0] if len(out) == 1 else tuple(out)


def _needs_std_order(data):
    """Whether PyTorch's ``std::sort`` could group or order ``data`` unlike NumPy's sort: a
    NaN is never equal to anything (each is a group of its own, placed where the sort leaves
    it), and -0. equals 0. (a group's value is its first element in the sort's order)."""
    if data.dtype.kind != "f":
        return False
    return bool(np.isnan(data).any() or (np.signbit(data) & (data == 0)).any())


def _group_starts(sorted_values):
    """Where each run of equal sorted values starts (a NaN starts a run of its own)."""
    starts = np.ones(sorted_values.shape[0], bool)
    starts[1:] = sorted_values[1:] != sorted_values[:-1]
    return starts


def _unique_flat(data):
    """``torch.unique`` without ``dim``: PyTorch sorts the flattened values (``std::sort``,
    NaN largest) and keeps the first of each run of equal values; NaNs stay apart."""
    flat = data.reshape(-1)
    if not _needs_std_order(flat):
        values, inverse, counts = np.unique(flat, return_inverse=True, return_counts=True)
        return values.astype(data.dtype), inverse.reshape(data.shape), counts
    from .stl_select import nan_last_less, sort_order
    order = np.asarray(sort_order(flat.tolist(), nan_last_less), np.int64)
    ordered = flat[order]
    starts = _group_starts(ordered)
    inverse = np.empty(flat.size, np.int64)
    inverse[order] = np.cumsum(starts) - 1
    counts = np.diff(np.append(np.nonzero(starts)[0], flat.size))
    return ordered[starts], inverse.reshape(data.shape), counts


def _check_dim_sizes(data, d):
    """unique's checks of 0-sized dimensions along ``dim``; True when the answer is empty."""
    zero_dims = data.shape.count(0)
    if data.shape[d] == 0:
        if zero_dims != 1:
            raise RuntimeError("Number of zero sized dimensions is more than one, so unique "
                               "cannot be applied ")
        return True
    if zero_dims:
        raise RuntimeError("There are 0 sized dimensions, and they aren't selected, so unique "
                           "cannot be applied")
    return False


def _unique_rows(data, d):
    """``torch.unique(dim=d)``: the slices along ``d`` sorted lexicographically (by ``<``
    and ``>``, so a NaN decides nothing) with ``std::sort``, then each compared with the
    first of its run (a slice holding NaN equals none)."""
    moved = np.moveaxis(data, d, 0)
    rows = moved.reshape(moved.shape[0], -1)
    if not _needs_std_order(rows):
        values, inverse, counts = np.unique(data, return_inverse=True, return_counts=True,
                                            axis=d)
        return np.ascontiguousarray(values), inverse.reshape(-1), counts
    from .stl_select import rows_less, sort_order
    order = np.asarray(sort_order([tuple(r) for r in rows.tolist()], rows_less), np.int64)
    ordered = rows[order]
    starts = np.zeros(len(order), bool)
    head = None
    for k, row in enumerate(ordered):
        if head is None or not (row == head).all():
            starts[k], head = True, row
    inverse = np.empty(len(order), np.int64)
    inverse[order] = np.cumsum(starts) - 1
    counts = np.diff(np.append(np.nonzero(starts)[0], len(order)))
    values = moved[order][starts]
    return np.ascontiguousarray(np.moveaxis(values, 0, d)), inverse, counts


def unique(input, sorted=True, return_inverse=False, return_counts=False, dim=None):
    """The distinct values (sorted), with where each element went and how often each
    occurs when asked; along ``dim``, the distinct slices."""
    data = input._data
    if dim is None:
        values, inverse, counts = _unique_flat(data)
        vals = _unique_rec.public(input, values)
        return _pack(vals, inverse, counts, return_inverse, return_counts)
    if data.ndim == 0:
        raise IndexError(f"Dimension specified as {dim} but tensor has no dimensions")
    d = _wrap_dim(dim, data.ndim)
    if _check_dim_sizes(data, d):
        values, inverse, counts = data.copy(), (), ()
    else:
        values, inverse, counts = _unique_rows(data, d)
    vals = _unique_dim_rec.public(input, values)
    return _pack(vals, inverse, counts, return_inverse, return_counts)


def unique_consecutive(input, return_inverse=False, return_counts=False, dim=None):
    """Collapse runs of equal consecutive values (or slices along ``dim``); a NaN equals
    nothing, so each NaN stays."""
    data = input._data
    if dim is None:
        flat = data.reshape(-1)
        starts = _group_starts(flat)
        values = flat[starts]
        inverse = (np.cumsum(starts) - 1).reshape(data.shape)
    else:
        if data.ndim == 0:
            raise IndexError(f"Dimension specified as {dim} but tensor has no dimensions")
        d = _wrap_dim(dim, data.ndim)
        if _check_dim_sizes(data, d):
            vals = _unique_consecutive_rec.public(input, data.copy())
            return _pack(vals, (), (), return_inverse, return_counts)
        moved = np.moveaxis(data, d, 0)
        rows = moved.reshape(moved.shape[0], -1)
        starts = np.ones(rows.shape[0], bool)
        starts[1:] = (rows[1:] != rows[:-1]).any(axis=1)
        values = np.ascontiguousarray(np.moveaxis(moved[starts], 0, d))
        inverse = np.cumsum(starts) - 1
    bounds = np.append(np.nonzero(starts)[0], starts.size)
    counts = np.diff(bounds)
    vals = _unique_consecutive_rec.public(input, values)
    return _pack(vals, inverse, counts, return_inverse, return_counts)


_public("unique", unique)
_public("unique_consecutive", unique_consecutive)
