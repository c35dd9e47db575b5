"""The legacy typed tensor classes: ``torch.FloatTensor``, ``torch.LongTensor``, ...

Old tutorials build tensors with them (``torch.FloatTensor([1, 2])``, ``torch.LongTensor(3)``)
and test types with them (``isinstance(x, torch.FloatTensor)``, ``x.type(torch.DoubleTensor)``).
Each is a class whose instances are ordinary ``Tensor`` objects of its dtype: calling it
builds a tensor as the legacy ``torch.Tensor(...)`` constructor does, in that dtype, and
``isinstance`` answers whether a tensor has that dtype (all tensors here are on the CPU).

>>> import leafgrad as torch
>>> torch.LongTensor([1.7, -2.2])
tensor([ 1, -2])
>>> isinstance(torch.ones(2), torch.FloatTensor), isinstance(torch.ones(2), torch.LongTensor)
(True, False)
"""
from __future__ import annotations

import numpy as np

from . import dtypes as _dt
from ._data import array_from_data, size_arg
from .tensor import Tensor, _wrap, check_device

__all__ = ["BoolTensor", "ByteTensor", "CharTensor", "DoubleTensor", "FloatTensor",
           "HalfTensor", "IntTensor", "LongTensor", "ShortTensor"]

# the C++ names PyTorch's TensorOptions print for each dtype
_CPP = {"float32": "float", "float64": "double", "float16": "c10::Half", "int64": "long int",
        "int32": "int", "int16": "short int", "int8": "signed char", "uint8": "unsigned char",
        "bool": "bool"}


def _options(d) -> str:
    return (f"TensorOptions(dtype={_CPP[d.name]}, device=cpu, layout=Strided, "
            "requires_grad=false (default), pinned_memory=false (default), "
            "memory_format=(nullopt))")


class _LegacyTensorType(type):
    """The metaclass: ``isinstance`` by dtype, PyTorch's class ``repr``."""

    def __instancecheck__(cls, obj) -> bool:
        return isinstance(obj, Tensor) and obj.dtype is cls.dtype

    def __repr__(cls) -> str:
        return f"<class 'torch.{cls.__name__}'>"


def _construct(cls, *args, **kwargs):
    """``torch.<Type>Tensor(...)``: data (a copy, converted), sizes (zeros here; PyTorch
    leaves them uninitialised), nothing (an empty tensor), or a tensor of the same dtype
    (returned as is)."""
    d = cls.dtype
    bad = [k for k in kwargs if k != "device"]
    if bad:
        raise TypeError(f"new() received an invalid combination of arguments - got "
                        f"unexpected keyword argument '{bad[0]}'")
    check_device(kwargs.get("device"))
    if not args:
        return _wrap(np.zeros(0, d.np))
    if len(args) == 1 and isinstance(args[0], Tensor):
        if args[0].dtype is not d:
            raise TypeError(f"expected {_options(d)} (got {_options(args[0].dtype)})")
        return args[0]
    if len(args) == 1 and isinstance(args[0], (float, complex)):
        raise TypeError(f"new(): data must be a sequence (got {type(args[0]).__name__})")
    if len(args) == 1 and not isinstance(args[0], (int, np.integer)) \
            and type(args[0]).__name__ != "Size":
        return _wrap(array_from_data(args[0], d))
    return _wrap(np.zeros(size_arg("new", args), d.np))


def _make(name: str, d) -> type:
    return _LegacyTensorType(name, (), {"__new__": _construct, "dtype": d,
                                        "_legacy_dtype": d, "is_sparse": False,
                                        "__module__": "torch", "__doc__": f"{d} tensors."})


FloatTensor = _make("FloatTensor", _dt.float32)
DoubleTensor = _make("DoubleTensor", _dt.float64)
HalfTensor = _make("HalfTensor", _dt.float16)
LongTensor = _make("LongTensor", _dt.int64)
IntTensor = _make("IntTensor", _dt.int32)
ShortTensor = _make("ShortTensor", _dt.int16)
CharTensor = _make("CharTensor", _dt.int8)
ByteTensor = _make("ByteTensor", _dt.uint8)
BoolTensor = _make("BoolTensor", _dt.bool_)
