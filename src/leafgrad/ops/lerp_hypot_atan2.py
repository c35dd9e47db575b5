"""The two-input math that picks between its inputs' slopes: lerp (number or tensor weight),
hypot, atan2; registered with select.py, which imports this module.

>>> import leafgrad as torch
>>> torch.tensor([0., 10.]).lerp(torch.tensor([10., 20.]), 0.5)
tensor([ 5., 15.])
"""
from __future__ import annotations

import numpy as np

from .. import dtypes as _dt
from ..tensor import Tensor
from .pointwise_common import (inplace_of, not_implemented_for, number_minus, scale,
                               tensors_only)
from .registry import Sample, bind_method, defop, export_function, promote, promote_float
from .select import _CPP_NAMES
from .signed_zero import vector_lanes

FAMILY = "pointwise"


# -- lerp / hypot / atan2 -------------------------------------------------------------------
def _check_end(self, end):
    if end.dtype != self.dtype:
        raise RuntimeError(f"expected dtype {_CPP_NAMES[self.dtype.name]} for `end` but got "
                           f"dtype {_CPP_NAMES[end.dtype.name]}")


def _check_weight(self, weight):
    if weight.ndim and weight.dtype != self.dtype:
        raise RuntimeError(f"expected dtype {_CPP_NAMES[self.dtype.name]} for `weight` but "
                           f"got dtype {_CPP_NAMES[weight.dtype.name]}")


def lerp_scalar(self, end, weight):
    """``self + weight * (end - self)`` for a number weight (LerpBackward0)."""
    _check_end(self, end)
    if self.dtype.kind not in "fc":
        raise not_implemented_for("lerp_kernel_scalar", self)
    w = np.asarray(weight, np.float64 if self.dtype == np.float64 else np.float32)
    return _lerp(self, end, w, (self, end))


def _lerp(self, end, weight, operands):
    """PyTorch's lerp kernel: in the computing type (float32 for float16), a fused
    multiply-add on the side of the smaller weight (``weight * (end - self) + self`` or
    ``end - (end - self) * (1 - weight)``), rounded once to the tensor's dtype. float32's
    fused ops are computed in float64 (exact products), float64's with error-free
    transformations (``_fma64``). ``operands``: the kernel's tensor inputs, for where its
    vector loop runs (see ``_vector_zeros``)."""
    dtype = self.dtype
    if dtype == np.float16:
        self, end = self.astype(np.float32), end.astype(np.float32)
    weight = weight.astype(self.dtype, copy=False)
    diff = end - self
    rest = weight.dtype.type(1) - weight
    if self.dtype == np.float32:
        self, end, diff = self.astype(np.float64), end.astype(np.float64), diff.astype(np.float64)
        weight, rest = weight.astype(np.float64), rest.astype(np.float64)
    small = np.abs(weight) < 0.5
    if self.dtype == np.float64:
        out = np.where(small, _fma64(weight, diff, self), _fma64(-diff, rest, end))
    else:
        out = np.where(small, weight * diff + self, end - diff * rest)
    out = _vector_zeros(out, small, weight, diff, rest, end, operands)
    if dtype == np.float16:
        out = out.astype(np.float32)   # (PyTorch rounds the float32 result to half)
    return out.astype(dtype, copy=False)


def _vector_zeros(out, small, weight, diff, rest, end, operands):
    """The sign of a zero result of the large-weight side where ATen's vector loop runs
    (Note [signed zero ties] in signed_zero.py tells where): it computes
    ``fmadd(weight - 1, end - self, end)``, the scalar loop ``end - (end - self) * (1 - weight)``;
    at ``weight == 1`` or ``end == self`` the product is a zero whose sign differs between
    the two (seed 133: lerp(-0., -0., 1.) is +0 in the vector lanes, -0 in the tail)."""
    if out.dtype.kind != "f" or out.all():
        return out
    zero = (out == 0) & ~small & ((diff == 0) | (rest == 0))
    if not zero.any():
        return out
    lanes = vector_lanes(*operands)
    if lanes is None:
        return out
    with np.errstate(all="ignore"):
        return np.where(zero & lanes, (weight - 1) * diff + end, out)


def _split(a):
    # Veltkamp's split of a double into two halves whose products are exact
    c = 134217729.0 * a
    high = c - (c - a)
    return high, a - high


def _fma64(a, b, c):
    """``a * b + c`` with the product's rounding error carried (Dekker's product, Knuth's
    sum): the fused multiply-add, up to a rare double rounding."""
    with np.errstate(all="ignore"):
        p = a * b
        ah, al = _split(a)
        bh, bl = _split(b)
        e = ((ah * bh - p) + ah * bl + al * bh) + al * bl
        s = p + c
        v = s - p
        t = (p - (s - v)) + (c - v)
        out = s + (t + e)
        # an exact zero keeps the sign of p + c (fma(-0, x, -0) is -0; seed 133), where the
        # correction's +0 would make it +0
        out = np.where((out == 0) & (s == 0), s, out)
    # non-finite parts (infinities, NaN, overflow in the split) take the plain result
    return np.where(np.isfinite(out), out, p + c)


def lerp_scalar_self(grad, weight):
    return scale(grad, 1 - weight)   # PyTorch's grad * (1 - weight): MulBackward1


def lerp_scalar_end(grad, weight):
    return scale(grad, weight)


_lerp0 = defop("lerp", lerp_scalar, inputs=("self", "end"),
               derivatives={"self": lerp_scalar_self, "end": lerp_scalar_end}, dtype="same",
               methods=(), functions=(), family=FAMILY,
               samples=lambda make, shapes: [
                   Sample((make(shapes[1]), make(shapes[2]), 0.3), call="lerp"),
                   Sample((make(shapes[1]), make(shapes[2]), 0.8), call="lerp")])


def lerp_tensor(self, end, weight):
    """``self + weight * (end - self)`` for a tensor weight (LerpBackward1); the three arrive
    in their common dtype (see ``_lerp_tensor_rule``)."""
    return _lerp(self, end, weight, (self, end, weight))


def _lerp_tensor_rule(rec, args):
    """PyTorch's checks, then the common dtype of the three by the usual promotion rules: the
    end must have self's dtype, a weight with dimensions too; a 0-d weight joins promotion
    (``lerp(f32 1-d, f32 1-d, f64 0-d)`` is float32, with all three 0-d it is float64, an
    integral self with a 0-d float weight computes in float)."""
    self, end, weight = args[0]._data, args[1]._data, args[2]._data
    _check_end(self, end)
    _check_weight(self, weight)
    common = _dt.result_type(*args[:3]).np
    if common.kind not in "fc":
        raise not_implemented_for("lerp_kernel_tensor", common)
    return common, common


def lerp_tensor_self(grad, weight):
    return grad * number_minus(1, weight)   # PyTorch's 1 - weight: SubBackward0


def lerp_tensor_end(grad, weight):
    return grad * weight


def lerp_tensor_weight(grad, self, end):
    return grad * (end - self)


_lerp1 = defop("lerp_tensor", lerp_tensor, inputs=("self", "end", "weight"),
               derivatives={"self": lerp_tensor_self, "end": lerp_tensor_end,
                            "weight": lerp_tensor_weight},
               grad_fn_name="LerpBackward1", dtype=_lerp_tensor_rule, methods=(), functions=(),
               family=FAMILY,
               samples=lambda make, shapes: [
                   Sample((make(shapes[1]), make(shapes[2]), make(shapes[3], 0, 1)),
                          call="lerp")])


def lerp(input, end, weight):
    """Linear interpolation from ``input`` to ``end`` by ``weight``."""
    if isinstance(weight, Tensor):
        return _lerp1.public(input, end, weight)
    return _lerp0.public(input, end, weight)


export_function("lerp", lerp)
bind_method("lerp", lerp)


def _lerp_meta(self, end, weight):
    """lerp's meta checks (dtypes), which PyTorch runs before TensorIterator's overlap checks
    (seed 160: an expanded float ``self`` with an int64 ``end`` names the dtype)."""
    if isinstance(self, Tensor) and isinstance(end, Tensor):
        _check_end(self, end)
        if isinstance(weight, Tensor):
            _check_weight(self, weight)


_lerp_inplace_saving = inplace_of(lerp, "lerp_", precheck=_lerp_meta)
_lerp_inplace_plain = inplace_of(lerp, "lerp_", saves_self=False, precheck=_lerp_meta)


def lerp_(self, end, weight):
    """In-place :meth:`lerp`. Only the weight's formula needs the old ``self``: it is saved
    only for a weight that requires grad (so an integer ``self`` with a history gets lerp's
    dtype check otherwise, as in PyTorch)."""
    if isinstance(weight, Tensor) and weight._requires_grad:
        return _lerp_inplace_saving(self, end, weight)
    return _lerp_inplace_plain(self, end, weight)


bind_method("lerp_", lerp_)


def hypot(self, other):
    """``sqrt(self**2 + other**2)`` without overflow."""
    if self.dtype.kind != "f":
        raise not_implemented_for("hypot_cpu", self)
    return np.hypot(self, other)


def hypot_self(grad, self, result):
    return grad * self / result   # PyTorch's order: DivBackward0 last


def hypot_other(grad, other, result):
    return grad * other / result


defop("hypot", hypot, derivatives={"self": hypot_self, "other": hypot_other},
      dtype=tensors_only(promote), inplace="hypot_", family=FAMILY,
      samples=lambda make, shapes: [Sample((make.positive(shapes[1]), make(shapes[2])))])


def atan2(self, other):
    """The angle of the point ``(other, self)``. float32 through float64: NumPy's
    AVX-512 float32 arctan2 is off by an ulp for about a third of its values (atan2(x, x) is
    not the float nearest pi/4), where the double result, rounded, is within PyTorch's."""
    if self.dtype == np.float32:
        return np.arctan2(self.astype(np.float64), other.astype(np.float64)).astype(self.dtype)
    return np.arctan2(self, other)


def _atan2_recip(self, other):
    """PyTorch's 1 / (self^2 + other^2), 0 where that sum is 0 (so the gradient at the
    origin, or where the sum underflows, is 0 rather than NaN)."""
    denom = self * self + other * other
    return denom.reciprocal().masked_fill(denom == 0, 0.0)


def atan2_backward(grad, self, other, output_mask):
    # PyTorch's one formula for both (Note [Joint formulas] in autograd/graph.py): one
    # reciprocal, which both gradients' create_graph graphs share; self's part first
    recip = _atan2_recip(self, other)
    return (grad * other * recip if output_mask[0] else None,
            grad * -self * recip if output_mask[1] else None)


defop("atan2", atan2, derivatives={("self", "other"): atan2_backward},
      dtype=tensors_only(promote_float), inplace="atan2_", methods=("atan2", "arctan2"),
      functions=("atan2", "arctan2"), family=FAMILY,
      samples=lambda make, shapes: [Sample((make.positive(shapes[1]), make(shapes[2]))),
                                    Sample((make(shapes[1], 1, 5, np.int64),
                                            make(shapes[2], 1, 5, np.int64)))])
bind_method("arctan2_", Tensor.atan2_)
