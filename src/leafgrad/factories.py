"""Tensor factories: ``tensor``, ``zeros``, ``arange``, ``*_like``, ``from_numpy``...

>>> import leafgrad as torch
>>> torch.zeros(2, 3).shape
torch.Size([2, 3])
"""
from __future__ import annotations

import warnings

import numpy as np

from . import dtypes as _dt
from .grad_mode import state as _mode
from .tensor import Tensor, _wrap, check_device

__all__ = ["tensor", "as_tensor", "from_numpy", "zeros", "ones", "full", "empty", "arange",
           "linspace", "logspace", "eye", "zeros_like", "ones_like", "full_like", "empty_like",
           "scalar_tensor", "asarray"]

COPY_WARNING = ("To copy construct from a tensor, it is recommended to use "
                "sourceTensor.detach().clone() or sourceTensor.detach().clone()."
                "requires_grad_(True), rather than torch.tensor(sourceTensor).")


def _finish(data: np.ndarray, requires_grad: bool, device=None) -> Tensor:
    check_device(device)
    t = _wrap(data)
    if requires_grad:
        if data.dtype.kind != "f":
            raise RuntimeError(
                "Only Tensors of floating point and complex dtype can require gradients")
        t._requires_grad = True
    return t


def _infer_np_dtype(data) -> np.dtype:
    """PyTorch's inference for nested Python data: bool < int64 < default float."""
    kind = 0
    stack = [data]
    while stack:
        x = stack.pop()
        if isinstance(x, (list, tuple)):
            stack.extend(x)
        elif isinstance(x, (bool, np.bool_)):
            continue
        elif isinstance(x, (int, np.integer)):
            kind = max(kind, 1)
        elif isinstance(x, (float, np.floating)):
            kind = 2
        elif isinstance(x, complex):
            raise NotImplementedError("leafgrad has no complex dtypes")
        else:
            raise TypeError(f"new(): invalid data type '{type(x).__name__}'")
    return (np.dtype(np.bool_), np.dtype(np.int64), _dt.get_default_dtype().np)[kind] \
        if data != [] else _dt.get_default_dtype().np


def _to_array(data, dtype) -> np.ndarray:
    if isinstance(data, Tensor):
        arr = data._data
        return np.array(arr, dtype=dtype.np if dtype is not None else arr.dtype, copy=True)
    if isinstance(data, np.ndarray):
        if dtype is None:
            if data.dtype.kind == "f" and data.dtype not in (np.float16, np.float32, np.float64):
                data = data.astype(np.float64)
            _dt.from_numpy_dtype(data.dtype)
            return np.array(data, copy=True)
        return np.array(data, dtype=dtype.np, copy=True)
    if isinstance(data, (list, tuple)) and any(isinstance(x, Tensor) for x in _flat(data)):
        data = _tensors_to_lists(data)
    if isinstance(data, np.generic):
        return np.array(data, dtype=dtype.np if dtype is not None else data.dtype)
    np_dtype = dtype.np if dtype is not None else _infer_np_dtype(data)
    try:
        return np.array(data, dtype=np_dtype)
    except ValueError as exc:
        raise ValueError(f"expected sequence of equal length lists: {exc}") from None


def _flat(data):
    for x in data:
        if isinstance(x, (list, tuple)):
            yield from _flat(x)
        else:
            yield x


def _tensors_to_lists(data):
    if isinstance(data, Tensor):
        if data._data.ndim == 0:
            return data._data.item()
        return data._data.tolist()
    if isinstance(data, (list, tuple)):
        return [_tensors_to_lists(x) for x in data]
    return data


def tensor(data, *, dtype=None, device=None, requires_grad=False, pin_memory=False) -> Tensor:
    """A new leaf tensor holding a copy of ``data``.

    >>> import leafgrad as torch
    >>> torch.tensor([1, 2]).dtype
    torch.int64
    """
    if isinstance(data, Tensor):
        warnings.warn(COPY_WARNING, UserWarning, stacklevel=2)
    dtype = _dt.to_dtype(dtype) if dtype is not None else None
    return _finish(_to_array(data, dtype), requires_grad, device)


def as_tensor(data, dtype=None, device=None) -> Tensor:
    """Like ``tensor``, but shares memory with a NumPy array or tensor when it can."""
    check_device(device)
    if isinstance(data, Tensor):
        if dtype is None or _dt.to_dtype(dtype) is data.dtype:
            return data
        return data.to(_dt.to_dtype(dtype))
    if isinstance(data, np.ndarray) and (dtype is None or _dt.to_dtype(dtype).np == data.dtype):
        _dt.from_numpy_dtype(data.dtype)
        return _wrap(data)
    return tensor(data, dtype=dtype)


asarray = as_tensor


def from_numpy(array: np.ndarray) -> Tensor:
    """A tensor sharing memory with ``array``."""
    if not isinstance(array, np.ndarray):
        raise TypeError(f"expected np.ndarray (got {type(array).__name__})")
    _dt.from_numpy_dtype(array.dtype)
    return _wrap(array)


def _size(size):
    if len(size) == 1 and isinstance(size[0], (tuple, list)):
        size = tuple(size[0])
    out = []
    for s in size:
        if isinstance(s, Tensor):
            s = int(s)
        if not isinstance(s, (int, np.integer)) or isinstance(s, bool):
            raise TypeError(f"zeros(): argument 'size' (position 1) must be tuple of ints, but "
                            f"found element of type {type(s).__name__} at pos {len(out)}")
        if s < 0:
            raise RuntimeError(f"Trying to create tensor with negative dimension {s}: "
                               f"[{', '.join(map(str, size))}]")
        out.append(int(s))
    return tuple(out)


def _np_dtype(dtype, default=None):
    if dtype is None:
        return (default or _dt.get_default_dtype()).np
    return _dt.to_dtype(dtype).np


def zeros(*size, out=None, dtype=None, layout=None, device=None, requires_grad=False,
          pin_memory=False, memory_format=None) -> Tensor:
    return _finish(np.zeros(_size(size), _np_dtype(dtype)), requires_grad, device)


def ones(*size, out=None, dtype=None, layout=None, device=None, requires_grad=False,
         pin_memory=False, memory_format=None) -> Tensor:
    return _finish(np.ones(_size(size), _np_dtype(dtype)), requires_grad, device)


def empty(*size, out=None, dtype=None, layout=None, device=None, requires_grad=False,
          pin_memory=False, memory_format=None) -> Tensor:
    return _finish(np.empty(_size(size), _np_dtype(dtype)), requires_grad, device)


def full(size, fill_value, *, out=None, dtype=None, layout=None, device=None,
         requires_grad=False, pin_memory=False) -> Tensor:
    if dtype is None:
        dtype = _dt.result_type(fill_value) if not isinstance(fill_value, Tensor) \
            else fill_value.dtype
    return _finish(np.full(_size((size,)), fill_value, _np_dtype(dtype)), requires_grad, device)


def _like(t, dtype):
    return t._data.dtype if dtype is None else _dt.to_dtype(dtype).np


def zeros_like(input, *, dtype=None, layout=None, device=None, requires_grad=False,
               memory_format=None) -> Tensor:
    return _finish(np.zeros(input._data.shape, _like(input, dtype)), requires_grad, device)


def ones_like(input, *, dtype=None, layout=None, device=None, requires_grad=False,
              memory_format=None) -> Tensor:
    return _finish(np.ones(input._data.shape, _like(input, dtype)), requires_grad, device)


def empty_like(input, *, dtype=None, layout=None, device=None, requires_grad=False,
               memory_format=None) -> Tensor:
    return _finish(np.empty(input._data.shape, _like(input, dtype)), requires_grad, device)


def full_like(input, fill_value, *, dtype=None, layout=None, device=None, requires_grad=False,
              memory_format=None) -> Tensor:
    return _finish(np.full(input._data.shape, fill_value, _like(input, dtype)), requires_grad,
                   device)


def scalar_tensor(s, *, dtype=None, device=None, requires_grad=False) -> Tensor:
    return _finish(np.array(s, _np_dtype(dtype)), requires_grad, device)


def arange(start, end=None, step=1, *, out=None, dtype=None, layout=None, device=None,
           requires_grad=False) -> Tensor:
    """Values in ``[start, end)`` spaced by ``step``; int64 unless a bound is a float."""
    if end is None:
        start, end = 0, start
    vals = [float(v) if isinstance(v, Tensor) and v.is_floating_point() else
            (int(v) if isinstance(v, Tensor) else v) for v in (start, end, step)]
    start, end, step = vals
    if step == 0:
        raise RuntimeError("step must be nonzero")
    if (end - start) * step < 0:
        raise RuntimeError("upper bound and larger bound inconsistent with step sign")
    if dtype is None:
        is_float = any(isinstance(v, float) for v in vals)
        np_dtype = _dt.get_default_dtype().np if is_float else np.int64
    else:
        np_dtype = _dt.to_dtype(dtype).np
    n = int(np.ceil((end - start) / step))
    data = (start + step * np.arange(n, dtype=np.float64)).astype(np_dtype) \
        if np.dtype(np_dtype).kind == "f" else np.arange(start, end, step).astype(np_dtype)
    return _finish(data, requires_grad, device)


def linspace(start, end, steps, *, out=None, dtype=None, layout=None, device=None,
             requires_grad=False) -> Tensor:
    np_dtype = _np_dtype(dtype)
    if steps < 0:
        raise RuntimeError("number of steps must be non-negative")
    return _finish(np.linspace(float(start), float(end), int(steps)).astype(np_dtype),
                   requires_grad, device)


def logspace(start, end, steps, base=10.0, *, out=None, dtype=None, layout=None, device=None,
             requires_grad=False) -> Tensor:
    np_dtype = _np_dtype(dtype)
    return _finish(np.logspace(float(start), float(end), int(steps), base=base).astype(
        np_dtype), requires_grad, device)


def eye(n, m=None, *, out=None, dtype=None, layout=None, device=None,
        requires_grad=False) -> Tensor:
    return _finish(np.eye(n, m if m is not None else n, dtype=_np_dtype(dtype)), requires_grad,
                   device)


def _legacy_tensor(cls, args, kwargs):
    """``torch.Tensor(data)`` / ``torch.Tensor(2, 3)``: float32 (the default dtype)."""
    if cls is not Tensor:
        # subclasses (nn.Parameter) construct through their own __new__
        raise TypeError(f"{cls.__name__} must define __new__")
    if len(args) == 1 and isinstance(args[0], (list, tuple, np.ndarray)):
        data = np.array(args[0], dtype=_dt.get_default_dtype().np)
    elif len(args) == 1 and isinstance(args[0], Tensor):
        return args[0]
    else:
        data = np.zeros(_size(args), _dt.get_default_dtype().np)
    return _wrap(data)


del _mode
