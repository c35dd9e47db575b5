"""Elementwise choices: clamp, where, maximum/minimum, masked_fill, nan_to_num (and, from
lerp_hypot_atan2.py, imported at the end, the two-input math that picks between its inputs'
slopes: lerp, hypot, atan2).

PyTorch names the ``grad_fn`` by the overload: ``x.clamp(0, 1)`` is ClampBackward1 (number
bounds), ``x.clamp(lo_t, hi_t)`` ClampBackward0 (tensor bounds); ``masked_fill`` with a number
is MaskedFillBackward0, with a 0-d tensor MaskedFillBackward1. One record per name, and a
public wrapper that picks.

>>> import leafgrad as torch
>>> x = torch.tensor([-1.0, 0.5, 2.0], requires_grad=True)
>>> x.clamp(0, 1)
tensor([0.0000, 0.5000, 1.0000], grad_fn=<ClampBackward1>)
"""
from __future__ import annotations

import math

import numpy as np

from .. import dtypes as _dt
from ..tensor import Tensor, _wrap
from .iter_layout import CONTIG, SELF, WHERE
from .pointwise_common import inplace_of, int_scalar, not_implemented_for, promote_args, tensors_only
from .registry import Sample, bind_method, defop, export_function, promote
from .signed_zero import clamp_ties, keep_self, lanes_tie, zero_ties
from .expanded_write import through_expanded, write_where

__all__ = ["where", "clamp", "masked_fill"]

FAMILY = "pointwise"
_CPP_NAMES = {"float16": "c10::Half", "float32": "float", "float64": "double",
              "int8": "signed char", "int16": "short int", "int32": "int", "int64": "long int",
              "uint8": "unsigned char", "bool": "bool"}
_TYPE_NAMES = {"float16": "Half", "float32": "Float", "float64": "Double", "int8": "Char",
               "int16": "Short", "int32": "Int", "int64": "Long", "uint8": "Byte",
               "bool": "Bool"}


# -- where ----------------------------------------------------------------------------------
def where_op(condition, self, other):
    """``self`` where ``condition`` holds, else ``other``."""
    return np.where(condition, self, other)


def where_self(grad, condition):
    return where(condition, grad, 0.0)


def where_other(grad, condition):
    return where(condition, 0.0, grad)


def _where_samples(make, shapes):
    return [Sample((make(shapes[1], dtype=np.bool_), make(shapes[2]), make(shapes[3])),
                   call="where"),
            Sample((make(shapes[1], dtype=np.bool_), make(shapes[2]), 2.0), call="where"),
            Sample((make(shapes[1], dtype=np.bool_), make(shapes[2], -5, 5, np.int64),
                    make(shapes[3])), call="where"),
            Sample((make(shapes[0], dtype=np.bool_), 1.0, 0.0), call="where"),
            Sample((make(shapes[0]), make(shapes[0], dtype=np.bool_), make(shapes[0])),
                   call="Tensor.where")]


_where = defop("where", where_op, layout=WHERE, inputs=("condition", "self", "other"),
               derivatives={"self": where_self, "other": where_other},
               dtype=promote_args(1, 2), methods=(), functions=(), samples=_where_samples,
               family=FAMILY)


def where(condition, input=None, other=None):
    """``torch.where``: choose elementwise; with only a condition, the indices where it holds."""
    if not isinstance(condition, Tensor):
        raise TypeError(f"where(): argument 'condition' (position 1) must be Tensor, not "
                        f"{type(condition).__name__}")
    if condition._data.dtype != np.bool_:
        raise RuntimeError("where expected condition to be a boolean tensor, but got a tensor "
                           f"with dtype {_TYPE_NAMES[condition._data.dtype.name]}")
    if input is None and other is None:
        return tuple(_wrap(i.astype(np.int64)) for i in np.nonzero(condition._data))
    return _where.public(condition, input, other)


def _where_method(self, condition, other):
    return where(condition, self, other)


export_function("where", where)
bind_method("where", _where_method)


# -- clamp ----------------------------------------------------------------------------------
def _check_int_bounds(dtype, *bounds):
    """PyTorch converts integer bounds to the tensor's type with an overflow check (an
    unsigned type takes negatives down to minus its largest value, wrapping them)."""
    info = np.iinfo(dtype)
    for b in bounds:
        if type(b) is int and (b > info.max or b < (info.min if info.min else -info.max)):
            raise RuntimeError(f"value cannot be converted to type {dtype.name}_t without "
                               "overflow")


_FLOAT_NAMES = {np.dtype(np.float16): "c10::Half", np.dtype(np.float32): "float"}


def _check_float_bounds(dtype, *bounds):
    """A float16/float32 tensor's number bounds are converted to its type with an overflow
    check (c10's checked_convert): a finite bound beyond the type's range raises, inf and NaN
    pass (seed 122: a float16 clamp(-1e30, 1e30))."""
    name = _FLOAT_NAMES.get(dtype)
    if name is None:
        return
    top = float(np.finfo(dtype).max)
    for b in bounds:
        if b is not None and math.isfinite(b) and not -top <= b <= top:
            raise RuntimeError(f"value cannot be converted to type {name} without overflow")


def clamp_scalar(self, min=None, max=None):
    """Clamp to number bounds (ClampBackward1)."""
    if self.dtype.kind in "biu":
        if self.dtype == np.bool_:
            kernel = "clamp_scalar_cpu" if min is not None and max is not None else \
                "clamp_min_scalar_cpu" if min is not None else "clamp_max_scalar_cpu"
            raise not_implemented_for(kernel, self)
        _check_int_bounds(self.dtype, min, max)
        min, max = int_scalar(min, self), int_scalar(max, self)
    elif self.dtype.itemsize < 8:
        _check_float_bounds(self.dtype, min, max)
    if min is not None:
        self = keep_self(np.maximum, self, min)   # Note [signed zero ties]
    if max is not None:
        self = keep_self(np.minimum, self, max)
    return self


def clamp_scalar_self(grad, self, min, max):
    if min is None:
        keep = self <= max
    elif max is None:
        keep = self >= min
    else:
        keep = (self >= min) & (self <= max)
    return grad.where(keep, 0.0)


def _clamp_samples(make, shapes):
    return [Sample((make(shapes[0]), -0.5, 0.5), call="clamp"),
            Sample((make(shapes[0]),), {"min": 0.1}, call="clamp"),
            Sample((make(shapes[0]),), {"max": 0.1}, call="clamp"),
            Sample((make(shapes[0], -5, 5, np.int64), 0.5), call="clamp"),
            Sample((make(shapes[0]), -0.5, 0.5), call="Tensor.clamp_"),
            Sample((make(shapes[0]), -0.5, 0.5), call="clip")]


_clamp1 = defop("clamp_scalar", clamp_scalar, inputs=("self",),
                derivatives={"self": clamp_scalar_self}, grad_fn_name="ClampBackward1",
                dtype=promote_args(0, 1, 2), methods=(), functions=(),
                samples=_clamp_samples, family=FAMILY)


def clamp_tensor(self, min=None, max=None):
    """Clamp to tensor bounds (ClampBackward0)."""
    if self.dtype == np.bool_ and min is not None and max is not None:
        # one bound alone runs PyTorch's maximum/minimum kernels, which take bool
        raise not_implemented_for("clamp_cpu", self)
    if min is not None and max is not None:
        return clamp_ties(self, min, max)     # Note [signed zero ties]
    if min is not None:
        self = lanes_tie(np.maximum, self, min)   # Note [signed zero ties]
    if max is not None:
        self = lanes_tie(np.minimum, self, max)
    return self


def _inplace_mask_check(self, bound, other_shape):
    """PyTorch combines two masks in place (``mask.logical_and_(other)``), the first of
    ``self`` and ``bound``'s shapes: that fails when the second broadcasts it larger (a
    PyTorch limitation, kept for parity)."""
    low = np.broadcast_shapes(self._data.shape, bound._data.shape)
    both = np.broadcast_shapes(low, other_shape)
    if low != both:
        raise RuntimeError(f"output with shape [{', '.join(map(str, low))}] doesn't match "
                           f"the broadcast shape [{', '.join(map(str, both))}]")


def clamp_tensor_self(grad, self, min, max):
    if min is not None and max is not None:
        # (self >= min).logical_and_(self <= max)
        _inplace_mask_check(self, min, np.broadcast_shapes(self._data.shape, max._data.shape))
    keep = None
    if min is not None:
        keep = self >= min
    if max is not None:
        keep = self <= max if keep is None else keep & (self <= max)
    return grad.where(keep, 0.0)


def clamp_tensor_min(grad, self, min, max):
    below = self < min
    if max is not None:
        # (self < min).logical_and_(min < max)
        _inplace_mask_check(self, min, np.broadcast_shapes(min._data.shape, max._data.shape))
        below = below & (min < max)
    return grad.where(below, 0.0)


def clamp_tensor_max(grad, self, min, max):
    above = self > max
    if min is not None:
        # (self > max).logical_or_(max < min)
        _inplace_mask_check(self, max, np.broadcast_shapes(min._data.shape, max._data.shape))
        above = above | (min > max)   # strictly, as PyTorch: min == max keeps it at self
    return grad.where(above, 0.0)


def _clamp_tensor_samples(make, shapes):
    # PyTorch's own backward fails when min and max broadcast self to a larger shape.
    full = np.broadcast_shapes(*shapes[1:])
    return [Sample((make(full), make(shapes[2], -1.5, -0.2), make(shapes[3], 0.2, 1.5)),
                   call="clamp"),
            Sample((make(shapes[1]),), {"min": make(shapes[2])}, call="clamp"),
            Sample((make(shapes[1]),), {"max": make(shapes[2])}, call="clamp")]


_clamp0 = defop("clamp_tensor", clamp_tensor, inputs=("self", "min", "max"),
                derivatives={"self": clamp_tensor_self, "min": clamp_tensor_min,
                             "max": clamp_tensor_max},
                grad_fn_name="ClampBackward0", dtype=promote_args(0, 1, 2), methods=(),
                # PyTorch's ClampBackward0 computes the bounds' gradients before self's
                # (derivatives.yaml's keys sorted: "min, max" < "self"), so their in-place
                # mask errors come first (fuzz seed 159)
                formula_order=(1, 2, 0),
                functions=(), samples=_clamp_tensor_samples, family=FAMILY)


def clamp(input, min=None, max=None):
    """Limit ``input`` to ``[min, max]``; either bound may be None, a number or a tensor."""
    if min is None and max is None:
        raise RuntimeError("torch.clamp: At least one of 'min' or 'max' must not be None")
    min_t, max_t = isinstance(min, Tensor), isinstance(max, Tensor)
    if not min_t and not max_t:
        return _clamp1.public(input, min, max)
    if (min_t or min is None) and (max_t or max is None):
        return _clamp0.public(input, min, max)
    # A number with a tensor: PyTorch accepts the tensor only as a 0-d number.
    if min_t and min._data.ndim == 0:
        return _clamp1.public(input, min.item(), max)
    if max_t and max._data.ndim == 0:
        return _clamp1.public(input, min, max.item())
    raise TypeError(_clamp_type_error(input, min, max))


def _clamp_type_error(input, min, max):
    def name(v):
        return "Tensor" if isinstance(v, Tensor) else type(v).__name__
    return (f"clamp() received an invalid combination of arguments - got ({name(input)}, "
            f"{name(min)}, {name(max)}), but expected one of:\n"
            " * (Tensor input, Tensor min = None, Tensor max = None, *, Tensor out = None)\n"
            " * (Tensor input, Number min = None, Number max = None, *, Tensor out = None)\n")


def _cpp_cast_message(inplace):
    """PyTorch's clamp_ family names the output type as C++ does ("long int", "bool") in
    "result type Float can't be cast to the desired output type ..."."""
    def wrapper(self, *args, **kwargs):
        bounds = [b for b in (*args, *kwargs.values()) if b is not None]
        if not bounds and inplace.__name__ in ("clamp_", "clip_"):   # (before the overlap)
            # PyTorch's autograd checks of an in-place op (a leaf that requires grad, a view
            # of one) come before the kernel's own (fuzz seed 110)
            from .inplace import inplace_check
            inplace_check(self, args, kwargs)
            raise RuntimeError("torch.clamp: At least one of 'min' or 'max' must not be None")
        if self._data.dtype.kind != "f" and bounds and not any(
                isinstance(b, Tensor) for b in bounds):
            # clamp's own promotion check comes first (before the overlap checks); any
            # change of dtype is refused, int64 for a bool tensor too
            common = _dt.result_type(self, *bounds)
            if common.np != self._data.dtype:
                raise RuntimeError(f"result type {common.tensor_type[:-6]} can't be cast to "
                                   f"the desired output type "
                                   f"{_CPP_NAMES[self._data.dtype.name]}")
        try:
            return inplace(self, *args, **kwargs)
        except RuntimeError as exc:
            text = str(exc)
            bounds = (*args, *kwargs.values())
            if not any(isinstance(b, Tensor) for b in bounds) and text.startswith(
                    "result type ") and text.endswith(
                    f"desired output type {self.dtype.tensor_type[:-6]}"):
                raise RuntimeError(text[:text.rindex(" ") + 1] +
                                   _CPP_NAMES[self._data.dtype.name]) from None
            raise
    wrapper.__name__ = wrapper.__qualname__ = inplace.__name__
    wrapper.__doc__ = inplace.__doc__
    return wrapper


for _n in ("clamp", "clip"):
    export_function(_n, clamp)
    bind_method(_n, clamp)
    bind_method(_n + "_", _cpp_cast_message(inplace_of(clamp, _n + "_")))


def clamp_min_scalar(self, min):
    """``max(self, min)`` for a number ``min`` (ClampMinBackward0)."""
    if self.dtype == np.bool_:
        raise not_implemented_for("clamp_min_scalar_cpu", self)
    if self.dtype.kind in "iu":
        _check_int_bounds(self.dtype, min)
    elif self.dtype.itemsize < 8:
        _check_float_bounds(self.dtype, min)
    return keep_self(np.maximum, self, int_scalar(min, self))


def clamp_min_scalar_self(grad, self, min):
    return grad.where(self >= min, 0.0)   # PyTorch's where: NaN self gets 0


def clamp_max_scalar(self, max):
    """``min(self, max)`` for a number ``max`` (ClampMaxBackward0)."""
    if self.dtype == np.bool_:
        raise not_implemented_for("clamp_max_scalar_cpu", self)
    if self.dtype.kind in "iu":
        _check_int_bounds(self.dtype, max)
    elif self.dtype.itemsize < 8:
        _check_float_bounds(self.dtype, max)
    return keep_self(np.minimum, self, int_scalar(max, self))


def clamp_max_scalar_self(grad, self, max):
    return grad.where(self <= max, 0.0)   # PyTorch's where: NaN self gets 0


def clamp_min_tensor(self, min):
    """``max(self, min)`` for a tensor ``min`` (ClampMinBackward1)."""
    return lanes_tie(np.maximum, self, min)


def clamp_min_tensor_min(grad, self, min):
    return grad.where(self < min, 0.0)


def clamp_max_tensor(self, max):
    """``min(self, max)`` for a tensor ``max`` (ClampMaxBackward1)."""
    return lanes_tie(np.minimum, self, max)


def clamp_max_tensor_max(grad, self, max):
    return grad.where(self > max, 0.0)


def _bound_samples(fn):
    def samples(make, shapes):
        return [Sample((make(shapes[0]), 0.3), call=fn),
                Sample((make(shapes[0], -5, 5, np.int64), 0.5), call=fn),
                Sample((make(shapes[1]), make(shapes[2])), call=fn),
                Sample((make(shapes[0]), 0.3), call=f"Tensor.{fn}_")]
    return samples


_cmin0 = defop("clamp_min_scalar", clamp_min_scalar, inputs=("self",),
               derivatives={"self": clamp_min_scalar_self}, grad_fn_name="ClampMinBackward0",
               dtype=promote_args(0, 1), methods=(), functions=(), family=FAMILY,
               samples=_bound_samples("clamp_min"))
_cmax0 = defop("clamp_max_scalar", clamp_max_scalar, inputs=("self",),
               derivatives={"self": clamp_max_scalar_self}, grad_fn_name="ClampMaxBackward0",
               dtype=promote_args(0, 1), methods=(), functions=(), family=FAMILY,
               samples=_bound_samples("clamp_max"))
_cmin1 = defop("clamp_min_tensor", clamp_min_tensor, inputs=("self", "min"),
               derivatives={"self": clamp_min_scalar_self, "min": clamp_min_tensor_min},
               grad_fn_name="ClampMinBackward1", dtype=promote_args(0, 1), methods=(),
               functions=(), family=FAMILY,
               samples=lambda make, shapes: [Sample((make(shapes[0]), make(shapes[1])),
                                                    call="clamp_min")
                                             if _same_or_wider(shapes[0], shapes[1]) else
                                             Sample((make(shapes[0]), make(shapes[0])),
                                                    call="clamp_min")])
_cmax1 = defop("clamp_max_tensor", clamp_max_tensor, inputs=("self", "max"),
               derivatives={"self": clamp_max_scalar_self, "max": clamp_max_tensor_max},
               grad_fn_name="ClampMaxBackward1", dtype=promote_args(0, 1), methods=(),
               functions=(), family=FAMILY,
               samples=lambda make, shapes: [Sample((make(shapes[1]), make(shapes[2])),
                                                    call="clamp_max")])


def clamp_min(input, min):
    """``torch.clamp_min``: ``max(input, min)``."""
    return (_cmin1 if isinstance(min, Tensor) else _cmin0).public(input, min)


def clamp_max(input, max):
    """``torch.clamp_max``: ``min(input, max)``."""
    return (_cmax1 if isinstance(max, Tensor) else _cmax0).public(input, max)


for _n, _f in (("clamp_min", clamp_min), ("clamp_max", clamp_max)):
    export_function(_n, _f)
    bind_method(_n, _f)
    bind_method(_n + "_", _cpp_cast_message(inplace_of(_f, _n + "_")))


# -- maximum / minimum / fmax / fmin --------------------------------------------------------
def maximum(self, other):
    """Elementwise maximum (NaN wins; equal zeros: Note [signed zero ties])."""
    return lanes_tie(np.maximum, self, other)


def minimum(self, other):
    """Elementwise minimum (NaN wins)."""
    return lanes_tie(np.minimum, self, other)


def _split_grad(grad, self, other, loses):
    # PyTorch's: where(self == other, grad / 2, grad).masked_fill_(loses, 0): ties share the
    # gradient, and where either side is NaN (no comparison holds) both get all of it
    from .registry import RECORDS     # (grad / 2: DivBackward1, as PyTorch's Scalar division)
    return where(self == other, RECORDS["div_scalar"].public(grad, 2), grad).masked_fill_(
        loses, 0.0)


def maximum_self(grad, self, other):
    return _split_grad(grad, self, other, self < other)


def maximum_other(grad, self, other):
    return _split_grad(grad, self, other, self > other)


def _max_samples(make, shapes):
    a = make(shapes[1])
    return [Sample((a, make(shapes[2]))),
            Sample((make(shapes[0]), make(shapes[0], -2, 3, np.int64).astype(np.float64))),
            Sample((make(shapes[1], -5, 5, np.int64), make(shapes[2])))]


defop("maximum", maximum, derivatives={"self": maximum_self, "other": maximum_other},
      dtype=tensors_only(promote), samples=_max_samples, family=FAMILY)
defop("minimum", minimum, derivatives={"self": maximum_other, "other": maximum_self},
      dtype=tensors_only(promote), samples=_max_samples, family=FAMILY)


def fmax(self, other):
    """Elementwise maximum ignoring NaN."""
    return zero_ties(np.fmax(self, other), self, other)


def fmin(self, other):
    """Elementwise minimum ignoring NaN."""
    return zero_ties(np.fmin(self, other), self, other)


def fmax_self(grad, self, other):
    return grad.masked_fill(~((self >= other) | other.isnan()), 0.0)


def fmax_other(grad, self, other):
    return grad.masked_fill((self >= other) | other.isnan(), 0.0)


def fmin_self(grad, self, other):
    return grad.masked_fill(~((self <= other) | other.isnan()), 0.0)


def fmin_other(grad, self, other):
    return grad.masked_fill((self <= other) | other.isnan(), 0.0)


defop("fmax", fmax, derivatives={"self": fmax_self, "other": fmax_other}, family=FAMILY,
      dtype=tensors_only(promote),
      samples=lambda make, shapes: [Sample((make(shapes[1]), make(shapes[2])))])
defop("fmin", fmin, derivatives={"self": fmin_self, "other": fmin_other}, family=FAMILY,
      dtype=tensors_only(promote),
      samples=lambda make, shapes: [Sample((make(shapes[1]), make(shapes[2])))])


# -- masked_fill ----------------------------------------------------------------------------
_C_TYPES = {"int64": "int64_t", "int32": "int", "int16": "int16_t", "int8": "int8_t",
            "uint8": "uint8_t", "float16": "c10::Half", "float32": "float",
            "float64": "double"}


def checked_scalar(value, dtype) -> None:
    """PyTorch's checked conversion of a fill value (a number) to a tensor's ``dtype``
    (c10's ``overflows``): for an integral dtype NaN, infinities and values out of range
    fail (an unsigned one takes a negative int down to minus its largest value, wrapping),
    for a floating one finite values beyond its largest; bool takes anything."""
    dtype = np.dtype(dtype)
    if dtype == np.bool_ or isinstance(value, (bool, np.bool_)):
        return
    if isinstance(value, (float, np.floating)):
        v = float(value)
        if dtype.kind == "f":
            bad = v == v and abs(v) != math.inf and abs(v) > float(np.finfo(dtype).max)
        else:
            info = np.iinfo(dtype)
            bad = v != v or v < float(info.min) or v > float(info.max)
    elif isinstance(value, (int, np.integer)):
        v = int(value)
        if dtype.kind == "f":
            bad = abs(v) > float(np.finfo(dtype).max)
        else:
            info = np.iinfo(dtype)
            bad = v > info.max or (v < -info.max if info.min == 0 else v < info.min)
    else:
        return
    if bad:
        raise RuntimeError(f"value cannot be converted to type {_C_TYPES[dtype.name]} without "
                           "overflow")


def checked_value(value, dtype):
    """A fill value (a number) as a NumPy scalar of ``dtype`` after PyTorch's checked
    conversion (``checked_scalar``): floats truncate, an unsigned type wraps a small
    negative int (uint8 takes -1 as 255)."""
    dtype = np.dtype(dtype)
    checked_scalar(value, dtype)
    if dtype.kind in "iu" and isinstance(value, (int, np.integer)) and \
            not isinstance(value, (bool, np.bool_)):
        return np.array(int(value), np.int64).astype(dtype)[()]
    return _dt.cast_array(value, dtype)[()]


def _check_mask(mask):
    if mask.dtype != np.bool_:
        raise RuntimeError("masked_fill_ only supports boolean masks, but got mask with dtype "
                           f"{_CPP_NAMES[mask.dtype.name]}")


def masked_fill_scalar(self, mask, value):
    """``value`` where ``mask`` holds, else ``self`` (in ``self``'s dtype)."""
    _check_mask(mask)
    checked_scalar(value, self.dtype)
    return np.where(mask, _dt.cast_array(value, self.dtype), self)


def masked_fill_self(grad, mask):
    return grad.masked_fill(mask, 0.0)


def masked_fill_value(grad, mask):
    from .registry import RECORDS     # PyTorch's grad.masked_select(mask).sum()
    return RECORDS["masked_select"].public(grad, mask).sum()


def _masked_fill_samples(make, shapes):
    return [Sample((make(shapes[0]), make(shapes[1], dtype=np.bool_), 2.5), call="masked_fill"),
            Sample((make(shapes[0], -5, 5, np.int64), make(shapes[1], dtype=np.bool_), 2.5),
                   call="masked_fill"),
            Sample((make(shapes[0]), make(shapes[1], dtype=np.bool_), 1.0),
                   call="Tensor.masked_fill_") if _same_or_wider(shapes[0], shapes[1]) else
            Sample((make(shapes[0]), make(shapes[0], dtype=np.bool_), 1.0),
                   call="Tensor.masked_fill_")]


def _same_or_wider(a, b):
    try:
        return np.broadcast_shapes(a, b) == tuple(a)
    except ValueError:
        return False


_mfill0 = defop("masked_fill", masked_fill_scalar, layout=CONTIG, inputs=("self", "mask"),
                derivatives={"self": masked_fill_self}, dtype="same", methods=(),
                functions=(), samples=_masked_fill_samples, family=FAMILY)


def masked_fill_tensor(self, mask, value):
    """``masked_fill`` with a 0-d tensor ``value`` (MaskedFillBackward1)."""
    _check_mask(mask)
    if value.ndim != 0:
        raise RuntimeError("masked_fill_ only supports a 0-dimensional value tensor, but got "
                           f"tensor with {value.ndim} dimension(s).")
    checked_scalar(value.item(), self.dtype)   # (PyTorch fills with value.item())
    return np.where(mask, value.astype(self.dtype), self)


_mfill1 = defop("masked_fill_tensor", masked_fill_tensor, inputs=("self", "mask", "value"),
                derivatives={"self": masked_fill_self, "value": masked_fill_value},
                grad_fn_name="MaskedFillBackward1", dtype="same", methods=(), functions=(),
                family=FAMILY,
                samples=lambda make, shapes: [
                    Sample((make(shapes[0]), make(shapes[1], dtype=np.bool_), make(())),
                           call="masked_fill")], layout=CONTIG)


def masked_fill(input, mask, value):
    """``value`` where ``mask`` is True; ``value`` a number or a 0-d tensor."""
    if isinstance(value, Tensor):
        return _mfill1.public(input, mask, value)
    return _mfill0.public(input, mask, value)


export_function("masked_fill", masked_fill)
bind_method("masked_fill", masked_fill)
def _masked_fill_write(self, mask, value):
    """masked_fill_ through an expanded ``self``: the masked places only (Note [Expanded
    writes])."""
    result = masked_fill(self, mask, value)
    if result._data.shape != self._data.shape:
        raise RuntimeError(
            f"output with shape [{', '.join(map(str, self._data.shape))}] doesn't match the "
            f"broadcast shape [{', '.join(map(str, result._data.shape))}]")
    write_where(self, result._data, mask._data)


bind_method("masked_fill_", through_expanded(
    "masked_fill_", inplace_of(masked_fill, "masked_fill_", saves_self=False,
                               overlap_checks=False), _masked_fill_write))


# -- nan_to_num -----------------------------------------------------------------------------
def nan_to_num(self, nan=0.0, posinf=None, neginf=None):
    """Replace NaN with ``nan`` and infinities with ``posinf`` / ``neginf`` (dtype limits)."""
    if self.dtype.kind != "f":
        return self.copy()
    return np.nan_to_num(self, nan=0.0 if nan is None else nan, posinf=posinf, neginf=neginf)


def nan_to_num_self(grad, self):
    return grad * self.isfinite()   # PyTorch's formula (MulBackward0; inf * 0 is NaN)


defop("nan_to_num", nan_to_num, derivatives={"self": nan_to_num_self}, dtype="same",
      inplace="nan_to_num_", family=FAMILY, layout=SELF,   # (into empty_like(self))
      samples=lambda make, shapes: [Sample((make(shapes[0]),)),
                                    Sample((make(shapes[0]),), {"nan": 1.0, "posinf": 5.0}),
                                    Sample((make(shapes[0], -5, 5, np.int64),))])


# lerp / hypot / atan2 (their own module, registered with this one)
from . import lerp_hypot_atan2  # noqa: E402,F401
