"""Python data -> ndarray, the way ``torch.tensor`` reads it; argument checks of factories.

Note [Reading nested data]
PyTorch reads nested sequences in three steps: the shape comes from following the first
element down (``[[1, 2], [3]]`` is 2 x 2, and the second row is then an error); the dtype is
the promotion of every leaf's own dtype (Python bool/int/float give bool/int64/the default
float; NumPy scalars, arrays and tensors bring theirs, so ``[np.int32(1)]`` is int32 but
``[np.int32(1), 2]`` is int64); then each leaf is stored, with an overflow check when the
dtype is an integer. Here the first two steps walk the data in Python (at C speed over each
innermost list), and NumPy does the storing.
"""
from __future__ import annotations

import warnings

import numpy as np

from . import dtypes as _dt
from . import errors
from .grad_mode import state as _mode
from .tensor import Tensor, _WARNED

__all__ = ["COPY_WARNING", "warn_user", "array_from_data", "check_dtype_arg", "check_bool_arg",
           "size_arg", "fill_dtype", "fill_array"]

COPY_WARNING = ("To copy construct from a tensor, it is recommended to use "
                "sourceTensor.detach().clone() or sourceTensor.detach().clone()."
                "requires_grad_(True), rather than torch.tensor(sourceTensor).")
LIST_OF_ARRAYS_WARNING = (
    "Creating a tensor from a list of numpy.ndarrays is extremely slow. Please consider "
    "converting the list to a single numpy.ndarray with numpy.array() before converting to a "
    "tensor. (Triggered internally at /__w/pytorch/pytorch/torch/csrc/utils/tensor_new.cpp:252.)")


_PY_LEAVES = frozenset((bool, int, float))
_SEQUENCES = (list, tuple, range)


def warn_user(message: str, category=UserWarning) -> None:
    """``warnings.warn`` attributed to the first caller outside leafgrad (as PyTorch's C++
    warnings point at the Python line that called into it)."""
    import os
    import sys
    here = os.path.dirname(os.path.abspath(__file__))
    frame, level = sys._getframe(1), 2     # stacklevel 2 is warn_user's caller
    while frame is not None and os.path.abspath(frame.f_code.co_filename).startswith(here):
        frame, level = frame.f_back, level + 1
    warnings.warn(message, category, stacklevel=level)


# -- argument checks ------------------------------------------------------------------
def check_dtype_arg(fname: str, dtype):
    """A leafgrad dtype (or None) from a ``dtype=`` argument, as PyTorch's parser accepts."""
    if dtype is None or isinstance(dtype, _dt.dtype):
        return dtype
    if dtype is float:
        return _dt.float64
    if dtype is int:
        return _dt.int64
    if dtype is bool:
        return _dt.bool_
    if dtype is complex:
        raise NotImplementedError("leafgrad has no complex dtypes")
    raise TypeError(f"{fname}(): argument 'dtype' must be torch.dtype, not "
                    f"{type(dtype).__name__}")


def check_bool_arg(fname: str, name: str, value) -> None:
    if not isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{fname}(): argument '{name}' must be bool, not "
                        f"{type(value).__name__}")


def _as_int(x):
    """An int from an int-like size element, else None."""
    if isinstance(x, (bool, np.bool_)):
        return None
    if isinstance(x, (int, np.integer)):
        return int(x)
    if isinstance(x, Tensor) and x._data.dtype.kind in "iu" and x._data.size == 1:
        return int(x._data.reshape(()))
    return None


def size_arg(fname: str, size: tuple, star: bool = True, zero_check: bool = False,
             keyword: dict | None = None) -> tuple:
    """The shape from ``f(2, 3)`` / ``f((2, 3))`` (``star``) or ``f((2, 3))`` only, with
    PyTorch's messages for wrong types and negative sizes; ``keyword`` holds ``size=``."""
    if keyword:
        extra = [k for k in keyword if k != "size"]
        if extra:
            raise TypeError(f"{fname}() got an unexpected keyword argument '{extra[0]}'")
        if size:
            raise TypeError(f"{fname}() got multiple values for argument 'size'")
        size = (keyword["size"],)
    if star and len(size) == 0:
        raise TypeError(f'{fname}() missing 1 required positional arguments: "size"')
    if len(size) == 1 and isinstance(size[0], (list, tuple)):
        out = []
        for i, s in enumerate(size[0]):
            n = _as_int(s)
            if n is None:
                if isinstance(s, (bool, np.bool_)):
                    raise TypeError(f"{fname}(): argument 'size' (position 1) must be tuple of "
                                    f"ints, but found element of type bool at pos {i}")
                raise TypeError(f"{fname}(): argument 'size' failed to unpack the object at "
                                f"pos {i + 1} with error \"type must be tuple of ints,but got "
                                f"{type(s).__name__}\"")
            out.append(n)
    elif not star or (len(size) == 1 and _as_int(size[0]) is None):
        raise TypeError(f"{fname}(): argument 'size' (position 1) must be tuple of ints, not "
                        f"{type(size[0]).__name__}")
    else:
        out = []
        for i, s in enumerate(size):
            n = int(s) if isinstance(s, (bool, np.bool_)) and i else _as_int(s)
            if n is None:
                raise TypeError(f"{fname}(): argument 'size' failed to unpack the object at "
                                f"pos {i + 1} with error \"type must be tuple of ints,but got "
                                f"{type(s).__name__}\"")
            out.append(n)
    if any(n < 0 for n in out):
        if zero_check:
            raise RuntimeError(f"{fname}: Dimension size must be non-negative.")
        neg = next(n for n in out if n < 0)
        raise RuntimeError(f"Trying to create tensor with negative dimension {neg}: "
                           f"[{', '.join(map(str, out))}]")
    return tuple(out)


# -- fill values ----------------------------------------------------------------------
_C_NAMES = {"uint8": "uint8_t", "int8": "int8_t", "int16": "int16_t", "int32": "int",
            "int64": "int64_t", "float16": "c10::Half", "float32": "float",
            "float64": "double", "bool": "bool"}


def _scalar_value(fname: str, value):
    """A Python number from a fill value, or PyTorch's TypeError."""
    if isinstance(value, Tensor) and value._data.ndim == 0:
        return value._data.item()
    if isinstance(value, np.generic) and value.dtype.kind in "biuf":
        return value.item()
    if isinstance(value, (bool, int, float)):
        return value
    if isinstance(value, complex):
        raise NotImplementedError("leafgrad has no complex dtypes")
    raise TypeError(f"{fname}(): argument 'fill_value' (position 2) must be Number, not "
                    f"{type(value).__name__}")


def fill_dtype(fname: str, value) -> _dt.dtype:
    """``full``'s dtype from its fill value: bool, int64 or the default float."""
    v = _scalar_value(fname, value)
    if isinstance(v, bool):
        return _dt.bool_
    if isinstance(v, int):
        return _dt.int64
    return _dt.get_default_dtype()


def fill_array(shape: tuple, value, d: _dt.dtype) -> np.ndarray:
    """``np.full`` after PyTorch's overflow check of the scalar (C type names in the text)."""
    v = _scalar_value("full", value)
    if not isinstance(v, bool) and _overflows(v, d):
        raise RuntimeError(f"value cannot be converted to type {_C_NAMES[d.name]} without "
                           "overflow")
    if d.category == 1 and isinstance(v, int):
        # wrap like C (``-1`` as uint8 is 255); NumPy 2 refuses out-of-range Python ints
        v = np.array(v, np.int64).astype(d.np)
    if d is _dt.float16 and isinstance(v, float):
        v = _dt.cast_array(v, d.np)[()]   # (Note [Double to half] in dtypes.py)
    return np.full(shape, v, d.np)


def _overflows(v, d: _dt.dtype) -> bool:
    if d.category == 1:
        info = np.iinfo(d.np)
        if isinstance(v, float):
            lo = 0 if d.name == "uint8" else info.min
            return not (lo <= v <= info.max)
        return v > info.max or (d.name != "uint8" and v < info.min) or v < -2 ** 63
    if d.category == 2 and isinstance(v, (int, float)):
        big = float(np.finfo(d.np).max)
        try:
            f = float(v)
        except OverflowError:
            return True
        return np.isfinite(f) and abs(f) > big
    return False


# -- nested data ----------------------------------------------------------------------
def _leaf_dtype(x) -> _dt.dtype:
    """The dtype a single leaf brings to inference, or PyTorch's error for it."""
    t = type(x)
    if t is bool:
        return _dt.bool_
    if t is int:
        return _dt.int64
    if t is float:
        return _dt.get_default_dtype()
    if isinstance(x, Tensor):
        return _dt.from_numpy_dtype(x._data.dtype)
    if isinstance(x, (np.generic, np.ndarray)) and x.dtype.kind in "biuf":
        return _dt.from_numpy_dtype(x.dtype)
    if isinstance(x, (bool, np.bool_)):
        return _dt.bool_
    if isinstance(x, int):
        return _dt.int64
    if isinstance(x, float):
        return _dt.get_default_dtype()
    if isinstance(x, (complex, np.complexfloating)):
        raise NotImplementedError("leafgrad has no complex dtypes")
    if isinstance(x, str):
        raise TypeError("new(): invalid data type 'str'")
    raise RuntimeError(f"Could not infer dtype of {type(x).__name__}")


def _sizes(data) -> list:
    """PyTorch's shape of nested data: follow the first element down."""
    sizes = []
    x = data
    while True:
        if isinstance(x, _SEQUENCES):
            sizes.append(len(x))
            if len(x) == 0:
                return sizes
            x = x[0]
        elif isinstance(x, np.ndarray):
            if x.ndim == 0 and sizes:
                raise TypeError("len() of unsized object")
            sizes.extend(x.shape)
            return sizes
        elif isinstance(x, str) and sizes:
            raise ValueError("too many dimensions 'str'")
        else:
            return sizes


class _Scan:
    """One walk over nested data: check it against ``sizes``, collect the leaves' dtypes."""

    __slots__ = ("sizes", "given", "types", "others", "rebuild", "bad_leaf", "arrays")

    def __init__(self, sizes, given):
        self.sizes = sizes
        self.given = given        # the dtype= argument, or None
        self.types = set()        # Python leaf types seen (bool/int/float)
        self.others = []          # dtypes of other leaves (NumPy scalars, arrays, tensors)
        self.rebuild = False      # tensors inside: the data must be rebuilt with scalars
        self.bad_leaf = None      # a sequence where a scalar belongs
        self.arrays = False

    def walk(self, x, dim: int):
        sizes = self.sizes
        if isinstance(x, np.ndarray):
            if tuple(x.shape) != tuple(sizes[dim:]):
                n = x.shape[0] if x.ndim else 0
                raise ValueError(f"expected sequence of length {sizes[dim]} at dim {dim} "
                                 f"(got {n})")
            self.arrays = True
            self.others.append(_leaf_dtype(x))
            return
        if len(x) != sizes[dim]:
            raise ValueError(f"expected sequence of length {sizes[dim]} at dim {dim} "
                             f"(got {len(x)})")
        if dim + 1 < len(sizes):
            for item in x:
                if not isinstance(item, (_SEQUENCES, np.ndarray)):
                    if isinstance(item, Tensor):
                        self._leaf(item)
                    raise TypeError("not a sequence")
                self.walk(item, dim + 1)
            return
        kinds = set(map(type, x))
        if kinds <= _PY_LEAVES:
            self.types |= kinds
            return
        for item in x:
            self._leaf(item)

    def _leaf(self, item):
        t = type(item)
        if t in _PY_LEAVES:
            self.types.add(t)
        elif isinstance(item, Tensor):
            if (item._requires_grad and _mode.grad_enabled
                    and errors.SCALAR_REQUIRES_GRAD not in _WARNED):
                # once per process, shared with float(t): one warning site in PyTorch
                _WARNED.add(errors.SCALAR_REQUIRES_GRAD)
                warn_user(errors.SCALAR_REQUIRES_GRAD)
            n = item._data.size
            if n != 1:
                if item._data.dtype.kind in "iub":
                    raise TypeError("only integer tensors of a single element can be "
                                    "converted to an index")
                raise ValueError("only one element tensors can be converted to Python "
                                 "scalars")
            self.others.append(_leaf_dtype(item))
            self.rebuild = True
        elif isinstance(item, np.ndarray) and item.ndim == 0:
            self.arrays = True
            self.others.append(_leaf_dtype(item))
        elif isinstance(item, _SEQUENCES) or isinstance(item, np.ndarray):
            if self.bad_leaf is None:
                self.bad_leaf = item
            self._infer_inside(item)
        elif self.given is not None and not isinstance(item, (np.generic, complex, str)):
            raise _bad_leaf_error(item, self.given)
        else:
            self.others.append(_leaf_dtype(item))

    def _infer_inside(self, seq):
        # PyTorch's inference descends into any sequence, even one in a scalar's place
        for item in (seq.tolist() if isinstance(seq, np.ndarray) else seq):
            if isinstance(item, _SEQUENCES):
                self._infer_inside(item)
            else:
                self._leaf(item)

    def dtype(self) -> _dt.dtype:
        out = None
        for t in self.types:
            d = _leaf_dtype(t())
            out = d if out is None else _dt.promote_types(out, d)
        for d in self.others:
            out = d if out is None else _dt.promote_types(out, d)
        return out if out is not None else _dt.get_default_dtype()


def _scalars_for_tensors(x):
    if isinstance(x, Tensor):
        return x._data.reshape(()).item()
    if isinstance(x, _SEQUENCES):
        return [_scalars_for_tensors(v) for v in x]
    return x


def _bad_leaf_error(item, d: _dt.dtype):
    name = type(item).__name__
    if d.is_floating_point:
        return TypeError(f"must be real number, not {name}")
    return TypeError(f"'{name}' object cannot be interpreted as an integer")


def array_from_data(data, dtype) -> np.ndarray:
    """A new ndarray holding ``data`` as ``torch.tensor(data, dtype=dtype)`` would."""
    if type(data) is float and dtype is None and -3.4e38 < data < 3.4e38:
        # The commonest call, torch.tensor(2.0): no scan needed, and no float32 overflow can
        # occur (NaN and out-of-range values take the general path and its overflow rules).
        return np.array(data, _dt.get_default_dtype().np)
    if isinstance(data, Tensor):
        arr = data._data
        return _dt.cast_array(arr, arr.dtype if dtype is None else dtype.np)
    if isinstance(data, np.ndarray):
        d = _dt.from_numpy_dtype(data.dtype) if dtype is None else dtype
        return _dt.cast_array(data, d.np)   # (Note [Double to half] in dtypes.py)
    if isinstance(data, str):
        raise TypeError("new(): invalid data type 'str'")
    sizes = _sizes(data)
    if 0 in sizes:
        # PyTorch looks no further than the empty first element: [[], [1]] is 2 x 0
        return np.empty(sizes, (dtype or _dt.get_default_dtype()).np)
    scan = _Scan(sizes, dtype)
    if sizes:
        scan.walk(data, 0)
    else:
        scan._leaf(data)
    d = dtype if dtype is not None else scan.dtype()
    if scan.bad_leaf is not None:
        raise _bad_leaf_error(scan.bad_leaf, d)
    if scan.arrays and not _warned_once:
        _warn_list_of_arrays()
    if scan.rebuild:
        data = _scalars_for_tensors(data)
    return _store(data, d, scan)


def _warn_list_of_arrays():
    # PyTorch warns once per process (TORCH_WARN_ONCE)
    global _warned_once
    _warned_once = True
    warn_user(LIST_OF_ARRAYS_WARNING)


_warned_once = False


def _store(data, d: _dt.dtype, scan: _Scan) -> np.ndarray:
    with np.errstate(over="ignore", invalid="ignore"):
        return _store_checked(data, d, scan)


def _store_checked(data, d: _dt.dtype, scan: _Scan) -> np.ndarray:
    if d.category != 1:
        # float and bool targets: NumPy's conversion is C's (bool(nan) is True, 1e39 is inf)
        if d is _dt.float16 and (float in scan.types or scan.others):
            # each number through float first (Note [Double to half] in dtypes.py)
            return _dt.cast_array(np.array(data, dtype=np.float64), d.np)
        try:
            return np.array(data, dtype=d.np)
        except OverflowError:
            return np.array(data, dtype=np.float64).astype(d.np)
    has_float = float in scan.types or any(o.is_floating_point for o in scan.others)
    if has_float:
        wide = np.array(data, dtype=np.float64)
        info = np.iinfo(d.np)
        lo = 0 if d.name == "uint8" else info.min
        if wide.size and not (np.all(wide >= lo) and np.all(wide <= info.max)):
            raise RuntimeError(f"value cannot be converted to type {d.name} without overflow")
        return wide.astype(d.np)
    try:
        wide = np.array(data, dtype=np.int64)
    except OverflowError:
        raise ValueError("Overflow when unpacking long long") from None
    if d is not _dt.int64:
        info = np.iinfo(d.np)
        bad = wide > info.max if d.name == "uint8" else (wide > info.max) | (wide < info.min)
        if bad.any():
            raise RuntimeError(f"value cannot be converted to type {d.name} without overflow")
        return wide.astype(d.np)
    return wide
