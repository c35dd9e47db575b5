"""Elementwise losses as single records, as PyTorch records them: ``mse_loss``
(``MseLossBackward0``), ``smooth_l1_loss``, ``huber_loss``, ``binary_cross_entropy`` and
``binary_cross_entropy_with_logits``, and the tensor-by-number products the composite losses
record. (``nll_loss`` is in ``nll_loss.py``; ``soft_margin_loss`` in ``losses_extra.py``.)

Each takes ATen's ``reduction`` code (0 none, 1 mean, 2 sum). Where PyTorch has a dedicated
backward op with its own node under double backward (``mse_loss_backward`` ->
``MseLossBackwardBackward0``...), so does leafgrad: one NumPy pass per backward step, and
second derivatives through the backward op's own formulas. ``binary_cross_entropy_with_logits``
has none in PyTorch either: its formulas are composites of leafgrad ops.

>>> import leafgrad as torch
>>> x = torch.tensor([1.0, 3.0], requires_grad=True)
>>> torch.nn.functional.mse_loss(x, torch.tensor([0.0, 0.0]))
tensor(5., grad_fn=<MseLossBackward0>)
"""
from __future__ import annotations

import numpy as np

from .. import dtypes as _dt
from ..tensor import Tensor
from .cascade_sum import sum_like_torch
from .iter_layout import ITER, SELF, TARGET
from .nll_loss import not_differentiable
from .registry import RECORDS, Sample, defop

FAMILY = "losses"

__all__ = [
    "BINARY_CROSS_ENTROPY",
    "BINARY_CROSS_ENTROPY_WITH_LOGITS",
    "HUBER_LOSS",
    "MSE_LOSS",
    "SMOOTH_L1_LOSS",
]

_F16 = np.dtype(np.float16)


def _type_name(dtype) -> str:
    return _dt.from_numpy_dtype(np.dtype(dtype)).tensor_type[:-6]


def _np(value):
    return value._data if isinstance(value, Tensor) else value


def _diff(self, target):
    """``self - target`` as a new array (NumPy gives a scalar for 0-d inputs)."""
    d = np.subtract(self, target)
    return d if type(d) is np.ndarray else np.array(d)


def reduce_array(loss: np.ndarray, reduction: int) -> np.ndarray:
    """ATen's reduction of an elementwise loss (float16 accumulates in float32)."""
    if reduction == 0:
        return loss
    dtype = loss.dtype
    acc = np.float32 if dtype == _F16 else None
    out = None if acc else sum_like_torch(loss)     # PyTorch's addition order
    if out is not None:
        out = out / dtype.type(loss.size) if reduction == 1 else out
    else:
        out = loss.mean(dtype=acc) if reduction == 1 else loss.sum(dtype=acc)
    return np.asarray(out, dtype=dtype)


def _norm(reduction, n, grad):
    """``grad`` divided by the element count for 'mean' (a leafgrad expression; PyTorch's
    ``div(Tensor, Scalar)``)."""
    return DIV_SCALAR.public(grad, n) if reduction == 1 else grad


def _float_kernel(kernel, result=None):
    """A dtype rule: promote both inputs; integers only raise PyTorch's kernel error.
    ``result``: 'self' for losses whose output keeps the input's dtype (huber_loss)."""
    def rule(rec, args):
        d = _dt.result_type(args[0], args[1])
        own = args[0]._data.dtype
        # the output is made like self: the common dtype must cast into it before the
        # kernel's own dtype check (bool self with an integer target: Long into Bool)
        if result == "self" and ((d.is_floating_point and own.kind != "f")
                                 or (d is not _dt.bool_ and own.kind == "b")):
            raise RuntimeError(f"result type {d.tensor_type[:-6]} can't be cast to the "
                               f"desired output type {_type_name(own)}")
        if not d.is_floating_point:
            raise NotImplementedError(f'"{kernel}" not implemented for \'{d.tensor_type[:-6]}\'')
        return (d.np, own) if result == "self" else (d.np, d.np)
    return rule


def _pair_samples(call, **extra):
    def samples(make, shapes):
        base = shapes[0]
        out = [Sample((make(base), make(base)), {"reduction": r, **extra}, call=call)
               for r in ("mean", "sum", "none")]
        out.append(Sample((make(shapes[1]).astype(np.float32),
                           make(shapes[1]).astype(np.float32)), dict(extra), call=call,
                          atol=1e-5))
        return out
    return samples


# -- mse_loss --------------------------------------------------------------------------------
def _like_self(rec, args):
    """A loss backward kernel writes into ``zeros_like(self)``: computed promoted, given
    ``self``'s dtype (the target's gradient swaps the operands, so it gets the target's
    dtype with no cast by the engine: no ToCopyBackward0 in its graph)."""
    return None, args[1]._data.dtype


def mse_loss(self, target, reduction=1):
    """``(self - target) ** 2``, reduced."""
    d = _diff(self, target)
    np.multiply(d, d, out=d)
    return reduce_array(d, reduction)


def mse_loss_self(grad, self, target, reduction):
    return MSE_LOSS_BACKWARD.public(grad, self, target, reduction)


def mse_loss_target(grad, self, target, reduction):
    return MSE_LOSS_BACKWARD.public(grad, target, self, reduction)


def mse_loss_backward(grad_output, self, target, reduction):
    """``2 (self - target) grad_output``, divided by the element count for 'mean'."""
    d = _diff(self, target)
    d *= 2 / d.size if reduction == 1 and d.size else 2
    d *= grad_output
    return d


def mse_loss_backward_grad_output(grad, self, target, reduction):
    return _norm(reduction, self.numel(), (self - target) * grad * 2)


def mse_loss_backward_self(grad, grad_output, self, reduction):
    return _norm(reduction, self.numel(), grad * grad_output * 2)


def mse_loss_backward_target(grad, grad_output, target, reduction):
    return -_norm(reduction, target.numel(), grad * grad_output * 2)


MSE_LOSS = defop(
    "mse_loss", mse_loss, layout=ITER, inputs=("self", "target"), grads_in_order=True,
    derivatives={"self": mse_loss_self, "target": mse_loss_target},
    dtype=_float_kernel("mse_cpu"), methods=(), functions=(), family=FAMILY,
    samples=_pair_samples("nn.functional.mse_loss"))
MSE_LOSS_BACKWARD = defop(
    "mse_loss_backward", mse_loss_backward, layout=ITER, inputs=("grad_output", "self", "target"),
    derivatives={"grad_output": mse_loss_backward_grad_output, "self": mse_loss_backward_self,
                 "target": mse_loss_backward_target},
    dtype=_like_self, methods=(), functions=(), family=FAMILY)


# -- smooth_l1_loss and huber_loss -------------------------------------------------------------
def _smooth_l1(self, target, beta):
    z = np.abs(_diff(self, target))
    return np.where(z < beta, 0.5 * z * z / beta, z - 0.5 * beta).astype(z.dtype, copy=False)


def _huber(self, target, delta):
    z = np.abs(_diff(self, target))
    return np.where(z < delta, 0.5 * z * z, delta * (z - 0.5 * delta)).astype(z.dtype,
                                                                               copy=False)


def _clipped_grad(grad_output, self, target, reduction, limit, divisor):
    """``clamp(self - target, -limit, limit) / divisor * grad_output`` (/ count for 'mean'):
    the gradient of huber_loss (divisor 1) and smooth_l1_loss (divisor beta)."""
    g = np.clip(_diff(self, target), -limit, limit, out=None)
    if type(g) is not np.ndarray:
        g = np.array(g)
    if divisor != 1:
        g /= divisor
    if reduction == 1 and g.size:
        g /= g.size
    return np.multiply(g, grad_output, out=g)


def smooth_l1_loss(self, target, reduction=1, beta=1.0):
    """``0.5 d**2 / beta`` where ``|d| < beta``, else ``|d| - 0.5 beta`` (``d = self -
    target``), reduced."""
    return reduce_array(_smooth_l1(self, target, beta), reduction)


def smooth_l1_loss_self(grad, self, target, reduction, beta):
    return SMOOTH_L1_LOSS_BACKWARD.public(grad, self, target, reduction, beta)


def smooth_l1_loss_target(grad, self, target, reduction, beta):
    return SMOOTH_L1_LOSS_BACKWARD.public(grad, target, self, reduction, beta)


def smooth_l1_loss_backward(grad_output, self, target, reduction, beta):
    """``clamp(self - target, -beta, beta) / beta * grad_output`` (/ count for 'mean')."""
    return _clipped_grad(grad_output, self, target, reduction, beta, beta)


def _inside(self, target, delta):
    return ((self - target).abs() < delta).to(self.dtype)


def smooth_l1_loss_backward_grad_output(grad, self, target, reduction, beta):
    d = (self - target).clamp(-beta, beta)
    return _norm(reduction, self.numel(), d * grad / beta)


def smooth_l1_loss_backward_self(grad, grad_output, self, target, reduction, beta):
    return _norm(reduction, self.numel(), _inside(self, target, beta) * grad * grad_output / beta)


def smooth_l1_loss_backward_target(grad, grad_output, self, target, reduction, beta):
    return -smooth_l1_loss_backward_self(grad, grad_output, self, target, reduction, beta)


def huber_loss(self, target, reduction=1, delta=1.0):
    """``0.5 d**2`` where ``|d| < delta``, else ``delta (|d| - 0.5 delta)``, reduced."""
    return reduce_array(_huber(self, target, delta), reduction)


def huber_loss_self(grad, self, target, reduction, delta):
    return HUBER_LOSS_BACKWARD.public(grad, self, target, reduction, delta)


def huber_loss_target(grad, self, target, reduction, delta):
    return HUBER_LOSS_BACKWARD.public(grad, target, self, reduction, delta)


def huber_loss_backward(grad_output, self, target, reduction, delta):
    """``clamp(self - target, -delta, delta) * grad_output`` (/ count for 'mean')."""
    if self.dtype != target.dtype:
        # the forward promotes, but PyTorch's backward kernel wants one dtype (the target's
        # gradient runs it with the operands swapped)
        raise RuntimeError(f"Found dtype {_dt.from_numpy_dtype(target.dtype).tensor_type[:-6]} "
                           f"but expected {_dt.from_numpy_dtype(self.dtype).tensor_type[:-6]}")
    return _clipped_grad(grad_output, self, target, reduction, delta, 1)


def huber_loss_backward_grad_output(grad, self, target, reduction, delta):
    d = (self - target).clamp(-delta, delta)
    return _norm(reduction, self.numel(), d * grad)


def huber_loss_backward_self(grad, grad_output, self, target, reduction, delta):
    return _norm(reduction, self.numel(), _inside(self, target, delta) * grad * grad_output)


def huber_loss_backward_target(grad, grad_output, self, target, reduction, delta):
    return -huber_loss_backward_self(grad, grad_output, self, target, reduction, delta)


def _huber_samples(call, key):
    def samples(make, shapes):
        out = _pair_samples(call)(make, shapes)
        base = shapes[0]
        out += [Sample((make(base, -3, 3), make(base, -3, 3)), {key: 0.5}, call=call),
                Sample((make(base, -3, 3), make(base, -3, 3)), {key: 2.0, "reduction": "sum"},
                       call=call)]
        return out
    return samples


SMOOTH_L1_LOSS = defop(
    "smooth_l1_loss", smooth_l1_loss, layout=ITER, inputs=("self", "target"), grads_in_order=True,
    derivatives={"self": smooth_l1_loss_self, "target": smooth_l1_loss_target},
    dtype=_float_kernel("smooth_l1_cpu"), grad_fn_name="SmoothL1LossBackward0", methods=(),
    functions=(), family=FAMILY,
    samples=_huber_samples("nn.functional.smooth_l1_loss", "beta"))
SMOOTH_L1_LOSS_BACKWARD = defop(
    "smooth_l1_loss_backward", smooth_l1_loss_backward, inputs=("grad_output", "self", "target"),
    derivatives={"grad_output": smooth_l1_loss_backward_grad_output,
                 "self": smooth_l1_loss_backward_self, "target": smooth_l1_loss_backward_target},
    dtype=_like_self, grad_fn_name="SmoothL1LossBackwardBackward0", methods=(), functions=(),
    family=FAMILY, layout=ITER)
HUBER_LOSS = defop(
    "huber_loss", huber_loss, layout=SELF, inputs=("self", "target"), grads_in_order=True,
    derivatives={"self": huber_loss_self, "target": huber_loss_target},
    dtype=_float_kernel("huber_cpu", result="self"), methods=(), functions=(), family=FAMILY,
    samples=_huber_samples("nn.functional.huber_loss", "delta"))
HUBER_LOSS_BACKWARD = defop(
    "huber_loss_backward", huber_loss_backward, inputs=("grad_output", "self", "target"),
    derivatives={"grad_output": huber_loss_backward_grad_output,
                 "self": huber_loss_backward_self, "target": huber_loss_backward_target},
    dtype="same", methods=(), functions=(), family=FAMILY, layout=ITER)


# -- binary_cross_entropy ----------------------------------------------------------------------
_BCE_EPS = 1e-12   # PyTorch's floor on x (1 - x) in the gradient


def _bce_kernel_dtype(rec, args):
    self, target = args[0], args[1]
    sd, td = self._data.dtype, target._data.dtype
    if td != sd:
        raise RuntimeError(f"Found dtype {_type_name(td)} but expected {_type_name(sd)}")
    if sd.kind != "f":
        raise NotImplementedError(f'"binary_cross_entropy" not implemented for '
                                  f"'{_type_name(sd)}'")
    return None, None


# PyTorch's autograd layer refuses a weight that requires grad before the kernel's dtype checks
_bce_dtype = not_differentiable("binary_cross_entropy", {"weight": 2}, _bce_kernel_dtype)


def _bce_range_error(x, t):
    """PyTorch's kernel checks input then target element by element: the first element out of
    [0, 1] (or NaN) in either names its tensor."""
    x, t = np.broadcast_arrays(x, t)
    bad_x = ~((x >= 0) & (x <= 1))
    i = int(np.argmax((bad_x | ~((t >= 0) & (t <= 1))).ravel()))
    which = "input" if bad_x.ravel()[i] else "target"
    raise RuntimeError(f"all elements of {which} should be between 0 and 1")


def binary_cross_entropy(self, target, weight=None, reduction=1):
    """``-(t log x + (1 - t) log(1 - x))`` with each log floored at -100, as PyTorch does."""
    weight = _np(weight)
    # written so that a NaN fails the test too
    if self.size and not (np.min(self) >= 0 and np.max(self) <= 1
                          and np.min(target) >= 0 and np.max(target) <= 1):
        _bce_range_error(self, target)
    if self.dtype == _F16:
        work = self.astype(np.float32)   # PyTorch's CPU kernel computes half in float
        loss = _bce_loss(work, target.astype(np.float32))
        if weight is not None:
            loss *= weight
        return reduce_array(loss.astype(_F16), reduction)
    loss = _bce_loss(self, target)
    if weight is not None:
        loss = np.multiply(loss, weight, dtype=self.dtype)
    return reduce_array(loss, reduction)


def _bce_loss(x, t):
    log_x = np.maximum(np.log(x), -100)
    log_1mx = np.maximum(np.log1p(-x), -100)
    loss = np.asarray((t - 1) * log_1mx - t * log_x)
    return loss


def _bce_count(reduction, self):
    return self.numel() if reduction == 1 else None


def binary_cross_entropy_self(grad, self, target, weight, reduction):
    return BINARY_CROSS_ENTROPY_BACKWARD.public(grad, self, target, weight, reduction)


def binary_cross_entropy_target(grad, self, target, weight, reduction):
    # d/dt = log(1 - x) - log(x) = -logit(x)
    out = -self.logit() * grad
    if weight is not None:
        out = out * weight
    return _norm(reduction, target.numel(), out)


def binary_cross_entropy_backward(grad_output, self, target, weight=None, reduction=1):
    """``grad_output (x - t) / max(x (1 - x), 1e-12)`` (times weight, / count for 'mean')."""
    weight = _np(weight)
    denom = np.maximum((1 - self) * self, _BCE_EPS)
    g = np.subtract(self, target)
    g = np.asarray(g / denom * grad_output)
    if weight is not None:
        g = g * weight
    if reduction == 1 and g.size:
        g = g / g.size
    return np.asarray(g, dtype=self.dtype)


def binary_cross_entropy_backward_grad_output(grad, self, target, weight, reduction):
    out = (self - target) / ((1 - self) * self).clamp_min(_BCE_EPS) * grad
    if weight is not None:
        out = out * weight
    return _norm(reduction, self.numel(), out)


def binary_cross_entropy_backward_self(grad, grad_output, self, target, weight, reduction):
    x_eps, one_m_x_eps = self + _BCE_EPS, 1 - self + _BCE_EPS
    out = (self * self - self * target * 2 + target) / (x_eps.square() * one_m_x_eps.square())
    out = out * (grad * grad_output)
    if weight is not None:
        out = out * weight
    return _norm(reduction, self.numel(), out)


def binary_cross_entropy_backward_target(grad, grad_output, self, weight, reduction):
    out = -grad * grad_output
    if weight is not None:
        out = out * weight
    out = out / ((1 - self) * self).clamp_min(_BCE_EPS)
    return _norm(reduction, self.numel(), out)


def _bce_samples(make, shapes):
    call = "nn.functional.binary_cross_entropy"
    base = shapes[0]
    out = [Sample((make(base, 0.05, 0.95), make(base, 0.0, 1.0)), {"reduction": r}, call=call)
           for r in ("mean", "sum", "none")]
    out.append(Sample((make(shapes[1], 0.1, 0.9).astype(np.float32),
                       make(shapes[1], 0.0, 1.0).astype(np.float32)), call=call, atol=1e-5))
    return out


BINARY_CROSS_ENTROPY = defop(
    "binary_cross_entropy", binary_cross_entropy, layout=SELF, inputs=("self", "target"),
    derivatives={"self": binary_cross_entropy_self, "target": binary_cross_entropy_target},
    dtype=_bce_dtype, methods=(), functions=(), family=FAMILY, samples=_bce_samples)
BINARY_CROSS_ENTROPY_BACKWARD = defop(
    "binary_cross_entropy_backward", binary_cross_entropy_backward, layout=ITER,
    inputs=("grad_output", "self", "target"),
    derivatives={"grad_output": binary_cross_entropy_backward_grad_output,
                 "self": binary_cross_entropy_backward_self,
                 "target": binary_cross_entropy_backward_target},
    dtype="same", methods=(), functions=(), family=FAMILY)


# -- binary_cross_entropy_with_logits ------------------------------------------------------------
def _bce_logits_dtype(rec, args):
    """Computed in the promoted dtype; the result has the target's dtype (PyTorch writes the
    loss into a tensor made from ``1 - target``)."""
    d = _dt.result_type(args[0], args[1])
    td = args[1]._data.dtype
    if args[0]._data.dtype.kind != "f":
        raise NotImplementedError(f'"log_sigmoid_cpu" not implemented for '
                                  f"'{_type_name(args[0]._data.dtype)}'")
    if td.kind != "f":
        raise RuntimeError(f"result type {d.tensor_type[:-6]} can't be cast to the desired "
                           f"output type {_type_name(td)}")
    not_differentiable("binary_cross_entropy_with_logits",
                       {"weight": 2, "pos_weight": 3})(rec, args)
    return d.np, td


def _log_sigmoid(x):
    """``log(sigmoid(x)) = min(x, 0) - log1p(exp(-|x|))``: finite for any finite x."""
    return np.minimum(x, 0) - np.log1p(np.exp(-np.abs(x)))


def binary_cross_entropy_with_logits(self, target, weight=None, pos_weight=None, reduction=1):
    """``(1 - t) x - (1 + (pos_weight - 1) t) log_sigmoid(x)``, times weight, reduced."""
    weight, pos_weight = _np(weight), _np(pos_weight)
    x = self.astype(np.float32) if self.dtype == _F16 else self
    log_sig = _log_sigmoid(x)
    if pos_weight is not None:
        log_sig = log_sig * ((pos_weight - 1) * target + 1)
    loss = np.asarray((1 - target) * x - log_sig)
    if weight is not None:
        loss = loss * weight
    return reduce_array(np.asarray(loss, dtype=self.dtype), reduction)


def binary_cross_entropy_with_logits_self(grad, self, target, weight, pos_weight, reduction):
    if pos_weight is not None:
        t = pos_weight * target
        out = (t + 1 - target) * self.sigmoid() - t
    else:
        out = self.sigmoid() - target
    out = out * grad
    if weight is not None:
        out = out * weight
    return _norm(reduction, self.numel(), out)


def binary_cross_entropy_with_logits_target(grad, self, target, weight, pos_weight,
                                            reduction):
    if pos_weight is not None:
        log_sigmoid = RECORDS["log_sigmoid"].public   # nn_activations.py
        out = log_sigmoid(-self) - log_sigmoid(self) * pos_weight
    else:
        out = -self
    out = out * grad
    if weight is not None:
        out = out * weight
    out = _norm(reduction, target.numel(), out)
    # the loss has the target's dtype, so no metadata asks the engine to cast this gradient
    # (computed with self's dtype) back to it: PyTorch's engine does (ToCopyBackward0)
    return out if out.dtype == target.dtype else out.to(target.dtype)


def _bce_logits_samples(make, shapes):
    call = "nn.functional.binary_cross_entropy_with_logits"
    base = shapes[0]
    out = [Sample((make(base, -4, 4), make(base, 0.0, 1.0)), {"reduction": r}, call=call)
           for r in ("mean", "sum", "none")]
    out.append(Sample((make(shapes[1], -4, 4).astype(np.float32),
                       make(shapes[1], 0.0, 1.0).astype(np.float32)), call=call, atol=1e-5))
    return out


BINARY_CROSS_ENTROPY_WITH_LOGITS = defop(
    "binary_cross_entropy_with_logits", binary_cross_entropy_with_logits, layout=TARGET,
    inputs=("self", "target"),
    derivatives={"self": binary_cross_entropy_with_logits_self,
                 "target": binary_cross_entropy_with_logits_target},
    dtype=_bce_logits_dtype, methods=(), family=FAMILY, samples=_bce_logits_samples)


# -- tensor-by-number products for the composite losses ----------------------------------------
# PyTorch's C++ losses scale by numbers with mul/add/div(Tensor, Scalar), whose nodes are
# MulBackward1, AddBackward1 and DivBackward1 (Python's ``x * 0.5`` wraps the number in a
# tensor: MulBackward0). The loss formulas and nn.functional use these where PyTorch does.
def mul_scalar(self, other):
    """``self * other`` for a Python number ``other``."""
    return self * other


def mul_scalar_self(grad, other):
    return MUL_SCALAR.public(grad, other)


def add_scalar(self, other):
    """``self + other`` for a Python number ``other``."""
    return self + other


def add_scalar_self(grad):
    return grad


def div_scalar(self, other):
    """``self / other`` for a Python number ``other``."""
    return self / other


def div_scalar_self(grad, other):
    return DIV_SCALAR.public(grad, other)


def sub_scalar(self, other):
    """``self - other`` for a Python number ``other``."""
    return self - other


def _number_rule(true_divide):
    """Promote the tensor with the number (PyTorch's rules); division gives a float."""
    def rule(rec, args):
        d = _dt.result_type(args[0], args[1])
        if true_divide and not d.is_floating_point:
            d = _dt.get_default_dtype()
        return d.np, d.np
    # a float tensor with a Python number keeps its dtype: dispatch's unary fast path applies
    rule.fast_float = True
    return rule


MUL_SCALAR = defop("mul_scalar", mul_scalar, layout=ITER, inputs=("self",),
                   derivatives={"self": mul_scalar_self}, dtype=_number_rule(False),
                   grad_fn_name="MulBackward1", methods=(), functions=(), family=FAMILY)
ADD_SCALAR = defop("add_scalar", add_scalar, layout=ITER, inputs=("self",),
                   derivatives={"self": add_scalar_self}, dtype=_number_rule(False),
                   grad_fn_name="AddBackward1", methods=(), functions=(), family=FAMILY)
SUB_SCALAR = defop("sub_scalar", sub_scalar, layout=ITER, inputs=("self",),
                   derivatives={"self": add_scalar_self}, dtype=_number_rule(False),
                   grad_fn_name="SubBackward1", methods=(), functions=(), family=FAMILY)
DIV_SCALAR = defop("div_scalar", div_scalar, layout=ITER, inputs=("self",),
                   derivatives={"self": div_scalar_self}, dtype=_number_rule(True),
                   grad_fn_name="DivBackward1", methods=(), functions=(), family=FAMILY)
