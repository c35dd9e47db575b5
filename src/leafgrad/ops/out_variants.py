"""``out=`` for the torch functions tutorials call with it (``torch.matmul(a, b, out=y)``).

PyTorch's out= variants compute the result, check it can be cast to ``out``'s dtype, resize
``out`` when the shapes differ (warning unless ``out`` was empty), write into it and return
it. They do not record a graph, so an input that requires grad (with grad mode on) is refused.
Only the functions listed in ``_NAMES`` take ``out=``; without ``out`` the call goes straight
to the op.

>>> import leafgrad as torch
>>> y = torch.empty(2)
>>> torch.mul(torch.tensor([1.0, 2.0]), 3, out=y) is y, y
(True, tensor([3., 6.]))
"""
from __future__ import annotations

import functools
import warnings

import numpy as np

from .. import dtypes as _dt
from ..grad_mode import state as _mode
from ..tensor import Tensor, bump_version
from .registry import FUNCTIONS

__all__: list = []

_NAMES = ("add", "sub", "mul", "div", "matmul", "mm", "bmm", "cat", "stack")

_RESIZED = (
    "An output with one or more elements was resized since it had shape {old}, which does not "
    "match the required output shape {new}. This behavior is deprecated, and in a future "
    "PyTorch release outputs will not be resized unless they have zero elements. You can "
    "explicitly reuse an out tensor t by resizing it, inplace, to zero elements with "
    "t.resize_(0). (Triggered internally at "
    "/__w/pytorch/pytorch/aten/src/ATen/native/Resize.cpp:30.)")


def _type_name(np_dtype) -> str:
    return _dt.from_numpy_dtype(np_dtype).tensor_type.rsplit(".", 1)[-1][:-len("Tensor")]


def _can_cast(src, dst) -> bool:
    """PyTorch's canCast: no complex -> real, float -> integer, or non-bool -> bool."""
    if src.kind == "c" and dst.kind != "c":
        return False
    if src.kind in "fc" and dst.kind in "iub":
        return False
    return not (src.kind != "b" and dst.kind == "b")


def _inputs_require_grad(args) -> bool:
    for a in args:
        if isinstance(a, Tensor) and a.requires_grad:
            return True
        if isinstance(a, (list, tuple)) and _inputs_require_grad(a):
            return True
    return False


def _with_out(name: str, fn):
    @functools.wraps(fn)
    def wrapper(*args, out=None, **kwargs):
        if out is None:
            return fn(*args, **kwargs)
        if not isinstance(out, Tensor):
            raise TypeError(f"{name}(): argument 'out' must be Tensor, not "
                            f"{type(out).__name__}")
        if _mode.grad_enabled and (_inputs_require_grad(args)
                                  or _inputs_require_grad(kwargs.values())):
            raise RuntimeError(f"{name}(): functions with out=... arguments don't support "
                               "automatic differentiation, but one of the arguments requires "
                               "grad.")
        data = fn(*args, **kwargs)._data
        if not _can_cast(data.dtype, out._data.dtype):
            raise RuntimeError(f"result type {_type_name(data.dtype)} can't be cast to the "
                               f"desired output type {_type_name(out._data.dtype)}")
        if out._data.shape == data.shape:
            np.copyto(out._data, data, casting="unsafe")
        else:
            if out._data.size:
                warnings.warn(_RESIZED.format(old=list(out._data.shape),
                                              new=list(data.shape)), UserWarning, stacklevel=2)
            out._data = data.astype(out._data.dtype)
        bump_version(out)   # an in-place write like any other: version notes name this line
        return out
    return wrapper


for _name in _NAMES:
    FUNCTIONS[_name] = _with_out(_name, FUNCTIONS[_name])
