"""Writing through an index: ``x[index] = value`` (``__setitem__``) and index_put / index_put_
(imported by scatter.py, whose in-place conventions they share).

Note [How x[index] = value is recorded]
PyTorch applies the basic part of the index as views, then writes into the view: when the view
is ``self`` itself (only ``:`` and ``...``), the write is ``index_put_`` (IndexPutBackward0) for
tensor indices, else ``fill_`` for a 0-d value written into a tensor of another shape
(FillBackward3) and ``copy_`` otherwise (CopyBackwards). Into a real view (``x[0] = v``) the
same write is an in-place change of a view, so the base's history becomes a ``CopySlices``
around it (ops/views.py, the one CopySlices of every in-place op on a view). One record per
name here, all with the same forward and formulas: the gradient for ``self`` is ``grad`` with
the written region zeroed, the one for the value is ``grad[index]`` summed to the value's shape.

>>> import leafgrad as torch
>>> x = torch.ones(3, requires_grad=True)
>>> y = x * 2
>>> y[0] = 5.0
>>> type(y.grad_fn).__name__, y.grad_fn.name()
('CopySlices', 'torch::autograd::CopySlices')
"""
from __future__ import annotations

import numpy as np

from .overlap import check_setitem, writable
from .expanded_write import internal_overlap, through_expanded, warn_expanded
from .registry import bind_method, commit_inplace, defop, export_function, inplace_check
from .indexing import _index_put, index_arrays, parse_index
from .scatter import _dtype_name
from .shape import expand_op
from .views import check_view_inplace
from .._zerotensor import check_mutable
from ..autograd.graph import sum_to
from ..dtypes import cast_array
from ..grad_mode import state as _mode
from ..tensor import Tensor, _wrap, bump_version

FAMILY = "indexing"

__all__ = ["setitem", "index_put", "index_put_"]


# -- index_put / x[index] = value ---------------------------------------------------------
def index_put(self, indices, values, accumulate=False):
    """``self`` with ``values`` at ``indices`` (a tuple of index tensors, the first dims')."""
    if not isinstance(values, Tensor):
        raise TypeError(f"index_put(): argument 'values' (position 2) must be Tensor, not "
                        f"{type(values).__name__}")
    for i, idx in enumerate(indices):
        if not isinstance(idx, Tensor):   # the public op takes a list of tensors only
            raise TypeError(f"expected Tensor as element {i} in argument 0, but got "
                            f"{type(idx).__name__}")
    if len(indices) > self._data.ndim:   # PyTorch's first check (fuzz seed 50)
        raise IndexError(f"too many indices for tensor of dimension {self._data.ndim} (got "
                         f"{len(indices)})")
    _empty_dim_first(self._data.shape, indices)
    if values._data.dtype != self._data.dtype:
        _shape_before_dtype(self._data.shape, indices, values._data.shape)
        raise RuntimeError(f"Index put requires the source and destination dtypes match, got "
                           f"{_dtype_name(self._data.dtype)} for the destination and "
                           f"{_dtype_name(values._data.dtype)} for the source.")
    return _index_put.public(self, index_arrays(indices, self._data.shape), values,
                             accumulate)


def _shape_before_dtype(shape, indices, vshape):
    """PyTorch checks that the values broadcast to the indexed result before it compares the
    dtypes (fuzz seed 109: an empty float32 value into float16). The result's shape from the
    indices alone (a mask counts its True elements), without their bounds (the kernel's)."""
    try:
        parts, used = [], 0
        for t in indices:
            d = t._data
            if d.dtype == np.bool_ or d.dtype == np.uint8:
                parts.append((int(np.count_nonzero(d)),))
                used += max(d.ndim, 1)
            else:
                parts.append(d.shape)
                used += 1
        target = tuple(np.broadcast_shapes(*parts)) + tuple(shape[used:])
    except ValueError:
        return   # the indices' own error comes later, as before
    try:
        if len(vshape) > len(target) or np.broadcast_shapes(vshape, target) != target:
            raise ValueError
    except ValueError:
        raise RuntimeError(f"shape mismatch: value tensor of shape "
                           f"[{', '.join(map(str, vshape))}] cannot be broadcast to indexing "
                           f"result of shape [{', '.join(map(str, target))}]") from None


def _empty_dim_first(shape, indices):
    """PyTorch's indexing setup, which index_put runs before its dtype check: an integer index
    tensor over a dim of size 0 is out of bounds as soon as the broadcast indices hold any
    element (the bounds of other dims are checked later, by the kernel)."""
    tensors = indices[:len(shape)]
    if not any(n == 0 for n in shape[:len(tensors)]) or not all(
            t._data.dtype.kind in "iu" for t in tensors):
        return   # masks and other index kinds keep their own checks (index_arrays)
    try:
        size = int(np.prod(np.broadcast_shapes(*(t._data.shape for t in tensors))))
    except ValueError:
        return   # index_arrays names the shapes
    if size:
        raise IndexError("index is out of bounds for dimension with size 0")


def index_put_(self, indices, values, accumulate=False):
    inplace_check(self, (values,))
    return commit_inplace(self, index_put(self, indices, values, accumulate))


def _index_put_write(self, indices, values, accumulate=False):
    """index_put_ through an expanded ``self``: in index order, the last write to a shared
    place wins, or each adds (Note [Expanded writes])."""
    index_put(self, indices, values, accumulate)   # PyTorch's checks
    key = tuple(slice(None) if a is None else a
                for a in index_arrays(indices, self._data.shape))
    if not accumulate and _masked_fill_path(indices, values):
        warn_expanded("masked_fill_", 4)
    if accumulate:
        np.add.at(writable(self._data), key, values._data)
    else:
        writable(self._data)[key] = values._data


def _masked_fill_path(indices, value) -> bool:
    """PyTorch's index_put_ of one value under one bool mask (the only index) runs
    masked_fill_."""
    given = [i._data if isinstance(i, Tensor) else np.asarray(i) for i in indices
             if isinstance(i, (Tensor, list, np.ndarray))]
    return (len(given) == 1 and given[0].dtype == np.bool_ and np.size(
        value._data if isinstance(value, Tensor) else value) == 1)


index_put_ = through_expanded("index_put_", index_put_, _index_put_write)


bind_method("index_put", index_put)
bind_method("index_put_", index_put_)
export_function("index_put", index_put)
export_function("index_put_", index_put_)


def setitem_op(self, positions, value):
    """A copy of ``self`` with ``value`` written at the flat ``positions`` (see setitem)."""
    out = self.copy()
    if isinstance(value, np.ndarray) and value.ndim > positions.ndim:
        # x[1] = tensor([5.]): the value's leading size-1 dims go (checked in setitem)
        value = value.reshape(value.shape[value.ndim - positions.ndim:])
    if out.dtype == np.float16:
        value = cast_array(value, np.float16)   # Note [Double to half] in dtypes.py
    out.reshape(-1)[positions] = value
    return out


def setitem_self(grad, positions):
    return _put_all.public(grad, positions, 0.0)


def setitem_value(grad, positions, value_shape):
    g = grad.take(_wrap(positions))
    if len(value_shape) > g.ndim:     # leading size-1 dims of the value were dropped
        g = g.reshape((1,) * (len(value_shape) - g.ndim) + tuple(g.shape))
    return sum_to(g, value_shape)


_SETITEM = dict(inputs=("self", "value"), dtype="same", methods=(), functions=(),
                derivatives={"self": setitem_self, "value": setitem_value}, family=FAMILY)


def setitem_all_self(grad):
    # fill_ and copy_ overwrite all of their target: PyTorch's zeros_like(grad), no history
    return _wrap(np.zeros_like(grad._data))


_SETITEM_ALL = dict(_SETITEM, derivatives={"self": setitem_all_self, "value": setitem_value})
_fill_all = defop("setitem_fill", setitem_op, grad_fn_name="FillBackward3", **_SETITEM_ALL)
_copy_all = defop("setitem_copy", setitem_op, grad_fn_name="CopyBackwards", **_SETITEM_ALL)
_put_all = defop("setitem_index_put", setitem_op, grad_fn_name="IndexPutBackward0",
                 saved_tensor_args=("positions",), **_SETITEM)   # PyTorch saves the indices


def _check_value_shape(value, target, advanced):
    """Drop the value's leading size-1 dims and check it broadcasts to ``target``.

    PyTorch's ``copy_to`` drops all of them (``x[0] = ones(1, 2)`` for a target of shape
    (1, 3) names ``Tensor sizes: [2]``), except when the value already has the target's shape
    (written as it is)."""
    vshape = value._data.shape
    stripped = vshape
    if vshape != target or advanced:   # index_put_ always gets the stripped value
        while stripped and stripped[0] == 1:
            stripped = stripped[1:]
    if not advanced:
        expand_op(value._data.reshape(stripped), target)   # PyTorch's expand messages
        return
    try:
        if np.broadcast_shapes(stripped, target) != tuple(target):
            raise ValueError   # the value must expand to the target, not the other way
    except ValueError:
        raise RuntimeError(f"shape mismatch: value tensor of shape "
                           f"[{', '.join(map(str, stripped))}] cannot be broadcast to indexing "
                           f"result of shape [{', '.join(map(str, target))}]") from None


def setitem(self, index, value):
    """``self[index] = value``, recorded as PyTorch does (Note above).

    Without autograd the value is written through the index's view. With it, the written
    places of the view are found once as flat positions (the index applied to ``arange``),
    one out-of-place record (fill / copy / index_put) writes there, so its backward is a
    ``take`` / a zeroing ``put``, and ``commit_inplace`` moves it onto the view's base.
    """
    from ..grad_mode import no_grad
    with no_grad():   # (the advanced indices are checked after the in-place checks)
        view, arrays, changed = parse_index(self, index, validate=False)
    if changed and self._requires_grad and self._data.dtype.kind not in "fc" \
            and _mode.grad_enabled:
        # PyTorch's slicing records a view of an integer tensor with a history: refused
        # (Note [Integer tensors with history] in dispatch.py)
        from .dispatch import integer_history_error
        raise integer_history_error(self._data.dtype)
    is_tensor = isinstance(value, Tensor)
    target = view._data.shape if arrays is None else None
    if is_tensor and arrays is None:
        _check_value_shape(value, target, False)   # PyTorch expands before copy_'s checks
    kind = self._view_kind
    # PyTorch checks the written view when anything involved requires grad; copy_ (a value
    # of another shape than 0-d, basic index) counts the value only for a float target
    # (fill_, for a 0-d value and a target that is not 0-d, records even into an integer
    # tensor, as PyTorch's does)
    value_grad = is_tensor and value._requires_grad and (
        arrays is not None or (not value._data.shape and target != ())
        or self._data.dtype.kind in "fc")
    if changed and kind is not None and _mode.grad_enabled:
        # a view of a view autograd forbids changing: the newest view op names it
        sliced = parse_index(self, index, validate=False)[0]
        kind = sliced._view_kind
        if self._requires_grad or value_grad:
            check_view_inplace(sliced)
    if changed and _mode.grad_enabled and self._grad_fn is None and self._requires_grad:
        raise RuntimeError("a view of a leaf Variable that requires grad is being used in an "
                           "in-place operation.")
    if type(self._data) is not np.ndarray and not (self._requires_grad
                                                   and self._grad_fn is None):
        # a zero tensor: a basic index writes with copy_ (own words), or with fill_ for a 0-d
        # value into a target that is not 0-d; an advanced one with index_put_
        check_mutable(self, copy=arrays is None and (target == () or (
            is_tensor and value._data.ndim != 0)))
    inplace_check(self, (value,) if value_grad else ())
    if isinstance(value, str):
        raise TypeError(f"can't assign a str to a torch.{self.dtype.tensor_type}")
    key = Ellipsis
    if arrays is not None:
        arrays = index_arrays(arrays, view._data.shape)
        key = tuple(slice(None) if a is None else a for a in arrays)
        target = view._data[key].shape
    if is_tensor and arrays is not None:
        _check_value_shape(value, target, True)
    same = check_setitem(view._data, value, arrays is not None)   # Note [Memory overlap]
    if is_tensor and arrays is not None and value._data.dtype != self._data.dtype:
        # index_put_ casts nothing (a basic index's copy_ / fill_ does)
        raise RuntimeError(f"Index put requires the source and destination dtypes match, got "
                           f"{_dtype_name(self._data.dtype)} for the destination and "
                           f"{_dtype_name(value._data.dtype)} for the source.")
    # an integer tensor records nothing when copy_ writes, even if the value requires grad
    if not (_mode.grad_enabled and (self._requires_grad or value_grad)):
        if arrays is not None and internal_overlap(view._data):
            # index_put_ through an expanded tensor (Note [Expanded writes])
            warn_expanded("index_put_", 3)
            if _masked_fill_path(index if isinstance(index, tuple) else (index,), value):
                warn_expanded("masked_fill_", 3)
        # writable: an index into an expanded view may still pick distinct elements
        value = value._data if is_tensor else value
        if view._data.dtype == np.float16:
            value = cast_array(value, np.float16)   # Note [Double to half] in dtypes.py
        writable(view._data)[key] = value
        bump_version(self)
        return
    if arrays is not None:
        rec = _put_all
    elif (value._data.shape if is_tensor else ()) == () and target != ():
        rec = _fill_all     # PyTorch's copy_to: fill_ for a 0-d value of another shape
    else:
        rec = _copy_all
    if is_tensor:
        value = _shaped_value(value, target, arrays is not None)
    # a real view is changed in place like any view: CopySlices on the base (ops/views.py)
    written = _writable_view(self, view, kind) if changed else self
    del view   # (a view left holding the counter would send commit_inplace looking for views)
    where = np.arange(written._data.size).reshape(written._data.shape)
    commit_inplace(written, rec.public(written, np.asarray(where[key]), value),
                   expanded_ok=bool(same))


def _shaped_value(value, target, advanced):
    """The value as PyTorch writes it: without its leading size-1 dims (a ``view``), and for
    a copy expanded to the target's shape; a value of the target's shape or a 0-d one (fill)
    goes as it is. These are recorded ops, so the value's gradient path matches PyTorch's."""
    shape = value._data.shape
    stripped = shape
    while stripped and stripped[0] == 1:
        stripped = stripped[1:]
    if advanced:
        return value.view(stripped) if stripped != shape else value
    if shape == target or not shape:
        return value
    value = value.view(stripped)
    return value.expand(target) if stripped != target else value


def _writable_view(self, view, kind):
    """The view ``parse_index`` made (under no_grad) as a view of ``self``'s base that
    ``commit_inplace`` may rebase, with the view checks of ``kind``."""
    v = _wrap(view._data, None, self._vc)
    v._base = self._base if self._base is not None else self
    v._view_version = self._vc[0]
    v._requires_grad = self._requires_grad
    v._view_kind = kind
    if self._requires_grad and self._base is not None and self._vc[0] != self._view_version:
        from .dispatch import refresh_view
        refresh_view(self)   # PyTorch's indexing reads self's grad_fn: a stale view regrows it
    if self._requires_grad and self._grad_fn is not None:
        # PyTorch's written view's node (SelectBackward0, ...) leads to self's: the op's node
        # keeps self's history alive through its first edge, as in ops/views.py's rebase_node
        # (a version error then names the view's AsStrided: fuzz seed 156)
        v._grad_fn, v._output_nr = self._grad_fn, self._output_nr
    return v


bind_method("__setitem__", setitem)
