"""More pointwise ops: addcmul, addcdiv, logaddexp(2), deg2rad, rad2deg, float_power,
heaviside, copysign, gcd, lcm, ldexp, frexp, nextafter.

>>> import leafgrad as torch
>>> torch.addcmul(torch.ones(2), torch.tensor([1.0, 2.0]), torch.tensor([3.0, 4.0]), value=0.5)
tensor([2.5000, 5.0000])
"""
from __future__ import annotations

import math

import numpy as np

from .. import dtypes as _dt
from .. import return_types
from .._exactmath import fma32, fma64
from ..tensor import Tensor, _wrap
from .pointwise_common import (
    inplace_of,
    not_implemented_for,
    not_implemented_formula,
    not_implemented_inplace,
    scale,
    tensors_only,
    zeros_grad,
)
from .joins import materialize_zeros
from .registry import (RECORDS, Sample, bind_method, defop, export_function, promote,
                       promote_float)
from .unary import _unary, _unary_samples

__all__: list = []

FAMILY = "pointwise"
_LN2 = math.log(2.0)


def _ternary_rule(rec, args):
    d = _dt.result_type(args[0], args[1], args[2]).np
    return d, d


# -- addcmul / addcdiv ---------------------------------------------------------------------
def _fma(a, b, c):
    """``a * b + c`` rounded once, as the fused multiply-add of PyTorch's float kernels: a
    float32 product is exact in float64; a float64 one is Dekker's exact product, summed
    error-free (non-finite results take the plain expression). Operands may broadcast; each
    step is a ufunc on them, so the result's layout is NumPy's (PyTorch's) for ``a * b + c``."""
    if a.dtype == np.float32:
        return np.add(np.multiply(a, b, dtype=np.float64), c, dtype=np.float64).astype(
            np.float32)
    p = a * b
    split = 134217729.0   # 2 ** 27 + 1
    ta, tb = a * split, b * split
    ahi, bhi = ta - (ta - a), tb - (tb - b)
    alo, blo = a - ahi, b - bhi
    e = ((ahi * bhi - p) + ahi * blo + alo * bhi) + alo * blo   # a * b == p + e exactly
    s = p + c
    back = s - p
    t = (p - (s - back)) + (c - back)                           # p + c == s + t exactly
    out = s + (t + e)
    bad = ~np.isfinite(out)
    if bad.any():
        # inf/nan: the plain sum. (np.where, not ``out[bad] = s[bad]``: on 0-d operands the
        # ufuncs above answer NumPy scalars, which take no item assignment.)
        out = np.where(bad, s, out)
    return out


def addcmul(self, tensor1, tensor2, *, value=1):
    """``self + value * tensor1 * tensor2`` as PyTorch's CPU kernel: ``fma(value * t1, t2,
    self)`` for float32/float64, half in float32 rounded once."""
    if self.dtype == np.float16:
        f32 = np.float32
        prod = np.multiply(np.multiply(tensor1, f32(value), dtype=f32), tensor2, dtype=f32)
        return np.add(self, prod, dtype=f32).astype(np.float16)
    if self.dtype.kind == "f":
        return _fma(tensor1 if value == 1 else value * tensor1, tensor2, self)
    if value != 1 and tensor1.dtype.kind in "iub":
        value = int(value)   # PyTorch casts the scalar to the integer type first
    return self + (tensor1 * tensor2 if value == 1 else value * tensor1 * tensor2)


def _addcmul_rule(rec, args):
    d = _dt.result_type(args[0], args[1], args[2]).np
    if d.kind == "b":   # PyTorch's CPU kernel has no bool version
        raise not_implemented_for("addcmul_cpu_out", d)
    return d, d


def addcmul_self(grad):
    return grad


def addcmul_tensor1(grad, tensor2, value):
    return grad * scale(tensor2, value)   # PyTorch's grad * (tensor2 * value)


def addcmul_tensor2(grad, tensor1, value):
    return grad * scale(tensor1, value)


def _addc_samples(make, shapes, positive=False):
    t2 = make.positive(shapes[2]) if positive else make(shapes[2])
    return [Sample((make(shapes[0]), make(shapes[1]), t2)),
            Sample((make(shapes[0]), make(shapes[1]), t2), {"value": 0.5}),
            Sample((make(shapes[0]), make(shapes[0]),
                    make.positive(shapes[0]) if positive else make(shapes[0])),
                   {"value": 2}, call="Tensor.addc" + ("div_" if positive else "mul_"))]


defop("addcmul", addcmul, inputs=("self", "tensor1", "tensor2"),
      derivatives={"self": addcmul_self, "tensor1": addcmul_tensor1,
                   "tensor2": addcmul_tensor2},
      dtype=_addcmul_rule, inplace="addcmul_", family=FAMILY, samples=_addc_samples)


def _addcdiv_rule(rec, args):
    if (_dt.result_type(args[1]).np.kind in "biu"
            and _dt.result_type(args[2]).np.kind in "biu"):
        raise RuntimeError(
            "Integer division with addcdiv is no longer supported, and in a future  release "
            "addcdiv will perform a true division of tensor1 and tensor2. The historic addcdiv "
            "behavior can be implemented as (input + value * torch.trunc(tensor1 / tensor2))."
            "to(input.dtype) for integer inputs and as (input + value * tensor1 / tensor2) for "
            "float inputs. The future addcdiv behavior is just the latter implementation: "
            "(input + value * tensor1 / tensor2), for all dtypes.")
    return _ternary_rule(rec, args)


def addcdiv(self, tensor1, tensor2, *, value=1):
    """``self + value * tensor1 / tensor2``, in PyTorch's kernel order ``(value * t1) / t2``
    (half in float32, rounded once)."""
    if self.dtype == np.float16:
        f32 = np.float32
        quot = np.divide(np.multiply(tensor1, f32(value), dtype=f32), tensor2, dtype=f32)
        return np.add(self, quot, dtype=f32).astype(np.float16)
    return self + (tensor1 / tensor2 if value == 1 else value * tensor1 / tensor2)


def addcdiv_tensor1(grad, tensor2, value):
    # PyTorch's grad * (value / tensor2), the number filled into tensor2's shape then divided
    full = _wrap(np.full(tensor2._data.shape, value, tensor2._data.dtype))
    return grad * (full / tensor2)


def addcdiv_tensor2(grad, tensor1, tensor2, value):
    return -grad * (scale(tensor1, value) / (tensor2 * tensor2))


defop("addcdiv", addcdiv, inputs=("self", "tensor1", "tensor2"),
      derivatives={"self": addcmul_self, "tensor1": addcdiv_tensor1,
                   "tensor2": addcdiv_tensor2},
      dtype=_addcdiv_rule, inplace="addcdiv_", family=FAMILY,
      samples=lambda make, shapes: _addc_samples(make, shapes, positive=True))


# -- logaddexp / logaddexp2 ----------------------------------------------------------------
def _float_only(kernel, names=("input", "other")):
    """Both tensors, promoted; integer results are PyTorch's 'not implemented'."""
    base = tensors_only(promote, names)

    def rule(rec, args):
        compute, out = base(rec, args)
        if compute.kind != "f":
            raise not_implemented_for(kernel, compute)
        return compute, out
    return rule


def logaddexp(self, other):
    """``log(exp(self) + exp(other))`` without overflow."""
    return np.logaddexp(self, other)


def logaddexp_self(grad, self, other):
    # PyTorch's grad / (1 + exp(other - self)): 1 + t is t.add(1) (AddBackward1)
    return grad / RECORDS["add_scalar"].public((other - self).exp(), 1)


def logaddexp_other(grad, self, other):
    return grad / RECORDS["add_scalar"].public((self - other).exp(), 1)


_INV_LN2 = 1.0 / math.log(2.0)


def logaddexp2(self, other):
    """``log2(2**self + 2**other)`` without overflow, as ATen's CPU kernel computes it:
    ``m + log1p(exp2(-|a - b|)) * (1 / ln 2)`` with ``m = max(a, b)``, the last multiply-add
    fused (the compiler contracts it in both the scalar and the vector loop, so
    ``logaddexp2(-1, -1)`` is ``-1.06e-08``, not 0), and equal infinities passed through.
    NumPy's ``logaddexp2`` (``m + log2(1 + 2^(b - a))``) differs in ~15% of last bits.
    Half-precision inputs keep NumPy's."""
    if self.dtype.char not in "fd":
        return np.logaddexp2(self, other)
    dtype = self.dtype.type
    with np.errstate(all="ignore"):
        m = np.maximum(self, other)
        tail = np.log1p(np.exp2(-np.abs(self - other)))
        fma = fma32 if dtype is np.float32 else fma64
        out = np.asarray(fma(tail, dtype(_INV_LN2), m), dtype)
        special = ~np.isfinite(m) | (np.isinf(self) & (self == other))
        if special.any():    # fma64 needs finite values; equal infinities stay themselves
            plain = np.where(np.isinf(self) & (self == other), self, m + tail * dtype(_INV_LN2))
            out = np.where(special, plain, out)
    return out


def logaddexp2_self(grad, self, other):
    # PyTorch's grad / (1 + pow(2, other - self)): AddBackward1 over PowBackward2
    return grad / RECORDS["add_scalar"].public(RECORDS["pow_scalar_base"].public(2, other - self),
                                               1)


def logaddexp2_other(grad, self, other):
    return grad / RECORDS["add_scalar"].public(RECORDS["pow_scalar_base"].public(2, self - other),
                                               1)


def _binary_samples(make, shapes):
    return [Sample((make(shapes[1]), make(shapes[2]))),
            Sample((make(shapes[1]).astype(np.float32), make(shapes[2])), atol=1e-5)]


defop("logaddexp", logaddexp, derivatives={"self": logaddexp_self, "other": logaddexp_other},
      dtype=_float_only("logaddexp_cpu"), family=FAMILY, samples=_binary_samples)
defop("logaddexp2", logaddexp2,
      derivatives={"self": logaddexp2_self, "other": logaddexp2_other},
      dtype=_float_only("logaddexp2_cpu"), family=FAMILY, samples=_binary_samples)


# -- deg2rad / rad2deg ---------------------------------------------------------------------
_D2R = math.pi / 180.0
_R2D = 180.0 / math.pi


def deg2rad(self):
    """Degrees to radians."""
    return self * _D2R


def deg2rad_self(grad):
    return scale(grad, _D2R)


def rad2deg(self):
    """Radians to degrees."""
    return self * _R2D


def rad2deg_self(grad):
    return scale(grad, _R2D)


_unary("deg2rad", deg2rad, deg2rad_self, grad_fn_name="Deg2RadBackward0",
       samples=_unary_samples(-200.0, 200.0))
_unary("rad2deg", rad2deg, rad2deg_self, grad_fn_name="Rad2DegBackward0")


# -- float_power: pow in float64 (composite in PyTorch, so its nodes are pow's) ------------
def float_power(input, exponent):
    """``input ** exponent`` computed in double precision."""
    if isinstance(input, Tensor):
        base = input.to(_dt.float64)
        if isinstance(exponent, Tensor):
            return base.pow(exponent.to(_dt.float64))
        return base.pow(float(exponent) if not isinstance(exponent, bool) else exponent)
    if not isinstance(exponent, Tensor):
        raise TypeError("float_power() received an invalid combination of arguments")
    return exponent.to(_dt.float64).__rpow__(float(input))


def _float_power_(self, exponent):
    if self.dtype is not _dt.float64:
        raise RuntimeError(f"the base given to float_power_ has dtype "
                           f"{self.dtype.tensor_type[:-6]} but the operation's result requires "
                           f"dtype Double")
    return inplace_of(float_power, "float_power_")(self, exponent)


export_function("float_power", float_power)
bind_method("float_power", float_power)
bind_method("float_power_", _float_power_)


# -- heaviside -----------------------------------------------------------------------------
def _heaviside_rule(rec, args):
    compute, out = tensors_only(promote, ("input", "values"))(rec, args)
    if args[0]._data.dtype != args[1]._data.dtype:
        raise RuntimeError("heaviside is not yet implemented for tensors with different "
                           "dtypes.")
    return compute, out


def heaviside(self, values):
    """``values`` where ``self == 0``, else 1 where ``self > 0`` and 0 elsewhere (NaN too, as
    PyTorch's kernel: NumPy's heaviside gives NaN for NaN)."""
    return np.where(self == 0, values, self > 0).astype(np.result_type(self, values),
                                                        copy=False)


_heaviside_grad = not_implemented_formula("heaviside")
_heaviside = defop("heaviside", heaviside, inputs=("self", "values"),
      derivatives={"self": _heaviside_grad, "values": _heaviside_grad},
      grad_fn_name="NotImplemented", dtype=_heaviside_rule, inplace="heaviside_",
      family=FAMILY, samples=lambda make, shapes: [
          Sample((make(shapes[1], -2, 3, np.int64).astype(np.float64), make(shapes[2])),
                 grad=False),
          Sample((make(shapes[1], -2, 3, np.int64), make(shapes[2], 0, 5, np.int64)))])
not_implemented_inplace(_heaviside)   # aten::heaviside_ in its error, as PyTorch


# -- copysign ------------------------------------------------------------------------------
def copysign(self, other):
    """``|self|`` with the sign of ``other``."""
    return np.copysign(self, other)


def copysign_self(grad, self, result):
    # PyTorch's copysign_tensor_self_backward: grad * (result / self), 0 where self is 0
    # (+-1 elsewhere; NaN for an infinite self, as there)
    ratio = result / self
    ratio.masked_fill_(self == 0, 0)
    return grad * ratio


def copysign_other(grad, other_shape, other_dtype):
    # PyTorch's zeros_like(other): other's shape and dtype, filled in place (version 1)
    out = _wrap(np.zeros(other_shape, other_dtype.np))
    out._vc[0] = 1
    return out


defop("copysign", copysign, derivatives={"self": copysign_self, "other": copysign_other},
      dtype="promote_float", methods=(), functions=(), family=FAMILY,
      samples=lambda make, shapes: [Sample((make(shapes[1]), make(shapes[2])),
                                           call="copysign"),
                                    Sample((make(shapes[1], -3, 3, np.int64),
                                            make(shapes[2], -3, 3, np.int64)),
                                           call="copysign")])


def _copysign_scalar_rule(rec, args):
    d = _dt.result_type(args[0], args[1])
    if not d.is_floating_point:
        d = _dt.get_default_dtype()
    return d.np, d.np


_copysign_s = defop("copysign_scalar", copysign, inputs=("self",),
                    derivatives={"self": copysign_self}, grad_fn_name="CopysignBackward1",
                    dtype=_copysign_scalar_rule, methods=(), functions=(), family=FAMILY,
                    samples=lambda make, shapes: [
                        Sample((make(shapes[0]), -1.5), call="copysign"),
                        Sample((make(shapes[0]), 2), call="Tensor.copysign")])


def copysign_public(input, other):
    """``|input|`` with the sign of ``other`` (a tensor or a number)."""
    from .registry import RECORDS
    if isinstance(other, Tensor):
        return RECORDS["copysign"].public(input, other)
    return _copysign_s.public(input, other)


export_function("copysign", copysign_public)
bind_method("copysign", copysign_public)
bind_method("copysign_", inplace_of(copysign_public, "copysign_"))


# -- gcd / lcm -----------------------------------------------------------------------------
def _integer_only(kernel):
    base = tensors_only(promote)

    def rule(rec, args):
        compute, out = base(rec, args)
        if compute.kind not in "iu":
            raise not_implemented_for(kernel, compute)
        return compute, out
    return rule


def gcd(self, other):
    """Greatest common divisor (non-negative)."""
    return np.gcd(self, other)


def lcm(self, other):
    """Least common multiple (non-negative)."""
    return np.lcm(self, other)


def _int_samples(make, shapes):
    return [Sample((make(shapes[1], -20, 20, np.int64), make(shapes[2], -20, 20, np.int64)))]


defop("gcd", gcd, dtype=_integer_only("gcd_cpu"), inplace="gcd_", family=FAMILY,
      samples=_int_samples)
defop("lcm", lcm, dtype=_integer_only("lcm_cpu"), inplace="lcm_", family=FAMILY,
      samples=_int_samples)


# -- ldexp / frexp / nextafter -------------------------------------------------------------
def ldexp(self, other):
    """``self * 2 ** other``."""
    return self * np.exp2(other)


def ldexp_self(grad, other):
    # pow(2, other) as PyTorch's formula: an integer ``other`` gives integer powers, so the
    # gradient is 0 where ``other`` < 0 (what PyTorch 2.13 returns)
    from .powers import pow as _pow
    return grad * _pow(2, other)


def ldexp_other(grad, result):
    return scale(grad * result, _LN2)   # PyTorch's grad * result * M_LN2: MulBackward1


def _ldexp_rule(rec, args):
    compute, out = _ldexp_base(rec, args)
    if args[0]._data.dtype.kind == "f" and args[1]._data.dtype.kind == "b":
        # a floating self takes PyTorch's kernel, which has no bool exponent
        raise not_implemented_for("ldexp_cpu_exp", args[1]._data.dtype)
    return compute, out


_ldexp_base = tensors_only(promote_float)
defop("ldexp", ldexp, derivatives={"self": ldexp_self, "other": ldexp_other},
      dtype=_ldexp_rule, inplace="ldexp_", family=FAMILY,
      samples=lambda make, shapes: [
          Sample((make(shapes[1]), make(shapes[2]))),
          Sample((make(shapes[1]), make(shapes[2], -3, 4, np.int64))),
          Sample((make(shapes[1], -3, 4, np.int64), make(shapes[2], -3, 4, np.int64)))])


_frexp_type = return_types._make("frexp", ("mantissa", "exponent"))


def frexp_op(self):
    """``(mantissa, exponent)``: ``self = mantissa * 2 ** exponent`` (int32 exponent)."""
    mantissa, exponent = np.frexp(self)
    return [np.asarray(mantissa, dtype=self.dtype), np.asarray(exponent, dtype=np.int32)]


def frexp_self(grads, result1):
    # FrexpBackward0 saves the exponent output (``_saved_exponent``): changing it in place is
    # caught at backward
    grad = grads[0]
    return grad / _wrap(np.exp2(result1._data.astype(grad._data.dtype)))


_frexp = defop("frexp", frexp_op, derivatives={"self": frexp_self}, dtype="same", n_outputs=2,
               differentiable_outputs=(True, False), materialize=materialize_zeros,
               methods=(), functions=(), family=FAMILY)


def frexp(input):
    """``(mantissa, exponent)`` with ``input = mantissa * 2 ** exponent``, 0.5 <= |m| < 1."""
    if not isinstance(input, Tensor):
        raise TypeError(f"frexp(): argument 'input' (position 1) must be Tensor, not "
                        f"{type(input).__name__}")
    if not input.dtype.is_floating_point:
        raise RuntimeError("torch.frexp() only supports floating-point dtypes")
    return _frexp_type(_frexp.public(input))


_frexp.samples = lambda make, shapes: [Sample((make(shapes[0], -8, 8),), call="frexp"),
                                       Sample((make(shapes[1]),), call="Tensor.frexp")]
export_function("frexp", frexp)
bind_method("frexp", frexp)


def nextafter(self, other):
    """The next representable value after ``self`` toward ``other``."""
    return np.nextafter(self, other)


def nextafter_self(grad, self, other):
    # PyTorch's where(self != other, grad, 0): no gradient where the result is other itself
    return RECORDS["where"].public(self != other, grad, _wrap(np.zeros((), grad._data.dtype)))


defop("nextafter", nextafter, derivatives={"self": nextafter_self, "other": copysign_other},
      dtype=_float_only("nextafter_cpu"), inplace="nextafter_", family=FAMILY,
      samples=_binary_samples)
