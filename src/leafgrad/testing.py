"""``torch.testing``: ``assert_close`` (with PyTorch's default tolerances per dtype and its
mismatch messages, word for word) and ``make_tensor``.

>>> import leafgrad as torch
>>> torch.testing.assert_close(torch.tensor([1.0, 2.0]), torch.tensor([1.0, 2.0 + 1e-7]))
>>> try:
...     torch.testing.assert_close(torch.tensor([1.0, 2.0, 3.0]), torch.tensor([1.0, 2.5, 3.1]))
... except AssertionError as e:
...     print(e)
Tensor-likes are not close!
<BLANKLINE>
Mismatched elements: 2 / 3 (66.7%)
Greatest absolute difference: 0.5 at index (1,) (up to 1e-05 allowed)
Greatest relative difference: 0.20000000298023224 at index (1,) (up to 1.3e-06 allowed)
"""
from __future__ import annotations

import collections.abc
import math

import numpy as np

from . import dtypes as _dt
from .tensor import Tensor

__all__ = ["assert_close", "make_tensor"]

# (rtol, atol) by dtype, as PyTorch's table; other dtypes (integers, bool) compare exactly
_PRECISIONS = {"float16": (0.001, 1e-5), "bfloat16": (0.016, 1e-5), "float32": (1.3e-6, 1e-5),
               "float64": (1e-7, 1e-7), "complex64": (1.3e-6, 1e-5),
               "complex128": (1e-7, 1e-7)}
_NUMBER_DTYPES = {bool: "bool", int: "int64", float: "float64", complex: "complex128"}


class _Failure(Exception):
    """One pair's mismatch: the exception type to raise, its text, and where it was."""

    def __init__(self, kind, text: str, where=()) -> None:
        super().__init__(text)
        self.kind, self.text, self.where = kind, text, where


def _tolerances(names, rtol, atol):
    if (rtol is None) != (atol is None):
        raise _Failure(ValueError, "Both 'rtol' and 'atol' must be either specified or "
                                   f"omitted, but got no {'rtol' if rtol is None else 'atol'}.")
    if rtol is not None:
        return rtol, atol
    pairs = [_PRECISIONS.get(name, (0.0, 0.0)) for name in names]
    return max(p[0] for p in pairs), max(p[1] for p in pairs)


def _mismatch_text(identifier, rtol, atol, extra, abs_diff, rel_diff, abs_idx=None,
                   rel_idx=None) -> str:
    equality = rtol == 0 and atol == 0
    text = f"{identifier} are not {'equal' if equality else 'close'}!\n\n"
    if extra:
        text += extra.strip() + "\n"
    for kind, diff, idx, tol in (("absolute", abs_diff, abs_idx, atol),
                                 ("relative", rel_diff, rel_idx, rtol)):
        line = (f"{kind.title()} difference: {diff}" if idx is None
                else f"Greatest {kind} difference: {diff} at index {idx}")
        if not equality:
            line += f" (up to {tol} allowed)"
        text += line + "\n"
    return text.strip()


def _scalar_text(actual, expected, rtol, atol) -> str:
    abs_diff = abs(actual - expected)
    rel_diff = float("inf") if expected == 0 else abs_diff / abs(expected)
    return _mismatch_text("Scalars", rtol, atol, f"Expected {expected} but got {actual}.",
                          abs_diff, rel_diff)


def _isclose(a: np.ndarray, b: np.ndarray, rtol, atol, equal_nan) -> np.ndarray:
    """``torch.isclose`` in the arrays' own dtype."""
    close = a == b
    if a.dtype.kind in "fc":
        if equal_nan:
            close |= np.isnan(a) & np.isnan(b)
        if rtol != 0 or atol != 0:
            with np.errstate(invalid="ignore", over="ignore"):
                error = np.abs(a - b)
                close |= np.isfinite(error) & (error <= atol + np.abs(rtol * b))
    elif rtol != 0 or atol != 0:
        wide_a, wide_b = a.astype(np.int64), b.astype(np.int64)
        error = np.abs(wide_a - wide_b)
        close |= error <= atol + np.abs(rtol * wide_b.astype(np.float32))
    return close


def _tensor_text(a: np.ndarray, b: np.ndarray, matches: np.ndarray, rtol, atol) -> str:
    total = matches.size
    wrong = total - int(matches.sum())
    extra = f"Mismatched elements: {wrong} / {total} ({wrong / total:.1%})"
    flat_a, flat_b, flat_m = a.reshape(-1), b.reshape(-1), matches.reshape(-1)
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        if a.dtype.kind not in "fc":
            flat_a, flat_b = flat_a.astype(np.int64), flat_b.astype(np.int64)
            abs_diff = np.abs(flat_a - flat_b)
            # integer true division gives the default float dtype in PyTorch
            rel_type = _dt.get_default_dtype().np
            rel_diff = abs_diff.astype(rel_type) / np.abs(flat_b).astype(rel_type)
        else:
            abs_diff = np.abs(flat_a - flat_b)
            rel_diff = abs_diff / np.abs(flat_b)
    abs_diff[flat_m] = 0
    rel_diff[flat_m] = 0
    ia, ir = int(np.argmax(abs_diff)), int(np.argmax(rel_diff))
    index = (lambda i: tuple(int(k) for k in np.unravel_index(i, matches.shape)))
    return _mismatch_text("Tensor-likes", rtol, atol, extra, abs_diff[ia].item(),
                          rel_diff[ir].item(), index(ia), index(ir))


def _compare_tensors(actual: Tensor, expected: Tensor, *, rtol, atol, equal_nan,
                     check_dtype, check_stride) -> None:
    def mismatch(name, x, y):
        raise _Failure(AssertionError,
                       f"The values for attribute '{name}' do not match: {x} != {y}.")
    if actual.shape != expected.shape:
        mismatch("shape", actual.shape, expected.shape)
    if check_stride and actual.stride() != expected.stride():
        mismatch("stride()", actual.stride(), expected.stride())
    if check_dtype and actual.dtype != expected.dtype:
        mismatch("dtype", actual.dtype, expected.dtype)
    rtol, atol = _tolerances([str(actual.dtype).split(".")[-1],
                              str(expected.dtype).split(".")[-1]], rtol, atol)
    a, b = actual._data, expected._data
    if a.dtype != b.dtype:
        common = _dt.promote_types(actual.dtype, expected.dtype).np
        a, b = a.astype(common), b.astype(common)
    matches = _isclose(a, b, rtol, atol, equal_nan)
    if matches.all():
        return
    if a.ndim == 0:
        raise _Failure(AssertionError, _scalar_text(a.item(), b.item(), rtol, atol))
    raise _Failure(AssertionError, _tensor_text(a, b, matches, rtol, atol))


def _compare_numbers(actual, expected, *, rtol, atol, equal_nan, check_dtype) -> None:
    if check_dtype and type(actual) is not type(expected):
        raise _Failure(AssertionError, f"The (d)types do not match: {type(actual)} != "
                                       f"{type(expected)}.")
    rtol, atol = _tolerances([_NUMBER_DTYPES[type(actual)], _NUMBER_DTYPES[type(expected)]],
                             rtol, atol)
    if actual == expected:
        return
    if equal_nan and isinstance(actual, float) and isinstance(expected, float) and \
            math.isnan(actual) and math.isnan(expected):
        return
    error = abs(actual - expected)
    if math.isfinite(error) and error <= atol + abs(rtol * expected):
        return
    raise _Failure(AssertionError, _scalar_text(actual, expected, rtol, atol))


def _is_number(x) -> bool:
    return isinstance(x, (bool, int, float, complex))


def _pairs(actual, expected, where=()):
    """Split nested sequences and mappings into (actual, expected, where) leaves, checking
    lengths and keys on the way down (PyTorch checks all structure before any value)."""
    seq = collections.abc.Sequence
    if isinstance(actual, seq) and not isinstance(actual, str) and \
            isinstance(expected, seq) and not isinstance(expected, str):
        if len(actual) != len(expected):
            raise _Failure(AssertionError, "The length of the sequences mismatch: "
                                           f"{len(actual)} != {len(expected)}", where)
        out = []
        for i, (x, y) in enumerate(zip(actual, expected)):
            out += _pairs(x, y, (*where, i))
        return out
    if isinstance(actual, collections.abc.Mapping) and \
            isinstance(expected, collections.abc.Mapping):
        keys_a, keys_e = set(actual), set(expected)
        if keys_a != keys_e:
            raise _Failure(AssertionError,
                           "The keys of the mappings do not match:\n"
                           f"Missing keys in the actual mapping: {sorted(keys_e - keys_a)}\n"
                           f"Additional keys in the actual mapping: {sorted(keys_a - keys_e)}",
                           where)
        try:
            keys = sorted(keys_a)
        except TypeError:
            keys = list(keys_a)
        out = []
        for k in keys:
            out += _pairs(actual[k], expected[k], (*where, k))
        return out
    return [(actual, expected, where)]


def _as_tensor(x):
    if isinstance(x, np.ndarray):
        from .factories import as_tensor
        return as_tensor(x)
    return x


def assert_close(actual, expected, *, allow_subclasses: bool = True, rtol=None, atol=None,
                 equal_nan: bool = False, check_device: bool = True, check_dtype: bool = True,
                 check_layout: bool = True, check_stride: bool = False, msg=None) -> None:
    """Raise AssertionError unless ``actual`` and ``expected`` (tensors, NumPy arrays,
    Python numbers, or sequences / mappings of them) are close: ``|actual - expected| <=
    atol + rtol * |expected|`` elementwise, with per-dtype defaults for ``rtol``/``atol``."""
    try:
        leaves = _pairs(actual, expected)
        for a, e, where in leaves:
            a, e = _as_tensor(a), _as_tensor(e)
            try:
                if a is None and e is None:
                    continue
                if isinstance(a, Tensor) and isinstance(e, Tensor):
                    _compare_tensors(a, e, rtol=rtol, atol=atol, equal_nan=equal_nan,
                                     check_dtype=check_dtype, check_stride=check_stride)
                elif _is_number(a) and _is_number(e):
                    _compare_numbers(a, e, rtol=rtol, atol=atol, equal_nan=equal_nan,
                                     check_dtype=check_dtype)
                else:
                    raise TypeError("No comparison pair was able to handle inputs of type "
                                    f"{type(a)} and {type(e)}.")
            except _Failure as failure:
                failure.where = where
                raise
    except _Failure as failure:
        text = failure.text
        if failure.where:
            text += "\n\nThe failure occurred for item " + \
                "".join(str([k]) for k in failure.where)
        if isinstance(msg, str):        # a string replaces everything, a callable edits
            text = msg
        elif callable(msg):
            text = msg(text)
        raise failure.kind(text) from None


def make_tensor(*shape, dtype, device=None, low=None, high=None, requires_grad: bool = False,
                noncontiguous: bool = False, exclude_zero: bool = False,
                memory_format=None) -> Tensor:
    """A tensor of ``shape`` filled with values drawn uniformly from ``[low, high)``
    (defaults as PyTorch's: -9..9 for floating point, -9..10 for integers, 0..10 for uint8).
    The values come from leafgrad's generator, so they differ from PyTorch's draws."""
    from . import factories
    from . import random as rnd
    if len(shape) == 1 and isinstance(shape[0], (list, tuple)):
        shape = tuple(shape[0])
    name = str(dtype).split(".")[-1]
    if name == "bool":
        result = rnd.randint(0, 2, shape).to(dtype)
    elif dtype.is_floating_point:
        lo = -9.0 if low is None else float(low)
        hi = 9.0 if high is None else float(high)
        if lo == hi:
            result = factories.full(shape, lo, dtype=dtype)
        else:
            result = rnd.rand(shape, dtype=dtype) * (hi - lo) + lo
    else:
        info = np.iinfo(dtype.np)
        lo = (0 if name == "uint8" else -9) if low is None else math.ceil(low)
        hi = 10 if high is None else math.ceil(high) if high != int(high) else int(high)
        lo, hi = max(lo, info.min), min(hi, info.max)
        if lo == hi:
            result = factories.full(shape, lo, dtype=dtype)
        else:
            result = rnd.randint(lo, hi, shape, dtype=dtype)
    if exclude_zero:
        data = result._data
        replacement = 1 if not dtype.is_floating_point else float(np.finfo(dtype.np).tiny)
        data[data == 0] = replacement
    if noncontiguous and result.numel() > 1:
        # every other column of a twice-as-wide buffer: same values, not contiguous
        wide = factories.zeros((*shape[:-1], 2 * shape[-1]), dtype=dtype)
        wide._data[..., ::2] = result._data
        result = wide[..., ::2]
    if requires_grad:
        result.requires_grad_(True)
    return result
