"""Unary math: exponentials, logarithms, roots, trigonometry, erf, rounding, abs and sign.

Integer and bool inputs to the floating ops compute in the default float dtype (``dtype=
"promote_float"``); the rounding ops, ``abs`` and ``sign`` keep the input's dtype. Constants in
the forwards are Python floats so float32 inputs stay float32 (NumPy treats Python numbers as
"weak", NumPy scalars not).

>>> import leafgrad as torch
>>> torch.tensor([1, 2]).exp2()
tensor([2., 4.])
"""
from __future__ import annotations

import math

import numpy as np

from .. import _vml
from .._sleef_f32 import expm1f
from .._zerotensor import zerotensor
from ..tensor import Tensor
from .pointwise_common import inplace_of, not_implemented_for, number_minus, zeros_grad
from .registry import RECORDS, Sample, bind_method, defop, export_function
from .backward_ops import TANH_BACKWARD as _TANH_BACKWARD

__all__ = ["erf_array"]

FAMILY = "pointwise"
_LN2 = math.log(2.0)
_LN10 = math.log(10.0)
_TWO_OVER_SQRT_PI = 2.0 / math.sqrt(math.pi)
def _unary_samples(low=-2.0, high=2.0, ints=True, atol=1e-6):
    """Samples for a unary op: float64 (with grads), float32 and (optionally) int64 inputs."""
    def samples(make, shapes):
        out = [Sample((make(shapes[0], low, high),), atol=atol),
               Sample((make(shapes[1], low, high).astype(np.float32),), atol=1e-5)]
        if ints:
            out.append(Sample((make(shapes[2], max(low, -5), min(high, 5) + 1, np.int64),),
                              atol=1e-5))
        return out
    return samples


def _unary(name, forward, formula, *, dtype="promote_float", samples=None, aliases=(),
           grad_fn_name=None, inplace=True, kernel=None):
    """One unary record: method, torch function, in-place ``name_`` and aliases."""
    names = (name,) + tuple(aliases)
    rec = defop(name, forward, derivatives={"self": formula} if formula else None,
                dtype=dtype, methods=names, functions=names, kernel=kernel,
                inplace=name + "_" if inplace else None, grad_fn_name=grad_fn_name,
                samples=samples or _unary_samples(), family=FAMILY)
    if inplace:
        for alias in aliases:
            bind_method(alias + "_", getattr(Tensor, name + "_"))
    return rec


# -- exponentials and logarithms ------------------------------------------------------------
# Note [Positive NaN]
# x86's default NaN, which NumPy's log / sqrt of a negative number give, has its sign bit
# set; PyTorch's kernels (Sleef, MKL) answer +NaN there, and copysign / signbit show it
# (fuzz seed 241: copysign(y, xlogy(x, -1))). These take +NaN for a NaN made from a
# number (float and double; half keeps -NaN, as PyTorch's); NumPy's invalid flag makes the
# check free when no NaN was made.
def positive_nan(fn):
    """``fn`` (a NumPy ufunc of one array) with +NaN where it makes a NaN (Note [Positive
    NaN])."""
    def kernel(x):
        with np.errstate(invalid="raise"):
            try:
                return fn(x)
            except FloatingPointError:
                pass
        with np.errstate(invalid="ignore"):
            out = np.asarray(fn(x))
        if out.dtype.char not in "fd":   # (half: PyTorch's float math and libm: -NaN too)
            return out
        made = np.isnan(out) & ~np.isnan(x)
        if made.any():
            out = np.array(out)
            out[made] = np.nan
        return out
    kernel.__name__ = kernel.__qualname__ = fn.__name__
    kernel.__doc__ = fn.__doc__
    return kernel


_log, _log2, _log10, _log1p, _sqrt = (positive_nan(f) for f in (_vml.log, _vml.log2, _vml.log10,
                                                                 _vml.log1p, np.sqrt))
_SLEEF_NAN32 = np.uint32(0xFFFFFFFF).view(np.float32)


def _log1p_kernel(x):
    """log1p; float32 below -1 gives Sleef's NaN, all bits set (its log1pf ORs a NaN mask
    into the result), not +NaN."""
    out = _log1p(x)
    if x.dtype == np.float32 and out.ndim and (x < -1).any():
        out[x < -1] = _SLEEF_NAN32
    elif x.dtype == np.float32 and not out.ndim and x < -1:
        out = np.asarray(_SLEEF_NAN32)
    return out


def exp(self):
    """``e ** self``."""
    return _vml.exp(self)


def exp_self(grad, result):
    return grad * result


_unary("exp", exp, exp_self, kernel=_vml.exp)


def exp2(self):
    """``2 ** self``."""
    return _vml.exp2(self)


def _by_number(op, t, number):
    """``t <op> number`` as PyTorch's C++ formulas compute it: the Scalar overload, whose node
    is MulBackward1 / AddBackward1 / SubBackward1 / DivBackward1 under double backward (the
    records are in losses.py; looked up here to keep the import order free)."""
    return RECORDS[op].public(t, number)


def exp2_self(grad, result):
    return _by_number("mul_scalar", grad * result, _LN2)


_unary("exp2", exp2, exp2_self)


def expm1(self):
    """``exp(self) - 1``, accurate near 0."""
    if self.dtype == np.float32:
        return expm1f(self)   # Sleef's bits (Note [Sleef's expm1f])
    return np.expm1(self)


def expm1_self(grad, result):
    return grad * _by_number("add_scalar", result, 1)


_unary("expm1", expm1, expm1_self, kernel=expm1)


def log(self):
    """Natural logarithm."""
    return _log(self)


def log_self(grad, self):
    return grad / self


_unary("log", log, log_self, kernel=_log, samples=_unary_samples(0.1, 3.0))


def log2(self):
    """Base-2 logarithm."""
    return _log2(self)


def log2_self(grad, self):
    return grad / _by_number("mul_scalar", self, _LN2)


_unary("log2", log2, log2_self, samples=_unary_samples(0.1, 3.0))


def log10(self):
    """Base-10 logarithm."""
    return _log10(self)


def log10_self(grad, self):
    return grad / _by_number("mul_scalar", self, _LN10)


_unary("log10", log10, log10_self, samples=_unary_samples(0.1, 3.0))


def log1p(self):
    """``log(1 + self)``, accurate near 0."""
    return _log1p_kernel(self)


def log1p_self(grad, self):
    return grad / _by_number("add_scalar", self, 1)


_unary("log1p", log1p, log1p_self, grad_fn_name="Log1PBackward0",
       samples=_unary_samples(-0.9, 3.0))


def sqrt(self):
    """Square root."""
    return _sqrt(self)


def sqrt_self(grad, result):
    return grad / _by_number("mul_scalar", result, 2)


_unary("sqrt", sqrt, sqrt_self, kernel=_sqrt, samples=_unary_samples(0.1, 3.0))


def rsqrt(self):
    """``1 / sqrt(self)``."""
    if self.dtype == np.float16:
        return (1.0 / np.sqrt(self.astype(np.float32))).astype(np.float16)
    return 1.0 / np.sqrt(self)


def rsqrt_self(grad, result):
    # PyTorch's -0.5 * grad * result.pow(3): the number first (MulBackward1)
    return _by_number("mul_scalar", grad, -0.5) * result.pow(3)


_unary("rsqrt", rsqrt, rsqrt_self, samples=_unary_samples(0.1, 3.0))


# -- trigonometric and hyperbolic ----------------------------------------------------------
def sin(self):
    """Sine."""
    return np.sin(self)


def sin_self(grad, self):
    return grad * self.cos()


_unary("sin", sin, sin_self, kernel=np.sin)


def cos(self):
    """Cosine."""
    return np.cos(self)


def cos_self(grad, self):
    return grad * -self.sin()


_unary("cos", cos, cos_self, kernel=np.cos)


def tan(self):
    """Tangent."""
    return _vml.tan(self)


def tan_self(grad, result):
    return grad * _by_number("add_scalar", result.pow(2), 1)


_unary("tan", tan, tan_self, samples=_unary_samples(-1.2, 1.2))


def asin(self):
    """Inverse sine."""
    return _vml.asin(self)


def asin_self(grad, self):
    return grad * _by_number("add_scalar", -self * self, 1).rsqrt()


_unary("asin", asin, asin_self, aliases=("arcsin",), samples=_unary_samples(-0.9, 0.9, False))


def acos(self):
    """Inverse cosine."""
    return _vml.acos(self)


def acos_self(grad, self):
    return grad * -_by_number("add_scalar", -self * self, 1).rsqrt()   # (AddBackward1)


_unary("acos", acos, acos_self, aliases=("arccos",), samples=_unary_samples(-0.9, 0.9, False))


def atan(self):
    """Inverse tangent."""
    return _vml.atan(self)


def atan_self(grad, self):
    return grad / _by_number("add_scalar", self * self, 1)


_unary("atan", atan, atan_self, aliases=("arctan",))


def sinh(self):
    """Hyperbolic sine."""
    return _vml.sinh(self)


def sinh_self(grad, self):
    return grad * self.cosh()


_unary("sinh", sinh, sinh_self)


def cosh(self):
    """Hyperbolic cosine."""
    return _vml.cosh(self)


def cosh_self(grad, self):
    return grad * self.sinh()


_unary("cosh", cosh, cosh_self)


def tanh(self):
    """Hyperbolic tangent."""
    return _vml.tanh(self)


def tanh_self(grad, result):
    # one op, as PyTorch's tanh_backward (its record's dispatcher called directly: the
    # public function would only pass the arguments on)
    return _TANH_BACKWARD.dispatch(_TANH_BACKWARD, (grad, result))


_unary("tanh", tanh, tanh_self, kernel=_vml.tanh)


def asinh(self):
    """Inverse hyperbolic sine."""
    return np.arcsinh(self)


def asinh_self(grad, self):
    return grad * _by_number("add_scalar", self.pow(2), 1).rsqrt()   # (AddBackward1)


_unary("asinh", asinh, asinh_self, aliases=("arcsinh",))


def acosh(self):
    """Inverse hyperbolic cosine."""
    return np.arccosh(self)


def acosh_self(grad, self):
    return grad * _by_number("sub_scalar", self * self, 1).rsqrt()   # (SubBackward1)


_unary("acosh", acosh, acosh_self, aliases=("arccosh",), samples=_unary_samples(1.1, 3.0))


def atanh(self):
    """Inverse hyperbolic tangent."""
    return _vml.atanh(self)


def atanh_self(grad, self):
    # PyTorch's grad * 1 / (1 - self.pow(2)): MulBackward1 over SubBackward0
    return _by_number("mul_scalar", grad, 1) / number_minus(1, self.pow(2))


_unary("atanh", atanh, atanh_self, aliases=("arctanh",),
       samples=_unary_samples(-0.9, 0.9, False))


# -- erf -----------------------------------------------------------------------------------
def erf_array(x: np.ndarray, complement: bool = False) -> np.ndarray:
    """``erf`` (or ``erfc``) of a float array, as libm's ``erf`` / ``erfc`` (``math.erf``
    calls it), in the array's dtype.

    NumPy has no erf; ``map`` over the values runs libm's in C, faster than any series in
    NumPy (26 ms for 300k values), and equal to what ATen's scalar loops give. (Sleef's
    vectorized float64 erf is ``_sleef.erf_u1``.)
    """
    fn = math.erfc if complement else math.erf
    vals = np.fromiter(map(fn, x.ravel().tolist()), np.float64, x.size)
    return vals.reshape(x.shape).astype(x.dtype, copy=False)


def erf(self):
    """The error function."""
    return erf_array(np.asarray(self))


def erf_self(grad, self):
    return _by_number("mul_scalar", (-self.pow(2)).exp(), _TWO_OVER_SQRT_PI) * grad


_unary("erf", erf, erf_self)


def erfc(self):
    """``1 - erf(self)``, accurate where it is tiny."""
    return erf_array(np.asarray(self), complement=True)


def erfc_self(grad, self):
    # PyTorch's -2 / sqrt(pi) * exp(-self.pow(2)) * grad
    return _by_number("mul_scalar", (-self.pow(2)).exp(), -_TWO_OVER_SQRT_PI) * grad


_unary("erfc", erfc, erfc_self, samples=_unary_samples(-2.0, 2.0))


# -- abs, sign, rounding ---------------------------------------------------------------------
def abs(self):
    """Absolute value (same dtype)."""
    if self.dtype == np.bool_:
        raise not_implemented_for("abs_cpu", self)
    return np.abs(self)


def abs_self(grad, self):
    return grad * self.sgn()


_unary("abs", abs, abs_self, dtype="same", aliases=("absolute",))
bind_method("__abs__", Tensor.abs)   # Python's abs(x)


def sign(self):
    """-1, 0 or 1 by the sign of each element (same dtype; ``sign(nan)`` is 0)."""
    if self.dtype == np.bool_:
        return self.copy()
    out = np.sign(self)
    if out.dtype.kind == "f":
        out = np.where(out != out, 0.0, out)   # sign(nan) is 0 in PyTorch
    return out


def sign_self(grad):
    return zeros_grad(grad)


def sgn_self(grad, self, result):
    # PyTorch's sgn_backward(self, grad, result) is, for real inputs, an immutable "efficient
    # zero tensor" (Note [Zero tensors] in _zerotensor.py), yet it saves both: an in-place
    # change of either is caught at backward (sign's formula saves nothing)
    d = self._data
    if d.dtype.kind == "c":
        return zeros_grad(grad)
    return zerotensor(d.shape, d.dtype)


_unary("sign", sign, sign_self, dtype="same")
_unary("sgn", sign, sgn_self, dtype="same")


def _rounding(kernel, fn):
    def forward(self):
        if self.dtype.kind == "f":
            return fn(self)
        if self.dtype == np.bool_:
            raise not_implemented_for(kernel, self)
        return self.copy()
    return forward


def _round_samples(make, shapes, call=None):
    return [Sample((make(shapes[0], -4, 4),), call=call),
            Sample((make(shapes[1], -4, 4).astype(np.float32),), call=call),
            Sample((make(shapes[2], -5, 5, np.int64),), call=call)]


floor = _rounding("floor_vml_cpu", np.floor)
floor.__doc__ = "Round down."
ceil = _rounding("ceil_vml_cpu", np.ceil)
ceil.__doc__ = "Round up."
trunc = _rounding("trunc_vml_cpu", np.trunc)
trunc.__doc__ = "Round toward zero."
_unary("floor", floor, sign_self, dtype="same", samples=_round_samples)
_unary("ceil", ceil, sign_self, dtype="same", samples=_round_samples)
_unary("trunc", trunc, sign_self, dtype="same", aliases=("fix",), samples=_round_samples)


def round_half_even(self):
    """Round half to even."""
    if self.dtype.kind == "f":
        return np.rint(self)
    if self.dtype == np.bool_:
        raise not_implemented_for("round_vml_cpu", self)
    return self.copy()


_round0 = defop("round", round_half_even, derivatives={"self": sign_self}, dtype="same", methods=(),
                functions=(), samples=lambda make, shapes: _round_samples(make, shapes, "round"),
                family=FAMILY)


def round_decimals(self, decimals):
    """Round half to even at ``decimals`` digits (RoundBackward1)."""
    if self.dtype.kind != "f":
        raise not_implemented_for("round_vml_cpu" if decimals == 0 else "round_cpu", self)
    return np.round(self, decimals)


_round1 = defop("round_decimals", round_decimals, derivatives={"self": sign_self},
                dtype="same", methods=(), functions=(), grad_fn_name="RoundBackward1",
                samples=lambda make, shapes: [Sample((make(shapes[0]),), {"decimals": 2},
                                                     call="round")],
                family=FAMILY)


def round(input, *, decimals=None):
    """Round half to even, at ``decimals`` digits after the point."""
    if decimals is None:   # round(x, decimals=0) spelled out is RoundBackward1, as PyTorch
        return _round0.public(input)
    return _round1.public(input, decimals)


export_function("round", round)
bind_method("round", round)
bind_method("round_", inplace_of(round, "round_", saves_self=False))


def frac(self):
    """``self - trunc(self)``."""
    if self.dtype.kind != "f":
        raise not_implemented_for("frac_cpu", self)
    return self - np.trunc(self)


def frac_self(grad):
    return grad


_unary("frac", frac, frac_self, dtype="same",
       samples=lambda make, shapes: [Sample((make(shapes[0], -4, 4),))])
