"""``torch.nn.init``: fill a tensor in place from a distribution, without recording history.

Each function runs under ``no_grad`` (so it may fill a Parameter that requires grad), changes
the tensor in place and returns it. Random draws come from leafgrad's generator through
``Tensor.uniform_`` / ``Tensor.normal_``, so ``manual_seed`` makes them repeatable.

>>> import leafgrad as torch
>>> w = torch.empty(2, 3)
>>> torch.nn.init.constant_(w, 0.5).sum()
tensor(3.)
>>> torch.nn.init.calculate_gain("relu")
1.4142135623730951
"""
from __future__ import annotations

import math
import warnings

import numpy as np

from ..grad_mode import no_grad
from ..tensor import Tensor
from . import _raw

__all__ = ["calculate_gain", "uniform_", "normal_", "trunc_normal_", "constant_", "ones_",
           "zeros_", "eye_", "xavier_uniform_", "xavier_normal_", "kaiming_uniform_",
           "kaiming_normal_", "orthogonal_", "sparse_", "uniform", "normal", "constant", "xavier_uniform",
           "xavier_normal", "kaiming_uniform", "kaiming_normal", "orthogonal"]

_LINEAR = ("linear", "conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d",
           "conv_transpose3d")


def calculate_gain(nonlinearity: str, param=None) -> float:
    """The recommended gain for a nonlinearity (e.g. sqrt(2) for relu)."""
    if nonlinearity in _LINEAR or nonlinearity == "sigmoid":
        return 1
    if nonlinearity == "tanh":
        return 5.0 / 3
    if nonlinearity == "relu":
        return math.sqrt(2.0)
    if nonlinearity == "leaky_relu":
        if param is None:
            negative_slope = 0.01
        elif not isinstance(param, bool) and isinstance(param, (int, float)):
            negative_slope = param
        else:
            raise ValueError(f"negative_slope {param} not a valid number")
        return math.sqrt(2.0 / (1 + negative_slope ** 2))
    if nonlinearity == "selu":
        return 3.0 / 4
    raise ValueError(f"Unsupported nonlinearity {nonlinearity}")


def _fan_in_and_fan_out(tensor: Tensor):
    if tensor.dim() < 2:
        raise ValueError("Fan in and fan out can not be computed for tensor with fewer than 2 "
                         "dimensions")
    receptive = 1
    for s in tensor.shape[2:]:
        receptive *= s
    return tensor.shape[1] * receptive, tensor.shape[0] * receptive


def _correct_fan(tensor: Tensor, mode: str) -> int:
    mode = mode.lower()
    valid = ["fan_in", "fan_out"]
    if mode not in valid:
        raise ValueError(f"Mode {mode} not supported, please use one of {valid}")
    fan_in, fan_out = _fan_in_and_fan_out(tensor)
    return fan_in if mode == "fan_in" else fan_out


def _gen(generator) -> dict:
    return {} if generator is None else {"generator": generator}


def uniform_(tensor: Tensor, a: float = 0.0, b: float = 1.0, generator=None) -> Tensor:
    """Fill with U(a, b)."""
    with no_grad():
        return tensor.uniform_(a, b, **_gen(generator))


def normal_(tensor: Tensor, mean: float = 0.0, std: float = 1.0, generator=None) -> Tensor:
    """Fill with N(mean, std^2)."""
    with no_grad():
        return tensor.normal_(mean, std, **_gen(generator))


def trunc_normal_(tensor: Tensor, mean: float = 0.0, std: float = 1.0, a: float = -2.0,
                  b: float = 2.0, generator=None) -> Tensor:
    """Fill with N(mean, std^2) restricted to [a, b], by rejection as PyTorch 2.13 does:
    redraw normals outside [a, b] while the interval holds over 30% of the mass, otherwise
    accept uniforms on [a, b] with probability pdf / peak pdf (so the draws are PyTorch's
    after the same seed)."""
    from .. import where
    from ..factories import empty_like

    def norm_cdf(x):
        return (1.0 + math.erf(x / math.sqrt(2.0))) / 2.0

    if mean < a - 2 * std or mean > b + 2 * std:
        warnings.warn("mean is more than 2 std from [a, b] in nn.init.trunc_normal_. The "
                      "distribution of values may be incorrect.", stacklevel=2)
    gen = _gen(generator)
    with no_grad():
        if norm_cdf((b - mean) / std) - norm_cdf((a - mean) / std) > 0.3:
            # the bounds as the tensor's dtype holds them, so the mask agrees with its values
            lo = float(np.asarray(a, dtype=tensor._data.dtype))
            hi = float(np.asarray(b, dtype=tensor._data.dtype))
            result = tensor.normal_(mean, std, **gen)
            while True:
                outside = (result < lo) | (result > hi)
                if not outside.any():
                    break
                result = where(outside, empty_like(result).normal_(mean, std, **gen), result)
            if result is not tensor:
                _raw.write_(tensor, result._data)
            return tensor
        mode = max(a, min(mean, b))
        log_peak = -0.5 * ((mode - mean) / std) ** 2
        candidates, accept = empty_like(tensor), empty_like(tensor)

        def log_pdf_minus_peak(x):
            return x.sub_(mean).div_(std).pow_(2).mul_(-0.5).sub_(log_peak)

        tensor.uniform_(a, b, **gen)
        log_pdf_minus_peak(candidates.copy_(tensor))
        pending = accept.uniform_(**gen).log_().gt(candidates)
        if pending.any():
            result = tensor
            while True:
                candidates.uniform_(a, b, **gen)
                result = where(pending, candidates, result)
                log_pdf_minus_peak(candidates)
                pending = where(pending, accept.uniform_(**gen).log_().gt(candidates), pending)
                if not pending.any():
                    break
            _raw.write_(tensor, result._data)
        return tensor


def sparse_(tensor: Tensor, sparsity: float, std: float = 0.01, generator=None) -> Tensor:
    """N(0, std^2) values with ``ceil(sparsity * rows)`` zeros per column, the zero rows of
    each column chosen by ``torch.randperm`` from the default generator (as PyTorch)."""
    from ..random import randperm
    if tensor.dim() != 2:
        raise ValueError("Only tensors with 2 dimensions are supported")
    rows, cols = tensor.shape
    num_zeros = math.ceil(sparsity * rows)
    with no_grad():
        tensor.normal_(0, std, **_gen(generator))
        values = np.array(tensor._data, copy=True)
        for col in range(cols):
            values[randperm(rows)._data[:num_zeros], col] = 0
        _raw.write_(tensor, values)
    return tensor


def constant_(tensor: Tensor, val: float) -> Tensor:
    with no_grad():
        return _raw.fill_(tensor, val)


def ones_(tensor: Tensor) -> Tensor:
    return constant_(tensor, 1.0)


def zeros_(tensor: Tensor) -> Tensor:
    return constant_(tensor, 0.0)


def eye_(tensor: Tensor) -> Tensor:
    if tensor.dim() != 2:
        raise ValueError("Only tensors with 2 dimensions are supported")
    with no_grad():
        return _raw.write_(tensor, np.eye(*tensor.shape))


def xavier_uniform_(tensor: Tensor, gain: float = 1.0, generator=None) -> Tensor:
    """U(-a, a) with a = gain * sqrt(6 / (fan_in + fan_out)) (Glorot & Bengio)."""
    fan_in, fan_out = _fan_in_and_fan_out(tensor)
    std = gain * math.sqrt(2.0 / float(fan_in + fan_out))
    bound = math.sqrt(3.0) * std
    return uniform_(tensor, -bound, bound, generator)


def xavier_normal_(tensor: Tensor, gain: float = 1.0, generator=None) -> Tensor:
    fan_in, fan_out = _fan_in_and_fan_out(tensor)
    std = gain * math.sqrt(2.0 / float(fan_in + fan_out))
    return normal_(tensor, 0.0, std, generator)


def _empty_tensor(tensor: Tensor) -> bool:
    if 0 in tensor.shape:
        warnings.warn("Initializing zero-element tensors is a no-op", stacklevel=3)
        return True
    return False


def kaiming_uniform_(tensor: Tensor, a: float = 0, mode: str = "fan_in",
                     nonlinearity: str = "leaky_relu", generator=None) -> Tensor:
    """U(-b, b) with b = gain * sqrt(3 / fan) (He et al.); nn.Linear uses a=sqrt(5)."""
    if _empty_tensor(tensor):
        return tensor
    fan = _correct_fan(tensor, mode)
    std = calculate_gain(nonlinearity, a) / math.sqrt(fan)
    bound = math.sqrt(3.0) * std
    return uniform_(tensor, -bound, bound, generator)


def kaiming_normal_(tensor: Tensor, a: float = 0, mode: str = "fan_in",
                    nonlinearity: str = "leaky_relu", generator=None) -> Tensor:
    if _empty_tensor(tensor):
        return tensor
    fan = _correct_fan(tensor, mode)
    std = calculate_gain(nonlinearity, a) / math.sqrt(fan)
    return normal_(tensor, 0.0, std, generator)


def orthogonal_(tensor: Tensor, gain: float = 1.0, generator=None) -> Tensor:
    """A (semi-)orthogonal matrix from the QR decomposition of a Gaussian one."""
    if tensor.dim() < 2:
        raise ValueError("Only tensors with 2 or more dimensions are supported")
    if tensor.numel() == 0:
        return tensor
    rows = tensor.shape[0]
    cols = tensor.numel() // rows
    from ..factories import empty
    with no_grad():
        gauss = empty(rows, cols, dtype=tensor.dtype).normal_(0, 1, **_gen(generator))
        flat = gauss._data.T if rows < cols else gauss._data
        q, r = np.linalg.qr(flat)
        # Sign fix so the result is uniformly distributed over orthogonal matrices.
        q = q * np.sign(np.diag(r))
        if rows < cols:
            q = q.T
        _raw.write_(tensor, q.reshape(tensor.shape) * gain)
        return tensor


def _deprecated(new):
    def old(*args, **kwargs):
        warnings.warn(f"`nn.init.{new.__name__[:-1]}` is now deprecated in favor of "
                      f"`nn.init.{new.__name__}`.", FutureWarning, stacklevel=2)
        return new(*args, **kwargs)
    old.__name__ = new.__name__[:-1]
    return old


uniform = _deprecated(uniform_)
normal = _deprecated(normal_)
constant = _deprecated(constant_)
xavier_uniform = _deprecated(xavier_uniform_)
xavier_normal = _deprecated(xavier_normal_)
kaiming_uniform = _deprecated(kaiming_uniform_)
kaiming_normal = _deprecated(kaiming_normal_)
orthogonal = _deprecated(orthogonal_)
