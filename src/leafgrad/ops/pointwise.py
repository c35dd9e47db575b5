"""Pointwise arithmetic: add, sub, mul, div, floor_divide, remainder, fmod, neg, reciprocal.

Each ``defop`` is one op: forward in NumPy, one derivative formula per input written with
leafgrad ops (so higher derivatives come for free), and the names it provides. Where PyTorch
gives one Python call several ``grad_fn`` names (``x ** 2`` is PowBackward0, ``x ** y``
PowBackward1, ``2 ** x`` PowBackward2), there is one record per name and a small public
wrapper that picks the record. The other pointwise families live beside this file:
``powers.py``, ``unary.py`` (math functions), ``activation.py``, ``select.py`` (clamp, where, maximum, ...),
``compare.py`` (comparisons, logical and bitwise ops) and ``casts.py``.

>>> import leafgrad as torch
>>> x = torch.tensor([1.0, 2.0], requires_grad=True)
>>> (2 - x).grad_fn.name(), (x ** 2).grad_fn.name(), (2 ** x).grad_fn.name()
('RsubBackward1', 'PowBackward0', 'PowBackward2')
"""
from __future__ import annotations

import numpy as np

from .. import dtypes as _dt
from .._zerotensor import is_zero_array
from .._sleef import vector_lanes
from ..errors import broadcast_error
from ..tensor import Tensor
from .iter_layout import REV
from .pointwise_common import (inplace_of, int_scalar, not_implemented_for,
                               not_implemented_formula, not_implemented_inplace,
                               operator_dunders, promote_args, scale, zeros_grad)
from .registry import Sample, bind_method, defop, export_function, inplace_check, promote

__all__ = ["add", "sub", "mul", "div_public", "rsub_public", "remainder_public",
           "fmod_public"]

FAMILY = "pointwise"
_F16 = np.dtype(np.float16)
_NUMBERS = (float, int)


# PyTorch checks alpha after its TensorIterator is built: after the operands broadcast and, in
# place, after the result type is found to cast into self. Raised as a NotImplementedError
# (named RuntimeError, as PyTorch's), the in-place wrapper's kernel-error path
# (registry._inplace_kernel_error) makes those checks first, and the out-of-place dispatch
# passes it on unchanged.
_AlphaError = type("RuntimeError", (NotImplementedError,), {"__module__": "builtins"})


def _alpha_check(self, other, alpha):
    """PyTorch's alpha_check, after the operands broadcast (its TensorIterator comes first)."""
    if type(alpha) is bool:
        if np.result_type(self, other).kind != "b":
            np.broadcast_shapes(np.shape(self), np.shape(other))
            raise _alpha_error("Boolean alpha only supported for Boolean results.", self, other)
    elif isinstance(alpha, float) and np.result_type(self, other).kind in "iub":
        np.broadcast_shapes(np.shape(self), np.shape(other))   # ValueError: dispatch's message
        raise _alpha_error("For integral input tensors, argument alpha must not be a floating "
                           "point number.", self, other)


def _alpha_error(message, self, other):
    exc = _AlphaError(message)
    exc.result_dtype = np.result_type(self, other)   # (the operands come promoted)
    return exc


def _bool_alpha(self, other, alpha):
    """A bool result takes alpha as a bool (any non-zero alpha adds ``other``)."""
    if self.dtype == np.bool_ and getattr(other, "dtype", None) == np.bool_:
        return bool(alpha)
    return alpha


# -- add / sub / rsub ---------------------------------------------------------------------
def _as_half(self, other):
    """A Python float meeting a half array as c10 makes it half: through float (Note [Double
    to half] in dtypes.py; add and sub then compute with it, Note [Half with a number])."""
    if type(other) is float and type(self) is np.ndarray and self.dtype == _F16:
        return _dt.cast_array(other, _F16)
    return other


def add(self, other, *, alpha=1):
    """``self + alpha * other``."""
    other = _as_half(self, other)
    if alpha == 1 and type(alpha) is int:
        return self + other
    _alpha_check(self, other, alpha)
    if self.dtype == _F16 and getattr(other, "dtype", None) == _F16 and \
            type(self) is np.ndarray and type(other) is np.ndarray:
        return _half_alpha(self, other, alpha)
    return self + _bool_alpha(self, other, alpha) * other


def _half_alpha(self, other, alpha):
    """``self + alpha * other`` in half as PyTorch's add kernel: alpha made half, then in
    float where it vectorizes (an exact product, one rounding), in half arithmetic (the
    product rounded to half, then the sum) in its scalar loop: tails of 32 (Note [Half with
    a number])."""
    from .tensor_utils import get_num_threads   # (late: it loads the op table)
    a = _dt.cast_array(alpha, _F16)
    with np.errstate(over="ignore", invalid="ignore"):
        out = (self.astype(np.float32) + np.float32(a) * other.astype(np.float32)).astype(_F16)
        out = np.asarray(out)
        lanes = vector_lanes(np.broadcast_to(self, out.shape), 32, get_num_threads(),
                             others=(other,))
        if lanes is not None and not lanes.all():
            scalar = ~lanes
            out[scalar] = (self + a * other)[scalar] if out.ndim else self + a * other
    return out


def add_self(grad):
    return grad


def add_other(grad, alpha):
    # PyTorch's maybe_multiply(grad, alpha): mul(Tensor, Scalar), MulBackward1
    return grad if alpha == 1 else scale(grad, alpha)


def _binary_samples(make, shapes):
    return [Sample((make(shapes[1]), make(shapes[2]))), Sample((make(shapes[0]), 2.5)),
            Sample((make(shapes[1]), make(shapes[2])), {"alpha": 2})]


defop("add", add, derivatives={"self": add_self, "other": add_other}, inplace="add_",
      kernel=np.add,
      methods=("add", "__add__", "__radd__"), samples=_binary_samples, family=FAMILY)


def sub(self, other, *, alpha=1):
    """``self - alpha * other``."""
    other = _as_half(self, other)
    if alpha == 1 and type(alpha) is int:
        return self - other
    _alpha_check(self, other, alpha)
    if self.dtype == _F16 and getattr(other, "dtype", None) == _F16 and \
            type(self) is np.ndarray and type(other) is np.ndarray and type(alpha) is not bool:
        return _half_alpha(self, other, -alpha)
    return self - alpha * other


def sub_other(grad, alpha):
    # PyTorch's maybe_multiply(-grad, alpha): NegBackward0, then MulBackward1
    return -grad if alpha == 1 else scale(-grad, alpha)


def _is_bool(v):
    return type(v) is bool or (isinstance(v, Tensor) and v._data.dtype == np.bool_)


def _check_bool_sub(a, b):
    if _is_bool(a) or _is_bool(b):
        if _is_bool(a) and _is_bool(b):
            raise RuntimeError("Subtraction, the `-` operator, with two bool tensors is not "
                               "supported. Use the `^` or `logical_xor()` operator instead.")
        raise RuntimeError("Subtraction, the `-` operator, with a bool tensor is not supported."
                           " If you are trying to invert a mask, use the `~` or "
                           "`logical_not()` operator instead.")


def _sub_rule(rec, args):
    # Bool operands never take dispatch's float fast path, so checking here costs the
    # common case nothing (see Note [Fast paths] in dispatch.py).
    a, b = args[0], args[1]
    if not (_zero(a) or _zero(b)):   # (PyTorch's ZeroTensor sub skips the check)
        _check_bool_sub(a, b)
    return promote(rec, args)


def _zero(v):
    return isinstance(v, Tensor) and type(v._data) is not np.ndarray and is_zero_array(v._data)


_sub = defop("sub", sub, derivatives={"self": add_self, "other": sub_other}, inplace="sub_",
             kernel=np.subtract,
             methods=("sub", "__sub__", "subtract"), functions=("sub", "subtract"),
             samples=_binary_samples, family=FAMILY)
_sub.dtype_rule = _sub_rule   # after defop, so the float fast path is still chosen


def rsub(self, other, *, alpha=1):
    """``other - alpha * self``: ``torch.rsub`` with a tensor ``other`` (RsubBackward0)."""
    try:
        if alpha == 1 and type(alpha) is int:
            return other - self
        _alpha_check(self, other, alpha)
        return other - alpha * self
    except ValueError as exc:   # PyTorch broadcasts other (tensor a) with self (tensor b)
        raise (broadcast_error([np.shape(other), np.shape(self)]) or exc) from None


def rsub_self(grad, alpha):
    return -grad if alpha == 1 else scale(-grad, alpha)


def rsub_other(grad):
    return grad


def _rsub_samples(make, shapes):
    return [Sample((make(shapes[1]), make(shapes[2])), call="rsub"),
            Sample((make(shapes[1]), make(shapes[2])), {"alpha": 3}, call="rsub")]


_rsub_t = defop("rsub", rsub, layout=REV, derivatives={"self": rsub_self, "other": rsub_other},
                methods=(), functions=(), samples=_rsub_samples, family=FAMILY)
_rsub_t.dtype_rule = _sub_rule


def _rsub_scalar_rule(rec, args):
    _check_bool_sub(args[0], args[1])
    d = _dt.result_type(args[0], args[1]).np
    return d, d


def rsub_scalar(self, other, *, alpha=1):
    """``other - alpha * self`` with a number ``other`` (what ``2 - x`` runs)."""
    other = int_scalar(other, self)
    if alpha == 1 and type(alpha) is int:
        return other - self
    _alpha_check(self, other, alpha)
    return other - alpha * self


_rsub_s = defop("rsub_scalar", rsub_scalar, inputs=("self",),
                derivatives={"self": rsub_self}, grad_fn_name="RsubBackward1",
                dtype=_rsub_scalar_rule, methods=(), functions=(), family=FAMILY,
                samples=lambda make, shapes: [Sample((make(shapes[0]), 2.5), call="rsub"),
                                              Sample((make(shapes[0]), 3), call="__rsub__")])


def rsub_public(input, other, *, alpha=1):
    """``other - alpha * input``; ``2 - x`` calls it with a number ``other``."""
    if isinstance(other, Tensor):
        return _rsub_t.public(input, other, alpha=alpha)
    return _rsub_s.public(input, other, alpha=alpha)


def _rsub_dunder(self, other):
    if isinstance(other, Tensor):
        return _rsub_t.public(self, other)
    return _rsub_s.public(self, other)


export_function("rsub", rsub_public)
bind_method("__rsub__", _rsub_dunder)


# -- mul / div ----------------------------------------------------------------------------
# Note [Half with a number]
# For a half tensor and a Python number, PyTorch's CPU mul, div (true, floor, trunc) and
# floor_divide kernels take the number's original value as float (``original_scalar_value``,
# not the half the wrapped number was cast to) and compute in float: half(float(x) * float(s)).
# NumPy would round the number to half first (a third of ``x * 0.1`` an ulp off); add, sub,
# remainder, fmod and pow do use the half-rounded number, as NumPy does. (dispatch_binary
# hands a half tensor with a number to the general path, which passes the number as it is.)
def _half_by_number(op, self, other):
    """``op`` of a half array and a Python number as PyTorch computes it, or None when the
    operands are not those (Note [Half with a number])."""
    # (a zero tensor's array, an ndarray subclass, keeps its own rules: _zerotensor.py)
    if type(other) in _NUMBERS and type(self) is np.ndarray and self.dtype == _F16:
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            return op(self.astype(np.float32), np.float32(other)).astype(_F16)
    return None


def mul(self, other):
    """Elementwise product."""
    out = _half_by_number(np.multiply, self, other)
    return self * other if out is None else out


def mul_self(grad, other):
    return grad * other


def mul_other(grad, self):
    return grad * self


def mul_samples(make, shapes):
    return [Sample((make(shapes[1]), make(shapes[2]))), Sample((make(shapes[0]), 2.5)),
            Sample((make(shapes[1]), make(shapes[2])), call="__rmul__"),
            Sample((make(shapes[0]), 3), call="__rmul__"),
            Sample((make(shapes[1]), make(shapes[2])), call="Tensor.mul_")
            if _broadcasts_to(shapes[1], shapes[2]) else
            Sample((make(shapes[0]), 2.0), call="Tensor.mul_")]


def _broadcasts_to(a, b):
    """True when ``b`` broadcasts to ``a`` without growing it (in-place ops need that)."""
    try:
        return np.broadcast_shapes(a, b) == tuple(a)
    except ValueError:
        return False


defop("mul", mul, derivatives={"self": mul_self, "other": mul_other}, inplace="mul_",
      kernel=np.multiply,
      samples=mul_samples,
      methods=("mul", "__mul__", "__rmul__", "multiply"), functions=("mul", "multiply"),
      family=FAMILY)


def div(self, other):
    """True division: integers divide to the default float dtype."""
    out = _half_by_number(np.true_divide, self, other)
    return np.true_divide(self, other) if out is None else out


def div_self(grad, other):
    return grad / other


def div_other(grad, self, other):
    # PyTorch's div_tensor_other_backward, in its order: -grad * ((self / other) / other)
    # (rounding differs from -grad * self / (other * other); a / a then has a gradient of
    # exactly g / a - g * (1 / a), as in PyTorch)
    return -grad * ((self / other) / other)


def _div_samples(make, shapes):
    return [Sample((make(shapes[1]), make.positive(shapes[2])), call="div"),
            Sample((make(shapes[0]), 2.5), call="div"),
            Sample((make(shapes[1], -5, 5, np.int64), make(shapes[2], 1, 5, np.int64)),
                   call="true_divide"),
            Sample((make(shapes[0]), make.positive(shapes[0])), call="__truediv__"),
            Sample((make.positive(shapes[0]), 2.0), call="__rtruediv__")]


_div = defop("div", div, derivatives={"self": div_self, "other": div_other},
             kernel=np.true_divide,
             dtype="promote_float", methods=(), functions=(), samples=_div_samples,
             family=FAMILY)


def div_mode(self, other, rounding_mode):
    """Division rounded toward zero (``"trunc"``) or down (``"floor"``)."""
    if rounding_mode == "floor":
        return _floor_divide(self, other)
    if rounding_mode == "trunc":
        if np.result_type(self, other).kind in "iub":
            return _trunc_int_divide(self, other)
        out = _half_by_number(lambda a, b: np.trunc(a / b), self, other)
        return np.trunc(np.true_divide(self, other)) if out is None else out
    raise RuntimeError("div expected rounding_mode to be one of None, 'trunc', or 'floor' but "
                       f"found '{rounding_mode}'")


def _check_int_zero(a, b, kernel):
    kind = np.result_type(a, b).kind
    if kind == "b" or (kind in "iu" and np.any(np.asarray(b) == 0)):
        # the operands broadcast first (TensorIterator), then the kernel's checks: a
        # ValueError here becomes PyTorch's size message in the dispatcher
        shape = np.broadcast_shapes(np.shape(a), np.shape(b))
        if kind == "b":
            raise not_implemented_for(kernel, np.bool_)
        if 0 not in shape:   # (per element: an empty result divides nothing; fuzz seed 111)
            # the kernel's error, after TensorIterator's: in place, the output's shape and
            # dtype are checked first (as _AlphaError; seed 168: an int tensor's
            # floor_divide_ by zeros of a broadcasting shape names the shape)
            raise _AlphaError("ZeroDivisionError")


def _floor_divide(a, b):
    _check_int_zero(a, b, "div_floor_cpu")
    out = _half_by_number(np.floor_divide, a, b)
    return np.floor_divide(a, b) if out is None else out


def _trunc_int_divide(a, b):
    _check_int_zero(a, b, "div_trunc_cpu")
    q = np.floor_divide(a, b)
    fix = (np.remainder(a, b) != 0) & ((np.asarray(a) < 0) != (np.asarray(b) < 0))
    return q + fix.astype(q.dtype)


# PyTorch's formulas read ``other`` (and ``self``, for other's gradient) before testing the
# rounding mode, so DivBackward2 saves them: a second backward through it fails once freed.
def div_mode_self(grad, other, rounding_mode):
    return zeros_grad(grad)


def div_mode_other(grad, self, other, rounding_mode):
    return zeros_grad(grad)


def _div_mode_samples(make, shapes):
    return [Sample((make(shapes[1]), make.positive(shapes[2])), {"rounding_mode": m},
                   call="div") for m in ("floor", "trunc")]


_div_mode = defop("div_mode", div_mode, derivatives={"self": div_mode_self,
                                                     "other": div_mode_other},
                  grad_fn_name="DivBackward2", methods=(), functions=(),
                  samples=_div_mode_samples, family=FAMILY)


# ``div(x, y, rounding_mode=None)`` spelled out is PyTorch's div.Tensor_mode overload: true
# division, but its node is DivBackward2.
_div_none = defop("div_mode_none", div, derivatives={"self": div_self, "other": div_other},
                  dtype="promote_float", grad_fn_name="DivBackward2", methods=(), functions=(),
                  family=FAMILY)
_NO_MODE = object()


def div_public(input, other, *, rounding_mode=_NO_MODE):
    """``input / other``, or rounded with ``rounding_mode="trunc"`` / ``"floor"``."""
    if rounding_mode is _NO_MODE:
        return _div.public(input, other)
    if rounding_mode is None:
        return _div_none.public(input, other)
    return _div_mode.public(input, other, rounding_mode)


def _rtruediv(self, other):
    # PyTorch runs ``2 / x`` as ``x.reciprocal() * 2`` (grad_fn MulBackward0).
    return self.reciprocal() * other


for _n in ("div", "divide", "true_divide"):
    export_function(_n, div_public)
    bind_method(_n, div_public)
bind_method("__truediv__", _div.public)
bind_method("__rtruediv__", _rtruediv)
bind_method("div_", inplace_of(div_public, "div_"))
for _n in ("divide_", "true_divide_"):
    bind_method(_n, inplace_of(div_public, _n))


# -- floor_divide / remainder / fmod ------------------------------------------------------
def floor_divide(self, other):
    """``self // other``, rounded down like Python's; PyTorch cannot differentiate it."""
    if type(other) is int:
        other = int_scalar(other, self)
    return _floor_divide(self, other)


_floordiv_grad = not_implemented_formula("floor_divide")
_floordiv = defop("floor_divide", floor_divide,
                  derivatives={"self": _floordiv_grad, "other": _floordiv_grad},
                  grad_fn_name="NotImplemented", methods=("floor_divide", "__floordiv__"),
                  inplace="floor_divide_",
                  samples=lambda make, shapes: [
                      Sample((make(shapes[1], -5, 5), make.positive(shapes[2])), grad=False),
                      Sample((make(shapes[0], -5, 5), 0.75), grad=False),
                      Sample((make(shapes[0], -5, 5, np.int64), -3), grad=False)],
                  family=FAMILY)
bind_method("__rfloordiv__", lambda self, other: _floordiv.public(other, self))
not_implemented_inplace(_floordiv)   # aten::floor_divide_ in its error, as PyTorch


def remainder(self, other):
    """Python's ``%``: the result has the sign of ``other``."""
    if type(other) is int:
        other = int_scalar(other, self)
    _check_int_zero(self, other, "remainder_cpu")
    if np.result_type(self, other).kind != "f":
        return np.remainder(self, other)
    # PyTorch adjusts fmod's result, which keeps fmod's signed zeros (NumPy flips them).
    mod = np.fmod(self, other)
    return np.where((mod != 0) & ((mod < 0) != (np.asarray(other) < 0)), mod + other, mod)


def remainder_other(grad, self, other):
    return -grad * self.div(other, rounding_mode="floor")


def _mod_samples(make, shapes):
    return [Sample((make(shapes[1], -5, 5), make.positive(shapes[2])), call="remainder",
                   atol=1e-5),
            Sample((make(shapes[0], -5, 5, np.int64), make(shapes[0], 1, 4, np.int64)),
                   call="remainder"),
            Sample((make(shapes[1], -5, 5), make.positive(shapes[2])), call="__mod__")]


_rem_t = defop("remainder", remainder,
               derivatives={"self": add_self, "other": remainder_other},
               grad_fn_name="RemainderBackward1", methods=(), functions=(),
               samples=_mod_samples, family=FAMILY)
_rem_s = defop("remainder_scalar", remainder, inputs=("self",),
               derivatives={"self": add_self}, grad_fn_name="RemainderBackward0",
               dtype=promote_args(0, 1), methods=(), functions=(), family=FAMILY,
               samples=lambda make, shapes: [
                   Sample((make(shapes[0], -5, 5), 1.5), call="remainder"),
                   Sample((make(shapes[0], -5, 5), -0.7), call="__mod__")])
_rem_grad = not_implemented_formula("remainder")
_rem_rev = defop("remainder_scalar_self", remainder, inputs=("other",),
                 derivatives={"other": _rem_grad}, grad_fn_name="NotImplemented",
                 dtype=promote_args(0, 1), methods=(), functions=(), family=FAMILY,
                 samples=lambda make, shapes: [
                     Sample((2.5, make.positive(shapes[0])), call="remainder", grad=False)])


def remainder_public(input, other):
    """Python's ``%`` elementwise; either side may be a number."""
    if isinstance(other, Tensor):
        if isinstance(input, Tensor):
            return _rem_t.public(input, other)
        return _rem_rev.public(input, other)
    return _rem_s.public(input, other)


export_function("remainder", remainder_public)
bind_method("remainder", remainder_public)
bind_method("__mod__", remainder_public)
bind_method("__rmod__", lambda self, other: remainder_public(other, self))
bind_method("remainder_", inplace_of(remainder_public, "remainder_", saves_self=False))


def fmod(self, other):
    """C's ``fmod``: the result has the sign of ``self``."""
    if type(other) is int:
        other = int_scalar(other, self)
    _check_int_zero(self, other, "fmod_cpu")
    return np.fmod(self, other)


def fmod_other(grad, self, other):
    return -grad * self.div(other, rounding_mode="trunc")


_fmod_t = defop("fmod", fmod, derivatives={"self": add_self, "other": fmod_other},
                grad_fn_name="FmodBackward1", methods=(), functions=(), family=FAMILY,
                samples=lambda make, shapes: [
                    Sample((make(shapes[1], -5, 5), make.positive(shapes[2])), call="fmod",
                           atol=1e-5),
                    Sample((make(shapes[0], -5, 5, np.int64), make(shapes[0], 1, 4, np.int64)),
                           call="fmod")])
_fmod_s = defop("fmod_scalar", fmod, inputs=("self",), derivatives={"self": add_self},
                grad_fn_name="FmodBackward0", dtype=promote_args(0, 1), methods=(),
                functions=(), family=FAMILY,
                samples=lambda make, shapes: [Sample((make(shapes[0], -5, 5), 1.5),
                                                     call="fmod")])


def fmod_public(input, other):
    """C's ``fmod`` elementwise (the sign of ``input``)."""
    if isinstance(other, Tensor):
        return _fmod_t.public(input, other)
    return _fmod_s.public(input, other)


export_function("fmod", fmod_public)
bind_method("fmod", fmod_public)
bind_method("fmod_", inplace_of(fmod_public, "fmod_", saves_self=False))


# -- neg / reciprocal ---------------------------------------------------------------------
def neg(self):
    """``-self``."""
    if self.dtype == np.bool_:
        raise RuntimeError("Negation, the `-` operator, on a bool tensor is not supported. If "
                           "you are trying to invert a mask, use the `~` or `logical_not()` "
                           "operator instead.")
    return np.negative(self)


def neg_self(grad):
    return -grad


defop("neg", neg, derivatives={"self": neg_self}, dtype="same", inplace="neg_",
      kernel=np.negative,
      methods=("neg", "__neg__", "negative"), functions=("neg", "negative"), family=FAMILY,
      samples=lambda make, shapes: [Sample((make(shapes[0]),)),
                                    Sample((make(shapes[0]),), call="__neg__"),
                                    Sample((make(shapes[0], -5, 5, np.int64),))])


def positive(self):
    """``+self``: the tensor itself, as in PyTorch."""
    if self.dtype is _dt.bool_:
        raise RuntimeError("The `+` operator, on a bool tensor is not supported.")
    return self


export_function("positive", positive)
bind_method("positive", positive)
bind_method("__pos__", positive)


def reciprocal(self):
    """``1 / self``."""
    return np.reciprocal(self)


def reciprocal_self(grad, result):
    return -grad * (result * result)


defop("reciprocal", reciprocal, derivatives={"self": reciprocal_self}, dtype="promote_float",
      inplace="reciprocal_", family=FAMILY,
      samples=lambda make, shapes: [Sample((make.positive(shapes[0]),)),
                                    Sample((make(shapes[0], 1, 5, np.int64),))])


from . import powers  # noqa: E402,F401  (pow_ must exist for ``**=`` below)


def _bool_checks_first(inplace, check):
    """``sub_``/``neg_`` as PyTorch orders their checks: autograd's in-place checks, then the
    op's bool check (its meta function), then the overlap and output shape checks (the
    generated in-place variant). Only a bool operand pays for the extra step."""
    def method(self, *args, **kwargs):
        other = args[:1] or tuple(kwargs.get(k) for k in ("other",) if k in kwargs)
        if self._data.dtype == np.bool_ or (other and _is_bool(other[0])):
            inplace_check(self)
            check(self, *other)
        return inplace(self, *args, **kwargs)
    method.__name__ = method.__qualname__ = inplace.__name__
    method.__doc__ = inplace.__doc__
    return method


bind_method("sub_", _bool_checks_first(Tensor.sub_, _check_bool_sub))
bind_method("subtract_", Tensor.sub_)
bind_method("neg_", _bool_checks_first(Tensor.neg_, lambda self: neg(self._data)))
bind_method("negative_", Tensor.neg_)

# ``x += y`` and friends are the in-place ops, as in PyTorch.
for _dunder, _method in (("__iadd__", "add_"), ("__isub__", "sub_"), ("__imul__", "mul_"),
                         ("__itruediv__", "div_"), ("__ifloordiv__", "floor_divide_"),
                         ("__imod__", "remainder_"), ("__ipow__", "pow_")):
    bind_method(_dunder, getattr(Tensor, _method))

operator_dunders("__add__", "__radd__", "__sub__", "__rsub__", "__mul__", "__rmul__",
                 "__truediv__", "__rtruediv__", "__floordiv__", "__rfloordiv__", "__mod__",
                 "__rmod__", "__pow__", "__rpow__")
