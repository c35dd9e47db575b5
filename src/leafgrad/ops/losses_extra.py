"""More of leafgrad's elementwise losses: ``soft_margin_loss`` (and its backward record),
and ``norm(self, p, dim, keepdim)`` (``NormBackward1``, which ``F.pairwise_distance`` calls).
Same family and helpers as losses.py.
"""
from __future__ import annotations

import numpy as np

from .. import dtypes as _dt
from ..errors import broadcast_error
from .iter_layout import ITER
from .losses import FAMILY, _norm, _np, _type_name, reduce_array
from .nll_loss import not_differentiable
from .registry import Sample, defop

__all__ = ["NORM_DIM", "SOFT_MARGIN_LOSS"]


# -- soft_margin_loss ----------------------------------------------------------------------------
def _check_into_input(shape, target_shape) -> None:
    """PyTorch writes the elementwise soft margin loss into a buffer shaped like the input:
    the target must broadcast to it."""
    error = broadcast_error((shape, target_shape))
    if error is not None:
        raise error
    full = np.broadcast_shapes(shape, target_shape)
    if full != tuple(shape):
        raise RuntimeError(f"output with shape {list(shape)} doesn't match the broadcast shape "
                           f"{list(full)}")


def soft_margin_loss(self, target, reduction=1):
    """``log(1 + exp(-target * self))``, reduced (as PyTorch writes it: inf where the exp
    overflows)."""
    target = _np(target)
    if np.shape(target) != self.shape:
        _check_into_input(self.shape, np.shape(target))
    return reduce_array(np.asarray(np.log1p(np.exp(np.negative(self) * target)),
                                   dtype=self.dtype), reduction)


def soft_margin_loss_self(grad, self, target, reduction):
    return SOFT_MARGIN_LOSS_BACKWARD.public(grad, self, target, reduction)


def soft_margin_loss_backward(grad_output, self, target, reduction):
    """``-target z / (1 + z) * grad_output`` with ``z = exp(-target * self)``."""
    target = _np(target)
    z = np.exp(np.negative(self) * target)
    g = np.asarray(-(target * z) / (z + 1) * grad_output, dtype=self.dtype)
    return g / g.size if reduction == 1 and g.size else g


def _soft_margin_terms(self, target):
    z = (self * -target).exp()   # PyTorch's formulas negate the target (not a bool one)
    return z, z + 1


def soft_margin_loss_backward_grad_output(grad, self, target, reduction):
    z, z1 = _soft_margin_terms(self, target)
    return _norm(reduction, self.numel(), -target * z / z1 * grad)


def soft_margin_loss_backward_self(grad, grad_output, self, target, reduction):
    z, z1 = _soft_margin_terms(self, target)
    return _norm(reduction, self.numel(), target * target * z / (z1 * z1) * grad * grad_output)


def _own_float_dtype(rec, args):
    """The result keeps the input's dtype, which must be a float one. PyTorch computes
    ``neg(input).mul_(target).exp_().log1p_()`` in the input's dtype: a bool input fails the
    negation, an integer one the first in-place op whose result is a float (after the
    broadcast check)."""
    own = args[0]._data.dtype
    if own.kind == "f":
        return None, None
    if own == np.bool_:
        raise RuntimeError("Negation, the `-` operator, on a bool tensor is not supported. If "
                           "you are trying to invert a mask, use the `~` or `logical_not()` "
                           "operator instead.")
    target = _np(args[1])
    _check_into_input(tuple(args[0].shape), np.shape(target))
    tdt = np.asarray(target).dtype
    name = _dt.from_numpy_dtype(tdt).tensor_type[:-6] if tdt.kind == "f" else "Float"
    raise RuntimeError(f"result type {name} can't be cast to the desired output type "
                       f"{_type_name(own)}")


def _soft_margin_samples(make, shapes):
    call = "nn.functional.soft_margin_loss"
    out = []
    for r in ("mean", "sum", "none"):
        target = np.asarray(np.where(make(shapes[0]) > 0, 1, -1), dtype=np.int64)
        out.append(Sample((make(shapes[0]), target), {"reduction": r}, call=call))
    return out


SOFT_MARGIN_LOSS = defop(
    "soft_margin_loss", soft_margin_loss, layout=ITER, inputs=("self",),
    derivatives={"self": soft_margin_loss_self},
    dtype=not_differentiable("soft_margin_loss", {"target": 1}, base=_own_float_dtype),
    methods=(), functions=(), family=FAMILY,
    samples=_soft_margin_samples)
SOFT_MARGIN_LOSS_BACKWARD = defop(
    "soft_margin_loss_backward", soft_margin_loss_backward, inputs=("grad_output", "self"),
    derivatives={"grad_output": soft_margin_loss_backward_grad_output,
                 "self": soft_margin_loss_backward_self},
    dtype="same", methods=(), functions=(), family=FAMILY, layout=ITER)


# -- norm(self, p, dim, keepdim): the C++ at::norm overload F.pairwise_distance calls ------------
def norm_dim(self, p, dim, keepdim=False):
    """The ``p``-norm over ``dim`` (PyTorch's ``norm.ScalarOpt_dim``, node NormBackward1)."""
    from .norms import vector_norm_op
    return vector_norm_op(self, p, dim, keepdim)


def norm_dim_self(grad, self, result, p, dim, keepdim):
    from .norms import vector_norm_self
    return vector_norm_self(grad, self, result, p, dim, keepdim)


def _norm_dim_rule(rec, args):
    d = args[0]._data.dtype
    if d.kind not in "fc":
        raise RuntimeError("norm(): input dtype should be either floating point or complex. "
                           f"Got {_dt.from_numpy_dtype(d).tensor_type[:-6]} instead.")
    return None, None


NORM_DIM = defop("norm_dim", norm_dim, derivatives={"self": norm_dim_self},
                 dtype=_norm_dim_rule, grad_fn_name="NormBackward1", methods=(), functions=(),
                 family=FAMILY)
