"""Order statistics: kthvalue, mode, nanmedian, quantile/nanquantile.

As in ops/reduction_extra.py, the ops that return ``(values, indices)`` choose the indices in
NumPy first and pass them to a record that takes the values at those indices
(``extrema.select_dim``), so the gradient goes to the returned index, as PyTorch's. Where
several elements tie, PyTorch's index depends on its selection algorithm; leafgrad takes the
first in a stable sort (nanmedian), the one PyTorch's quickselect leaves (kthvalue) or the
run's last (mode), which agrees whenever the values are distinct.

>>> import leafgrad as torch
>>> torch.tensor([1.0, 3.0, 2.0]).kthvalue(2)
torch.return_types.kthvalue(
values=tensor(2.),
indices=tensor(2))
"""
from __future__ import annotations

import numpy as np

from ..tensor import Tensor, _wrap
from .quick_select import has_tie, select_index
from .extrema import _along, along_checks, evenly_self, select_dim, select_dim_self
from .reduction import _wrap_dim
from .registry import FUNCTIONS, Sample, defop
from .reduction_extra import FAMILY, _public
from .stl_select import sort_pairs

__all__: list = []


# -- kthvalue / mode / nanmedian -------------------------------------------------------------
_kthvalue = defop("kthvalue_dim", select_dim, derivatives={"self": select_dim_self},
                  dtype="same", grad_fn_name="KthvalueBackward0", methods=(), functions=(),
                  saved_tensor_args=("indices",),
                  family=FAMILY, samples=lambda make, shapes: [
                      Sample((make(shapes[1] or (3,)), 1), call="kthvalue"),
                      Sample((make((3, 4)), 2, 0, True), call="kthvalue"),
                      Sample((make((3, 4)), 4), call="Tensor.kthvalue")])


def kthvalue(input, k, dim=-1, keepdim=False):
    """The ``k``-th smallest element along ``dim`` and its index."""
    d = input._data
    axis = along_checks("kthvalue", d, dim)
    if axis is None:   # a 0-d tensor: one element
        axis = _wrap_dim(dim, 1)
    n = d.shape[axis] if d.ndim else 1
    if not 1 <= k <= n:
        raise RuntimeError(f"kthvalue(): selected number k out of range for dimension {axis}")
    if d.dtype == np.bool_ and d.ndim:   # PyTorch returns a 0-d tensor before its kernel
        raise NotImplementedError("\"kthvalue_cpu\" not implemented for 'Bool'")

    def pick(data, axis):
        order = np.argsort(data, axis=axis, kind="stable")
        chosen = np.take(order, [k - 1], axis=axis).astype(np.int64, copy=False)
        # rows where the k-th value ties: the index PyTorch's quickselect leaves there
        rows = np.moveaxis(data, axis, -1).reshape(-1, data.shape[axis] if data.ndim else 1)
        flat = np.moveaxis(chosen, axis, -1).reshape(-1)
        for r, row in enumerate(rows.tolist()):
            if has_tie(row, row[flat[r]]):
                flat[r] = select_index(row, k - 1)
        return np.moveaxis(flat.reshape(np.moveaxis(chosen, axis, -1).shape), -1, axis)
    return _along(_kthvalue, "kthvalue", pick, input, dim, keepdim)


_mode = defop("mode_dim", select_dim, derivatives={"self": select_dim_self}, dtype="same",
              grad_fn_name="ModeBackward0", methods=(), functions=(), family=FAMILY,
              saved_tensor_args=("indices",),
              samples=lambda make, shapes: [
                  Sample((np.asarray(np.round(make(shapes[1] or (5,)))),), call="mode"),
                  Sample((make(shapes[1] or (4,), 0, 3, np.int64), 0), call="mode")])


def _mode_pick(data, axis):
    moved = np.moveaxis(data, axis, -1)
    rows = moved.reshape(-1, moved.shape[-1])
    out = np.empty(rows.shape[0], np.int64)
    n = rows.shape[-1]
    with_nan = (np.isnan(rows).any(axis=-1) if rows.dtype.kind == "f"
                else np.zeros(rows.shape[0], bool))
    for r, row in enumerate(rows):
        if n <= 16 and not with_nan[r]:
            # a short slice is insertion-sorted (stable): the smallest of the most frequent
            # values, at its last occurrence
            values, counts = np.unique(row, return_counts=True)
            best = values[np.argmax(counts)]
            out[r] = np.nonzero(row == best)[0][-1]
        else:
            out[r] = _mode_index(row)
    return np.expand_dims(out.reshape(moved.shape[:-1]), axis)


def _mode_index(row):
    """PyTorch's CPU kernel: ``std::sort`` the (value, index) pairs, then the first longest run
    of equal neighbours wins (NaNs never equal, so each is a run of one) with the index of the
    run's last pair."""
    pairs = sort_pairs(row.tolist())
    best, best_count, count = 0, 0, 0
    for i, (value, index) in enumerate(pairs):
        count += 1
        if i == len(pairs) - 1 or value != pairs[i + 1][0]:
            if count > best_count:
                best, best_count = index, count
            count = 0
    return best


def mode(input, dim=-1, keepdim=False):
    """The most frequent value along ``dim`` (the smallest of ties) and its index."""
    return _along(_mode, "mode", _mode_pick, input, dim, keepdim)


def _nan_lower_median(flat):
    valid = flat[~np.isnan(flat)]
    if valid.size == 0:
        return np.array(np.nan, flat.dtype)
    k = (valid.size - 1) // 2
    return np.partition(valid, k)[k]


def nanmedian_all(self):
    """The lower median of the non-NaN elements (NaN if there are none)."""
    flat = self.reshape(-1)
    if flat.dtype.kind != "f":
        k = (flat.size - 1) // 2
        return np.partition(flat, k)[k]
    return np.asarray(_nan_lower_median(flat))


_nanmedian0 = defop("nanmedian_all", nanmedian_all, derivatives={"self": evenly_self},
                    dtype="same", grad_fn_name="NanmedianBackward0", methods=(), functions=(),
                    family=FAMILY, samples=lambda make, shapes: [
                        Sample((make(shapes[1]),), call="nanmedian")])
_nanmedian1 = defop("nanmedian_dim", select_dim, derivatives={"self": select_dim_self},
                    dtype="same", grad_fn_name="NanmedianBackward1", methods=(), functions=(),
                    saved_tensor_args=("indices",),
                    family=FAMILY, samples=lambda make, shapes: [
                        Sample((make(shapes[1] or (3,)), 0), call="nanmedian")])


def _nanmedian_pick(data, axis):
    order = np.argsort(data, axis=axis, kind="stable")   # NaNs sort last
    valid = (~np.isnan(data)).sum(axis=axis, keepdims=True) if data.dtype.kind == "f" \
        else np.full(np.delete(data.shape, axis).tolist(), data.shape[axis])
    k = np.maximum((np.asarray(valid) - 1) // 2, 0)
    if data.dtype.kind != "f":
        k = np.expand_dims(k, axis)
    return np.take_along_axis(order, k, axis).astype(np.int64, copy=False)


def nanmedian(input, dim=None, keepdim=False):
    """The lower median ignoring NaNs: of everything, or ``(values, indices)`` along ``dim``."""
    if input._data.dtype == np.bool_:   # PyTorch runs median's checks and kernels
        from .extrema import median
        return median(input) if dim is None else median(input, dim, keepdim)
    if dim is None:
        return _nanmedian0.public(input)
    return _along(_nanmedian1, "nanmedian", _nanmedian_pick, input, dim, keepdim,
                  check_name="median")


for _name, _fn in (("kthvalue", kthvalue), ("mode", mode), ("nanmedian", nanmedian)):
    _public(_name, _fn)


# -- quantile / nanquantile (composite, as PyTorch: sort, gather, lerp) ----------------------
_INTERPOLATIONS = ("linear", "lower", "higher", "midpoint", "nearest")


def _quantile(name, input, q, dim, keepdim, interpolation, ignore_nan):
    name = "quantile"   # nanquantile's messages say quantile() too
    # PyTorch's order: a number q's range; the interpolation; then the input's size, q's
    # rank, the input's dtype, q's dtype, dim, and only then a q tensor's values
    q_is_tensor = isinstance(q, Tensor)
    if not q_is_tensor and not 0 <= float(q) <= 1:
        raise RuntimeError(f"{name}() q must be in the range [0, 1] but got {float(q):g}")
    if interpolation not in _INTERPOLATIONS:
        raise RuntimeError(f"{name}() interpolation must be one of linear, lower, higher, "
                           f"midpoint or nearest, but got {interpolation}")
    if input.numel() == 0:
        raise RuntimeError(f"{name}() input tensor must be non-empty")
    if q_is_tensor and q.ndim > 1:
        raise RuntimeError(f"{name}() q must be a scalar or 1D tensor")
    if input.dtype.np.kind != "f" or input.dtype.np.itemsize < 4:
        raise RuntimeError(f"{name}() input tensor must be either float or double dtype")
    if q_is_tensor:
        if q.dtype is not input.dtype:
            raise RuntimeError(f"{name}() q tensor must be same dtype as the input tensor")
        qs = q._data.reshape(-1).astype(np.float64)
    else:
        qs = np.array([float(q)])
    if dim is not None:
        _wrap_dim(dim, max(input.ndim, 1))
    if q_is_tensor and not ((qs >= 0) & (qs <= 1)).all():
        raise RuntimeError(f"{name}() q values must be in the range [0, 1]")
    # the reduced elements along a last dim; a size-1 dim left where keepdim wants one
    if dim is None:
        x = input.reshape([1] * input.ndim + [-1]) if keepdim else input.reshape(-1)
    else:
        d = _wrap_dim(dim, max(input.ndim, 1))
        x = input.reshape(1) if input.ndim == 0 else input
        # (a 0-d input stays 0-d in PyTorch even with keepdim=True)
        x = x.movedim(d, -1).unsqueeze(d) if keepdim and input.ndim else x.movedim(d, -1)
    ordered = x.sort(-1).values
    data = ordered._data
    n = data.shape[-1]
    nans = np.isnan(data)
    valid = (n - nans.sum(-1, keepdims=True)) if ignore_nan else np.full(
        data.shape[:-1] + (1,), n)
    results = []
    for v in qs:
        rank = v * (valid - 1).astype(np.float64)
        if not ignore_nan:
            rank = np.where(nans.any(-1, keepdims=True), n - 1, rank)
        else:
            rank = np.where(valid == 0, n - 1, rank)
        if interpolation == "nearest":
            rank = np.round(rank)
        lo = np.floor(rank).astype(np.int64)
        hi = np.ceil(rank).astype(np.int64)
        v_lo = ordered.gather(-1, _wrap(lo))
        if interpolation == "lower" or interpolation == "nearest":
            results.append(v_lo)
            continue
        v_hi = ordered.gather(-1, _wrap(hi))
        if interpolation == "higher":
            results.append(v_hi)
            continue
        weight = 0.5 if interpolation == "midpoint" else (rank - lo).astype(data.dtype)
        results.append(v_lo.lerp(v_hi, weight if isinstance(weight, float)
                                 else _wrap(weight)))
    # (a 0-d q tensor is one quantile, like a number: no stacked view to squeeze)
    out = FUNCTIONS["stack"](results, 0) if q_is_tensor and q.ndim == 1 else results[0]
    out = out.squeeze_(-1)
    # PyTorch's composite writes its result in place a fixed number of times (ranks and
    # values for a tensor q, lerp_ for linear/midpoint): the version a user sees
    out._vc[0] = (3 if q_is_tensor and q.ndim == 1 else 1) + (
        interpolation == "linear" or interpolation == "midpoint")
    return out


def quantile(input, q, dim=None, keepdim=False, *, interpolation="linear"):
    """The ``q``-th quantiles along ``dim`` (of everything by default); NaN if any NaN."""
    return _quantile("quantile", input, q, dim, keepdim, interpolation, False)


def nanquantile(input, q, dim=None, keepdim=False, *, interpolation="linear"):
    """``quantile`` ignoring NaNs (NaN only where a slice has no numbers)."""
    return _quantile("nanquantile", input, q, dim, keepdim, interpolation, True)


_public("quantile", quantile)
_public("nanquantile", nanquantile)
