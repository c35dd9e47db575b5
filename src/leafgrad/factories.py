"""Tensor factories: ``tensor``, ``zeros``, ``arange``, ``*_like``, ``from_numpy``, ``new_*``.

Every factory returns a fresh leaf. The dtype rules are PyTorch's: nested Python data infers
bool < int64 < the default float dtype, NumPy scalars and tensors inside a list bring their own
dtype, and ``full`` takes its dtype from the fill value.

>>> import leafgrad as torch
>>> torch.zeros(2, 3).shape
torch.Size([2, 3])
>>> torch.tensor([[1, 2], [3, 4.5]]).dtype
torch.float32
>>> torch.arange(0, 1, 0.25)
tensor([0.0000, 0.2500, 0.5000, 0.7500])
"""
from __future__ import annotations

import math
import warnings

import numpy as np

from . import dtypes as _dt
from .tensor import Tensor, _wrap, check_device
from ._ranges import arange_values, linspace_values
from ._data import (COPY_WARNING, array_from_data, check_dtype_arg, check_bool_arg,
                    fill_dtype, fill_array, size_arg)

__all__ = ["tensor", "as_tensor", "asarray", "from_numpy", "zeros", "ones", "full", "empty",
           "arange", "linspace", "logspace", "eye", "zeros_like", "ones_like", "full_like",
           "empty_like", "scalar_tensor"]

_PIN_MEMORY = ("pin_memory=True requires a CUDA or other accelerator backend; no pinned memory "
               "allocator is available on this system.")


def _finish(data: np.ndarray, requires_grad, device=None, fname="tensor", out=None,
            pin_memory=False) -> Tensor:
    """Wrap ``data`` as a new leaf, after PyTorch's checks of the keyword arguments."""
    check_device(device)
    if pin_memory:
        raise RuntimeError(_PIN_MEMORY)
    if requires_grad is not False:
        check_bool_arg(fname, "requires_grad", requires_grad)
    if out is not None:
        return _write_out(out, data, requires_grad)
    t = _wrap(data)
    if requires_grad:
        if data.dtype.kind != "f":
            raise RuntimeError(
                "Only Tensors of floating point and complex dtype can require gradients")
        t._requires_grad = True
    return t


def _write_out(out: Tensor, data: np.ndarray, requires_grad) -> Tensor:
    # ``out=``: PyTorch resizes ``out`` to the result's shape and writes into it.
    if not isinstance(out, Tensor):
        raise TypeError(f"argument 'out' must be Tensor, not {type(out).__name__}")
    if requires_grad:
        raise RuntimeError("requires_grad=True is not supported together with out=")
    if out._data.shape == data.shape:
        np.copyto(out._data, data, casting="unsafe")
    else:
        out._data = data.astype(out._data.dtype)
    out._vc[0] += 1
    return out


_MISSING = object()


# -- from data ------------------------------------------------------------------------
def tensor(data=_MISSING, *args, dtype=None, device=None, requires_grad=False, pin_memory=False) -> Tensor:
    """A new leaf tensor holding a copy of ``data`` (nested lists, scalars, arrays, tensors).

    >>> import leafgrad as torch
    >>> torch.tensor([1, 2]).dtype, torch.tensor([True, 1]).dtype, torch.tensor(2.5).dtype
    (torch.int64, torch.int64, torch.float32)
    """
    if args or data is _MISSING:
        raise TypeError("tensor() takes 1 positional argument but "
                        f"{1 + len(args)} were given" if args else
                        'tensor() missing 1 required positional arguments: "data"')
    dtype = check_dtype_arg("tensor", dtype)
    if isinstance(data, Tensor):
        warnings.warn(COPY_WARNING, UserWarning, stacklevel=2)
    return _numpy_strides(data, _finish(array_from_data(data, dtype), requires_grad, device,
                                        "tensor", pin_memory=pin_memory))


def _numpy_strides(data, out: Tensor) -> Tensor:
    """An empty tensor made from a NumPy array keeps NumPy's zero strides in PyTorch (one made
    otherwise has contiguous ones: ``Tensor.stride``)."""
    if isinstance(data, np.ndarray) and not data.size:
        out._numpy_strides = True
    return out


def as_tensor(data, dtype=None, device=None) -> Tensor:
    """Like ``tensor``, but shares memory with a NumPy array or tensor when it can.

    >>> import numpy as np, leafgrad as torch
    >>> a = np.zeros(2)
    >>> t = torch.as_tensor(a)
    >>> a[0] = 1.0              # seen through ``t``: same memory
    >>> t.tolist()
    [1.0, 0.0]
    """
    dtype = check_dtype_arg("as_tensor", dtype)
    check_device(device)
    if isinstance(data, Tensor):
        if dtype is None or dtype is data.dtype:
            return data
        return _cast(data, dtype)
    if isinstance(data, np.ndarray) and (dtype is None or dtype.np == data.dtype):
        _dt.from_numpy_dtype(data.dtype)
        return _numpy_strides(data, _wrap(data))
    return _numpy_strides(data, _wrap(array_from_data(data, dtype)))


def asarray(obj, *, dtype=None, device=None, copy=None, requires_grad=False) -> Tensor:
    """``torch.asarray``: share memory unless ``copy=True`` or a dtype change forces a copy."""
    if copy:
        data = obj.detach() if isinstance(obj, Tensor) else obj
        if isinstance(data, Tensor):
            d = check_dtype_arg("asarray", dtype) or data.dtype
            return _finish(data._data.astype(d.np, copy=True), requires_grad, device)
        return _finish(array_from_data(data, check_dtype_arg("asarray", dtype)),
                       requires_grad, device)
    out = as_tensor(obj, dtype=dtype, device=device)
    if requires_grad:
        out = out.detach() if out._grad_fn is not None else out
        out.requires_grad_(True)
    return out


def _cast(t: Tensor, dtype) -> Tensor:
    """A dtype change that keeps the autograd history (``Tensor.to`` where it exists)."""
    to = getattr(t, "to", None)
    if to is not None:
        return to(dtype)
    if t._requires_grad:
        raise NotImplementedError("as_tensor with a dtype change of a tensor that requires "
                                  "grad needs Tensor.to")
    return _wrap(t._data.astype(dtype.np))


def from_numpy(ndarray: np.ndarray) -> Tensor:
    """A tensor sharing memory with ``ndarray``: writes through either are seen by both.

    >>> import numpy as np, leafgrad as torch
    >>> torch.from_numpy(np.arange(3, dtype=np.int32)).dtype
    torch.int32
    """
    if not isinstance(ndarray, np.ndarray):
        raise TypeError(f"expected np.ndarray (got {type(ndarray).__name__})")
    _dt.from_numpy_dtype(ndarray.dtype)
    return _numpy_strides(ndarray, _wrap(ndarray))


# -- filled with a constant -----------------------------------------------------------
def _np_dtype(fname, dtype, default=None) -> np.dtype:
    d = check_dtype_arg(fname, dtype)
    return (d or default or _dt.get_default_dtype()).np


def zeros(*size, out=None, dtype=None, layout=None, device=None, requires_grad=False,
          pin_memory=False, memory_format=None, **kwargs) -> Tensor:
    """A tensor of zeros; ``size`` as ints or one tuple.

    >>> import leafgrad as torch
    >>> torch.zeros(2, dtype=torch.int64)
    tensor([0, 0])
    """
    shape = size_arg("zeros", size, zero_check=True, keyword=kwargs)
    return _finish(np.zeros(shape, _np_dtype("zeros", dtype)), requires_grad, device, "zeros",
                   out, pin_memory)


def ones(*size, out=None, dtype=None, layout=None, device=None, requires_grad=False,
          pin_memory=False, memory_format=None, **kwargs) -> Tensor:
    """A tensor of ones.

    >>> import leafgrad as torch
    >>> torch.ones(2, 2).sum().item()
    4.0
    """
    shape = size_arg("ones", size, keyword=kwargs)
    return _finish(np.ones(shape, _np_dtype("ones", dtype)), requires_grad, device, "ones",
                   out, pin_memory)


def empty(*size, out=None, dtype=None, layout=None, device=None, requires_grad=False,
          pin_memory=False, memory_format=None, **kwargs) -> Tensor:
    """An uninitialised tensor (here: whatever NumPy's ``empty`` holds)."""
    shape = size_arg("empty", size, keyword=kwargs)
    return _finish(np.empty(shape, _np_dtype("empty", dtype)), requires_grad, device, "empty",
                   out, pin_memory)


def full(size, fill_value, *, out=None, dtype=None, layout=None, device=None,
         requires_grad=False, pin_memory=False) -> Tensor:
    """A tensor filled with ``fill_value``; its dtype comes from the value unless given.

    >>> import leafgrad as torch
    >>> torch.full((2,), 3).dtype, torch.full((2,), 3.0).dtype, torch.full((2,), True).dtype
    (torch.int64, torch.float32, torch.bool)
    """
    shape = size_arg("full", (size,), star=False)
    d = check_dtype_arg("full", dtype) or fill_dtype("full", fill_value)
    return _finish(fill_array(shape, fill_value, d), requires_grad, device, "full", out,
                   pin_memory)


def scalar_tensor(s, *, dtype=None, layout=None, device=None, requires_grad=False,
                  pin_memory=False) -> Tensor:
    """A 0-dim tensor of the default float dtype (or ``dtype``)."""
    d = check_dtype_arg("scalar_tensor", dtype) or _dt.get_default_dtype()
    fill_dtype("scalar_tensor", s)
    return _finish(fill_array((), s, d), requires_grad, device, "scalar_tensor")


def eye(n, m=None, *, out=None, dtype=None, layout=None, device=None, requires_grad=False,
        pin_memory=False) -> Tensor:
    """The identity matrix, ``n`` x ``m``.

    >>> import leafgrad as torch
    >>> torch.eye(2)
    tensor([[1., 0.],
            [0., 1.]])
    """
    n = _int_arg("eye", "n", 1, n)
    if n < 0:
        raise RuntimeError(f"n must be greater or equal to 0, got {n}")
    if m is None:
        m = n
    else:
        m = _int_arg("eye", "m", 2, m)
        if m < 0:
            raise RuntimeError(f"m must be greater or equal to 0, got {m}")
    return _finish(np.eye(n, m, dtype=_np_dtype("eye", dtype)), requires_grad, device, "eye",
                   out, pin_memory)


def _int_arg(fname, name, pos, value) -> int:
    if isinstance(value, Tensor) and value._data.dtype.kind in "iu" and value._data.ndim == 0:
        return int(value._data)
    if isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_)):
        return int(value)
    raise TypeError(f"{fname}(): argument '{name}' (position {pos}) must be int, not "
                    f"{type(value).__name__}")


# -- *_like ---------------------------------------------------------------------------
def _like_input(fname, input) -> None:
    if not isinstance(input, Tensor):
        raise TypeError(f"{fname}(): argument 'input' (position 1) must be Tensor, not "
                        f"{type(input).__name__}")


def _like_dtype(fname, input, dtype) -> np.dtype:
    d = check_dtype_arg(fname, dtype)
    return input._data.dtype if d is None else d.np


def like_layout(input, data: np.ndarray) -> np.ndarray:
    """``data`` (new, C-ordered, ``input``'s shape) laid out as ``empty_like(input)`` lays out
    its result (preserve_format: a transposed input gives a transposed result)."""
    from .ops.iter_layout import like_strides, with_strides   # (ops imports this module)
    strides = like_strides(input._data)
    return data if strides is None else with_strides(data, strides)


def zeros_like(input, *, dtype=None, layout=None, device=None, requires_grad=False,
               memory_format=None) -> Tensor:
    """Zeros with ``input``'s shape and dtype (never its ``requires_grad``)."""
    _like_input("zeros_like", input)
    return _finish(like_layout(input, np.zeros(input._data.shape, _like_dtype("zeros_like", input, dtype))),
                   requires_grad, device, "zeros_like")


def ones_like(input, *, dtype=None, layout=None, device=None, requires_grad=False,
              memory_format=None) -> Tensor:
    """Ones with ``input``'s shape and dtype."""
    _like_input("ones_like", input)
    return _finish(like_layout(input, np.ones(input._data.shape, _like_dtype("ones_like", input, dtype))),
                   requires_grad, device, "ones_like")


def empty_like(input, *, dtype=None, layout=None, device=None, requires_grad=False,
               memory_format=None) -> Tensor:
    """Uninitialised, with ``input``'s shape and dtype."""
    _like_input("empty_like", input)
    return _finish(like_layout(input, np.empty(input._data.shape, _like_dtype("empty_like", input, dtype))),
                   requires_grad, device, "empty_like")


def full_like(input, fill_value, *, dtype=None, layout=None, device=None, requires_grad=False,
              memory_format=None) -> Tensor:
    """``fill_value`` in ``input``'s shape and dtype (the value is cast, not promoted)."""
    _like_input("full_like", input)
    fill_dtype("full_like", fill_value)
    d = _dt.from_numpy_dtype(_like_dtype("full_like", input, dtype))
    return _finish(like_layout(input, fill_array(input._data.shape, fill_value, d)),
                   requires_grad, device, "full_like")


# -- ranges ---------------------------------------------------------------------------
def _number(fname, value):
    """A Python number from a scalar argument (0-dim tensors included)."""
    if isinstance(value, Tensor):
        value = value._data.item()
    elif isinstance(value, np.generic):
        value = value.item()
    if not isinstance(value, (int, float)):
        raise TypeError(f"{fname}(): argument 'end' must be Number, not {type(value).__name__}")
    return value


def arange(start=None, end=None, step=1, *, out=None, dtype=None, layout=None, device=None,
           requires_grad=False, pin_memory=False) -> Tensor:
    """Values in ``[start, end)`` spaced by ``step``; int64 unless a bound is a float.

    The values are PyTorch's to the last bit, float steps included (Note [Range kernels]).

    >>> import leafgrad as torch
    >>> torch.arange(3), torch.arange(1, 2, 0.5)
    (tensor([0, 1, 2]), tensor([1.0000, 1.5000]))
    """
    if end is None:
        start, end = 0, start
    elif start is None:
        start = 0
    if end is None:
        raise TypeError("arange() received an invalid combination of arguments - got (), "
                        "but expected one of: (Number end), (Number start, Number end), "
                        "(Number start, Number end, Number step)")
    start, end, step = (_number("arange", v) for v in (start, end, step))
    d = check_dtype_arg("arange", dtype)
    if d is None:
        is_float = any(isinstance(v, float) for v in (start, end, step))
        d = _dt.get_default_dtype() if is_float else _dt.int64
    if d is _dt.bool_:
        raise NotImplementedError("\"arange_cpu\" not implemented for 'Bool'")
    for v in (start, end):
        if isinstance(v, float) and not np.isfinite(v):
            raise RuntimeError(f"unsupported range: {_fmt(start)} -> {_fmt(end)}")
    if d.is_floating_point:
        xs, xe, xst = float(start), float(end), float(step)
    else:
        # integer outputs accumulate in int64: C truncates each bound first
        xs, xe, xst = int(start), int(end), int(step)
    if xst == 0:
        raise RuntimeError("step must be nonzero")
    if not ((xst > 0 and xe >= xs) or (xst < 0 and xe <= xs)):
        raise RuntimeError("upper bound and lower bound inconsistent with step sign")
    if d is _dt.int64:
        sgn = (xst > 0) - (xst < 0)
        num = xe - xs + xst - sgn
        n = abs(num) // abs(xst) * (1 if (num >= 0) == (xst > 0) else -1)
    else:
        n = math.ceil((float(end) - float(start)) / float(step))
    data = arange_values(xs, xst, max(int(n), 0), d.np)
    return _finish(data, requires_grad, device, "arange", out, pin_memory)


def _fmt(v) -> str:
    return str(v) if not isinstance(v, float) or not v.is_integer() else str(int(v))


def linspace(start, end, steps, *, out=None, dtype=None, layout=None, device=None,
             requires_grad=False, pin_memory=False) -> Tensor:
    """``steps`` evenly spaced values from ``start`` to ``end`` inclusive.

    >>> import leafgrad as torch
    >>> torch.linspace(0, 1, 5)
    tensor([0.0000, 0.2500, 0.5000, 0.7500, 1.0000])
    """
    start, end = _number("linspace", start), _number("linspace", end)
    steps = _int_arg("linspace", "steps", 3, steps)
    if steps < 0:
        raise RuntimeError("number of steps must be non-negative")
    d = check_dtype_arg("linspace", dtype) or _dt.get_default_dtype()
    return _finish(linspace_values(start, end, steps, d.np), requires_grad, device,
                   "linspace", out, pin_memory)


def logspace(start, end, steps, base=10.0, *, out=None, dtype=None, layout=None, device=None,
             requires_grad=False, pin_memory=False) -> Tensor:
    """``base ** linspace(start, end, steps)``."""
    start, end = _number("logspace", start), _number("logspace", end)
    steps = _int_arg("logspace", "steps", 3, steps)
    if steps < 0:
        raise RuntimeError("number of steps must be non-negative")
    d = check_dtype_arg("logspace", dtype) or _dt.get_default_dtype()
    exps = linspace_values(start, end, steps, np.float64)
    return _finish(np.power(float(base), exps).astype(d.np), requires_grad, device,
                   "logspace", out, pin_memory)


# -- the legacy constructor and Tensor.new_* ------------------------------------------
def _legacy_tensor(cls, args, kwargs):
    """``torch.Tensor(data)`` / ``torch.Tensor(2, 3)``: the default dtype, always a copy of
    Python data; ``torch.Tensor(t)`` aliases ``t``."""
    if cls is not Tensor:
        # subclasses (nn.Parameter) construct through their own __new__
        raise TypeError(f"{cls.__name__} must define __new__")
    bad = [k for k in kwargs if k != "device"]
    if bad:
        raise TypeError(f"new() received an invalid combination of arguments - got "
                        f"unexpected keyword argument '{bad[0]}'")
    check_device(kwargs.get("device"))
    default = _dt.get_default_dtype()
    if not args:
        return _wrap(np.zeros(0, default.np))
    if len(args) == 1 and isinstance(args[0], Tensor):
        return args[0].detach() if args[0]._grad_fn is None else args[0]
    if len(args) == 1 and isinstance(args[0], (float, complex)):
        raise TypeError(f"new(): data must be a sequence (got {type(args[0]).__name__})")
    if len(args) == 1 and not isinstance(args[0], (int, np.integer, Tensor)) \
            and not type(args[0]).__name__ == "Size":
        return _wrap(array_from_data(args[0], default))
    return _wrap(np.zeros(size_arg("new", args), default.np))


def _new_tensor(self, data, *, dtype=None, device=None, requires_grad=False,
                pin_memory=False) -> Tensor:
    """A new leaf from ``data`` with ``self``'s dtype unless ``dtype`` is given."""
    d = check_dtype_arg("new_tensor", dtype) or self.dtype
    if isinstance(data, Tensor):
        warnings.warn(COPY_WARNING.replace("torch.tensor(", "tensor.new_tensor("), UserWarning,
                      stacklevel=2)
    return _finish(array_from_data(data, d), requires_grad, device, "new_tensor",
                   pin_memory=pin_memory)


def _new_filled(fname, make):
    def method(self, *size, dtype=None, device=None, requires_grad=False, layout=None,
               pin_memory=False):
        shape = size_arg(fname, size)
        d = check_dtype_arg(fname, dtype) or self.dtype
        return _finish(make(shape, d.np), requires_grad, device, fname, pin_memory=pin_memory)
    method.__name__ = method.__qualname__ = fname
    method.__doc__ = f"Like ``torch.{fname[4:]}`` with ``self``'s dtype unless given."
    return method


def _new_full(self, size, fill_value, *, dtype=None, device=None, requires_grad=False,
              layout=None, pin_memory=False) -> Tensor:
    """``torch.full`` with ``self``'s dtype unless ``dtype`` is given."""
    shape = size_arg("new_full", (size,), star=False)
    fill_dtype("new_full", fill_value)
    d = check_dtype_arg("new_full", dtype) or self.dtype
    return _finish(fill_array(shape, fill_value, d), requires_grad, device, "new_full",
                   pin_memory=pin_memory)


Tensor.new_tensor = _new_tensor
Tensor.new_zeros = _new_filled("new_zeros", np.zeros)
Tensor.new_ones = _new_filled("new_ones", np.ones)
Tensor.new_empty = _new_filled("new_empty", np.empty)
Tensor.new_full = _new_full
