"""Activations of ``torch.nn.functional`` that PyTorch runs as single ops: ``leaky_relu``,
``elu`` (and ``selu``, ``celu``), ``hardtanh`` (``relu6``), ``log_sigmoid``, ``hardsigmoid``,
``hardswish``, ``mish``, ``threshold`` and ``glu``, with PyTorch's grad_fn names.

Their gradients are backward ops of PyTorch's names (``leaky_relu_backward`` records
``LeakyReluBackwardBackward0`` under double backward...), each one NumPy pass. In-place
variants that save their output, not their input, have their own records with PyTorch's
``...Backward1`` names (``F.leaky_relu(x, inplace=True)`` -> ``LeakyReluBackward1``).

float16 inputs are computed in float32 and rounded once, as PyTorch's CPU kernels do.

>>> import leafgrad as torch
>>> torch.nn.functional.leaky_relu(torch.tensor([-1.0, 2.0], requires_grad=True), 0.1)
tensor([-0.1000,  2.0000], grad_fn=<LeakyReluBackward0>)
"""
from __future__ import annotations

import math

import numpy as np

from .iter_layout import CONTIG, OWN
from .signed_zero import keep_self
from .. import _vml, dtypes as _dt
from .._sleef_f32 import expm1f
from .pointwise_common import inplace_of, not_implemented_formula, number_minus, zeros_grad
from .registry import RECORDS, Sample, defop, export_function

FAMILY = "nn_activations"

__all__ = [
    "celu_",
    "elu_",
    "hardsigmoid_",
    "hardswish_",
    "hardtanh_",
    "leaky_relu_",
    "mish_",
    "selu_",
    "threshold_",
]   # in-place variants; the rest are records

_F16 = np.dtype(np.float16)
_ONE_SIXTH_F32 = float(np.float32(1.0 / 6.0))
SELU_ALPHA = 1.6732632423543772848170429916717
SELU_SCALE = 1.0507009873554804934193349852946


def _float_only(kernel):
    """A dtype rule: the input's own float dtype; PyTorch's kernel error for the others."""
    def rule(rec, args):
        d = args[0]._data.dtype
        if d.kind != "f":
            raise NotImplementedError(f'"{kernel}" not implemented for '
                                      f"'{_dt.from_numpy_dtype(d).tensor_type[:-6]}'")
        return None, None
    return rule


def _f32(x):
    """float16 computes in float32 (rounded once at the end by ``_out``)."""
    return x.astype(np.float32) if x.dtype == _F16 else x


def _out(value, like):
    return np.asarray(value, dtype=like.dtype)


def _samples(call, *kwargs_list, low=-3.0, high=3.0):
    def samples(make, shapes):
        out = [Sample((make(shapes[0], low, high),), dict(kw), call=call)
               for kw in (kwargs_list or ({},))]
        out.append(Sample((make(shapes[1], low, high).astype(np.float32),), call=call,
                          atol=1e-5))
        return out
    return samples


def _inplace_record(name, forward, formula, grad_fn_name, saves_self=False,
                    overlap_checks=True, **kw):
    """The record of an in-place variant with its own node name (PyTorch's ``...Backward1``:
    most save the output), and its in-place function. (The registry test calls ops on
    leaves, which in-place ops refuse: tests/test_nn_ops_activations.py checks these.)"""
    rec = defop(name, forward, derivatives={"self": formula}, grad_fn_name=grad_fn_name,
                methods=(), functions=(), family=FAMILY, **kw)
    return rec, inplace_of(rec.public, name, saves_self=saves_self,
                           overlap_checks=overlap_checks)


def zero_self(grad):
    """The derivative of a backward op with respect to the input it only compares."""
    return zeros_grad(grad)


# -- leaky_relu --------------------------------------------------------------------------------
def leaky_relu(self, negative_slope=0.01):
    """``self`` where positive, ``negative_slope * self`` elsewhere."""
    x = _f32(self)
    return _out(np.where(x > 0, x, x * negative_slope), self)


def leaky_relu_self(grad, self, negative_slope):
    return LEAKY_RELU_BACKWARD.public(grad, self, negative_slope, False)


def leaky_relu_backward(grad_output, self, negative_slope, self_is_result):
    """``grad_output`` where ``self > 0``, ``negative_slope * grad_output`` elsewhere."""
    if self_is_result and negative_slope < 0:
        raise RuntimeError(
            "In-place leakyReLu backward calculation is triggered with a negative slope which "
            "is not supported. This is caused by calling in-place forward function with a "
            "negative slope, please call out-of-place version instead. File an issue at "
            "https://github.com/pytorch/pytorch if you do require supporting in-place leakRelu "
            "backward calculation with negative slope")
    g = _f32(grad_output)
    return _out(np.where(self > 0, g, g * negative_slope), grad_output)


def leaky_relu_backward_grad_output(grad, self, negative_slope):
    return LEAKY_RELU_BACKWARD.public(grad, self, negative_slope, False)


def leaky_relu_result(grad, result, negative_slope):
    return LEAKY_RELU_BACKWARD.public(grad, result, negative_slope, True)


LEAKY_RELU = defop(
    "leaky_relu", leaky_relu, derivatives={"self": leaky_relu_self},
    dtype=_float_only("leaky_relu_cpu"), methods=(), functions=(), family=FAMILY,
    samples=_samples("nn.functional.leaky_relu", {}, {"negative_slope": 0.2},
                     {"negative_slope": -0.5}))
LEAKY_RELU_BACKWARD = defop(
    "leaky_relu_backward", leaky_relu_backward, inputs=("grad_output", "self"),
    derivatives={"grad_output": leaky_relu_backward_grad_output,
                 "self": zero_self},
    dtype="same", methods=(), functions=(), family=FAMILY)
LEAKY_RELU_INPLACE, leaky_relu_ = _inplace_record(
    "leaky_relu_", leaky_relu, leaky_relu_result, "LeakyReluBackward1",
    dtype=_float_only("leaky_relu_cpu"))


# -- elu, selu, celu -----------------------------------------------------------------------------
def _elu(self, alpha, scale, input_scale):
    x = _f32(self)
    # min(x, 0): no overflow warning from exp on the branch np.where drops
    z = keep_self(np.minimum, x, x.dtype.type(0)) * input_scale
    # float32: PyTorch's vector lanes take Sleef's expm1f: rounded once from float64 within
    # Sleef's bounds, as near as affordable (Note [Sleef's expm1f] in _sleef_f32.py)
    negative = (expm1f(z) if z.dtype == np.float32 else np.expm1(z)) * (alpha * scale)
    return _out(np.where(x > 0, x * scale, negative), self)


def elu(self, alpha=1.0, scale=1, input_scale=1):
    """``scale * self`` where positive, ``alpha * scale * (exp(input_scale * self) - 1)``
    elsewhere."""
    return _elu(self, alpha, scale, input_scale)


def elu_self(grad, self, alpha, scale, input_scale):
    return ELU_BACKWARD.public(grad, alpha, scale, input_scale, False, self)


def elu_result(grad, result, alpha, scale, input_scale):
    return ELU_BACKWARD.public(grad, alpha, scale, input_scale, True, result)


def elu_backward(grad_output, alpha, scale, input_scale, is_result, self_or_result):
    """elu's gradient from its input, or (``is_result``) from its output."""
    g, y = _f32(grad_output), _f32(self_or_result)
    if is_result:
        negative = g * input_scale * (y + alpha * scale)
    else:
        negative = g * (input_scale * alpha * scale) * np.exp(np.minimum(y, 0) * input_scale)
    # PyTorch's kernel tests ``y <= 0`` for the negative branch: NaN takes the positive one
    return _out(np.where(y <= 0, negative, g * scale), grad_output)


def elu_backward_grad_output(grad, alpha, scale, input_scale, is_result, self_or_result):
    return ELU_BACKWARD.public(grad, alpha, scale, input_scale, is_result, self_or_result)


def elu_backward_self_or_result(grad, grad_output, alpha, scale, input_scale, is_result,
                                self_or_result):
    negative = (self_or_result < 0).to(grad.dtype)
    if is_result:
        return grad * grad_output * input_scale * negative
    return ELU_BACKWARD.public(grad * grad_output * input_scale, alpha, scale, input_scale,
                               is_result, self_or_result) * negative


def selu(self):
    """``elu`` with SELU's fixed ``alpha`` and ``scale`` (recorded as ``EluBackward0``)."""
    return _elu(self, SELU_ALPHA, SELU_SCALE, 1.0)


def selu_self(grad, self):
    return ELU_BACKWARD.public(grad, SELU_ALPHA, SELU_SCALE, 1.0, False, self)


def selu_result(grad, result):
    return ELU_BACKWARD.public(grad, SELU_ALPHA, SELU_SCALE, 1.0, True, result)


def celu(self, alpha=1.0):
    """``max(0, x) + min(0, alpha * (exp(x / alpha) - 1))``: elu with ``input_scale =
    1 / alpha``."""
    if alpha == 0:
        raise RuntimeError("ZeroDivisionError: alpha cannot be 0 for CELU")
    return _elu(self, alpha, 1.0, 1.0 / alpha)


def celu_self(grad, self, alpha):
    return ELU_BACKWARD.public(grad, alpha, 1.0, 1.0 / alpha, False, self)


def celu_result(grad, result, alpha):
    return ELU_BACKWARD.public(grad, alpha, 1.0, 1.0 / alpha, True, result)


_ELU_RULE = _float_only("elu_cpu")
ELU = defop("elu", elu, derivatives={"self": elu_self}, dtype=_ELU_RULE, methods=(),
            functions=(), family=FAMILY,
            samples=_samples("nn.functional.elu", {}, {"alpha": 0.5}))
ELU_BACKWARD = defop(
    "elu_backward", elu_backward, inputs=("grad_output", "self_or_result"),
    derivatives={"grad_output": elu_backward_grad_output,
                 "self_or_result": elu_backward_self_or_result},
    dtype="same", methods=(), functions=(), family=FAMILY)
SELU = defop("selu", selu, derivatives={"self": selu_self}, dtype=_ELU_RULE,
             grad_fn_name="EluBackward0", methods=(), family=FAMILY,
             samples=_samples("nn.functional.selu"))
CELU = defop("celu", celu, derivatives={"self": celu_self}, dtype=_ELU_RULE, methods=(),
             family=FAMILY, samples=_samples("nn.functional.celu", {}, {"alpha": 2.0}))
ELU_INPLACE, elu_ = _inplace_record(
    "elu_", elu, elu_result, "EluBackward1", dtype=_ELU_RULE)
SELU_INPLACE, selu_ = _inplace_record(
    "selu_", selu, selu_result, "EluBackward1", dtype=_ELU_RULE)
CELU_INPLACE, celu_ = _inplace_record(
    "celu_", celu, celu_result, "CeluBackward1", dtype=_ELU_RULE)
export_function("selu_", selu_)   # torch.selu_ and torch.celu_, as in PyTorch
export_function("celu_", celu_)


# -- hardtanh ------------------------------------------------------------------------------------
def hardtanh(self, min_val=-1.0, max_val=1.0):
    """``self`` clamped to ``[min_val, max_val]``."""
    if self.dtype == np.bool_:
        raise RuntimeError("Bool inputs not supported for hardtanh")
    if self.dtype.kind == "u" and (min_val < 0 or max_val < 0):
        raise RuntimeError("cannot do hardtanh on an unsigned type with negative limits")
    if self.dtype.kind in "iu":
        return np.clip(self, math.ceil(min_val), math.floor(max_val)).astype(self.dtype)
    # clamp's kernel: self on a tie (-0.0 stays; Note [signed zero ties])
    return _out(keep_self(np.minimum, keep_self(np.maximum, self, min_val), max_val), self)


def hardtanh_self(grad, self, min_val, max_val):
    return HARDTANH_BACKWARD.public(grad, self, min_val, max_val)


def hardtanh_backward(grad_output, self, min_val, max_val):
    """0 at or beyond a bound, ``grad_output`` elsewhere (NaN inputs too, as PyTorch's
    kernel)."""
    return np.where((self <= min_val) | (self >= max_val), np.zeros((), grad_output.dtype),
                    grad_output)


def hardtanh_backward_grad_output(grad, self, min_val, max_val):
    return HARDTANH_BACKWARD.public(grad, self, min_val, max_val)


HARDTANH = defop("hardtanh", hardtanh, derivatives={"self": hardtanh_self}, dtype="same",
                 methods=(), functions=(), family=FAMILY,
                 samples=_samples("nn.functional.hardtanh", {}, {"min_val": 0.0,
                                                                 "max_val": 6.0}))
HARDTANH_BACKWARD = defop(
    "hardtanh_backward", hardtanh_backward, inputs=("grad_output", "self"),
    derivatives={"grad_output": hardtanh_backward_grad_output,
                 "self": zero_self},
    dtype="same", methods=(), functions=(), family=FAMILY)
# PyTorch's hardtanh_ keeps the name HardtanhBackward0 (it saves a copy of the input)
hardtanh_ = inplace_of(HARDTANH.public, "hardtanh_")


# -- log_sigmoid ---------------------------------------------------------------------------------
def log_sigmoid(self):
    """``log(sigmoid(self)) = min(self, 0) - log1p(exp(-|self|))``, finite everywhere."""
    x = _f32(self)
    if x.dtype == np.float32:   # each step rounded once, as Sleef's and libm's nearly are
        return _out(np.minimum(x, 0) - _vml.log1p(_vml.exp(-np.abs(x))), self)
    return _out(np.minimum(x, 0) - np.log1p(np.exp(-np.abs(x))), self)


def log_sigmoid_self(grad, self):
    return LOG_SIGMOID_BACKWARD.public(grad, self)


def log_sigmoid_backward(grad_output, self):
    """``grad_output * sigmoid(-self)`` (``1 / (1 + exp(self))`` is 0, not NaN, at +inf)."""
    x = _f32(self)
    # PyTorch's kernel: z = exp(-|x|), grad * (max_deriv - sign * z / (1 + z)), so a large x
    # keeps the denormal z (logsigmoid'(100) is 3.8e-44 in float32, not 0)
    z = _vml.exp(-np.abs(x)) if x.dtype == np.float32 else np.exp(-np.abs(x))
    q = z / (1 + z)
    d = np.where(x < 0, 1 - q, q)   # (max_deriv - sign * q: 1 - q below 0, else 0 + q)
    return _out(_f32(grad_output) * d.astype(x.dtype, copy=False), grad_output)


def log_sigmoid_backward_grad_output(grad, self):
    return LOG_SIGMOID_BACKWARD.public(grad, self)


def log_sigmoid_backward_self(grad, grad_output, self):
    s = self.sigmoid()
    return -(grad * grad_output) * s * (1 - s)


LOG_SIGMOID = defop(
    "log_sigmoid", log_sigmoid, layout=CONTIG, derivatives={"self": log_sigmoid_self},
    dtype=_float_only("log_sigmoid_cpu"), methods=(), functions=(), family=FAMILY,
    samples=_samples("nn.functional.logsigmoid", low=-6.0, high=6.0))
LOG_SIGMOID_BACKWARD = defop(
    "log_sigmoid_backward", log_sigmoid_backward, inputs=("grad_output", "self"),
    derivatives={"grad_output": log_sigmoid_backward_grad_output,
                 "self": log_sigmoid_backward_self},
    dtype="same", methods=(), functions=(), family=FAMILY)


# -- hardsigmoid, hardswish, mish --------------------------------------------------------------------
def hardsigmoid(self):
    """``relu6(self + 3) / 6``."""
    x = _f32(self)
    return _out(np.clip(x + 3, 0, 6) / 6, self)


def hardsigmoid_self(grad, self):
    return HARDSIGMOID_BACKWARD.public(grad, self)


def hardsigmoid_backward(grad_output, self):
    """``grad_output / 6`` strictly inside (-3, 3), 0 elsewhere."""
    inside = (self > -3) & (self < 3)
    # PyTorch multiplies by a float32 1/6, in every dtype
    return _out(np.where(inside, _f32(grad_output) * _ONE_SIXTH_F32, 0), grad_output)


def hardswish(self):
    """``self * relu6(self + 3) / 6``."""
    x = _f32(self)
    return _out(x * np.clip(x + 3, 0, 6) / 6, self)


def hardswish_self(grad, self):
    return HARDSWISH_BACKWARD.public(grad, self)


def hardswish_backward(grad_output, self):
    """0 up to -3, ``grad_output * (self / 3 + 1/2)`` below 3, ``grad_output`` from 3."""
    g, x = _f32(grad_output), _f32(self)
    out = np.where(x <= -3, 0, np.where(x < 3, g * (x / 3 + 0.5), g))
    return _out(out, grad_output)


def hardswish_backward_grad_output(grad, self):
    return HARDSWISH_BACKWARD.public(grad, self)


def hardswish_backward_self(grad, grad_output, self):
    inside = ((self > -3) & (self < 3)).to(grad.dtype)
    return grad * grad_output / 3.0 * inside


def mish(self):
    """``self * tanh(softplus(self))``."""
    x = _f32(self)
    if x.dtype == np.float32:   # PyTorch's kernel: x * tanh(log1p(exp(x))), each step rounded
        return _out(x * _vml.tanh(_vml.log1p(_vml.exp(x))), self)
    return _out(x * np.tanh(np.logaddexp(0, x)), self)


def mish_self(grad, self):
    # PyTorch's infinitely_differentiable_mish_backward, a composite of ordinary ops: softplus
    # as exp().log1p() (its CPU kernel's too), 1 - t * t as a filled tensor minus t * t
    s = self.sigmoid()
    t = self.exp().log1p().tanh()
    return grad * (t + self * s * number_minus(1, t * t))


HARDSIGMOID = defop(
    "hardsigmoid", hardsigmoid, derivatives={"self": hardsigmoid_self},
    dtype=_float_only("hardsigmoid_cpu"), methods=(), functions=(), family=FAMILY,
    # its backward has no derivative in PyTorch (NotImplemented): first order is checked in
    # tests/test_nn_ops_activations.py
    samples=lambda make, shapes: [Sample((make(shapes[0], -4, 4),),
                                         call="nn.functional.hardsigmoid", grad=False)])
HARDSIGMOID_BACKWARD = defop(
    "hardsigmoid_backward", hardsigmoid_backward, inputs=("grad_output", "self"),
    derivatives={"grad_output": not_implemented_formula("hardsigmoid_backward"),
                 "self": not_implemented_formula("hardsigmoid_backward")},
    dtype="same", grad_fn_name="NotImplemented", methods=(), functions=(), family=FAMILY)
HARDSWISH = defop(
    "hardswish", hardswish, derivatives={"self": hardswish_self},
    dtype=_float_only("hardswish_cpu"), methods=(), functions=(), family=FAMILY,
    samples=_samples("nn.functional.hardswish", low=-5.0, high=5.0))
HARDSWISH_BACKWARD = defop(
    "hardswish_backward", hardswish_backward, inputs=("grad_output", "self"),
    derivatives={"grad_output": hardswish_backward_grad_output,
                 "self": hardswish_backward_self},
    dtype="same", methods=(), functions=(), family=FAMILY)
MISH = defop("mish", mish, derivatives={"self": mish_self}, dtype=_float_only("mish_cpu"),
             methods=(), functions=(), family=FAMILY,
             samples=_samples("nn.functional.mish", low=-4.0, high=4.0))
# in place, PyTorch records these three under their out-of-place names (a copy of the input
# is saved)
hardsigmoid_ = inplace_of(HARDSIGMOID.public, "hardsigmoid_")
hardswish_ = inplace_of(HARDSWISH.public, "hardswish_")
mish_ = inplace_of(MISH.public, "mish_")


# -- threshold -----------------------------------------------------------------------------------
def threshold(self, threshold, value):
    """``value`` where ``self <= threshold``, else ``self`` (NaN stays)."""
    if self.dtype == np.bool_:
        raise NotImplementedError("\"threshold_cpu\" not implemented for 'Bool'")
    if self.dtype.kind in "iu" and isinstance(value, float):
        value = int(value)
    return np.where(self <= threshold, np.asarray(value, dtype=self.dtype), self)


def threshold_self(grad, self, threshold):
    return RECORDS["threshold_backward"].public(grad, self, threshold)


THRESHOLD = defop(
    "threshold", threshold, derivatives={"self": threshold_self}, dtype="same", methods=(),
    family=FAMILY,
    samples=lambda make, shapes: [
        Sample((make(shapes[0], -3, 3), 0.5, 2.0), call="nn.functional.threshold"),
        Sample((make(shapes[1], -3, 3), -1.0, -3.0), call="threshold"),
        Sample((make(shapes[0], -3, 3, np.int64), 1, 7), call="threshold", grad=False)])
# ThresholdBackward1 saves a copy of the input, not the output (which may equal ``value``)
THRESHOLD_INPLACE, threshold_ = _inplace_record(
    "threshold_", threshold, threshold_self, "ThresholdBackward1", saves_self=True,
    overlap_checks=False, dtype="same")   # PyTorch writes through an expanded view here
export_function("threshold_", threshold_)


# -- glu -----------------------------------------------------------------------------------------
def _halves(x, dim):
    if x.ndim == 0:
        raise RuntimeError("glu does not support 0-dimensional tensors")
    axis = dim % x.ndim if -x.ndim <= dim < x.ndim else None
    if axis is None:
        raise IndexError(f"Dimension out of range (expected to be in range of "
                         f"[{-x.ndim}, {x.ndim - 1}], but got {dim})")
    n = x.shape[axis]
    if n % 2:
        raise RuntimeError(f"Halving dimension must be even, but dimension {axis} is size {n}")
    return np.split(x, 2, axis=axis), axis


def glu(self, dim=-1):
    """``a * sigmoid(b)`` for the two halves ``a, b`` of ``self`` along ``dim``."""
    x = _f32(self)
    (a, b), _ = _halves(x, dim)
    return _out(a / (1 + (_vml.exp(-b) if b.dtype == np.float32 else np.exp(-b))), self)


def glu_self(grad, self, dim):
    return GLU_BACKWARD.public(grad, self, dim)


def glu_backward(grad_output, self, dim):
    """``cat(g * sigmoid(b), g * a * sigmoid(b) (1 - sigmoid(b)))`` along ``dim``."""
    g = _f32(grad_output)
    (a, b), axis = _halves(_f32(self), dim)
    s = 1 / (1 + np.exp(-b))
    gs = g * s
    return _out(np.concatenate([gs, gs * a * (1 - s)], axis=axis), grad_output)


def glu_backward_grad_output(grad, self, dim):
    a, b = self.chunk(2, dim)
    ga, gb = grad.chunk(2, dim)
    s = b.sigmoid()
    return ga * s + gb * a * s * (1 - s)


def glu_backward_self(grad, grad_output, self, dim):
    a, b = self.chunk(2, dim)
    ga, gb = grad.chunk(2, dim)
    s = b.sigmoid()
    ds = s * (1 - s)
    d_a = gb * grad_output * ds
    d_b = grad_output * (ga * ds + gb * a * ds * (1 - 2 * s))
    return RECORDS["cat"].public([d_a, d_b], dim)


def _glu_rule(rec, args):
    """glu's shape checks (0-d, dim range, odd half) come before the kernel's dtype error, as
    PyTorch's meta function runs first (seed 125: a bool input with dim 2)."""
    x = args[0]._data
    dim = args[1] if len(args) > 1 else -1
    if x.dtype.kind != "f":
        _halves(x, dim)
    return _float_only("glu_cpu")(rec, args)


GLU = defop("glu", glu, layout=OWN, derivatives={"self": glu_self}, dtype=_glu_rule,
            methods=(), functions=(), family=FAMILY,
            samples=lambda make, shapes: [
                Sample((make((3, 4)),), call="nn.functional.glu"),
                Sample((make((4, 2, 3)), 0), call="nn.functional.glu"),
                Sample((make((2, 6)).astype(np.float32),), call="nn.functional.glu",
                       atol=1e-5)])
GLU_BACKWARD = defop(
    "glu_backward", glu_backward, layout=OWN, inputs=("grad_output", "self"),
    derivatives={"grad_output": glu_backward_grad_output, "self": glu_backward_self},
    dtype="same", methods=(), functions=(), family=FAMILY)
