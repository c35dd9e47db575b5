"""Gradient clipping: scale or clamp the ``.grad`` of parameters in place.

>>> import leafgrad as torch
>>> w = torch.nn.Parameter(torch.zeros(2))
>>> w.grad = torch.tensor([3.0, 4.0])
>>> torch.nn.utils.clip_grad_norm_([w], max_norm=1.0)
tensor(5.)
"""
from __future__ import annotations

import math

import numpy as np

from ..._zerotensor import check_mutable
from ...tensor import Tensor, _wrap

__all__ = ["clip_grad_norm_", "clip_grad_norm", "clip_grad_value_", "clip_grads_with_norm_",
           "get_total_norm"]


def _grads(parameters):
    if isinstance(parameters, Tensor):
        parameters = [parameters]
    return [p.grad for p in parameters if p.grad is not None]


def _norm(a: np.ndarray, norm_type: float) -> np.ndarray:
    a = a.ravel()
    if norm_type == math.inf:
        return np.abs(a).max(initial=0).astype(a.dtype)
    if norm_type == -math.inf:
        return np.abs(a).min(initial=np.inf).astype(a.dtype)
    if norm_type == 0:
        return np.asarray(np.count_nonzero(a), dtype=a.dtype)
    if norm_type == 2:
        return np.sqrt(np.dot(a, a)).astype(a.dtype)
    return (np.abs(a) ** norm_type).sum().astype(a.dtype) ** (1.0 / norm_type)


def get_total_norm(tensors, norm_type: float = 2.0, error_if_nonfinite: bool = False,
                   foreach=None) -> Tensor:
    """The ``norm_type``-norm of all ``tensors`` together (the norm of their norms), as
    ``clip_grad_norm_`` computes it; pass the gradients, not the parameters."""
    if isinstance(tensors, Tensor):
        tensors = [tensors]
    tensors = [t for t in tensors if t is not None]
    norm_type = float(norm_type)
    if not tensors:
        return _wrap(np.asarray(0.0, dtype=np.float32))
    dtype = tensors[0]._data.dtype
    norms = np.asarray([_norm(t._data, norm_type) for t in tensors], dtype=dtype)
    total = _norm(norms, norm_type)
    if error_if_nonfinite and not np.isfinite(total):
        raise RuntimeError(
            f"The total norm of order {norm_type} for gradients from `parameters` is "
            "non-finite, so it cannot be clipped. To disable this error and scale the "
            "gradients by the non-finite norm anyway, set `error_if_nonfinite=False`")
    return _wrap(np.asarray(total, dtype=dtype))


def clip_grads_with_norm_(parameters, max_norm: float, total_norm, foreach=None) -> None:
    """Scale the gradients of ``parameters`` by ``max_norm / (total_norm + 1e-6)``, clamped
    at 1 (``total_norm`` from :func:`get_total_norm`)."""
    grads = _grads(parameters)
    if not grads:
        return
    total = total_norm._data if isinstance(total_norm, Tensor) else np.asarray(total_norm)
    dtype = grads[0]._data.dtype
    coef = min(dtype.type(max_norm) / (total.astype(dtype) + dtype.type(1e-6)), dtype.type(1.0))
    for g in grads:
        if type(g._data) is not np.ndarray:
            check_mutable(g)   # PyTorch's mul_ refuses a zero tensor (Note in _zerotensor.py)
        np.multiply(g._data, coef, out=g._data, casting="unsafe")
        g._vc[0] += 1


def clip_grad_norm_(parameters, max_norm: float, norm_type: float = 2.0,
                    error_if_nonfinite: bool = False, foreach=None) -> Tensor:
    """Scale all gradients together so their joint ``norm_type``-norm is at most
    ``max_norm``; returns the norm before clipping."""
    if isinstance(parameters, Tensor):
        parameters = [parameters]
    else:
        parameters = list(parameters)   # a generator is walked twice
    total = get_total_norm(_grads(parameters), norm_type, error_if_nonfinite, foreach)
    clip_grads_with_norm_(parameters, max_norm, total, foreach)
    return total


def clip_grad_norm(parameters, max_norm: float, norm_type: float = 2.0,
                   error_if_nonfinite: bool = False, foreach=None) -> Tensor:
    import warnings
    warnings.warn("`torch.nn.utils.clip_grad_norm` is now deprecated in favor of "
                  "`torch.nn.utils.clip_grad_norm_`.", FutureWarning, stacklevel=2)
    return clip_grad_norm_(parameters, max_norm, norm_type, error_if_nonfinite, foreach)


def clip_grad_value_(parameters, clip_value: float, foreach=None) -> None:
    """Clamp every gradient element into ``[-clip_value, clip_value]``."""
    clip_value = float(clip_value)
    for g in _grads(parameters):
        if type(g._data) is not np.ndarray:
            check_mutable(g)   # PyTorch's clamp_ refuses a zero tensor
        np.clip(g._data, -clip_value, clip_value, out=g._data)
        g._vc[0] += 1
