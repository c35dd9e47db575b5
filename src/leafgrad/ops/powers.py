"""Powers: ``x ** 2`` (PowBackward0), ``x ** y`` (PowBackward1), ``2 ** x`` (PowBackward2),
``square``, and their in-place forms. Integer powers follow PyTorch: a negative number exponent
raises, a negative tensor exponent gives 0 (or +-1 for bases 1 and -1).

>>> import leafgrad as torch
>>> torch.tensor([1, 2, 3]) ** torch.tensor([-1, 2, 0])
tensor([1, 4, 1])
"""
from __future__ import annotations

import math

import numpy as np

from ..grad_mode import state as _mode
from .. import dtypes as _dt
from ..tensor import Tensor, _wrap
from .iter_layout import CONTIG
from .pointwise import _check_bool_sub
from .pointwise_common import inplace_of, int_scalar, not_implemented_for, promote_args, \
    zeros_grad
from .registry import RECORDS, Sample, bind_method, defop, export_function

__all__ = ["pow", "square"]

FAMILY = "pointwise"


def _int_pow(base, exponent):
    """Integer powers with PyTorch's rule for negative exponents (1, -1 -> +-1, else 0)."""
    e = np.asarray(exponent)
    if not np.any(e < 0):
        return np.power(base, exponent)
    b = np.asarray(base)
    safe = np.power(b, np.where(e < 0, 0, e))
    neg = np.where(b == 1, 1, np.where(b == -1, np.where(e % 2 == 0, 1, -1), 0))
    return np.where(e < 0, neg, safe).astype(safe.dtype)


_F32 = np.dtype(np.float32)
_F64 = np.float64
_NUMPY_FAST = (0, 0.5, 1, 2, -1)   # NumPy's own fast paths: a product, sqrt, a reciprocal


def _power32(base, exponent):
    """float32 ``base ** exponent`` rounded once from float64. PyTorch's kernel calls Sleef's
    powf on vectors and the C library's powf on the rest, both correctly rounded but for ~2%
    of values; NumPy's float32 power matches them in ~80% of values, this in ~98%."""
    with np.errstate(all="ignore"):
        return np.power(np.asarray(base, _F64), np.asarray(exponent, _F64)).astype(np.float32)


def pow_scalar(self, exponent):
    """``self ** exponent`` for a number exponent (PowBackward0)."""
    if self.dtype == np.bool_:
        # PyTorch answers the exponents 0 and 1 without a kernel
        if exponent == 0 or exponent == 1:
            return np.full_like(self, True) if exponent == 0 else self.copy()
        raise not_implemented_for("pow", np.bool_)
    if self.dtype.kind == "f":
        # PyTorch's float kernel multiplies for these exponents (the last bit differs from
        # the libm power NumPy calls)
        if exponent == 3:
            return self * self * self
        if exponent == -2:
            return self.dtype.type(1) / (self * self)
        if exponent == -0.5 and self.dtype != np.float16:   # rsqrt: NaN at -inf and -inf at -0.0, where libm pow gives 0, inf
            with np.errstate(divide="ignore", invalid="ignore"):
                return self.dtype.type(1) / np.sqrt(self)
        if self.dtype == _F32 and exponent not in _NUMPY_FAST \
                and not isinstance(exponent, complex):
            return _power32(self, np.float32(exponent))
    return np.power(self, exponent)


def pow_scalar_self(grad, self, exponent):
    if exponent == 0:
        return zeros_grad(grad)
    if exponent == 2 and not _mode.grad_enabled:
        return grad * (self * 2.0)   # the common square: two ops instead of three
    # PyTorch's nodes under double backward: MulBackward0(grad, MulBackward1(PowBackward0))
    return grad * RECORDS["mul_scalar"].public(self.pow(exponent - 1), exponent)


def _pow_samples(make, shapes):
    return [Sample((make.positive(shapes[0]), 2.5), call="pow"),
            Sample((make(shapes[0]), 2), call="pow"),
            Sample((make(shapes[0]), 3), call="__pow__"), Sample((make(shapes[0]), 0), call="pow"),
            Sample((make.positive(shapes[0]), -1.5), call="Tensor.pow_"),
            Sample((make(shapes[0]),), call="square"),
            Sample((make(shapes[0], -4, 4, np.int64), 2), call="pow")]


_pow0 = defop("pow_scalar", pow_scalar, inputs=("self",),
              derivatives={"self": pow_scalar_self}, grad_fn_name="PowBackward0",
              dtype=promote_args(0, 1), methods=(), functions=(), samples=_pow_samples,
              family=FAMILY)


def pow_tensor(self, exponent):
    """``self ** exponent`` for a tensor exponent (PowBackward1)."""
    if self.dtype == np.bool_:
        raise not_implemented_for("pow", np.bool_)
    if self.dtype.kind in "iu":
        return _int_pow(self, exponent)
    if self.dtype == _F32 and exponent.dtype == _F32:
        return _power32(self, exponent)
    return np.power(self, exponent)


def pow_tensor_self(grad, self, exponent):
    # PyTorch's nodes: where(exponent == 0, 0, grad * (exponent * self.pow(exponent - 1)));
    # its ``exponent - 1`` refuses a bool exponent at backward (fuzz seed 15)
    if exponent._data.dtype == np.bool_:
        _check_bool_sub(exponent, 1)
    value = grad * (exponent * self.pow(RECORDS["sub_scalar"].public(exponent, 1)))
    zero = _wrap(np.zeros((), value._data.dtype))
    return RECORDS["where"].public(exponent == 0, zero, value)


def pow_tensor_exponent(grad, self, exponent, result):
    # PyTorch's nodes: grad * where((exponent >= 0) & (self == 0), 0, result * log(self)),
    # self first cast to the result's dtype (its log in that precision)
    if self._data.dtype != result._data.dtype:
        self = self.to(_dt.from_numpy_dtype(result._data.dtype))
    zero = _wrap(np.zeros((), grad._data.dtype))
    return grad * RECORDS["where"].public((exponent >= 0) & (self == 0), zero,
                                          result * self.log())


_pow1 = defop("pow_tensor", pow_tensor, inputs=("self", "exponent"),
              derivatives={"self": pow_tensor_self, "exponent": pow_tensor_exponent},
              grad_fn_name="PowBackward1", methods=(), functions=(), family=FAMILY,
              samples=lambda make, shapes: [
                  Sample((make.positive(shapes[1]), make(shapes[2])), call="pow"),
                  Sample((make.positive(shapes[1]), make(shapes[2])), call="__pow__"),
                  Sample((make(shapes[1], -3, 4, np.int64), make(shapes[2], -2, 3, np.int64)),
                         call="pow")])


def pow_scalar_base(self, exponent):
    """``self ** exponent`` for a number base (PowBackward2)."""
    if exponent.dtype == np.bool_:
        raise not_implemented_for("pow", np.bool_)
    if exponent.dtype.kind in "iu":
        return _int_pow(int_scalar(self, exponent), exponent)
    if exponent.dtype == _F32 and not isinstance(self, complex):
        return _power32(np.float32(self), exponent)
    return np.power(self, exponent)


def pow_scalar_base_exponent(grad, self, exponent, result):
    if type(self) is bool:
        # PyTorch 2.13's formula cannot read back a bool base (an internal assert at backward)
        raise RuntimeError('false INTERNAL ASSERT FAILED at "/__w/pytorch/pytorch/c10/core/'
                           'Scalar.cpp":42, please report a bug to PyTorch. unknown ivalue '
                           'tag 4')
    if self == 0:
        # log(0) = -inf; PyTorch defines the derivative as 0 where the exponent is >= 0.
        zero = _wrap(np.zeros((), grad._data.dtype))
        return grad * RECORDS["where"].public(
            exponent >= 0, zero, RECORDS["mul_scalar"].public(result, -math.inf))
    return grad * RECORDS["mul_scalar"].public(result, float(np.log(self)))


_pow2 = defop("pow_scalar_base", pow_scalar_base, layout=CONTIG, inputs=("exponent",),
              derivatives={"exponent": pow_scalar_base_exponent}, grad_fn_name="PowBackward2",
              dtype=promote_args(0, 1), methods=(), functions=(), family=FAMILY,
              samples=lambda make, shapes: [
                  Sample((2.5, make(shapes[0])), call="pow"),
                  Sample((make(shapes[0]), 3.0), call="__rpow__"),
                  Sample((make(shapes[0], 0, 4, np.int64), 2), call="__rpow__")])


def pow(self, exponent):
    """``self ** exponent``; either side may be a number."""
    if isinstance(exponent, Tensor):
        if isinstance(self, Tensor):
            return _pow1.public(self, exponent)
        return _pow2.public(self, exponent)
    if type(exponent) is int and exponent < 0 and self._data.dtype.kind in "iub":
        raise RuntimeError("Integers to negative integer powers are not allowed.")
    return _pow0.public(self, exponent)


def _rpow(self, other):
    return pow(other, self)


def square(self):
    """``self ** 2`` (recorded as PowBackward0, like PyTorch)."""
    return pow(self, 2)


export_function("pow", pow)
bind_method("pow", pow)
bind_method("__pow__", pow)
bind_method("__rpow__", _rpow)
bind_method("pow_", inplace_of(pow, "pow_"))
export_function("square", square)
bind_method("square", square)
bind_method("square_", inplace_of(square, "square_"))
