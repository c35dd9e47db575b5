"""Pooling of ``torch.nn.functional``: max_pool1d/2d/3d, avg_pool1d/2d/3d (adaptive pooling is in
``pooling_adaptive.py``).

The 2-d and 3-d functions check their arguments with PyTorch's messages and call the records of
``ops/pooling.py``; the 1-d ones run the 2-d op on a unit-height view and squeeze it away, which
is what PyTorch does too (so their ``grad_fn`` is ``SqueezeBackward1``).

>>> import leafgrad as torch
>>> import leafgrad.nn.functional as F
>>> F.avg_pool1d(torch.tensor([[[1.0, 2.0, 3.0, 4.0]]]), 2)
tensor([[[1.5000, 3.5000]]])
"""
from __future__ import annotations

from ...grad_mode import is_grad_enabled
from ...ops.pooling import max_pool, pool_output_size
from ...ops.pooling_avg import AVG_POOL
from ...grad_mode import state as _mode
from ...tensor import Tensor, _wrap

__all__ = [
    "avg_pool1d",
    "avg_pool2d",
    "avg_pool3d",
    "max_pool1d",
    "max_pool2d",
    "max_pool3d",
]


_WORDS = {2: "two", 3: "three"}


def _half(v: int) -> int:
    """``v / 2`` rounded toward zero, as C++ divides (a negative kernel must pass this check
    and fail the kernel-size one, as in PyTorch)."""
    return v // 2 if v >= 0 else -(-v // 2)


def _tuple(value, n: int, fname: str, what: str, message: str, default=None) -> tuple:
    omitted = value is None or (isinstance(value, (tuple, list)) and len(value) == 0)
    if omitted and default is not None:
        return default
    if isinstance(value, int):
        return (value,) * n
    if isinstance(value, (tuple, list)) and len(value) in (1, n):
        return tuple(int(v) for v in value) * (n if len(value) == 1 else 1)
    raise RuntimeError(f"{fname}: {what} {message} {_WORDS[n]} ints")


def _pool_args(fname, kernel_size, stride, padding, dilation, n: int = 2, either=True):
    """The arguments as ``n``-tuples, with PyTorch's messages (avg_pool3d words them without
    'either')."""
    e = "either " if either else ""
    kernel = _tuple(kernel_size, n, fname, "kernel_size", f"must {e}be a single int, or a "
                    "tuple of")
    stride = _tuple(stride, n, fname, "stride", f"must {e}be omitted, a single int, or a tuple "
                    "of", default=kernel)
    padding = _tuple(padding, n, fname, "padding", f"must {e}be a single int, or a tuple of")
    dilation = _tuple(dilation, n, fname, "dilation", "must be either a single int, or a tuple "
                      "of")
    return kernel, stride, padding, dilation


def _check_pool(input, kernel, stride, padding, dilation, ceil_mode):
    """PyTorch's pool2d checks, in its order: per-dim output sizes (stride, padding), then
    the shape check (kernel, stride, dilation, input dims, output size)."""
    shape = tuple(input.shape)
    out = []
    for size, k, s, p, d in zip(shape[-2:], kernel, stride, padding, dilation):
        if s == 0:
            raise RuntimeError("stride should not be zero")
        if p < 0:
            raise RuntimeError(f"pad must be non-negative, but got pad: {p}")
        if p > _half((k - 1) * d + 1):
            raise RuntimeError(f"pad should be at most half of effective kernel size, but got "
                               f"pad={p}, kernel_size={k} and dilation={d}")
        out.append(pool_output_size(size, k, s, p, d, ceil_mode))
    (kh, kw), (sh, sw), (dh, dw) = kernel, stride, dilation
    if kh <= 0 or kw <= 0:
        raise RuntimeError(f"kernel size should be greater than zero, but got kH: {kh} kW: {kw}")
    if sh <= 0 or sw <= 0:
        raise RuntimeError(f"stride should be greater than zero, but got dH: {sh} dW: {sw}")
    if dh <= 0 or dw <= 0:
        raise RuntimeError(f"dilation should be greater than zero, but got dilationH: {dh} "
                           f"dilationW: {dw}")
    if len(shape) not in (3, 4) or any(s == 0 for s in shape[-3:]):
        raise RuntimeError("Expected 3D or 4D (batch mode) tensor with optional 0 dim batch "
                           f"size for input, but got:{list(shape)}")
    (ph, pw) = padding
    if kw // 2 < pw or kh // 2 < ph:   # PyTorch checks the undilated kernel here too
        raise RuntimeError(f"pad should be smaller than or equal to half of kernel size, but "
                           f"got padW = {pw}, padH = {ph}, kW = {kw}, kH = {kh}")
    if out[0] < 1 or out[1] < 1:
        c = shape[-3]
        raise RuntimeError(f"Given input size: ({c}x{shape[-2]}x{shape[-1]}). Calculated "
                           f"output size: ({c}x{out[0]}x{out[1]}). Output size is too small")


_FLOATS = ("torch.float16", "torch.float32", "torch.float64")


def _kernel_dtype(input: Tensor, kernel: str, allowed) -> None:
    """PyTorch's CPU pooling kernels exist for some dtypes only (after the shape checks):
    ``allowed`` is a tuple of dtype names, or None for "anything but bool"."""
    name = str(input.dtype)
    if (name == "torch.bool") if allowed is None else (name not in allowed):
        raise NotImplementedError(f'"{kernel}" not implemented for '
                                  f"'{input.dtype.tensor_type[:-6]}'")


def max_pool2d(input: Tensor, kernel_size, stride=None, padding=0, dilation=1,
               ceil_mode: bool = False, return_indices: bool = False):
    """Max over each (dilated) ``kernel_size`` window of the last two dims; with
    ``return_indices`` also each maximum's flat position in its input plane."""
    given = (kernel_size, stride, padding, dilation)
    kernel, stride, padding, dilation = _pool_args("max_pool2d", kernel_size, stride, padding,
                                                   dilation)
    if input.dim() not in (3, 4):
        raise RuntimeError("non-empty 3D or 4D (batch mode) tensor expected for input")
    _check_pool(input, kernel, stride, padding, dilation, ceil_mode)
    _kernel_dtype(input, "max_pool2d", None)
    # the arguments as given: the node saves them so (``_saved_stride`` is () when omitted)
    return max_pool(2, input, *given, ceil_mode, return_indices)


def _single(value, fname: str, what: str) -> int:
    if isinstance(value, int):
        return value
    if len(value) != 1:
        raise RuntimeError(f"{fname}() {what} must be an int, list of ints or tuple of ints of "
                           f"size 1 but got size {len(value)}")
    return int(value[0])


def _check_max_pool1d(input, kernel_size, stride, padding, dilation, ceil_mode):
    """max_pool1d's own checks (PyTorch's messages)."""
    if input.dim() not in (2, 3) or 0 in input.shape[-2:]:
        raise RuntimeError("max_pool1d: Expected 2D or 3D (batch mode) tensor with optional 0 "
                           f"dim batch size for input, but got:{list(input.shape)}")
    k = _single(kernel_size, "max_pool1d", "kernel_size")
    s = k if stride is None or (not isinstance(stride, int) and len(stride) == 0) else \
        _single(stride, "max_pool1d", "stride")
    p = _single(padding, "max_pool1d", "padding")
    d = _single(dilation, "max_pool1d", "dilation")
    if k <= 0:
        raise RuntimeError(f"max_pool1d() kernel_size must be greater than zero, but got {k}")
    if s <= 0:
        raise RuntimeError(f"max_pool1d() stride must be greater than zero, but got {s}")
    if p < 0:
        raise RuntimeError(f"max_pool1d() padding must be non-negative, but got {p}")
    if p > k // 2:
        raise RuntimeError(f"max_pool1d() padding should be at most half of kernel size, but "
                           f"got padding={p} and kernel_size={k}")
    if d <= 0:
        raise RuntimeError(f"max_pool1d() dilation must be greater than zero, but got {d}")
    out = pool_output_size(input.shape[-1], k, s, p, d, ceil_mode)
    if out <= 0:
        raise RuntimeError(f"max_pool1d() Invalid computed output size: {out}")


def _to2d(value, fill):
    if value is None:
        return None
    if isinstance(value, int):
        return (fill, value)
    value = tuple(value)
    return (fill,) + value if len(value) else value


def max_pool1d(input: Tensor, kernel_size, stride=None, padding=0, dilation=1,
               ceil_mode: bool = False, return_indices: bool = False):
    """Max over each window of the last dim (2-d max pooling of unit height)."""
    if not return_indices:   # with indices PyTorch runs (and checks) the 2-d op only
        _check_max_pool1d(input, kernel_size, stride, padding, dilation, ceil_mode)
        _kernel_dtype(input, "max_pool1d_impl", _FLOATS)
    if input.dim() not in (2, 3):   # with indices: the checkDimRange of PyTorch's wrapper
        raise RuntimeError(f"Expected 2 to 3 dimensions, but got {input.dim()}-dimensional "
                           f"tensor for argument #1 'self' (while checking arguments for "
                           f"max_pool1d)")
    if stride is None or (not isinstance(stride, int) and len(stride) == 0):
        stride = kernel_size   # PyTorch's max_pool1d fills it in (the node saves (1, k))
    stride = _to2d(stride, 1)
    out = max_pool2d(input.unsqueeze(-2), _to2d(kernel_size, 1), stride, _to2d(padding, 0),
                     _to2d(dilation, 1), ceil_mode, return_indices)
    if return_indices:
        return out[0].squeeze(-2), out[1].squeeze(-2)
    if not (input.requires_grad and _mode.grad_enabled):
        # PyTorch's max_pool1d_impl (no gradient wanted): a new tensor, not a view, squeezed
        # in place when the input has no batch dim (so at version 1)
        result = _wrap(out._data.reshape(out._data.shape[:-2] + out._data.shape[-1:]))
        if input.dim() == 2:
            result._vc[0] = 1
        return result
    return out.squeeze(-2)


def avg_pool2d(input: Tensor, kernel_size, stride=None, padding=0, ceil_mode: bool = False,
               count_include_pad: bool = True, divisor_override: int | None = None) -> Tensor:
    """Mean over each ``kernel_size`` window of the last two dims."""
    kernel, stride, padding, _ = _pool_args("avg_pool2d", kernel_size, stride, padding, 1)
    if input.dim() < 3:
        n = max(input.dim(), 1)
        raise IndexError(f"Dimension out of range (expected to be in range of [{-n}, {n - 1}], "
                         "but got -3)")
    if divisor_override is not None and divisor_override == 0:
        raise RuntimeError("divisor must be not zero")
    _check_pool(input, kernel, stride, padding, (1, 1), ceil_mode)
    _kernel_dtype(input, "avg_pool2d", _FLOATS + ("torch.int64",))
    return AVG_POOL[2].public(input, list(kernel), list(stride), list(padding), bool(ceil_mode),
                             bool(count_include_pad), divisor_override)


def _one_int(value, fname: str, what: str) -> int:
    if isinstance(value, int):
        return value
    value = tuple(value)
    if len(value) != 1:
        raise RuntimeError(f"{fname}() argument '{what}' should contain one int (got "
                           f"{len(value)})")
    return int(value[0])


def _check_1d_dims(input, fname: str) -> None:
    if input.dim() not in (2, 3):
        raise RuntimeError(f"Expected 2 to 3 dimensions, but got {input.dim()}-dimensional "
                           f"tensor for argument #1 'self' (while checking arguments for "
                           f"{fname})")


def avg_pool1d(input: Tensor, kernel_size, stride=None, padding=0, ceil_mode: bool = False,
               count_include_pad: bool = True) -> Tensor:
    """Mean over each window of the last dim (2-d average pooling of unit height)."""
    k = _one_int(kernel_size, "avg_pool1d", "kernel_size")
    s = k if stride is None or (not isinstance(stride, int) and len(stride) == 0) else \
        _one_int(stride, "avg_pool1d", "stride")
    p = _one_int(padding, "avg_pool1d", "padding")
    _check_1d_dims(input, "avg_pool1d")
    out = avg_pool2d(input.unsqueeze(-2), (1, k), (1, s), (0, p), ceil_mode, count_include_pad)
    return out.squeeze(-2)


# -- 3-d ----------------------------------------------------------------------------------------
def _tdims(prefix: str, values) -> str:
    return " ".join(f"{prefix}{d}: {v}" for d, v in zip("THW", values))


def _check_pool3d(input, kernel, stride, padding, dilation, ceil_mode, fname):
    """PyTorch's pool3d checks, in its order (the 3-d messages name the dims T, H, W)."""
    shape = tuple(input.shape)
    out = []
    for size, k, s, p, d in zip(shape[-3:], kernel, stride, padding, dilation):
        if s == 0:
            raise RuntimeError("stride should not be zero")
        if p < 0:
            raise RuntimeError(f"pad must be non-negative, but got pad: {p}")
        if p > _half((k - 1) * d + 1):
            raise RuntimeError(f"pad should be at most half of effective kernel size, but got "
                               f"pad={p}, kernel_size={k} and dilation={d}")
        out.append(pool_output_size(size, k, s, p, d, ceil_mode))
    if any(k <= 0 for k in kernel):
        raise RuntimeError("kernel size should be greater than zero, but got "
                           + _tdims("k", kernel))
    if any(s <= 0 for s in stride):
        raise RuntimeError("stride should be greater than zero, but got " + _tdims("d", stride))
    if any(d <= 0 for d in dilation):
        raise RuntimeError("dilation should be greater than zero, but got "
                           + _tdims("dilation", dilation))
    if len(shape) not in (4, 5):
        raise RuntimeError("non-empty 4D or 5D (batch mode) tensor expected for input")
    if 0 in shape[-4:]:
        # PyTorch's message names dimension 0 whichever non-batch dim is empty
        raise RuntimeError(f"{fname}: Expected input's non-batch dimensions to have "
                           f"positive length, but input has a shape of {list(shape)} and "
                           f"non-batch dimension 0 has length zero!")
    (kt, kh, kw), (pt, ph, pw) = kernel, padding
    if kt // 2 < pt or kw // 2 < pw or kh // 2 < ph:
        raise RuntimeError(f"pad should be smaller than or equal to half of kernel size, but "
                           f"got kT: {kt} kW: {kw} kH: {kh} padT: {pt} padW: {pw} padH: {ph}")
    if fname.startswith("avg") and any(size < k for size, k in zip(shape[-3:], kernel)):
        raise RuntimeError(f"input image ({_tdims('', shape[-3:])}) smaller than kernel size "
                           f"({_tdims('k', kernel)})")
    if any(o < 1 for o in out):
        c = shape[-4]
        raise RuntimeError(f"Given input size: ({c}x{'x'.join(map(str, shape[-3:]))}). "
                           f"Calculated output size: ({c}x{'x'.join(map(str, out))}). Output "
                           "size is too small")


def max_pool3d(input: Tensor, kernel_size, stride=None, padding=0, dilation=1,
               ceil_mode: bool = False, return_indices: bool = False):
    """Max over each (dilated) ``kernel_size`` window of the last three dims; with
    ``return_indices`` also each maximum's flat position in its input volume."""
    given = (kernel_size, stride, padding, dilation)
    kernel, stride, padding, dilation = _pool_args("max_pool3d", kernel_size, stride, padding,
                                                   dilation, 3)
    _check_pool3d(input, kernel, stride, padding, dilation, ceil_mode,
                  "max_pool3d_with_indices_out_cpu_template()")
    _kernel_dtype(input, "max_pool3d", None)
    return max_pool(3, input, *given, ceil_mode, return_indices)


def avg_pool3d(input: Tensor, kernel_size, stride=None, padding=0, ceil_mode: bool = False,
               count_include_pad: bool = True, divisor_override: int | None = None) -> Tensor:
    """Mean over each ``kernel_size`` window of the last three dims."""
    kernel, stride, padding, _ = _pool_args("avg_pool3d", kernel_size, stride, padding, 1, 3,
                                            either=False)
    if divisor_override is not None and divisor_override == 0:
        raise RuntimeError("divisor must be not zero")
    _check_pool3d(input, kernel, stride, padding, (1, 1, 1), ceil_mode, "avg_pool3d()")
    _kernel_dtype(input, "avg_pool3d_out_frame", ("torch.float32", "torch.float64",
                                                  "torch.int64"))
    return AVG_POOL[3].public(input, list(kernel), list(stride), list(padding), bool(ceil_mode),
                              bool(count_include_pad), divisor_override)
