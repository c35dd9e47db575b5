"""Pointwise ops: arithmetic with broadcasting, unary math, comparisons.

Each ``defop`` is one op: forward in NumPy, one derivative formula per input written with
leafgrad ops (so higher derivatives come for free), and the names it provides.
"""
from __future__ import annotations

import numpy as np

from .registry import defop, export_function, bind_method, RECORDS, Sample
from ..tensor import Tensor

FAMILY = "pointwise"


# -- arithmetic -------------------------------------------------------------------------
def add(self, other, *, alpha=1):
    """``self + alpha * other``."""
    return self + other if alpha == 1 else self + alpha * other


def add_self(grad):
    return grad


def add_other(grad, alpha):
    return grad if alpha == 1 else grad * alpha


defop("add", add, derivatives={"self": add_self, "other": add_other}, inplace="add_",
      methods=("add", "__add__", "__radd__"), family=FAMILY)


def sub(self, other, *, alpha=1):
    """``self - alpha * other``."""
    if self.dtype == np.bool_ and getattr(other, "dtype", None) == np.bool_:
        raise RuntimeError("Subtraction, the `-` operator, with two bool tensors is not "
                           "supported. Use the `^` or `logical_xor()` operator instead.")
    return self - other if alpha == 1 else self - alpha * other


def sub_other(grad, alpha):
    return -grad if alpha == 1 else grad * (-alpha)


defop("sub", sub, derivatives={"self": add_self, "other": sub_other}, inplace="sub_",
      methods=("sub", "__sub__", "subtract"), functions=("sub", "subtract"), family=FAMILY)


def rsub(self, other, *, alpha=1):
    """``other - alpha * self`` (what ``2 - x`` runs)."""
    return other - self if alpha == 1 else other - alpha * self


def rsub_self(grad, alpha):
    return -grad if alpha == 1 else grad * (-alpha)


def rsub_other(grad):
    return grad


defop("rsub", rsub, derivatives={"self": rsub_self, "other": rsub_other},
      grad_fn_name="RsubBackward1", methods=("__rsub__",), family=FAMILY)


def mul(self, other):
    """Elementwise product."""
    return self * other


def mul_self(grad, other):
    return grad * other


def mul_other(grad, self):
    return grad * self


def mul_samples(make, shapes):
    return [Sample((make(shapes[1]), make(shapes[2]))), Sample((make(shapes[0]), 2.5)),
            Sample((make(shapes[1]), make(shapes[2])), call="__rmul__")]


defop("mul", mul, derivatives={"self": mul_self, "other": mul_other}, inplace="mul_",
      samples=mul_samples,
      methods=("mul", "__mul__", "__rmul__", "multiply"), functions=("mul", "multiply"),
      family=FAMILY)


def div(self, other, *, rounding_mode=None):
    """True division, or ``"trunc"`` / ``"floor"`` rounding."""
    if rounding_mode is None:
        return np.true_divide(self, other)
    if rounding_mode == "floor":
        return _floor_divide(self, other)
    if rounding_mode == "trunc":
        if np.result_type(self, other).kind in "iu":
            return _trunc_int_divide(self, other)
        return np.trunc(np.true_divide(self, other))
    raise RuntimeError("div expected rounding_mode to be one of None, 'trunc', or 'floor' but "
                       f"found '{rounding_mode}'")


def _floor_divide(a, b):
    if np.result_type(a, b).kind in "iu" and np.any(np.asarray(b) == 0):
        raise RuntimeError("ZeroDivisionError")
    return np.floor_divide(a, b)


def _trunc_int_divide(a, b):
    if np.any(np.asarray(b) == 0):
        raise RuntimeError("ZeroDivisionError")
    q = np.floor_divide(a, b)
    fix = (np.remainder(a, b) != 0) & ((np.asarray(a) < 0) != (np.asarray(b) < 0))
    return q + fix


def div_self(grad, other, rounding_mode):
    if rounding_mode is not None:
        return grad * 0
    return grad / other


def div_other(grad, self, other, rounding_mode):
    if rounding_mode is not None:
        return grad * 0
    return -grad * self / (other * other)


def _div_dtype(rec, args):
    from .registry import promote, promote_float
    if args[2] is None:
        return promote_float(rec, args)
    return promote(rec, args)


defop("div", div, derivatives={"self": div_self, "other": div_other}, inplace="div_",
      dtype=_div_dtype, methods=("div", "__truediv__", "divide", "true_divide"),
      functions=("div", "divide", "true_divide"), family=FAMILY)


def _rtruediv(self, other):
    return self.reciprocal() * other


bind_method("__rtruediv__", _rtruediv)


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
      methods=("neg", "__neg__", "negative"), functions=("neg", "negative"), family=FAMILY)


def reciprocal(self):
    """``1 / self``."""
    return np.reciprocal(self)


def reciprocal_self(grad, result):
    return -grad * result * result


defop("reciprocal", reciprocal, derivatives={"self": reciprocal_self}, dtype="promote_float",
      inplace="reciprocal_", family=FAMILY)


# -- powers ------------------------------------------------------------------------------
def pow_scalar(self, exponent):
    """``self ** exponent`` for a number exponent (PowBackward0)."""
    return np.power(self, exponent)


def pow_scalar_self(grad, self, exponent):
    if exponent == 0:
        return grad * 0
    return grad * exponent * self.pow(exponent - 1)


def _pow_scalar_dtype(rec, args):
    from .registry import promote
    return promote(rec, (args[0], args[1]))


_pow0 = defop("pow_scalar", pow_scalar, inputs=("self",),
              derivatives={"self": pow_scalar_self}, grad_fn_name="PowBackward0",
              dtype=lambda rec, args: _pow_dtype(args[0], args[1]), methods=(), functions=(),
              family=FAMILY)


def pow_tensor(self, exponent):
    """``self ** exponent`` for a tensor exponent (PowBackward1)."""
    return np.power(self, exponent)


def pow_tensor_self(grad, self, exponent):
    return grad * exponent * self.pow(exponent - 1)


def pow_tensor_exponent(grad, self, result):
    return grad * result * self.log()


_pow1 = defop("pow_tensor", pow_tensor, inputs=("self", "exponent"),
              derivatives={"self": pow_tensor_self, "exponent": pow_tensor_exponent},
              grad_fn_name="PowBackward1", methods=(), functions=(), family=FAMILY)


def pow_scalar_base(self, exponent):
    """``self ** exponent`` for a number base (PowBackward2)."""
    return np.power(self, exponent)


def pow_scalar_base_exponent(grad, self, result):
    return grad * result * float(np.log(self))


_pow2 = defop("pow_scalar_base", pow_scalar_base, inputs=("exponent",),
              derivatives={"exponent": pow_scalar_base_exponent}, grad_fn_name="PowBackward2",
              dtype=lambda rec, args: _pow_dtype(args[0], args[1]), methods=(), functions=(),
              family=FAMILY)


def _pow_dtype(a, b):
    from .. import dtypes
    d = dtypes.result_type(a, b).np
    return d, d


def pow(self, exponent):
    """``self ** exponent``; either side may be a number."""
    if isinstance(exponent, Tensor):
        if isinstance(self, Tensor):
            return _pow1.public(self, exponent)
        return _pow2.public(self, exponent)
    if isinstance(self, Tensor) and isinstance(exponent, (int, float)) and \
            self._data.dtype.kind in "iu" and exponent < 0 and isinstance(exponent, int):
        raise RuntimeError("Integers to negative integer powers are not allowed.")
    return _pow0.public(self, exponent)


def _rpow(self, other):
    return pow(other, self)


def _pow_(self, exponent):
    from .registry import commit_inplace, inplace_check, old_value
    from ..grad_mode import is_grad_enabled
    inplace_check(self)
    src = old_value(self) if is_grad_enabled() and self._requires_grad else self
    return commit_inplace(self, pow(src, exponent))


export_function("pow", pow)
bind_method("pow", pow)
bind_method("__pow__", pow)
bind_method("__rpow__", _rpow)
bind_method("pow_", _pow_)
bind_method("__ipow__", _pow_)


def square(self):
    """``self ** 2`` (recorded as PowBackward0, like PyTorch)."""
    return pow(self, 2)


export_function("square", square)
bind_method("square", square)


def sqrt(self):
    """Square root."""
    return np.sqrt(self)


def sqrt_self(grad, result):
    return grad / (2 * result)


defop("sqrt", sqrt, derivatives={"self": sqrt_self}, dtype="promote_float", inplace="sqrt_",
      family=FAMILY)


# -- exponentials and activations ---------------------------------------------------------
def exp(self):
    """``e ** self``."""
    return np.exp(self)


def exp_self(grad, result):
    return grad * result


defop("exp", exp, derivatives={"self": exp_self}, dtype="promote_float", inplace="exp_",
      family=FAMILY)


def log(self):
    """Natural logarithm."""
    return np.log(self)


def log_self(grad, self):
    return grad / self


defop("log", log, derivatives={"self": log_self}, dtype="promote_float", inplace="log_",
      family=FAMILY)


def tanh(self):
    """Hyperbolic tangent."""
    return np.tanh(self)


def tanh_self(grad, result):
    return grad * (1 - result * result)


defop("tanh", tanh, derivatives={"self": tanh_self}, dtype="promote_float", inplace="tanh_",
      family=FAMILY, samples=lambda make, shapes: [Sample((make(shapes[0]),))])


def sigmoid(self):
    """``1 / (1 + exp(-self))``, computed stably."""
    e = np.exp(-np.abs(self))
    return np.where(np.asarray(self) >= 0, 1 / (1 + e), e / (1 + e))


def sigmoid_self(grad, result):
    return grad * result * (1 - result)


defop("sigmoid", sigmoid, derivatives={"self": sigmoid_self}, dtype="promote_float",
      inplace="sigmoid_", family=FAMILY)


def relu(self):
    """``max(self, 0)``."""
    return np.maximum(self, 0).astype(self.dtype, copy=False)


def relu_self(grad, result):
    return grad * (result > 0)


defop("relu", relu, derivatives={"self": relu_self}, dtype="same", inplace="relu_",
      family=FAMILY)


# -- comparisons (no gradient) -------------------------------------------------------------
for _name, _ufunc, _dunder, _alias in (
        ("eq", np.equal, "__eq__", None), ("ne", np.not_equal, "__ne__", "not_equal"),
        ("lt", np.less, "__lt__", "less"), ("le", np.less_equal, "__le__", "less_equal"),
        ("gt", np.greater, "__gt__", "greater"),
        ("ge", np.greater_equal, "__ge__", "greater_equal")):
    def _cmp(self, other, _ufunc=_ufunc):
        return _ufunc(self, other)
    _cmp.__doc__ = f"Elementwise ``{_name}``; a bool tensor."
    _names = (_name,) + ((_alias,) if _alias else ())
    defop(_name, _cmp, dtype="compare", methods=_names + (_dunder,), functions=_names,
          inplace=_name + "_", family=FAMILY)

# ``x += y`` and friends are the in-place ops, as in PyTorch.
for _dunder, _method in (("__iadd__", "add_"), ("__isub__", "sub_"), ("__imul__", "mul_"),
                         ("__itruediv__", "div_")):
    bind_method(_dunder, getattr(Tensor, _method))

del RECORDS  # family files only add records
