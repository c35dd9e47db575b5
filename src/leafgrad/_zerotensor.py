"""PyTorch's "efficient zero tensors": immutable zeros that some backward formulas return.

Note [Zero tensors]
A few of PyTorch's backward formulas (``sgn`` of a real input) return
``at::_efficientzerotensor``: a tensor of zeros without storage, marked by a dispatch key.
Users see it: ``x.grad._is_zerotensor()`` is True, and any in-place change of it (a second
backward accumulating into ``x.grad``, ``x.grad.zero_()``, ``x.grad += 1``) raises
"ZeroTensors are immutable...". Its dispatch key gives a few ops their own rule; every other
op sees plain zeros ("materializes" it) and returns an ordinary tensor:

* ``mul`` with a zero tensor on either side, and ``div`` of one, give a zero tensor (zeros
  even where ``0 * inf`` or ``0 / 0`` would be NaN); so do ``dot`` and ``vdot``;
* ``add``/``sub`` of two give one; of one with an ordinary tensor, the ordinary operand
  (``z - g`` is ``-g``), signed zeros included;
* views (``view``, ``expand``, ``t``, ``select``, slicing, ``detach``, ``.data``) stay
  zero tensors; ``clone``, ``contiguous`` copies, advanced indexing and casts to another
  dtype do not.

leafgrad keeps a zero tensor's mark in the type of its array: ``ZeroArray``, a read-only
ndarray subclass holding real zeros. NumPy hands every ufunc call with such an operand to
``ZeroArray.__array_ufunc__`` (the rules above) and keeps the subclass through views on its
own, so ordinary tensors pay nothing: no op tests a flag. A ``ZeroArray`` is "live" (a zero
tensor) only while read-only: what NumPy derives from one by copying (``empty_like``, fancy
indexing, a reshape that copies) is writable, so counts as an ordinary array (and is turned
back into one by the next ufunc). The one test on a hot path is ``inplace_check``'s
(ops/inplace.py): one type comparison.
"""
from __future__ import annotations

import numpy as np

__all__ = ["ZeroArray", "zeros", "is_zero_array", "zerotensor", "IMMUTABLE", "IMMUTABLE_COPY",
           "check_mutable", "materialized", "NO_NUMPY", "NOT_SERIALIZABLE"]

IMMUTABLE = ("ZeroTensors are immutable. Please use the materialized zero tensor obtained "
             "using .clone() if you want a mutable tensor.")
# (copy_, and so ``x[i] = tensor``, word it differently)
IMMUTABLE_COPY = ("ZeroTensors are immutable. Please materialize the tensor using `.clone()`, "
                  "if you want a mutable zero tensor.")

NO_NUMPY = " Cannot convert a ZeroTensor to numpy. Set force=True if you need the zero array."
NOT_SERIALIZABLE = "ZeroTensor is not serializable, please file an issue if required."

_ndarray = np.ndarray


def _plain(a):
    return a.view(_ndarray) if isinstance(a, ZeroArray) else a


def _live(a) -> bool:
    return isinstance(a, ZeroArray) and not a.flags.writeable


class ZeroArray(np.ndarray):
    """The array of a zero tensor (Note [Zero tensors]): read-only zeros."""

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        out = kwargs.get("out")
        if out is not None:   # a write: into an ordinary array, or a forward's own product
            kwargs["out"] = tuple(_plain(_release(o)) for o in out)
            getattr(ufunc, method)(*[_plain(a) for a in inputs], **kwargs)
            return out[0] if len(out) == 1 else out
        result = getattr(ufunc, method)(*[_plain(a) for a in inputs], **kwargs)
        if method != "__call__" or len(inputs) != 2 or ufunc.nout != 1:
            return result
        first, second = _live(inputs[0]), _live(inputs[1])
        if ufunc is np.multiply or (ufunc is np.divide and first) or (
                first and second and (ufunc is np.add or ufunc is np.subtract)):
            return zeros(np.shape(result), np.asarray(result).dtype)
        if ufunc is np.add or ufunc is np.subtract:
            # PyTorch returns the other operand (negated for ``z - g``): its signed zeros stay
            result = np.asarray(result)
            if first or second:
                other = inputs[1] if first else inputs[0]
                value = np.negative(other) if first and ufunc is np.subtract else other
                return np.array(np.broadcast_to(value, result.shape), dtype=result.dtype)
        return result

    def __array_function__(self, func, types, args, kwargs):
        if func is np.broadcast_to:   # expand: a view, so still a zero tensor
            kwargs = dict(kwargs, subok=True)
        elif func is np.dot or func is np.vdot:
            out = func(*[_plain(a) for a in args], **kwargs)
            if any(_live(a) for a in args[:2]):
                return zeros(np.shape(out), np.asarray(out).dtype)
            return out
        return super().__array_function__(func, types, args, kwargs)

    def __setitem__(self, key, value):
        _release(self)
        _ndarray.__setitem__(self.view(_ndarray), key, value)

    def copy(self, order="C"):
        return self.view(_ndarray).copy(order)

    def astype(self, dtype, *args, **kwargs):
        return self.view(_ndarray).astype(dtype, *args, **kwargs)

    def __reduce_ex__(self, protocol):   # a pickled copy is ordinary zeros
        return self.view(_ndarray).copy().__reduce_ex__(protocol)


def _release(a):
    """Make a zero array that an op's NumPy forward made (``a * zero``) and now changes in place
    (``out *= 2``) an ordinary one. Tensors' zero arrays never get here (in-place ops check
    first, ops/inplace.py); a view of one stays read-only, so NumPy refuses the write."""
    if _live(a) and a.base is None:
        a.flags.writeable = True
    return a


def zeros(shape, dtype) -> ZeroArray:
    """A live ``ZeroArray``: its own read-only memory, so no view of it can be made writable."""
    arr = ZeroArray(shape, dtype)
    arr.view(_ndarray).fill(0)
    arr.flags.writeable = False
    return arr


def is_zero_array(arr) -> bool:
    """Whether ``arr`` is a live zero tensor's array (see Note [Zero tensors])."""
    return type(arr) is ZeroArray and not arr.flags.writeable


def zerotensor(shape, np_dtype):
    """A zero tensor (``at::_efficientzerotensor``) of ``shape`` and ``np_dtype``."""
    from .tensor import _wrap
    return _wrap(zeros(tuple(shape), np_dtype))


def materialized(arr: np.ndarray) -> np.ndarray:
    """``arr`` as an ordinary array (a zero tensor's zeros as a plain read-only view)."""
    return arr.view(_ndarray) if type(arr) is ZeroArray else arr


def check_mutable(t, copy: bool = False) -> None:
    """PyTorch's error for an in-place change of a zero tensor (``copy``: copy_'s wording).
    Called where ``type(t._data) is not np.ndarray``."""
    if is_zero_array(t._data):
        raise RuntimeError(IMMUTABLE_COPY if copy else IMMUTABLE)


def efficientzerotensor(*size, dtype=None, layout=None, device=None, pin_memory=None,
                        requires_grad=False):
    """``torch._efficientzerotensor(size)``: a zero tensor (Note [Zero tensors])."""
    from . import dtypes as _dt
    from ._device import check_device
    if not size:
        raise TypeError('_efficientzerotensor() missing 1 required positional arguments: '
                        '"size"')
    if len(size) == 1 and isinstance(size[0], (tuple, list)):
        size = size[0]
    if device is not None:
        check_device(device)
    np_dtype = (_dt.get_default_dtype() if dtype is None else _dt.to_dtype(dtype)).np
    t = zerotensor(tuple(int(s) for s in size), np_dtype)
    if requires_grad:
        t.requires_grad_()
    return t
