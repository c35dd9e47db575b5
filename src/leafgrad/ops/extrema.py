"""Extremes: max, min (three overloads each), amax, amin, median.

Note [Ties]
PyTorch routes gradients through ties differently by overload, and leafgrad copies it:
``x.max()`` / ``x.amax(dim)`` / ``x.median()`` split the gradient evenly among all tied
elements; ``x.max(dim)`` / ``x.median(dim)`` send it all to the one index they return.

>>> import leafgrad as torch
>>> x = torch.tensor([1.0, 3.0, 3.0], requires_grad=True)
>>> x.max().backward()
>>> x.grad
tensor([0.0000, 0.5000, 0.5000])
"""
from __future__ import annotations

import numpy as np

from .iter_layout import contiguous_result
from .pointwise_common import not_implemented_for
from .registry import defop, export_function, bind_method, FUNCTIONS, Sample
from .out_tuples import extreme_out, tuple_out
from .numpy_aliases import NA as _NA, dim_keepdim as _aliased
from .reduction import _dims, _wrap_dim, expand_grad, _const, _NODIM
from .. import return_types
from ..grad_mode import state as _mode
from ..tensor import Tensor, _wrap

FAMILY = "reduction"


def _nonempty(self, name):
    if self.size == 0:
        raise RuntimeError(f"{name}(): Expected reduction dim to be specified for input.numel() "
                           "== 0. Specify the reduction dim with the 'dim' argument.")


def _tie_mask(self, result, axis):
    """Where ``self`` equals the reduced ``result``, divided by the number of such places."""
    d = self._data
    r = result._data
    if axis is not None:
        r = np.expand_dims(r, axis) if r.ndim < d.ndim else r
    mask = (d == r)
    count = mask.sum(axis=axis, keepdims=True)
    # in self's dtype: a float64 mask would promote a 0-d float32 gradient (no cast follows
    # when the input is already the output's shape)
    return _const((mask / count).astype(d.dtype, copy=False))


# -- full reductions: max(), min(), median() ---------------------------------------------------
def max_all(self):
    """Largest element."""
    _nonempty(self, "max")
    return np.max(self)


def min_all(self):
    """Smallest element."""
    _nonempty(self, "min")
    return np.min(self)


def median_all(self):
    """The lower median: the ``(n - 1) // 2``-th smallest element."""
    if self.size == 0:
        # PyTorch: NaN, cast to the dtype (INT64_MIN for long, True for bool)
        with np.errstate(invalid="ignore"):
            return np.array(np.nan).astype(self.dtype)
    flat = self.reshape(-1)
    if np.isnan(flat).any() if flat.dtype.kind == "f" else False:
        return np.array(np.nan, self.dtype)
    k = (flat.size - 1) // 2
    return np.partition(flat, k)[k]


def evenly_self(grad, self, result):
    # PyTorch's evenly_distribute_backward (CPU): zeros masked_fill_'ed where self equals the
    # result (where self is NaN for a NaN result) with grad / count, so double backward
    # records MaskedFillBackward1 (fuzz seed 14)
    mask = self.isnan() if np.isnan(result._data).any() else self == result
    zeros = _wrap(np.zeros(self._data.shape, self._data.dtype))
    return zeros.masked_fill_(mask, grad / mask.sum())


def _full_samples(call):
    def samples(make, shapes):
        ties = np.asarray(np.round(make(shapes[1])))        # integer values: many ties
        return [Sample((make(shapes[0]),), call=call), Sample((ties,), call=call)]
    return samples


_max1 = defop("max_all", max_all, derivatives={"self": evenly_self}, dtype="same",
              grad_fn_name="MaxBackward1", methods=(), functions=(), family=FAMILY,
              samples=_full_samples("max"))
_min1 = defop("min_all", min_all, derivatives={"self": evenly_self}, dtype="same",
              grad_fn_name="MinBackward1", methods=(), functions=(), family=FAMILY,
              samples=_full_samples("min"))
_median0 = defop("median_all", median_all, derivatives={"self": evenly_self}, dtype="same",
                 grad_fn_name="MedianBackward0", methods=(), functions=(), family=FAMILY,
                 samples=lambda make, shapes: [Sample((make(shapes[0]),), call="median")])


# -- along a dim: values and indices -------------------------------------------------------------
def _kept_indices(indices, axis, keepdim):
    """The indices (the op's returned indices tensor, or an array) with ``dim`` kept."""
    data = indices._data if isinstance(indices, Tensor) else indices
    return data if keepdim else np.expand_dims(data, axis)


def select_dim(self, dim, keepdim, indices):
    """The values at ``indices`` (chosen by the wrapper: the indices tensor it returns, as
    PyTorch saves that very tensor) along ``dim``."""
    if self.ndim == 0:
        return self.copy()
    axis = _wrap_dim(dim, self.ndim)
    out = np.take_along_axis(self, _kept_indices(indices, axis, keepdim), axis)
    return out if keepdim else np.squeeze(out, axis)


def select_dim_self(grad, self_shape, dim, keepdim, indices):
    """The gradient scattered back to the selected places: PyTorch's
    ``zeros.scatter(dim, indices, grad)`` (ScatterBackward0 when it is recorded)."""
    recorded = grad._requires_grad and _mode.grad_enabled
    axis = _wrap_dim(dim, len(self_shape) or 1)   # (this module defines its own max)
    g = grad if keepdim or not self_shape else grad.unsqueeze(axis)
    if self_shape:
        indices = _kept_indices(indices, axis, keepdim)
    if recorded:
        from .scatter import _scatter
        zeros = _wrap(np.zeros(self_shape, dtype=grad._data.dtype))
        index = indices if self_shape else np.zeros((), np.int64)
        out = _scatter.public(zeros, axis, _wrap(index), g)
    elif not self_shape:
        out = _wrap(np.array(grad._data, copy=True))
    else:
        data = np.zeros(self_shape, dtype=grad._data.dtype)
        np.put_along_axis(data, indices, g._data, axis)
        out = _wrap(data)
    out._vc[0] = 2   # PyTorch's gradient comes out of two in-place writes
    return out


def _dim_samples(call):
    def samples(make, shapes):
        base = shapes[1] or (3,)
        return [Sample((make(base), -1), call=call), Sample((make(base), 0, True), call=call),
                Sample((make(base),), {"dim": 0}, call=call)]
    return samples


_max0 = defop("max_dim", select_dim, derivatives={"self": select_dim_self}, dtype="same",
              grad_fn_name="MaxBackward0", methods=(), functions=(), family=FAMILY,
              saved_tensor_args=("indices",),
              samples=_dim_samples("max"))
_min0 = defop("min_dim", select_dim, derivatives={"self": select_dim_self}, dtype="same",
              grad_fn_name="MinBackward0", methods=(), functions=(), family=FAMILY,
              saved_tensor_args=("indices",),
              samples=_dim_samples("min"))
_median1 = defop("median_dim", select_dim, derivatives={"self": select_dim_self},
                 dtype="same", grad_fn_name="MedianBackward1", methods=(), functions=(),
                 saved_tensor_args=("indices",),
                 family=FAMILY, samples=_dim_samples("median"))


def _check_keepdim(name, keepdim):
    if not isinstance(keepdim, (bool, np.bool_)):
        raise TypeError(f"{name}(): argument 'keepdim' (position 2) must be bool, not "
                        f"{type(keepdim).__name__}")


def along_checks(name, d, dim):
    """The checks PyTorch makes of a values-and-indices reduction's ``dim`` before its
    kernel's dtype dispatch: in range, then of non-zero size; the wrapped dim (None for a
    0-d ``d``)."""
    if d.ndim == 0:
        _wrap_dim(dim, 1)
        return None
    axis = _wrap_dim(dim, d.ndim)
    if d.shape[axis] == 0:
        raise IndexError(f"{name}(): Expected reduction dim {axis} to have non-zero size.")
    return axis


def _along(rec, name, pick, input, dim, keepdim, check_name=None):
    _check_keepdim(name, keepdim)
    d = input._data
    axis = along_checks(check_name or name, d, dim)
    # the indices tensor returned is the one the node saves (changing it in place is caught)
    if axis is None:
        idx = _wrap(np.zeros((), np.int64))
        values = rec.public(input, dim, keepdim, idx)
        return getattr(return_types, name)((values, idx))
    idx = pick(d, axis)
    idx = idx if keepdim else np.squeeze(idx, axis)
    # a fresh contiguous tensor, size-1 dims included, as PyTorch allocates it
    out_idx = _const(contiguous_result(idx) if idx.ndim > 1 else idx)
    values = rec.public(input, axis, keepdim, out_idx)
    return getattr(return_types, name)((values, out_idx))


def _argmax_keep(d, axis):
    return np.argmax(d, axis=axis, keepdims=True).astype(np.int64, copy=False)


def _argmin_keep(d, axis):
    return np.argmin(d, axis=axis, keepdims=True).astype(np.int64, copy=False)


def _argmedian_keep(d, axis):
    k = (d.shape[axis] - 1) // 2
    order = np.argsort(d, axis=axis, kind="stable")
    idx = np.take(order, [k], axis=axis).astype(np.int64, copy=False)
    if d.dtype.kind == "f":
        nan = np.isnan(d)
        if nan.any():   # PyTorch's median(dim) gives a slice's first NaN
            has = nan.any(axis=axis, keepdims=True)
            idx = np.where(has, np.argmax(nan, axis=axis, keepdims=True), idx)
    return idx


def _pairwise(name, other):
    fn = FUNCTIONS.get("maximum" if name == "max" else "minimum")
    if fn is None:
        raise NotImplementedError(f"torch.{name}(a, b) needs torch."
                                  f"{'maximum' if name == 'max' else 'minimum'}, which is not "
                                  "implemented yet")
    return fn


def max(input, dim=_NODIM, keepdim=False, *, out=None, axis=_NA, keepdims=_NA):
    """``max(x)``: the largest element; ``max(x, dim)``: ``(values, indices)`` along ``dim``;
    ``max(x, other)``: the elementwise maximum.

    >>> import leafgrad as torch
    >>> torch.tensor([[1.0, 5.0], [7.0, 2.0]]).max()
    tensor(7.)
    """
    if axis is not _NA or keepdims is not _NA:   # Note [NumPy aliases at no cost]
        dim, keepdim = _aliased("max", dim, _NODIM, keepdim, axis, keepdims)
    if dim is _NODIM:
        return _max1.public(input)
    if isinstance(dim, Tensor):
        return _pairwise("max", dim)(input, dim)
    return _along(_max0, "max", _argmax_keep, input, dim, keepdim)


def min(input, dim=_NODIM, keepdim=False, *, out=None, axis=_NA, keepdims=_NA):
    """``min(x)``, ``min(x, dim)`` or ``min(x, other)``; see :func:`max`."""
    if axis is not _NA or keepdims is not _NA:   # Note [NumPy aliases at no cost]
        dim, keepdim = _aliased("min", dim, _NODIM, keepdim, axis, keepdims)
    if dim is _NODIM:
        return _min1.public(input)
    if isinstance(dim, Tensor):
        return _pairwise("min", dim)(input, dim)
    return _along(_min0, "min", _argmin_keep, input, dim, keepdim)


def median(input, dim=_NODIM, keepdim=False, *, axis=_NA, keepdims=_NA):
    """The lower median of all elements, or ``(values, indices)`` along ``dim``."""
    if axis is not _NA or keepdims is not _NA:   # Note [NumPy aliases at no cost]
        dim, keepdim = _aliased("median", dim, _NODIM, keepdim, axis, keepdims)
    if input._data.dtype == np.bool_:
        if dim is _NODIM:
            if input._data.size:   # (an empty one gives True)
                raise not_implemented_for("median_cpu", input._data)
        else:   # the dim is checked first
            _check_keepdim("median", keepdim)
            along_checks("median", input._data, dim)
            raise not_implemented_for("median_out", input._data)
    if dim is _NODIM:
        return _median0.public(input)
    return _along(_median1, "median", _argmedian_keep, input, dim, keepdim)


# -- amax / amin ---------------------------------------------------------------------------------
def _amax_like(fn, name, self, dim, keepdim):
    axis = _dims(dim, self.ndim) if not (isinstance(dim, (tuple, list)) and not dim) else None
    if axis is None:
        _nonempty(self, name)
    else:
        # PyTorch names the dim as it was given (-1 stays -1)
        for a in ((dim,) if isinstance(dim, int) else tuple(dim)):
            if self.shape[a] == 0:
                raise IndexError(f"{name}(): Expected reduction dim {a} to have non-zero size.")
    return fn(self, axis=axis, keepdims=keepdim)


def amax(self, dim=(), keepdim=False):
    """Largest values over ``dim`` (all dims by default); ties share the gradient."""
    return _amax_like(np.max, "amax", self, dim, keepdim)


def amin(self, dim=(), keepdim=False):
    """Smallest values over ``dim``; ties share the gradient."""
    return _amax_like(np.min, "amin", self, dim, keepdim)


def amax_self(grad, self, result, dim, keepdim):
    """PyTorch's ``scale_grad_by_count(restore_reduced_dims(grad), restored result == self)``:
    ``(grad / count) * mask``, in that order (the rounding and the double-backward nodes are
    PyTorch's). On a 0-d input with a dim, the restored gradient has shape (1,) and the engine
    sums it back to () (``SumBackward0``), as PyTorch's does."""
    shape = self._data.shape
    if isinstance(dim, (tuple, list)) and not dim:
        axis = None
    elif not shape:
        # a 0-d input's dim restores as one dim of size 1 (none to restore with keepdim)
        axis = None if keepdim else (0,)
    else:
        axis = _dims(dim, len(shape))
    r = result._data
    if not keepdim:   # PyTorch's restore_reduced_dims: a reshape, even to the same shape
        target = list(r.shape)
        for a in axis or ():
            target.insert(a, 1)
        grad = grad.reshape(tuple(target))
        r = r.reshape(tuple(target))
    mask = self._data == r
    count = mask.sum(axis=axis, keepdims=True)
    out = (grad / _const(count)) * _const(mask)
    return out.sum() if out._data.shape != shape else out   # the engine's sum_to, shape ()


def _amax_samples(call):
    def samples(make, shapes):
        base = shapes[1]
        ties = np.asarray(np.round(make(base)))
        out = [Sample((make(base),), call=call), Sample((ties,), call=call)]
        if base:
            out += [Sample((ties, -1), call=call), Sample((make(base), [0], True), call=call)]
        return out
    return samples


defop("amax", amax, derivatives={"self": amax_self}, dtype="same", family=FAMILY,
      samples=_amax_samples("amax"))
defop("amin", amin, derivatives={"self": amax_self}, dtype="same", family=FAMILY,
      samples=_amax_samples("amin"))

for _name, _fn in (("max", max), ("min", min), ("median", median)):
    # torch.<name> takes out= (ops/out_tuples.py), the methods don't
    export_function(_name, tuple_out(_name, _fn) if _name == "median" else
                    extreme_out(_name, _fn))
    bind_method(_name, _fn)
