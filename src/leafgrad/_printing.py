"""How tensors print: PyTorch's ``repr`` rules, character for character.

>>> import leafgrad as torch
>>> torch.tensor([1.0, 2.5])
tensor([1.0000, 2.5000])
>>> torch.tensor([1e-5, 1e5])
tensor([1.0000e-05, 1.0000e+05])
>>> torch.tensor([[1, 2], [3, 40]])
tensor([[ 1,  2],
        [ 3, 40]])
>>> torch.tensor([], dtype=torch.int64)
tensor([], dtype=torch.int64)

Note [How a tensor's text is chosen]
One formatter serves the whole tensor, so that every element gets the same width. It looks only
at the elements that will be shown (the corners, when the tensor is summarized) and, for floats,
only at the finite non-zero ones:
- all of them whole numbers -> "int mode": ``3.``, ``-0.``, ``nan`` (no digits after the dot);
- otherwise ``precision`` digits after the dot (``1.5000``);
- scientific notation (``1.0000e-05``) when the largest over the smallest magnitude exceeds 1000,
  the largest exceeds 1e8 or the smallest is under 1e-4, unless ``sci_mode`` forces a choice.
The width is the longest of those finite non-zero texts (at least 1); every element is padded
on the left to it, so zeros, infinities and NaNs may come out wider or narrower than the rest,
exactly as in PyTorch. Elements are formatted from Python floats (the exact double value of a
float16/float32 element), which is what PyTorch does through ``tolist``/``item``.
"""
from __future__ import annotations

import contextlib
import math

import numpy as np

from . import dtypes as _dt

__all__ = ["set_printoptions"]

_PREFIX = "tensor("


class _Options:
    """The current print options (PyTorch's ``PRINT_OPTS``)."""

    __slots__ = ("precision", "threshold", "edgeitems", "linewidth", "sci_mode")

    def __init__(self):
        self.precision = 4
        self.threshold = 1000
        self.edgeitems = 3
        self.linewidth = 80
        self.sci_mode = None


_OPTS = _Options()

_PROFILES = {
    "default": (4, 1000, 3, 80),
    "short": (2, 1000, 2, 80),
    "full": (4, math.inf, 3, 80),
}


def set_printoptions(precision=None, threshold=None, edgeitems=None, linewidth=None,
                     profile=None, sci_mode=None) -> None:
    """Set how tensors print (``torch.set_printoptions``).

    ``profile`` ("default", "short" or "full") resets the first four options before the
    explicit ones apply. ``sci_mode`` is always replaced, by ``None`` when not given, as in
    PyTorch.

    >>> import leafgrad as torch
    >>> torch.set_printoptions(precision=2)
    >>> torch.tensor([1.12345])
    tensor([1.12])
    >>> torch.set_printoptions(threshold=5)
    >>> torch.tensor(list(range(10)))
    tensor([0, 1, 2,  ..., 7, 8, 9])
    >>> torch.set_printoptions(profile="default")
    >>> torch.tensor([1.12345])
    tensor([1.1235])
    """
    # An unknown profile name is ignored, as PyTorch does.
    if profile in _PROFILES:
        (_OPTS.precision, _OPTS.threshold, _OPTS.edgeitems,
         _OPTS.linewidth) = _PROFILES[profile]
    if precision is not None:
        _OPTS.precision = precision
    if threshold is not None:
        _OPTS.threshold = threshold
    if edgeitems is not None:
        _OPTS.edgeitems = edgeitems
    if linewidth is not None:
        _OPTS.linewidth = linewidth
    _OPTS.sci_mode = sci_mode


def get_printoptions() -> dict:
    """The current options as keyword arguments for ``set_printoptions``.

    This is PyTorch's ``torch._tensor_str.get_printoptions`` (PyTorch has no
    ``torch.get_printoptions``, so neither does ``leafgrad``).

    >>> from leafgrad._printing import get_printoptions
    >>> get_printoptions()
    {'precision': 4, 'threshold': 1000, 'edgeitems': 3, 'linewidth': 80, 'sci_mode': None}
    """
    return {name: getattr(_OPTS, name) for name in _Options.__slots__}


@contextlib.contextmanager
def printoptions(**kwargs):
    """Change the print options inside a ``with`` block only
    (PyTorch's ``torch._tensor_str.printoptions``).

    >>> import leafgrad as torch
    >>> from leafgrad._printing import printoptions
    >>> with printoptions(precision=1):
    ...     print(torch.tensor([0.25, 1.0]))
    tensor([0.2, 1.0])
    >>> torch.tensor([0.25, 1.0])
    tensor([0.2500, 1.0000])
    """
    saved = get_printoptions()
    set_printoptions(**kwargs)
    try:
        yield
    finally:
        set_printoptions(**saved)


# -- one formatter for the whole tensor (Note [How a tensor's text is chosen]) --------------

class _Formatter:
    """Turns one element (a Python number) into its padded text."""

    __slots__ = ("is_float", "int_mode", "sci_mode", "width", "_spec")

    def __init__(self, shown: np.ndarray):
        self.is_float = shown.dtype.kind == "f"
        self.int_mode = True
        self.sci_mode = False
        self.width = 1
        self._spec = ""
        values = shown.reshape(-1)
        if not self.is_float:
            for value in values.tolist():
                self.width = max(self.width, len(str(value)))
            return
        with np.errstate(all="ignore"):
            picked = values[np.isfinite(values) & (values != 0)]
        if picked.size == 0:
            # Only zeros, infinities and NaNs: int mode, width 1, whatever sci_mode says.
            return
        magnitude = np.abs(picked).astype(np.float64)
        smallest, largest = float(magnitude.min()), float(magnitude.max())
        self.int_mode = bool(np.all(picked == np.ceil(picked)))
        if _OPTS.sci_mode is None:
            with np.errstate(all="ignore"):
                ratio = float(np.float64(largest) / np.float64(smallest))
            self.sci_mode = ratio > 1000.0 or largest > 1.0e8 or smallest < 1.0e-4
        else:
            self.sci_mode = _OPTS.sci_mode
        if self.sci_mode:
            self._spec = f".{_OPTS.precision}e"
        elif not self.int_mode:
            self._spec = f".{_OPTS.precision}f"
        for value in picked.tolist():
            self.width = max(self.width, len(self._text(value)))

    def _text(self, value) -> str:
        if not self.is_float:
            return str(value)
        if self._spec:
            return format(value, self._spec)
        text = format(value, ".0f")
        # A trailing dot tells a whole-valued float from an int; nan and inf need none.
        if not (math.isinf(value) or math.isnan(value)):
            text += "."
        return text

    def __call__(self, value) -> str:
        return self._text(value).rjust(self.width)


def _shown_part(data: np.ndarray) -> np.ndarray:
    """The elements a summarized print shows: ``edgeitems`` at each end of each long axis."""
    edge = _OPTS.edgeitems
    if data.ndim == 0:
        return data
    if not edge:
        # PyTorch keeps a whole vector here (its ``x[-0:]`` is all of x) but drops everything
        # from a matrix or higher; the printed text is "..." either way, only widths differ.
        return data if data.ndim == 1 else data[(slice(0, 0),) * data.ndim]
    for axis, size in enumerate(data.shape):
        if size > 2 * edge:
            keep = np.r_[0:edge, size - edge:size]
            data = np.take(data, keep, axis=axis)
    return data


def _vector_text(data: np.ndarray, indent: int, summarize: bool, fmt: _Formatter) -> str:
    edge = _OPTS.edgeitems
    per_line = max(1, math.floor((_OPTS.linewidth - indent) / (fmt.width + 2)))
    if summarize and not edge:
        items = ["..."]
    elif summarize and data.shape[0] > 2 * edge:
        items = ([fmt(v) for v in data[:edge].tolist()] + [" ..."]
                 + [fmt(v) for v in data[-edge:].tolist()])
    else:
        items = [fmt(v) for v in data.tolist()]
    lines = [", ".join(items[i:i + per_line]) for i in range(0, len(items), per_line)]
    return "[" + (",\n" + " " * (indent + 1)).join(lines) + "]"


def _nested_text(data: np.ndarray, indent: int, summarize: bool, fmt: _Formatter) -> str:
    if data.ndim == 0:
        return fmt(data.item())
    if data.ndim == 1:
        return _vector_text(data, indent, summarize, fmt)
    edge = _OPTS.edgeitems
    size = data.shape[0]
    if summarize and size > 2 * edge:
        rows = list(range(edge)) + [None] + list(range(size - edge, size))
    else:
        rows = range(size)
    parts = ["..." if i is None else _nested_text(data[i], indent + 1, summarize, fmt)
             for i in rows]
    # Blank lines between blocks grow with depth: one per dimension below the first.
    return "[" + ("," + "\n" * (data.ndim - 1) + " " * (indent + 1)).join(parts) + "]"


def _body_text(data: np.ndarray, indent: int) -> str:
    summarize = data.size > _OPTS.threshold
    fmt = _Formatter(_shown_part(data) if summarize else data)
    return _nested_text(data, indent, summarize, fmt)


def _with_suffixes(text: str, suffixes: list, indent: int) -> str:
    """Append ``, name=value`` parts, starting a new line when one would pass linewidth."""
    parts = [text]
    # PyTorch's count: the last line's length plus 2 (plus 1 more when there is no newline).
    last_line = len(text) - text.rfind("\n") + 1
    for suffix in suffixes:
        if last_line + len(suffix) + 2 > _OPTS.linewidth:
            parts.append(",\n" + " " * indent + suffix)
            last_line = indent + len(suffix)
        else:
            parts.append(", " + suffix)
            last_line += len(suffix) + 2
    parts.append(")")
    return "".join(parts)


def tensor_repr(t) -> str:
    """``repr(tensor)`` and ``str(tensor)``: PyTorch's text for a CPU strided tensor.

    >>> import leafgrad as torch
    >>> x = torch.tensor([1.0, -2.0], requires_grad=True)
    >>> x
    tensor([ 1., -2.], requires_grad=True)
    >>> x * 2
    tensor([ 2., -4.], grad_fn=<MulBackward0>)
    >>> torch.tensor([True, False])
    tensor([ True, False])
    >>> torch.tensor([[0.5]], dtype=torch.float64)
    tensor([[0.5000]], dtype=torch.float64)
    """
    data = t._data
    indent = len(_PREFIX)
    dtype = _dt.from_numpy_dtype(data.dtype)
    default = _dt.get_default_dtype()
    suffixes = []
    if data.size == 0:
        # Nothing to infer the dtype from, so even int64 and bool are named.
        if data.ndim != 1:
            suffixes.append("size=" + str(tuple(data.shape)))
        if dtype is not default:
            suffixes.append("dtype=" + repr(dtype))
        body = "[]"
    else:
        if not _OPTS.edgeitems:
            suffixes.append("size=" + str(tuple(data.shape)))
        if dtype is not default and dtype is not _dt.int64 and dtype is not _dt.bool_:
            suffixes.append("dtype=" + repr(dtype))
        body = _body_text(data, indent)
    if t._grad_fn is not None:
        suffixes.append(f"grad_fn=<{type(t._grad_fn).__name__}>")
    elif t._requires_grad:
        suffixes.append("requires_grad=True")
    return _with_suffixes(_PREFIX + body, suffixes, indent)


def parameter_repr(t) -> str:
    """``repr`` of an ``nn.Parameter``: a header line above the tensor's own text.

    >>> import leafgrad as torch
    >>> from leafgrad._printing import parameter_repr
    >>> print(parameter_repr(torch.tensor([1.0, 2.0], requires_grad=True)))
    Parameter containing:
    tensor([1., 2.], requires_grad=True)
    """
    return "Parameter containing:\n" + tensor_repr(t)
