"""PyTorch's dtypes over NumPy's, and PyTorch's type promotion.

>>> import leafgrad as torch
>>> (torch.tensor([1, 2]) + 2.5).dtype
torch.float32
"""
from __future__ import annotations

import numpy as np

__all__ = [
    "dtype", "float16", "float32", "float64", "int8", "int16", "int32", "int64", "uint8",
    "bool_", "get_default_dtype", "set_default_dtype", "promote_types", "result_type",
    "to_dtype", "from_numpy_dtype",
]

_BOOL, _INT, _FLOAT = 0, 1, 2


class dtype:
    """A tensor element type; prints as ``torch.float32`` like PyTorch's."""

    __slots__ = ("name", "np", "is_floating_point", "is_complex", "is_signed", "itemsize",
                 "category", "tensor_type")

    def __init__(self, name: str, np_dtype, category: int, tensor_type: str):
        self.name = name
        self.np = np.dtype(np_dtype)
        self.category = category
        self.is_floating_point = category == _FLOAT
        self.is_complex = False
        self.is_signed = name not in ("uint8", "bool")
        self.itemsize = self.np.itemsize
        self.tensor_type = tensor_type

    def __repr__(self) -> str:
        return "torch." + self.name

    def __reduce__(self):
        return (to_dtype, (self.name,))

    def to_real(self) -> "dtype":
        return self

    def to_complex(self):
        raise NotImplementedError("leafgrad has no complex dtypes")


float16 = dtype("float16", np.float16, _FLOAT, "HalfTensor")
float32 = dtype("float32", np.float32, _FLOAT, "FloatTensor")
float64 = dtype("float64", np.float64, _FLOAT, "DoubleTensor")
int8 = dtype("int8", np.int8, _INT, "CharTensor")
int16 = dtype("int16", np.int16, _INT, "ShortTensor")
int32 = dtype("int32", np.int32, _INT, "IntTensor")
int64 = dtype("int64", np.int64, _INT, "LongTensor")
uint8 = dtype("uint8", np.uint8, _INT, "ByteTensor")
bool_ = dtype("bool", np.bool_, _BOOL, "BoolTensor")

ALL = (float16, float32, float64, int8, int16, int32, int64, uint8, bool_)
_BY_NP = {d.np: d for d in ALL}
_BY_NAME = {d.name: d for d in ALL}
_BY_NAME.update(float=float32, double=float64, half=float16, long=int64, int=int32,
                short=int16)


def from_numpy_dtype(np_dtype) -> dtype:
    try:
        return _BY_NP[np_dtype]
    except KeyError:
        raise TypeError(
            f"can't convert np.ndarray of type numpy.{np.dtype(np_dtype).name}. The only "
            "supported types are: float64, float32, float16, int64, int32, int16, int8, "
            "uint8, and bool.") from None


def to_dtype(value) -> dtype:
    """Accept a leafgrad dtype, a NumPy dtype, a Python type or a name."""
    if isinstance(value, dtype):
        return value
    if value is float:
        return float64
    if value is int:
        return int64
    if value is bool:
        return bool_
    if isinstance(value, str):
        name = value[6:] if value.startswith("torch.") else value
        if name in _BY_NAME:
            return _BY_NAME[name]
    try:
        return from_numpy_dtype(np.dtype(value))
    except TypeError:
        raise TypeError(f"dtype must be a torch.dtype, got {value!r}") from None


_default = float32


def get_default_dtype() -> dtype:
    """The dtype of float tensors made from Python floats (``torch.float32`` at start)."""
    return _default


def set_default_dtype(d) -> None:
    global _default
    d = to_dtype(d)
    if not d.is_floating_point:
        raise TypeError("only floating-point types are supported as the default type")
    _default = d


_promote_cache: dict = {}


def promote_types(a: dtype, b: dtype) -> dtype:
    """PyTorch's promotion of two dtypes (differs from NumPy for int with float)."""
    if a is b:
        return a
    key = (a, b)
    hit = _promote_cache.get(key)
    if hit is not None:
        return hit
    if a.category != b.category:
        hi, lo = (a, b) if a.category > b.category else (b, a)
        out = hi
    elif a.category == _FLOAT or a.category == _INT:
        out = _BY_NP[np.promote_types(a.np, b.np)]
    else:
        out = bool_
    _promote_cache[key] = out
    return out


def _scalar_dtype(value) -> dtype:
    if isinstance(value, bool):
        return bool_
    if isinstance(value, int):
        return int64
    if isinstance(value, float):
        return _default
    if isinstance(value, (np.bool_,)):
        return bool_
    if isinstance(value, np.integer):
        return int64
    if isinstance(value, np.floating):
        return float64
    raise TypeError(f"unsupported scalar type {type(value).__name__}")


def _combine(higher, lower):
    # c10's combine_categories: a lower-priority class only wins on a higher category.
    if higher is None:
        return lower
    if lower is None:
        return higher
    if higher.category == _FLOAT:
        return higher
    if higher.category == _BOOL or lower.category == _FLOAT:
        return promote_types(higher, lower)
    return higher


def result_type(*operands) -> dtype:
    """Result dtype of an op over tensors and Python scalars, by PyTorch's rules.

    Tensors with dimensions decide first; 0-dim tensors and then Python scalars only raise
    the result to a higher category (bool < integer < floating).
    """
    dim_r = zero_r = wrapped_r = None
    for x in operands:
        d = getattr(x, "dtype", None)
        if isinstance(d, dtype):
            if x.ndim:
                dim_r = d if dim_r is None else promote_types(dim_r, d)
            else:
                zero_r = d if zero_r is None else promote_types(zero_r, d)
        elif x is not None:
            d = _scalar_dtype(x)
            wrapped_r = d if wrapped_r is None else promote_types(wrapped_r, d)
    return _combine(dim_r, _combine(zero_r, wrapped_r))


# Note [Double to half]
# c10 converts a double to Half through float (Half has no constructor from double): two
# roundings, so 1 + 2**-11 + 2**-40 becomes 1.0 (float drops the 2**-40, then the tie goes
# to even), where NumPy's direct float64 -> float16 cast gives 1.0009765625. Every cast,
# copy and number written into a half tensor goes this way in PyTorch.
_F16 = np.dtype(np.float16)
_F64 = np.dtype(np.float64)


def cast_array(a, np_dtype) -> np.ndarray:
    """``a`` (an array or a Python number) as a new array of ``np_dtype``, converted as c10
    converts (Note [Double to half])."""
    a = np.asarray(a)
    if a.dtype == _F64 and np.dtype(np_dtype) == _F16:
        return a.astype(np.float32).astype(_F16)
    return a.astype(np_dtype)
