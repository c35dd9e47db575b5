"""Casts and copies: ``to``, ``float()`` / ``long()`` / ..., ``type_as``, ``clone``,
``contiguous``, and the fills ``fill_`` / ``zero_``.

A float-to-float cast keeps the graph (ToCopyBackward0); a cast to an integer or bool dtype
cuts it, since such tensors cannot require grad; a cast to the same dtype returns ``self``
unless ``copy=True``.

>>> import leafgrad as torch
>>> x = torch.tensor([1.5, 2.5], requires_grad=True)
>>> x.double().grad_fn.name(), x.long().requires_grad, x.float() is x
('ToCopyBackward0', False, True)
"""
from __future__ import annotations

import numpy as np

from .. import dtypes as _dt
from ..grad_mode import state as _mode
from ..tensor import Tensor, _Device, _wrap, check_device, bump_version
from .iter_layout import (OWN, SELF, dense_layout, elem_strides, odd_strides, relayout,
                          with_strides)
from .overlap import check_internal_overlap, writable
from .pointwise_common import zeros_grad
from .registry import Sample, bind_method, commit_inplace, defop, export_function, \
    inplace_check

__all__: list = []

FAMILY = "pointwise"


# -- to -------------------------------------------------------------------------------------
def to_copy(self, dtype):
    """A copy of ``self`` in the NumPy dtype ``dtype`` (ToCopyBackward0)."""
    return _dt.cast_array(self, dtype)


def to_copy_self(grad, self_dtype):
    return grad.to(self_dtype)


def _to_samples(make, shapes):
    return [Sample((make(shapes[0]), _dt.float32), call="Tensor.to"),
            Sample((make(shapes[0]),), {"dtype": _dt.float64, "copy": True}, call="Tensor.to"),
            Sample((make(shapes[0]),), call="Tensor.float"),
            Sample((make(shapes[0]),), call="Tensor.half", atol=1e-2),
            Sample((make(shapes[0]),), call="Tensor.long"),
            Sample((make(shapes[0]),), call="Tensor.bool"),
            Sample((make(shapes[0], -5, 5, np.int64),), call="Tensor.double"),
            Sample((make(shapes[0]), make(shapes[1], -5, 5, np.int64)), call="Tensor.type_as")]


_to_copy = defop("_to_copy", to_copy, inputs=("self",), derivatives={"self": to_copy_self},
                 dtype="same", grad_fn_name="ToCopyBackward0", methods=(), functions=(),
                 samples=_to_samples, family=FAMILY, layout=SELF)

_TO_SIGNATURES = (
    " * (torch.device device = None, torch.dtype dtype = None, bool non_blocking = False, "
    "bool copy = False, *, torch.memory_format memory_format = None)\n"
    " * (torch.dtype dtype, bool non_blocking = False, bool copy = False, *, "
    "torch.memory_format memory_format = None)\n"
    " * (Tensor tensor, bool non_blocking = False, bool copy = False, *, "
    "torch.memory_format memory_format = None)\n")


def _to_type_error(args):
    def name(v):
        if isinstance(v, _dt.dtype):
            return "torch.dtype"
        if isinstance(v, _Device):
            return "torch.device"
        return "Tensor" if isinstance(v, Tensor) else type(v).__name__
    return TypeError(f"to() received an invalid combination of arguments - got "
                     f"({', '.join(name(a) for a in args)}), but expected one of:\n"
                     + _TO_SIGNATURES)


def _parse_to(args, kwargs):
    """``to``'s three overloads -> (dtype or None, copy)."""
    dtype = kwargs.get("dtype")
    copy = kwargs.get("copy", False)
    device = kwargs.get("device")
    if args:
        first, rest = args[0], list(args[1:])
        if isinstance(first, Tensor):
            dtype = first.dtype
        elif isinstance(first, _dt.dtype) or first in (float, int, bool):
            dtype = first
        elif isinstance(first, (str, _Device)) or first is None:
            device = first
            if rest and isinstance(rest[0], (_dt.dtype, type(None))):
                dtype = rest.pop(0)
            elif rest and not isinstance(rest[0], bool):
                raise _to_type_error(args)
        elif isinstance(first, int):
            raise RuntimeError("Cannot access accelerator device when none is available.")
        else:
            raise _to_type_error(args)
        if len(rest) > 2 or not all(isinstance(r, bool) for r in rest):
            raise _to_type_error(args)
        if len(rest) == 2:
            copy = rest[1]
    if device is not None:
        check_device(device)
    if dtype is not None:
        dtype = _dt.to_dtype(dtype)
    return dtype, copy



def to(self, *args, **kwargs):
    """Cast to ``dtype`` (or ``other``'s dtype); ``device`` must be the CPU."""
    dtype, copy = _parse_to(args, kwargs) if args or kwargs else (None, False)
    if dtype is None:
        if not copy:
            return self
        dtype = self.dtype
    elif dtype.np == self._data.dtype and not copy:
        return self
    return _cast(self, dtype)


def _cast(self, dtype):
    if dtype.is_floating_point:
        return _to_copy.public(self, dtype.np)
    # Integer and bool tensors cannot require grad: the result leaves the graph.
    d = self._data
    out = d.astype(dtype.np)
    if out.ndim > 1 and not d.flags.c_contiguous:
        out = relayout(out, [d])   # (an expanded input's copy is dense, as ``.to()``'s)
    elif out.ndim > 1 and odd_strides(d):
        out = with_strides(out, elem_strides(d))   # (empty_like keeps a column's strides)
    return _wrap(out)


bind_method("to", to)


def _method(dtype, name):
    def cast(self, memory_format=None):
        if self._data.dtype == dtype.np:
            return self
        return _cast(self, dtype)
    cast.__name__ = cast.__qualname__ = name
    cast.__doc__ = f"``self.to({dtype!r})``."
    return cast


for _name, _dtype in (("float", _dt.float32), ("double", _dt.float64), ("half", _dt.float16),
                      ("long", _dt.int64), ("int", _dt.int32), ("short", _dt.int16),
                      ("char", _dt.int8), ("byte", _dt.uint8), ("bool", _dt.bool_)):
    bind_method(_name, _method(_dtype, _name))


def _bfloat16(self, memory_format=None):
    raise NotImplementedError("leafgrad has no bfloat16 dtype; use float() or half() instead")


bind_method("bfloat16", _bfloat16)


def type_as(self, other):
    """``self.to(other.dtype)``."""
    return to(self, other.dtype)


bind_method("type_as", type_as)


# -- clone / contiguous ---------------------------------------------------------------------
def clone(self, *, memory_format=None):
    """A copy with the same strides order (CloneBackward0)."""
    if 0 in self.strides:
        # An expanded input is not dense: PyTorch lays the copy out from the other dims'
        # order, leaving the broadcast dims where they are (NumPy's "K" would put them last).
        kept = [st for st, n in zip(self.strides, self.shape) if st and n != 1]
        if kept == sorted(kept, reverse=True):
            return np.array(self, copy=True, order="C")
    elif odd_strides(self) or (not self.flags.c_contiguous and 1 in self.shape
                               and dense_layout(self)):
        # empty_like keeps a dense input's very strides, a size-1 dim's too (a transposed
        # column's (1, 4)), where NumPy's order "K" picks its own
        return with_strides(np.array(self, copy=True), elem_strides(self))
    return np.array(self, copy=True, order="K")


def clone_self(grad):
    return grad


_clone = defop("clone", clone, derivatives={"self": clone_self}, dtype="same", family=FAMILY,
               samples=lambda make, shapes: [Sample((make(shapes[0]),)),
                                             Sample((make(shapes[1], -5, 5, np.int64),))],
               layout=OWN)


def contiguous_copy(self):
    """A C-ordered copy (what ``contiguous()`` runs on a non-contiguous tensor)."""
    return np.ascontiguousarray(self)


_contiguous = defop("contiguous_copy", contiguous_copy, derivatives={"self": clone_self},
                    dtype="same", grad_fn_name="CloneBackward0", methods=(), functions=(),
                    family=FAMILY, layout=OWN)


def contiguous(self, memory_format=None):
    """``self`` if already C-contiguous, else a C-ordered copy (CloneBackward0)."""
    if self._data.flags.c_contiguous:
        return self
    return _contiguous.public(self)


bind_method("contiguous", contiguous)


# -- fill_ / zero_ --------------------------------------------------------------------------
def fill(self, value):
    """``self``'s shape and dtype, every element ``value`` (FillBackward2)."""
    return np.full_like(self, value)


def fill_self(grad):
    return zeros_grad(grad)


def fill_value(grad):
    return grad.sum()


_fill = defop("fill", fill, layout=OWN, derivatives={"self": fill_self}, dtype="same",
              grad_fn_name="FillBackward2", methods=(), functions=(), family=FAMILY,
              samples=lambda make, shapes: [Sample((make(shapes[0]), 2.5),
                                                   call="Tensor.fill_"),
                                            Sample((make(shapes[0], -3, 3, np.int64), 2.5),
                                                   call="Tensor.fill_")])


def fill_tensor(self, value):
    """``fill`` with a 0-d tensor ``value`` (FillBackward3)."""
    if value.ndim != 0:
        raise RuntimeError("fill_ only supports 0-dimension value tensor but got tensor with "
                           f"{value.ndim} dimensions.")
    return np.full_like(self, value)


_fill_t = defop("fill_tensor", fill_tensor, layout=OWN, inputs=("self", "value"),
                derivatives={"self": fill_self, "value": fill_value}, dtype="same",
                grad_fn_name="FillBackward3", methods=(), functions=(), family=FAMILY,
                samples=lambda make, shapes: [Sample((make(shapes[0]), make(())),
                                                     call="Tensor.fill_")])


def zero(self):
    """Zeros of ``self``'s shape and dtype (ZeroBackward0)."""
    return np.zeros_like(self)


_zero = defop("zero", zero, layout=OWN, derivatives={"self": fill_self}, dtype="same",
              grad_fn_name="ZeroBackward0", methods=(), functions=(), family=FAMILY,
              samples=lambda make, shapes: [Sample((make(shapes[0]),), call="Tensor.zero_")])


def _write_untracked(self, value):
    """The no-graph path of ``fill_`` / ``zero_`` (optimizers, initialisers): write in place."""
    # PyTorch's fill_ skips the memory-overlap checks: it writes through expanded views
    writable(self._data).fill(value)
    bump_version(self)
    return self


def fill_(self, value):
    """Set every element to ``value`` (a number or a 0-d tensor)."""
    if isinstance(value, Tensor):
        tracked = _mode.grad_enabled and (self._requires_grad or value._requires_grad)
        if tracked:   # autograd's in-place checks come before the kernel's
            inplace_check(self, (value,))
        if value._data.ndim != 0:
            raise RuntimeError("fill_ only supports 0-dimension value tensor but got tensor "
                               f"with {value._data.ndim} dimensions.")
        # unlike fill_ with a number, the tensor overload refuses an expanded self
        if tracked:
            if 0 in self._data.strides:
                check_internal_overlap(self._data)
            return commit_inplace(self, _fill_t.public(self, value), expanded_ok=True)
        if 0 in self._data.strides:
            check_internal_overlap(self._data)
        # a tensor value converts as a cast does (no overflow check: 300 in int8 is 44)
        return _write_untracked(self, value.to(self.dtype)._data[()])
    # a number goes through c10's checked conversion (int8 fill_(300) is refused), except
    # into a one-element half tensor (PyTorch's one-element fast path: 1e6 is inf there)
    from .select import checked_value
    d = self._data
    if d.size == 1 and d.dtype == np.float16:
        checked = _dt.cast_array(value, np.float16)[()]
    else:
        checked = checked_value(value, d.dtype)
    if _mode.grad_enabled and self._requires_grad:
        inplace_check(self)
        return commit_inplace(self, _fill.public(self, value), expanded_ok=True)
    return _write_untracked(self, checked)


def zero_(self):
    """Set every element to zero."""
    if _mode.grad_enabled and self._requires_grad:
        inplace_check(self)
        return commit_inplace(self, _zero.public(self), expanded_ok=True)
    return _write_untracked(self, 0)


bind_method("fill_", fill_)
bind_method("zero_", zero_)


def fill_function(input, value):
    """``torch.fill``: a filled copy of ``input``."""
    if isinstance(value, Tensor):
        return _fill_t.public(input, value)
    return _fill.public(input, value)


export_function("fill", fill_function)
export_function("fill_", fill_)
export_function("zero_", zero_)
