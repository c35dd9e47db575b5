"""``softshrink``, ``hardshrink`` and ``rrelu``: activations PyTorch runs as single ops, with
their backward ops (``SoftshrinkBackwardBackward0``, ... under double backward).

>>> import leafgrad as torch
>>> torch.nn.functional.softshrink(torch.tensor([-1.0, 0.2, 2.0], requires_grad=True))
tensor([-0.5000,  0.0000,  1.5000], grad_fn=<SoftshrinkBackward0>)
"""
from __future__ import annotations

import numpy as np

from .. import dtypes as _dt
from ..grad_mode import no_grad
from ..tensor import Tensor
from .nn_activations import LEAKY_RELU_BACKWARD, _inplace_record, zero_self
from .overlap import check_internal_overlap
from .registry import Sample, defop, export_function
from .signed_zero import vector_lanes

FAMILY = "nn_activations"

__all__: list = []

_F16 = np.dtype(np.float16)


def _kernel_check(kernel, x, half=True):
    if x.dtype.kind != "f" or (not half and x.dtype == _F16):
        raise NotImplementedError(f'"{kernel}" not implemented for '
                                  f"'{_dt.from_numpy_dtype(x.dtype).tensor_type[:-6]}'")


def _shrink_samples(call):
    def samples(make, shapes):
        return [Sample((make(shapes[0], -3, 3),), call=call),
                Sample((make(shapes[1], -3, 3), 1.2), call=call),
                Sample((make(shapes[1], -3, 3).astype(np.float32), 0.3), call=call,
                       atol=1e-5)]
    return samples


def _outside(x, lambd):
    """Where ``|x| > lambd`` (PyTorch's kernels zero ``-lambd <= x <= lambd``; NaN passes)."""
    return ~((x >= -lambd) & (x <= lambd))


# -- softshrink ----------------------------------------------------------------------------------
_LAMBDA_MAX = {"float16": "65504", "float32": "3.40282e+38", "float64": "1.79769e+308"}


def softshrink(self, lambd=0.5):
    """``self - lambd`` above ``lambd``, ``self + lambd`` below ``-lambd``, 0 between."""
    _kernel_check("softshrink_check", self)
    if not 0 <= lambd <= float(np.finfo(self.dtype).max):
        raise RuntimeError(
            f"lambda must be in range [0, {_LAMBDA_MAX[self.dtype.name]}] for input dtype "
            f"{_dt.from_numpy_dtype(self.dtype).tensor_type[:-6]}, but found {lambd:g}")
    x = self.astype(np.float32) if self.dtype == _F16 else self
    # between the bounds x * 0, not 0: -0.2 shrinks to -0.0, as PyTorch's kernel gives
    out = np.where(x > lambd, x - lambd, np.where(x < -lambd, x + lambd, x * 0))
    return out.astype(self.dtype, copy=False)


def softshrink_self(grad, self, lambd):
    return SOFTSHRINK_BACKWARD.public(grad, self, lambd)


def shrink_backward(grad_output, self, lambd):
    """``grad_output`` where ``|self| > lambd``, else 0 (soft- and hardshrink alike).

    A NaN ``self`` passes ``grad_output`` in PyTorch's scalar loop (``-lambd <= x <= lambd``
    is false) but gives 0 in its vector loop (``(x < -lambd) | (x > lambd)`` is false): which
    lanes run vectorized follows Note [signed zero ties] (seed 120)."""
    out = np.where(_outside(self, lambd), grad_output, 0).astype(grad_output.dtype, copy=False)
    if self.dtype.kind == "f" and self.size:
        nan = np.isnan(self)
        if nan.any():
            vector = vector_lanes(grad_output, self)
            if vector is not None:
                out = np.where(vector & nan, out.dtype.type(0), out)
    return out


def softshrink_backward_grad_output(grad, self, lambd):
    return SOFTSHRINK_BACKWARD.public(grad, self, lambd)


SOFTSHRINK = defop("softshrink", softshrink, derivatives={"self": softshrink_self},
                   dtype="same", methods=(), functions=(), family=FAMILY,
                   samples=_shrink_samples("nn.functional.softshrink"))
SOFTSHRINK_BACKWARD = defop(
    "softshrink_backward", shrink_backward, inputs=("grad_output", "self"),
    derivatives={"grad_output": softshrink_backward_grad_output, "self": zero_self},
    dtype="same", methods=(), functions=(), family=FAMILY)


# -- hardshrink ----------------------------------------------------------------------------------
def hardshrink(self, lambd=0.5):
    """``self`` where ``|self| > lambd``, else 0."""
    _kernel_check("hardshrink_cpu", self)
    return np.where(_outside(self, lambd), self, 0).astype(self.dtype, copy=False)


def hardshrink_self(grad, self, lambd):
    return HARDSHRINK_BACKWARD.public(grad, self, lambd)


def hardshrink_backward_grad_output(grad, self, lambd):
    return HARDSHRINK_BACKWARD.public(grad, self, lambd)


HARDSHRINK = defop("hardshrink", hardshrink, derivatives={"self": hardshrink_self},
                   dtype="same", methods=("hardshrink",), family=FAMILY,
                   samples=_shrink_samples("nn.functional.hardshrink"))
HARDSHRINK_BACKWARD = defop(
    "hardshrink_backward", shrink_backward, inputs=("grad_output", "self"),
    derivatives={"grad_output": hardshrink_backward_grad_output, "self": zero_self},
    dtype="same", methods=(), functions=(), family=FAMILY)


# -- rrelu ---------------------------------------------------------------------------------------
# PyTorch runs F.rrelu as rrelu_with_noise(self, noise, lower, upper, training): in training the
# slope of each non-positive element is drawn from U(lower, upper) into ``noise``; in eval every
# slope is (lower + upper) / 2. The node saves the noise either way.
def rrelu_with_noise(self, noise, lower=0.125, upper=1.0 / 3.0, training=False):
    """``self`` where positive, else ``self`` times its slope (``noise`` in training)."""
    _kernel_check("rrelu_with_noise_out_cpu" if training else "leaky_relu_cpu", self)
    if training:
        return (self * noise).astype(self.dtype, copy=False)
    x = self.astype(np.float32) if self.dtype == _F16 else self
    slope = (lower + upper) / 2
    return np.where(x > 0, x, x * slope).astype(self.dtype, copy=False)


def rrelu_with_noise_self(grad, self, noise, lower, upper, training):
    return RRELU_WITH_NOISE_BACKWARD.public(grad, self, noise, lower, upper, training)


def rrelu_with_noise_backward(grad_output, self, noise, lower, upper, training):
    """The gradient of rrelu: the noise in training; leaky_relu's with the mean slope in eval
    (as PyTorch, whose eval backward is leaky_relu_backward)."""
    if training:
        return (grad_output * noise).astype(grad_output.dtype, copy=False)
    return LEAKY_RELU_BACKWARD.forward(grad_output, self, (lower + upper) / 2, False)


def rrelu_with_noise_backward_grad_output(grad, self, noise, lower, upper, training):
    return RRELU_WITH_NOISE_BACKWARD.public(grad, self, noise, lower, upper, training)


RRELU_WITH_NOISE = defop(
    "rrelu_with_noise", rrelu_with_noise, inputs=("self", "noise"),
    derivatives={"self": rrelu_with_noise_self}, dtype="same", methods=(), functions=(),
    family=FAMILY)
RRELU_WITH_NOISE_BACKWARD = defop(
    "rrelu_with_noise_backward", rrelu_with_noise_backward,
    inputs=("grad_output", "self", "noise"),
    derivatives={"grad_output": rrelu_with_noise_backward_grad_output, "self": zero_self},
    dtype="same", methods=(), functions=(), family=FAMILY)



def rrelu_with_noise_result(grad, result, noise, lower, upper, training):
    # the output has the input's signs (slopes are positive), so it stands in for the input
    return RRELU_WITH_NOISE_BACKWARD.public(grad, result, noise, lower, upper, training)


RRELU_WITH_NOISE_INPLACE, rrelu_with_noise_ = _inplace_record(
    "rrelu_with_noise_", rrelu_with_noise, rrelu_with_noise_result, "RreluWithNoiseBackward1",
    inputs=("self", "noise"), dtype="same")


def _noise(input: Tensor, lower: float, upper: float, training: bool) -> Tensor:
    """The slopes rrelu saves: drawn from U(lower, upper) where ``input <= 0`` in training
    (from leafgrad's generator: the same distribution as PyTorch, not the same stream)."""
    from .. import factories
    with no_grad():
        if not training:
            return factories.zeros_like(input)
        noise = factories.empty_like(input).uniform_(lower, upper)
        return noise.masked_fill(input > 0, 1.0)


def rrelu(input: Tensor, lower: float = 1.0 / 8, upper: float = 1.0 / 3, training: bool = False,
          inplace: bool = False) -> Tensor:
    """``torch.nn.functional.rrelu``: leaky ReLU with a random slope in training, the mean
    slope ``(lower + upper) / 2`` in eval (RreluWithNoiseBackward0)."""
    d = input._data
    if training:   # (its kernel takes float and double alone)
        _kernel_check("rrelu_with_noise_out_cpu", d, half=False)
    else:
        if inplace:   # leaky_relu_out into self: its TensorIterator checks the overlap first
            check_internal_overlap(d)
        _kernel_check("leaky_relu_cpu", d)
    noise = _noise(input, lower, upper, training)
    if inplace:
        return rrelu_with_noise_(input, noise, lower, upper, training)
    return RRELU_WITH_NOISE.public(input, noise, lower, upper, training)


def rrelu_(input: Tensor, lower: float = 1.0 / 8, upper: float = 1.0 / 3,
           training: bool = False) -> Tensor:
    """In-place ``rrelu`` (RreluWithNoiseBackward1)."""
    return rrelu(input, lower, upper, training, inplace=True)


export_function("rrelu", rrelu)
export_function("rrelu_", rrelu_)
