"""The non-differentiable searches and counts: searchsorted, bucketize, bincount, histc,
unique, unique_consecutive (part of the lazy ``index_extra`` family, which imports this
module; unique's values carry a node that refuses to differentiate, as PyTorch's).

>>> import leafgrad as torch
>>> torch.unique(torch.tensor([3, 1, 3]), return_counts=True)
(tensor([1, 3]), tensor([1, 2]))
"""
from __future__ import annotations

import numpy as np

from .. import dtypes as _dt
from ..tensor import Tensor, _wrap
from .pointwise_common import not_implemented_for, not_implemented_formula
from .reduction import _wrap_dim
from .registry import defop, publish as _public

__all__: list = []

FAMILY = "indexing"


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
    common = _dt.result_type(sorted_sequence, input).np
    out = _binary_search(seq.astype(common, copy=False), vals.astype(common, copy=False), right)
    return _wrap(np.asarray(out, dtype=_out_dtype(out_int32)))


def _binary_search(seq, vals, right):
    """PyTorch's search of each value in its row of ``seq``: a binary search that goes right
    while ``!(mid >= v)`` (``!(mid > v)`` for ``right``), so a NaN, compared false, sends it
    right; on boundaries that are not sorted it lands where that search does. All values
    step together (about log2(n) whole-array steps)."""
    n = seq.shape[-1]
    if n == 0 or vals.size == 0:
        return np.zeros(vals.shape, np.int64)
    rows_s = seq.reshape(-1, n)
    rows_v = vals.reshape(rows_s.shape[0], -1)
    lo = np.zeros(rows_v.shape, np.int64)
    hi = np.full(rows_v.shape, n, np.int64)
    row = np.arange(rows_s.shape[0])[:, None]
    active = lo < hi
    while active.any():
        mid = lo + ((hi - lo) >> 1)
        at = rows_s[row, np.minimum(mid, n - 1)]
        go = ~(at > rows_v) if right else ~(at >= rows_v)
        lo = np.where(active & go, mid + 1, lo)
        hi = np.where(active & ~go, mid, hi)
        active = lo < hi
    return lo.reshape(vals.shape)


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


def _edge_text(x, reduced):
    """C++'s default stream format, which prints a NaN's sign. A NaN that ATen's min/max
    reduction found among two or more elements is x86's default NaN (-nan); one element's
    range, or a NaN ``min``/``max`` argument, keeps its own sign (seed 161: histc of a
    one-element tensor holding log10(-2)'s +nan)."""
    if np.isnan(x):
        return "-nan" if reduced or np.signbit(x) else "nan"
    return f"{x:g}"


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
        if data.size == 1:   # (the element itself: a NaN keeps its sign)
            lo = hi = float(data.reshape(-1)[0])
        else:
            lo, hi = float(data.min()), float(data.max())
        if lo == hi and np.isinf(lo) and data.dtype in (np.float32, np.float64):
            # (what PyTorch reports for a range of one infinite value)
            big = float(np.finfo(data.dtype).max)
            lo, hi = (big, hi) if lo > 0 else (lo, -big)
    if lo == hi:
        lo, hi = lo - 1, hi + 1
    if not (np.isfinite(lo) and np.isfinite(hi)):
        reduced = from_data and data.size > 1
        raise RuntimeError(f"torch.histc: range of [{_edge_text(lo, reduced)}, "
                           f"{_edge_text(hi, reduced)}] is not finite")
    if not lo < hi:
        raise RuntimeError("torch.histc: max must be larger than min")
    if data.dtype.kind != "f":
        raise not_implemented_for("linspace_cpu" if data.dtype == np.bool_ else
                                  "histogram_cpu", data.dtype)
    # ATen's histc: the bin by division in the input's dtype, between the ends of its
    # linspace edges (no search against the edges, unlike torch.histogram), so float32
    # rounds as PyTorch's (seed 135: -0.0634542 in [-1.0634542, 0.9365458] is bin 1 of 4:
    # 0.99999994 * 4 / 2 in float; leafgrad divided in double: bin 2)
    from .._ranges import linspace_values
    edges = linspace_values(lo, hi, bins + 1, data.dtype)
    left, right = edges[0], edges[-1]
    flat = data.reshape(-1)
    flat = flat[(flat >= left) & (flat <= right)]
    with np.errstate(all="ignore"):
        pos = ((flat - left) * data.dtype.type(bins) / (right - left)).astype(np.int64)
    pos = np.clip(pos, 0, bins - 1)
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
    from .stl_select import std_sort_order
    # ranks: NaN largest and one rank, -0. and 0. one rank (the sort's equal keys)
    order = std_sort_order(np.unique(flat, return_inverse=True)[1].reshape(-1))
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
        return _moved_back(np.moveaxis(values, d, 0).copy(), d), inverse.reshape(-1), counts
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
    values = moved[order][starts].copy()
    return _moved_back(values, d), inverse, counts


def _moved_back(values, d):
    """PyTorch's unique_dim result: the slices, contiguous with ``d`` first, then
    ``moveaxis(0, d)``: a view, its strides follow (a later ``view`` can fail)."""
    return np.moveaxis(values, 0, d)


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
