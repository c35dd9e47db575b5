"""torch.* functions that are not op records: comparisons to a tolerance, shape and dtype
queries (``isclose``, ``allclose``, ``equal``, ``numel``, ``result_type``, ...).

>>> import leafgrad as torch
>>> torch.allclose(torch.tensor([1.0, 2.0]), torch.tensor([1.0, 2.0 + 1e-9]))
True
>>> torch.broadcast_shapes((2, 1), (3,))
torch.Size([2, 3])
"""
from __future__ import annotations

import numpy as np

from . import dtypes as _dt
from .tensor import Size, Tensor, _wrap

__all__ = ["isclose", "allclose", "equal", "numel", "is_floating_point", "is_complex",
           "is_nonzero", "is_same_size", "result_type", "can_cast", "broadcast_shapes"]

_TYPE_NAMES = {"float16": "Half", "float32": "Float", "float64": "Double", "int8": "Char",
               "int16": "Short", "int32": "Int", "int64": "Long", "uint8": "Byte",
               "bool": "Bool"}


def _require_tensor(fn: str, name: str, pos: int, value) -> None:
    if not isinstance(value, Tensor):
        raise TypeError(f"{fn}(): argument '{name}' (position {pos}) must be Tensor, not "
                        f"{type(value).__name__}")


def _isclose_array(a: np.ndarray, b: np.ndarray, rtol: float, atol: float,
                   equal_nan: bool) -> np.ndarray:
    close = a == b
    if a.dtype == np.bool_:
        return close
    if equal_nan and a.dtype.kind == "f":
        close = close | (np.isnan(a) & np.isnan(b))
    if rtol == 0 and atol == 0:
        return close
    if a.dtype.kind != "f":
        # integers are compared in the default float dtype, as PyTorch does
        a = a.astype(_dt.get_default_dtype().np)
        b = b.astype(a.dtype)
    actual = np.abs(a - b)
    allowed = atol + np.abs(rtol * b)
    return close | (np.isfinite(actual) & (actual <= allowed))


def _check_isclose(input, other, rtol, atol) -> None:
    _require_tensor("isclose", "input", 1, input)
    _require_tensor("isclose", "other", 2, other)
    if input._data.dtype != other._data.dtype:
        raise RuntimeError(f"{_TYPE_NAMES[input._data.dtype.name]} did not match "
                           f"{_TYPE_NAMES[other._data.dtype.name]}")
    if rtol < 0:
        raise RuntimeError(f"rtol must be greater than or equal to zero, but got {rtol}")
    if atol < 0:
        raise RuntimeError(f"atol must be greater than or equal to zero, but got {atol}")


def _close(input, other, rtol, atol, equal_nan) -> np.ndarray:
    """isclose's checks and its boolean array (isclose and allclose)."""
    _check_isclose(input, other, rtol, atol)
    try:
        return _isclose_array(input._data, other._data, rtol, atol, equal_nan)
    except ValueError as exc:   # NumPy's broadcast error, as PyTorch words it
        from .errors import broadcast_error
        raise (broadcast_error([input.shape, other.shape]) or exc) from None


def isclose(input: Tensor, other: Tensor, rtol: float = 1e-05, atol: float = 1e-08,
            equal_nan: bool = False) -> Tensor:
    """``|input - other| <= atol + rtol * |other|`` elementwise (equal infinities are close).

    >>> import leafgrad as torch
    >>> torch.isclose(torch.tensor([1.0, float("nan")]), torch.tensor([1.0, float("nan")]))
    tensor([ True, False])
    """
    out = _wrap(np.asarray(_close(input, other, rtol, atol, equal_nan)))
    # PyTorch builds the answer from ``input == other`` with in-place ORs: one for NaNs
    # (floating inputs with equal_nan), one for the tolerance (unless both are 0)
    out._vc[0] = int(equal_nan and input._data.dtype.kind == "f") + int(rtol != 0 or atol != 0)
    return out


def allclose(input: Tensor, other: Tensor, rtol: float = 1e-05, atol: float = 1e-08,
             equal_nan: bool = False) -> bool:
    """True when every element of ``input`` is close to ``other`` (see ``isclose``)."""
    return bool(np.all(_close(input, other, rtol, atol, equal_nan)))


def equal(input: Tensor, other: Tensor) -> bool:
    """True when both tensors have the same shape and the same values."""
    _require_tensor("equal", "input", 1, input)
    _require_tensor("equal", "other", 2, other)
    a, b = input._data, other._data
    return a.shape == b.shape and bool(np.all(a == b))


def numel(input: Tensor) -> int:
    """The number of elements."""
    _require_tensor("numel", "input", 1, input)
    return input._data.size


def is_floating_point(input: Tensor) -> bool:
    """True for float16/32/64 tensors."""
    _require_tensor("is_floating_point", "input", 1, input)
    return input._data.dtype.kind == "f"


def is_complex(input: Tensor) -> bool:
    """Always False: leafgrad has no complex dtypes."""
    _require_tensor("is_complex", "input", 1, input)
    return False


def is_nonzero(input: Tensor) -> bool:
    """The truth value of a one-element tensor."""
    _require_tensor("is_nonzero", "input", 1, input)
    size = input._data.size
    if size == 0:
        raise RuntimeError("Boolean value of Tensor with no values is ambiguous")
    if size > 1:
        raise RuntimeError("Boolean value of Tensor with more than one value is ambiguous")
    return bool(input._data.reshape(()).item() != 0)


def is_same_size(input: Tensor, other: Tensor) -> bool:
    """True when both tensors have the same shape."""
    return input._data.shape == other._data.shape


def result_type(tensor1, tensor2) -> _dt.dtype:
    """The dtype an arithmetic op on these operands (tensors or numbers) would return."""
    for pos, v in ((1, tensor1), (2, tensor2)):
        if not isinstance(v, (Tensor, int, float, bool)):
            raise TypeError(f"result_type() received an invalid combination of arguments - "
                            f"got ({type(tensor1).__name__}, {type(tensor2).__name__})")
    return _dt.result_type(tensor1, tensor2)


def can_cast(from_, to) -> bool:
    """Whether PyTorch's casting rules allow ``from_`` to ``to`` (no float to integer, nothing
    but bool to bool)."""
    a, b = _dt.to_dtype(from_), _dt.to_dtype(to)
    if a.is_floating_point and not b.is_floating_point:
        return False
    if a is not _dt.bool_ and b is _dt.bool_:
        return False
    return True


def broadcast_shapes(*shapes) -> Size:
    """The shape that tensors of ``shapes`` broadcast to, without making them."""
    as_tuples = []
    for s in shapes:
        t = (s,) if isinstance(s, int) else tuple(s)
        if any(d < 0 for d in t):
            raise ValueError("Attempting to broadcast a dimension with negative length!")
        as_tuples.append(t)
    result: list = []
    for index, t in enumerate(as_tuples):
        if len(t) > len(result):
            result = [1] * (len(t) - len(result)) + result
        for k in range(1, len(t) + 1):
            d, r = t[-k], result[-k]
            if d == r or d == 1:
                continue
            if r == 1:
                result[-k] = d
                continue
            raise RuntimeError(
                f"Attempting to broadcast a dimension of length {d} at {-k}! Mismatching "
                f"argument at index {index} had {t}; but expected shape should be "
                f"broadcastable to [{', '.join(map(str, result))}]")
    return Size(result)
