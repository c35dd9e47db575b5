"""Pooling: max_pool2d (with indices), avg_pool2d, adaptive_avg_pool2d, with their backward ops.

Each pooling op is a record named like ATen's (grad_fn ``MaxPool2DWithIndicesBackward0``,
``AvgPool2DBackward0``, ``AdaptiveAvgPool2DBackward0``); its derivative calls a second record,
the op's ``*_backward``, whose own derivative is again a pooling (the backward of a linear map is
its adjoint), so ``create_graph=True`` works and records PyTorch's ``...BackwardBackward0``.

Note [Pooling by kernel offsets]
Windows are never materialised per pixel: for each kernel offset ``(i, j)`` the values it sees
in every window form one strided slice of the padded input, so a pooling is a loop over
``kh * kw`` vectorised slice operations (max / compare for max pooling, add for average
pooling), and its backward adds each offset's share back through the same slices.

Note [Max-pool routing]
The backward of max pooling needs the position of each window's maximum, and a formula sees the
op's inputs and first output only (not the indices). Finding the argmax in the forward costs
several times the max itself, so the forward computes only the maxima (a chain of
``np.maximum``); the backward compares each kernel offset's slice of the saved input with the
saved output and sends the gradient to the first offset equal to it, which is the position
PyTorch's kernel picks (the first maximum). NaN maxima and all-``-inf`` windows follow other
rules in PyTorch, so when the output holds a non-finite value the backward computes PyTorch's
exact argmax instead.

>>> import leafgrad as torch
>>> torch.max_pool2d(torch.arange(16.).view(1, 1, 4, 4), 2)
tensor([[[[ 5.,  7.],
          [13., 15.]]]])
"""
from __future__ import annotations

import numpy as np

from ..tensor import _wrap
from .joins import materialize_zeros
from .pointwise_common import zeros_grad
from .registry import Sample, defop

FAMILY = "pooling"

__all__ = [
    "adaptive_avg_pool2d",
    "avg_pool2d",
    "max_pool2d",
    "max_pool2d_with_indices",
    "pool_output_size",
]


# -- geometry -----------------------------------------------------------------------------------
def pool_output_size(size: int, k: int, s: int, p: int, d: int, ceil_mode: bool) -> int:
    """Output length along one dim, with PyTorch's ceil_mode rule (the last window must start
    inside the input or its left padding)."""
    span = size + 2 * p - d * (k - 1) - 1
    out = (-(-span // s) if ceil_mode else span // s) + 1
    if ceil_mode and (out - 1) * s >= size + p:
        out -= 1
    return out


def _geometry(shape, kernel_size, stride, padding, dilation, ceil_mode):
    h, w = shape[-2:]
    (kh, kw), (sh, sw), (ph, pw), (dh, dw) = kernel_size, stride, padding, dilation
    oh = pool_output_size(h, kh, sh, ph, dh, ceil_mode)
    ow = pool_output_size(w, kw, sw, pw, dw, ceil_mode)
    return oh, ow


def _padded(x, padding, need_h, need_w, fill):
    """``x`` (B, H, W) padded on top/left by ``padding`` and on the bottom/right up to
    ``need_h`` x ``need_w`` (a view when nothing is added)."""
    b, h, w = x.shape
    ph, pw = padding
    rows, cols = max(need_h, h + ph), max(need_w, w + pw)
    if ph == 0 and pw == 0 and rows == h and cols == w:
        return x
    xp = np.full((b, rows, cols), fill, x.dtype)
    xp[:, ph:ph + h, pw:pw + w] = x
    return xp


def _slices(kernel_size, stride, dilation, oh, ow):
    (kh, kw), (sh, sw), (dh, dw) = kernel_size, stride, dilation
    for i in range(kh):
        rows = slice(i * dh, i * dh + sh * (oh - 1) + 1, sh)
        for j in range(kw):
            yield i * kw + j, rows, slice(j * dw, j * dw + sw * (ow - 1) + 1, sw)


def _flat3(x):
    """(N, C, H, W) or (C, H, W) -> (N*C, H, W) (a view for contiguous inputs)."""
    return x.reshape((-1,) + x.shape[-2:])


def _lowest(dtype):
    return -np.inf if dtype.kind == "f" else np.iinfo(dtype).min


# -- max pooling --------------------------------------------------------------------------------
def _max_padded(x3, shape, kernel_size, stride, padding, dilation, ceil_mode):
    """The input planes padded with the lowest value as far as the windows reach, and (OH, OW)."""
    oh, ow = _geometry(shape, kernel_size, stride, padding, dilation, ceil_mode)
    (kh, kw), (sh, sw), (dh, dw) = kernel_size, stride, dilation
    xp = _padded(x3, padding, (oh - 1) * sh + dh * (kh - 1) + 1,
                 (ow - 1) * sw + dw * (kw - 1) + 1, _lowest(x3.dtype))
    return xp, oh, ow


def _max_values(x, kernel_size, stride, padding, dilation, ceil_mode):
    """Window maxima only: a chain of ``np.maximum`` over the kernel offsets (NaN wins, as in
    PyTorch)."""
    x3 = _flat3(x)
    xp, oh, ow = _max_padded(x3, x.shape, kernel_size, stride, padding, dilation, ceil_mode)
    offsets = _slices(kernel_size, stride, dilation, oh, ow)
    _, rows, cols = next(offsets)
    best = xp[:, rows, cols].copy()
    for _, rows, cols in offsets:
        np.maximum(best, xp[:, rows, cols], out=best)
    return best.reshape(x.shape[:-2] + (oh, ow))


def _max_argmax(x, kernel_size, stride, padding, dilation, ceil_mode):
    """Window maxima and the kernel offset (row-major) of each: the first maximum, or the last
    NaN, as PyTorch's kernel picks them."""
    x3 = _flat3(x)
    xp, oh, ow = _max_padded(x3, x.shape, kernel_size, stride, padding, dilation, ceil_mode)
    kh, kw = kernel_size
    offsets = _slices(kernel_size, stride, dilation, oh, ow)
    _, rows, cols = next(offsets)
    best = xp[:, rows, cols].copy()
    arg = np.zeros(best.shape, np.uint8 if kh * kw < 256 else np.int32)
    nan_aware = x.dtype.kind == "f" and not np.isfinite(np.sum(x3))
    for k, rows, cols in offsets:
        v = xp[:, rows, cols]
        take = v > best
        if nan_aware:
            take |= np.isnan(v)
        np.copyto(best, v, where=take)
        np.copyto(arg, k, where=take, casting="unsafe")
    if xp is not x3:
        _fix_padding_argmax(arg, x.shape, kernel_size, stride, padding, dilation)
    out_shape = x.shape[:-2] + (oh, ow)
    return best.reshape(out_shape), arg.reshape(out_shape)


def _fix_padding_argmax(arg, shape, kernel_size, stride, padding, dilation):
    """A window whose real values are all the lowest value keeps offset 0, which may lie in the
    padding; PyTorch reports the window's first real position instead."""
    h, w = shape[-2:]
    kw = kernel_size[1]
    (sh, sw), (ph, pw), (dh, dw) = stride, padding, dilation
    oh, ow = arg.shape[-2:]
    i, j = np.divmod(arg, kw)
    rows = np.arange(oh)[:, None] * sh - ph + i * dh
    cols = np.arange(ow) * sw - pw + j * dw
    bad = (rows < 0) | (rows >= h) | (cols < 0) | (cols >= w)
    if bad.any():
        first_i = np.maximum(-(-(ph - np.arange(oh) * sh) // dh), 0)
        first_j = np.maximum(-(-(pw - np.arange(ow) * sw) // dw), 0)
        first = first_i[:, None] * kw + first_j
        np.copyto(arg, np.broadcast_to(first, arg.shape), where=bad, casting="unsafe")


def _flat_indices(arg, shape, kernel_size, stride, padding, dilation):
    """Kernel offsets -> PyTorch's indices (``row * W + col`` in each input plane)."""
    w = shape[-1]
    kw = kernel_size[1]
    (sh, sw), (ph, pw), (dh, dw) = stride, padding, dilation
    i, j = np.divmod(arg.astype(np.int64), kw)
    oh, ow = arg.shape[-2:]
    rows = np.arange(oh)[:, None] * sh - ph + i * dh
    cols = np.arange(ow) * sw - pw + j * dw
    return rows * w + cols


class Maxima:
    """Where each window's maximum sits, for the backward (see Note [Max-pool routing]).

    Built from the saved input and output; the routing by equality runs only when every
    maximum is finite (a NaN or a -inf window needs PyTorch's exact argmax rules, so those
    compute the argmax instead)."""

    __slots__ = ("_arg", "out", "params", "x")

    def __init__(self, x, out, params):
        self.x, self.out, self.params, self._arg = x, out, params, None
        if x.dtype.kind != "f" or not np.isfinite(np.sum(out)):
            self._arg = _max_argmax(x, *params)[1]

    def argmax(self):
        if self._arg is None:
            self._arg = _max_argmax(self.x, *self.params)[1]
        return self._arg

    def flat_indices(self):
        return _flat_indices(self.argmax(), self.x.shape, *self.params[:4])

    def scatter(self, grad_output):
        """The input gradient: each window's gradient sent to its (first) maximum."""
        kernel_size, stride, padding, dilation, _ = self.params
        (kh, kw), (sh, sw), (dh, dw) = kernel_size, stride, dilation
        x3 = _flat3(self.x)
        h, w = x3.shape[1:]
        ph, pw = padding
        oh, ow = grad_output.shape[-2:]
        g = _flat3(grad_output)
        disjoint = sh >= dh * (kh - 1) + 1 and sw >= dw * (kw - 1) + 1
        if self._arg is None:
            xp, _, _ = _max_padded(x3, self.x.shape, *self.params)
        rows_n = max((oh - 1) * sh + dh * (kh - 1) + 1, h + ph)
        cols_n = max((ow - 1) * sw + dw * (kw - 1) + 1, w + pw)
        # windows that tile the input exactly write every position once: no zero fill needed
        covers = disjoint and (sh, sw) == (kh, kw) and (oh * kh, ow * kw) == (h, w) and \
            padding == (0, 0)
        gxp = (np.empty if covers else np.zeros)((g.shape[0], rows_n, cols_n), g.dtype)
        out = None if self._arg is not None else _flat3(self.out)
        arg = None if self._arg is None else _flat3(self._arg)
        taken = None
        last = kh * kw - 1
        for k, r, c in _slices(kernel_size, stride, dilation, oh, ow):
            if arg is not None:
                hit = arg == k
            else:
                hit = xp[:, r, c] == out
                if taken is None:
                    taken = hit
                elif k < last:
                    hit = hit > taken   # equal and no earlier offset took it
                    taken = taken | hit
                else:
                    hit = hit > taken
            if disjoint:   # each input position is in one window at most: write, don't add
                np.multiply(g, hit, out=gxp[:, r, c])
            else:
                gxp[:, r, c] += g * hit
        return np.ascontiguousarray(gxp[:, ph:ph + h, pw:pw + w]).reshape(self.x.shape)


def _two(value) -> tuple:
    if isinstance(value, (int, np.integer)):
        return (int(value), int(value))
    value = tuple(int(v) for v in value)
    return value * 2 if len(value) == 1 else value


def _params(kernel_size, stride, padding, dilation, ceil_mode):
    kernel = _two(kernel_size)
    stride = kernel if stride is None or (not isinstance(stride, int) and len(stride) == 0) \
        else _two(stride)
    return (kernel, stride, _two(padding), _two(dilation), bool(ceil_mode))


def max_pool2d(self, kernel_size, stride=(), padding=0, dilation=1, ceil_mode=False):
    """Max over each (dilated) window of the last two dims (as ATen's ``max_pool2d``)."""
    return _max_values(self, *_params(kernel_size, stride, padding, dilation, ceil_mode))


def max_pool2d_with_indices(self, kernel_size, stride=(), padding=0, dilation=1,
                            ceil_mode=False):
    """``(values, indices)``: the window maxima and their flat positions in each plane."""
    params = _params(kernel_size, stride, padding, dilation, ceil_mode)
    out, arg = _max_argmax(self, *params)
    return [out, _flat_indices(arg, self.shape, *params[:4])]


def _max_pool_grad(grad, self, result, kernel_size, stride, padding, dilation, ceil_mode):
    params = _params(kernel_size, stride, padding, dilation, ceil_mode)
    maxima = Maxima(self._data, result._data, params)
    return MAX_POOL_BACKWARD.public(grad, self, maxima)


def max_pool2d_self(grad, self, result, kernel_size, stride, padding, dilation, ceil_mode):
    return _max_pool_grad(grad, self, result, kernel_size, stride, padding, dilation, ceil_mode)


def max_pool2d_with_indices_self(grads, self, result, kernel_size, stride, padding, dilation,
                                 ceil_mode):
    return _max_pool_grad(grads[0], self, result, kernel_size, stride, padding, dilation,
                          ceil_mode)


def max_pool2d_with_indices_backward(grad_output, self, maxima):
    """Each window's gradient sent to its maximum (``maxima``: a ``Maxima``)."""
    return maxima.scatter(grad_output)


def max_pool2d_with_indices_backward_grad_output(grad, maxima):
    # the adjoint of scattering to the maxima is gathering from them
    idx = maxima.flat_indices()
    lead = idx.shape[:-2]
    flat = grad.reshape(lead + (-1,))
    return flat.gather(len(lead), _wrap(idx.reshape(lead + (-1,)))).reshape(idx.shape)


def _pool_samples(call, extra=()):
    def samples(make, shapes):
        base = make((2, 3, 7, 6))
        return [
            Sample((base, [2, 2], [2, 2], [0, 0]) + extra[:2], call=call),
            Sample((make((3, 5, 5)), [3, 2], [2, 1], [1, 1]) + extra[2:4], call=call),
            Sample((make((1, 2, 8, 7)), [2, 3], [3, 2], [1, 1]) + extra[4:], call=call),
        ]
    return samples


_MAX_ARGS = ([1, 1], False, [1, 1], True, [2, 1], True)
MAX_POOL2D = defop(
    "max_pool2d", max_pool2d, derivatives={"self": max_pool2d_self}, dtype="same",
    grad_fn_name="MaxPool2DWithIndicesBackward0", methods=(), functions=("max_pool2d",),
    family=FAMILY, samples=_pool_samples("max_pool2d", _MAX_ARGS))

MAX_POOL2D_WITH_INDICES = defop(
    "max_pool2d_with_indices", max_pool2d_with_indices,
    derivatives={"self": max_pool2d_with_indices_self}, dtype="same", n_outputs=2,
    differentiable_outputs=(True, False), materialize=materialize_zeros,
    grad_fn_name="MaxPool2DWithIndicesBackward0", methods=(), functions=(), family=FAMILY)

MAX_POOL_BACKWARD = defop(
    "max_pool2d_with_indices_backward", max_pool2d_with_indices_backward,
    inputs=("grad_output", "self"),
    derivatives={"grad_output": max_pool2d_with_indices_backward_grad_output,
                 "self": zeros_grad}, dtype="same",
    grad_fn_name="MaxPool2DWithIndicesBackwardBackward0", methods=(), functions=(),
    family=FAMILY)


# -- average pooling ----------------------------------------------------------------------------
def _avg_divisor(shape, kernel_size, stride, padding, oh, ow, count_include_pad,
                 divisor_override):
    """PyTorch's divisor per output position, an (OH, OW) array."""
    if divisor_override is not None:
        return np.float64(divisor_override)
    sizes = []
    for size, k, s, p, n in zip(shape[-2:], kernel_size, stride, padding, (oh, ow)):
        start = np.arange(n) * s - p
        end = np.minimum(start + k, size + p)
        if count_include_pad:
            sizes.append(end - start)
        else:
            sizes.append(np.minimum(end, size) - np.maximum(start, 0))
    return np.multiply.outer(sizes[0], sizes[1])


def avg_pool2d(self, kernel_size, stride, padding, ceil_mode, count_include_pad,
               divisor_override):
    """Mean over each window of the last two dims (as ATen's ``avg_pool2d``)."""
    one = (1, 1)
    oh, ow = _geometry(self.shape, kernel_size, stride, padding, one, ceil_mode)
    (kh, kw), (sh, sw) = kernel_size, stride
    x3 = _flat3(self)
    xp = _padded(x3, padding, (oh - 1) * sh + kh, (ow - 1) * sw + kw, 0)
    acc_dtype = self.dtype if self.dtype.kind == "f" else np.int64
    total = np.zeros((x3.shape[0], oh, ow), acc_dtype)
    for _, rows, cols in _slices(kernel_size, stride, one, oh, ow):
        total += xp[:, rows, cols]
    div = _avg_divisor(self.shape, kernel_size, stride, padding, oh, ow, count_include_pad,
                       divisor_override)
    if self.dtype.kind == "f":
        out = (total / np.asarray(div, self.dtype)).astype(self.dtype, copy=False)
    else:
        # PyTorch divides integers as C does, rounding toward zero
        out = (np.sign(total) * (np.abs(total) // div)).astype(self.dtype)
    return out.reshape(self.shape[:-2] + (oh, ow))


def avg_pool2d_self(grad, self, kernel_size, stride, padding, ceil_mode, count_include_pad,
                    divisor_override):
    return AVG_POOL_BACKWARD.public(grad, self, kernel_size, stride, padding, ceil_mode,
                                    count_include_pad, divisor_override)


def avg_pool2d_backward(grad_output, self, kernel_size, stride, padding, ceil_mode,
                        count_include_pad, divisor_override):
    """Each window's gradient spread evenly (by PyTorch's divisor) over the window."""
    self_size = self.shape
    oh, ow = grad_output.shape[-2:]
    (kh, kw), (sh, sw) = kernel_size, stride
    h, w = self_size[-2:]
    ph, pw = padding
    div = _avg_divisor(self_size, kernel_size, stride, padding, oh, ow, count_include_pad,
                       divisor_override)
    g = _flat3(grad_output) / np.asarray(div, grad_output.dtype)
    gxp = np.zeros((g.shape[0], max((oh - 1) * sh + kh, h + ph), max((ow - 1) * sw + kw,
                                                                       w + pw)), g.dtype)
    for _, rows, cols in _slices(kernel_size, stride, (1, 1), oh, ow):
        gxp[:, rows, cols] += g
    return np.ascontiguousarray(gxp[:, ph:ph + h, pw:pw + w]).reshape(self_size)


def avg_pool2d_backward_grad_output(grad, kernel_size, stride, padding, ceil_mode,
                                    count_include_pad, divisor_override):
    return AVG_POOL2D.public(grad, kernel_size, stride, padding, ceil_mode, count_include_pad,
                             divisor_override)


_AVG_ARGS = (False, True, True, False, True, False)
AVG_POOL2D = defop(
    "avg_pool2d", avg_pool2d, derivatives={"self": avg_pool2d_self}, dtype="same",
    grad_fn_name="AvgPool2DBackward0", methods=(), functions=(), family=FAMILY,
    samples=_pool_samples("nn.functional.avg_pool2d", _AVG_ARGS))

AVG_POOL_BACKWARD = defop(
    "avg_pool2d_backward", avg_pool2d_backward, inputs=("grad_output", "self"),
    derivatives={"grad_output": avg_pool2d_backward_grad_output, "self": zeros_grad},
    dtype="same",
    grad_fn_name="AvgPool2DBackwardBackward0", methods=(), functions=(), family=FAMILY)


# -- adaptive average pooling -------------------------------------------------------------------
def _adaptive_matrix(size: int, out: int, dtype):
    """(out, size) averaging matrix: row i averages input[floor(i*size/out):ceil((i+1)*size/out)]
    (the pooling is separable, so 2-d adaptive pooling is ``P_h @ x @ P_w^T``)."""
    m = np.zeros((out, size), dtype)
    for i in range(out):
        start, end = (i * size) // out, -(-((i + 1) * size) // out)
        m[i, start:end] = 1.0 / (end - start)
    return m


def _separable(x, ph, pw):
    """``ph @ x @ pw.T`` over the last two dims of x (B, H, W), as two plain matrix products."""
    b, h, w = x.shape
    t = x.reshape(b * h, w) @ pw.T                                   # (B*H, OW)
    ow = pw.shape[0]
    t = t.reshape(b, h, ow).transpose(0, 2, 1).reshape(b * ow, h) @ ph.T   # (B*OW, OH)
    return np.ascontiguousarray(t.reshape(b, ow, ph.shape[0]).transpose(0, 2, 1))


def adaptive_avg_pool2d(self, output_size):
    """Average over PyTorch's adaptive windows so the last two dims become ``output_size``."""
    oh, ow = output_size
    if self.dtype.kind != "f":
        raise NotImplementedError(f'"adaptive_avg_pool2d" not implemented for '
                                  f"'{self.dtype.name}'")
    ph = _adaptive_matrix(self.shape[-2], oh, self.dtype)
    pw = _adaptive_matrix(self.shape[-1], ow, self.dtype)
    return _separable(_flat3(self), ph, pw).reshape(self.shape[:-2] + (oh, ow))


def adaptive_avg_pool2d_self(grad, self):
    return ADAPTIVE_BACKWARD.public(grad, self)


def adaptive_avg_pool2d_backward(grad_output, self):
    """The adjoint: ``P_h^T @ g @ P_w``."""
    self_size = self.shape
    h, w = self_size[-2:]
    oh, ow = grad_output.shape[-2:]
    ph = _adaptive_matrix(h, oh, grad_output.dtype)
    pw = _adaptive_matrix(w, ow, grad_output.dtype)
    return _separable(_flat3(grad_output), ph.T, pw.T).reshape(self_size)


def adaptive_avg_pool2d_backward_grad_output(grad, grad_output_shape):
    return ADAPTIVE_AVG_POOL2D.public(grad, list(grad_output_shape[-2:]))


def _adaptive_samples(make, shapes):
    call = "nn.functional.adaptive_avg_pool2d"
    return [Sample((make((2, 3, 7, 6)), [3, 4]), call=call),
            Sample((make((3, 5, 5)), [5, 2]), call=call),
            Sample((make((1, 2, 4, 9)), [4, 3]), call=call)]


ADAPTIVE_AVG_POOL2D = defop(
    "adaptive_avg_pool2d", adaptive_avg_pool2d, derivatives={"self": adaptive_avg_pool2d_self},
    dtype="same", grad_fn_name="AdaptiveAvgPool2DBackward0", methods=(), functions=(),
    family=FAMILY, samples=_adaptive_samples)

ADAPTIVE_BACKWARD = defop(
    "adaptive_avg_pool2d_backward", adaptive_avg_pool2d_backward,
    inputs=("grad_output", "self"),
    derivatives={"grad_output": adaptive_avg_pool2d_backward_grad_output, "self": zeros_grad},
    dtype="same",
    grad_fn_name="AdaptiveAvgPool2DBackwardBackward0", methods=(), functions=(),
    family=FAMILY)

