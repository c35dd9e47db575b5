"""Activation functions of ``torch.nn.functional`` (see Note [Primitive or composite]).

>>> import leafgrad as torch
>>> import leafgrad.nn.functional as F
>>> F.relu(torch.tensor([-1.0, 2.0]))
tensor([0., 2.])
"""
from __future__ import annotations

import math
import warnings

from ... import ops as _ops  # noqa: F401  (records must be registered before lookup)
from ...ops import activation as _activation
from ...ops import nn_activations as _nn_activations
from ...ops import shrink as _shrink
from ...tensor import Tensor
from ._common import prim

__all__ = [
    "celu",
    "celu_",
    "elu",
    "elu_",
    "gelu",
    "glu",
    "hardshrink",
    "hardsigmoid",
    "hardswish",
    "hardtanh",
    "hardtanh_",
    "leaky_relu",
    "leaky_relu_",
    "log_softmax",
    "logsigmoid",
    "mish",
    "relu",
    "relu6",
    "relu_",
    "rrelu",
    "rrelu_",
    "selu",
    "selu_",
    "sigmoid",
    "silu",
    "softmax",
    "softmin",
    "softplus",
    "softshrink",
    "softsign",
    "tanh",
    "tanhshrink",
    "threshold",
    "threshold_",
]


def _torch():
    import leafgrad
    return leafgrad


def _inplace(input: Tensor, name: str, *args):
    fn = getattr(_nn_activations, name + "_", None) or getattr(Tensor, name + "_", None)
    if fn is None:
        raise NotImplementedError(f"leafgrad has no in-place {name}_ yet; use inplace=False")
    return fn(input, *args)


def relu(input: Tensor, inplace: bool = False) -> Tensor:
    return input.relu_() if inplace else input.relu()


def relu_(input: Tensor) -> Tensor:
    return input.relu_()


def hardtanh(input: Tensor, min_val: float = -1.0, max_val: float = 1.0,
             inplace: bool = False) -> Tensor:
    if min_val > max_val:
        raise ValueError("min_val cannot be greater than max_val")
    if inplace:
        if input._data.dtype == bool:   # at::hardtanh_'s own check, before the write checks
            raise RuntimeError("Bool inputs not supported for hardtanh")
        return _inplace(input, "hardtanh", min_val, max_val)
    op = prim("hardtanh")
    if op is not None:
        return op(input, min_val, max_val)
    return input.clamp(min_val, max_val)


def hardtanh_(input: Tensor, min_val: float = -1.0, max_val: float = 1.0) -> Tensor:
    return hardtanh(input, min_val, max_val, inplace=True)


def relu6(input: Tensor, inplace: bool = False) -> Tensor:
    return hardtanh(input, 0, 6, inplace)   # ints, as PyTorch saves them


def leaky_relu(input: Tensor, negative_slope: float = 0.01, inplace: bool = False) -> Tensor:
    if inplace:
        return _inplace(input, "leaky_relu", negative_slope)
    op = prim("leaky_relu")
    if op is not None:
        return op(input, negative_slope)
    return _torch().where(input > 0, input, input * negative_slope)


def leaky_relu_(input: Tensor, negative_slope: float = 0.01) -> Tensor:
    return leaky_relu(input, negative_slope, inplace=True)


def _elu(input, alpha, scale, input_scale):
    op = prim("elu")
    if op is not None:
        return op(input, alpha, scale, input_scale)
    negative = (input * input_scale).expm1() * (alpha * scale)
    return _torch().where(input > 0, input * scale, negative)


def elu(input: Tensor, alpha: float = 1.0, inplace: bool = False) -> Tensor:
    if inplace:
        return _inplace(input, "elu", alpha)
    return _elu(input, alpha, 1, 1)


def elu_(input: Tensor, alpha: float = 1.0) -> Tensor:
    return elu(input, alpha, inplace=True)


_SELU_ALPHA = 1.6732632423543772848170429916717
_SELU_SCALE = 1.0507009873554804934193349852946


def selu(input: Tensor, inplace: bool = False) -> Tensor:
    # PyTorch runs selu as elu with SELU's constants: its node saves alpha, scale, input_scale
    if inplace:
        return _inplace(input, "elu", _SELU_ALPHA, _SELU_SCALE, 1)
    return _elu(input, _SELU_ALPHA, _SELU_SCALE, 1)


def celu(input: Tensor, alpha: float = 1.0, inplace: bool = False) -> Tensor:
    if inplace:
        return _inplace(input, "celu", alpha)
    op = prim("celu")
    if op is not None:
        return op(input, alpha)
    return _elu(input, alpha, 1.0, 1.0 / alpha)


def gelu(input: Tensor, approximate: str = "none") -> Tensor:
    if approximate not in ("none", "tanh"):
        raise RuntimeError("approximate argument must be either none or tanh.")
    op = prim("gelu")
    if op is not None:
        return op(input, approximate=approximate)
    if approximate == "tanh":
        inner = (input + input.pow(3) * 0.044715) * math.sqrt(2.0 / math.pi)
        return input * 0.5 * (inner.tanh() + 1.0)
    return input * 0.5 * ((input * (1.0 / math.sqrt(2.0))).erf() + 1.0)


def silu(input: Tensor, inplace: bool = False) -> Tensor:
    if inplace:
        return _activation.silu(input, inplace=True)
    op = prim("silu")
    if op is not None:
        return op(input)
    return input * input.sigmoid()


def softplus(input: Tensor, beta: float = 1, threshold: float = 20) -> Tensor:
    op = prim("softplus")
    if op is not None:
        return op(input, beta, threshold)
    scaled = input * beta
    # Above the threshold softplus(x) == x to working precision; exp would overflow.
    safe = _torch().where(scaled > threshold, _torch().zeros_like(scaled), scaled)
    return _torch().where(scaled > threshold, input, safe.exp().log1p() / beta)


def mish(input: Tensor, inplace: bool = False) -> Tensor:
    if inplace:
        return _inplace(input, "mish")
    op = prim("mish")
    if op is not None:
        return op(input)
    return input * softplus(input).tanh()


def sigmoid(input: Tensor) -> Tensor:
    return input.sigmoid()


def tanh(input: Tensor) -> Tensor:
    return input.tanh()


def logsigmoid(input: Tensor) -> Tensor:
    op = prim("log_sigmoid")
    if op is not None:
        return op(input)
    # log(sigmoid(x)) = -softplus(-x); softplus is stable at both ends (and, unlike a
    # min/abs formula, has the right derivative 1/2 at 0).
    return -softplus(-input)


def hardsigmoid(input: Tensor, inplace: bool = False) -> Tensor:
    if inplace:
        return _inplace(input, "hardsigmoid")
    op = prim("hardsigmoid")
    if op is not None:
        return op(input)
    return (input / 6.0 + 0.5).clamp(0.0, 1.0)


def hardswish(input: Tensor, inplace: bool = False) -> Tensor:
    if inplace:
        return _inplace(input, "hardswish")
    op = prim("hardswish")
    if op is not None:
        return op(input)
    return input * (input + 3.0).clamp(0.0, 6.0) / 6.0


def softsign(input: Tensor) -> Tensor:
    return input / (input.abs() + 1)


def tanhshrink(input: Tensor) -> Tensor:
    return input - input.tanh()


def threshold(input: Tensor, threshold: float, value: float, inplace: bool = False) -> Tensor:
    if inplace:
        return _inplace(input, "threshold", threshold, value)
    op = prim("threshold")
    if op is not None:
        return op(input, threshold, value)
    return _torch().where(input > threshold, input, _torch().full_like(input, value))


def threshold_(input: Tensor, threshold: float, value: float) -> Tensor:
    return _nn_activations.threshold_(input, threshold, value)


def selu_(input: Tensor) -> Tensor:
    return selu(input, inplace=True)


def celu_(input: Tensor, alpha: float = 1.0) -> Tensor:
    return celu(input, alpha, inplace=True)


def softshrink(input: Tensor, lambd: float = 0.5) -> Tensor:
    """``input - lambd`` above ``lambd``, ``input + lambd`` below ``-lambd``, else 0."""
    return _shrink.SOFTSHRINK.public(input, lambd)


def hardshrink(input: Tensor, lambd: float = 0.5) -> Tensor:
    """``input`` where ``|input| > lambd``, else 0."""
    return _shrink.HARDSHRINK.public(input, lambd)


def rrelu(input: Tensor, lower: float = 1.0 / 8, upper: float = 1.0 / 3, training: bool = False,
          inplace: bool = False) -> Tensor:
    """Leaky ReLU with slopes drawn from U(lower, upper) in training, their mean in eval."""
    return _shrink.rrelu(input, lower, upper, training, inplace)


def rrelu_(input: Tensor, lower: float = 1.0 / 8, upper: float = 1.0 / 3,
           training: bool = False) -> Tensor:
    return _shrink.rrelu(input, lower, upper, training, inplace=True)


def glu(input: Tensor, dim: int = -1) -> Tensor:
    if input.dim() == 0:
        raise RuntimeError("glu does not support scalars because halving size must be even")
    size = input.shape[dim] if -input.dim() <= dim < input.dim() else 0
    if size % 2:
        d = dim % input.dim()
        raise RuntimeError(f"Halving dimension must be even, but dimension {d} is size {size}")
    op = prim("glu")
    if op is not None:
        return op(input, dim)
    a, b = input.chunk(2, dim)
    return a * b.sigmoid()


def _implicit_dim(name: str, ndim: int) -> int:
    warnings.warn(f"Implicit dimension choice for {name} has been deprecated. Change the call "
                  "to include dim=X as an argument.", UserWarning, stacklevel=3)
    return 0 if ndim in (0, 1, 3) else 1


def softmax(input: Tensor, dim=None, _stacklevel: int = 3, dtype=None) -> Tensor:
    if dim is None:
        dim = _implicit_dim("softmax", input.dim())
    if dtype is None:
        return input.softmax(dim)
    return input.softmax(dim, dtype=dtype)


def softmin(input: Tensor, dim=None, _stacklevel: int = 3, dtype=None) -> Tensor:
    if dim is None:
        dim = _implicit_dim("softmin", input.dim())
    if dtype is None:
        return (-input).softmax(dim)
    return (-input).softmax(dim, dtype=dtype)


def log_softmax(input: Tensor, dim=None, _stacklevel: int = 3, dtype=None) -> Tensor:
    if dim is None:
        dim = _implicit_dim("log_softmax", input.dim())
    if dtype is None:
        return input.log_softmax(dim)
    return input.log_softmax(dim, dtype=dtype)
