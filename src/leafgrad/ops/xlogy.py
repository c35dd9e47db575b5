"""``xlogy(x, y) = x * log(y)``, 0 where ``x == 0`` (unless y is NaN): ``XlogyBackward0``
for two tensors, ``XlogyBackward1`` for a number ``x``, ``XlogyBackward2`` for a number ``y``,
as PyTorch records them. ``F.kl_div`` is built on it, as in PyTorch.

>>> import leafgrad as torch
>>> torch.xlogy(torch.tensor([0.0, 2.0]), torch.tensor([0.0, 1.0]))
tensor([0., 0.])
"""
from __future__ import annotations

import numpy as np

from .. import dtypes as _dt
from ..tensor import Tensor
from .pointwise_common import inplace_of, scale
from .registry import Sample, bind_method, defop, export_function
from .unary import positive_nan

_log = positive_nan(np.log)   # log(negative) is +NaN in PyTorch (Note [Positive NaN])

FAMILY = "pointwise"

__all__ = ["xlogy"]


def _xlogy(self, other):
    """``self * log(other)``; 0 where ``self == 0`` and ``other`` is not NaN."""
    out = np.asarray(self * _log(np.asarray(other)))
    return np.where((self == 0) & ~np.isnan(other), np.zeros((), out.dtype), out)


def xlogy_self(grad, self, other):
    out = xlogy(grad, other)
    if not isinstance(other, Tensor):
        return out if other > 0 else out.masked_fill(self == 0, 0)
    return out.masked_fill((self == 0) & (other <= 0), 0)


def xlogy_other(grad, self, other):
    if not isinstance(self, Tensor):   # a number: grad * self is mul(Tensor, Scalar)
        return scale(grad, self) / other
    return grad * self / other


def _samples(make, shapes):
    return [Sample((make(shapes[1], -2, 2), make.positive(shapes[2])), call="xlogy"),
            Sample((np.zeros(shapes[0]), make.positive(shapes[0])), call="xlogy"),
            Sample((make(shapes[0], -2, 2), make.positive(shapes[0])), call="Tensor.xlogy"),
            Sample((2.5, make.positive(shapes[0])), call="xlogy"),
            Sample((make(shapes[0]), 3.0), call="xlogy"),
            Sample((make(shapes[0], 0, 3, np.int64), make(shapes[0], 1, 3, np.int64)),
                   call="xlogy")]


def _rule(rec, args):
    """Promote both arguments (numbers too); integer and bool results become float."""
    d = _dt.result_type(args[0], args[1])
    if not d.is_floating_point:
        d = _dt.get_default_dtype()
    return d.np, d.np


_RULE = _rule
XLOGY = defop("xlogy", _xlogy, derivatives={"self": xlogy_self, "other": xlogy_other},
              dtype=_RULE, methods=(), functions=(), family=FAMILY, samples=_samples)
XLOGY_SELF_SCALAR = defop(
    "xlogy_self_scalar", _xlogy, inputs=("other",), derivatives={"other": xlogy_other},
    dtype=_RULE, grad_fn_name="XlogyBackward1", methods=(), functions=(), family=FAMILY)
XLOGY_OTHER_SCALAR = defop(
    "xlogy_other_scalar", _xlogy, inputs=("self",), derivatives={"self": xlogy_self},
    dtype=_RULE, grad_fn_name="XlogyBackward2", methods=(), functions=(), family=FAMILY)


def xlogy(input, other, *, out=None):
    """``input * log(other)``, 0 where ``input == 0`` (``torch.xlogy``)."""
    if out is not None:
        raise NotImplementedError("leafgrad's xlogy does not support out=")
    if not isinstance(input, Tensor):
        if not isinstance(other, Tensor):
            raise TypeError("xlogy() received an invalid combination of arguments - got "
                            f"({type(input).__name__}, {type(other).__name__})")
        return XLOGY_SELF_SCALAR.public(input, other)
    if not isinstance(other, Tensor):
        return XLOGY_OTHER_SCALAR.public(input, other)
    return XLOGY.public(input, other)


export_function("xlogy", xlogy)
bind_method("xlogy", xlogy)
bind_method("xlogy_", inplace_of(xlogy, "xlogy_"))
