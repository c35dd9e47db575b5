"""Average pooling: avg_pool2d/3d and adaptive_avg_pool2d/3d, with their backward ops.

Records named like ATen's (grad_fn ``AvgPool2DBackward0``, ``AvgPool3DBackward0``,
``AdaptiveAvgPool2DBackward0``, ``AdaptiveAvgPool3DBackward0``); each derivative calls the op's
``*_backward`` record, whose own derivative is the pooling again (they are adjoint linear maps),
so ``create_graph=True`` records PyTorch's ``...BackwardBackward0``. Windows are walked by
kernel offsets (see Note [Pooling by kernel offsets] in ``pooling.py``).

>>> import leafgrad as torch
>>> torch.nn.functional.avg_pool2d(torch.arange(16.).view(1, 1, 4, 4), 2)
tensor([[[[ 2.5000,  4.5000],
          [10.5000, 12.5000]]]])
"""
from __future__ import annotations

import functools
import math

import numpy as np

from .pointwise_common import zeros_grad
from .pooling import flat_planes, geometry, inner, offsets, padded
from .registry import Sample, defop

FAMILY = "pooling"

__all__ = ["ADAPTIVE_AVG_POOL", "AVG_POOL", "adaptive_matrix"]


# -- average pooling ----------------------------------------------------------------------------
def _avg_divisor(shape, kernel_size, stride, padding, out, count_include_pad, divisor_override):
    """PyTorch's divisor per output position, an array of the output's spatial shape."""
    if divisor_override is not None:
        return np.float64(divisor_override)
    n = len(kernel_size)
    sizes = []
    for size, k, s, p, o in zip(shape[-n:], kernel_size, stride, padding, out):
        start = np.arange(o) * s - p
        end = np.minimum(start + k, size + p)
        if count_include_pad:
            sizes.append(end - start)
        else:
            sizes.append(np.minimum(end, size) - np.maximum(start, 0))
    return functools.reduce(np.multiply.outer, sizes)


def _avg_pool(self, kernel_size, stride, padding, ceil_mode, count_include_pad,
              divisor_override):
    """Mean over each window of the last ``len(kernel_size)`` dims (ATen's ``avg_pool2d`` /
    ``avg_pool3d``)."""
    n = len(kernel_size)
    ones = (1,) * n
    out = geometry(self.shape, kernel_size, stride, padding, ones, ceil_mode)
    xb = flat_planes(self, n)
    need = tuple((o - 1) * s + k for o, s, k in zip(out, stride, kernel_size))
    xp = padded(xb, padding, need, 0)
    acc_dtype = self.dtype if self.dtype.kind == "f" else np.int64
    total = np.zeros((xb.shape[0],) + out, acc_dtype)
    for _, where in offsets(kernel_size, stride, ones, out):
        total += xp[where]
    div = _avg_divisor(self.shape, kernel_size, stride, padding, out, count_include_pad,
                       divisor_override)
    if self.dtype.kind == "f":
        result = (total / np.asarray(div, self.dtype)).astype(self.dtype, copy=False)
    else:
        # PyTorch divides integers as C does, rounding toward zero
        result = (np.sign(total) * (np.abs(total) // div)).astype(self.dtype)
    return result.reshape(self.shape[:-n] + out)


def _avg_pool_backward(grad_output, self, kernel_size, stride, padding, ceil_mode,
                       count_include_pad, divisor_override):
    """Each window's gradient spread evenly (by PyTorch's divisor) over the window."""
    n = len(kernel_size)
    self_size = self.shape
    out = grad_output.shape[-n:]
    spatial = self_size[-n:]
    div = _avg_divisor(self_size, kernel_size, stride, padding, out, count_include_pad,
                       divisor_override)
    g = flat_planes(grad_output, n) / np.asarray(div, grad_output.dtype)
    sizes = tuple(max((o - 1) * s + k, size + p) for o, s, k, size, p in
                  zip(out, stride, kernel_size, spatial, padding))
    gxp = np.zeros((g.shape[0],) + sizes, g.dtype)
    for _, where in offsets(kernel_size, stride, (1,) * n, out):
        gxp[where] += g
    return np.ascontiguousarray(inner(gxp, padding, spatial)).reshape(self_size)


def _avg_self(n):
    def avg_pool_self(grad, self, kernel_size, stride, padding, ceil_mode, count_include_pad,
                      divisor_override):
        return AVG_POOL_BACKWARD[n].public(grad, self, kernel_size, stride, padding, ceil_mode,
                                           count_include_pad, divisor_override)
    return avg_pool_self


def _avg_backward_grad_output(n):
    def avg_pool_backward_grad_output(grad, kernel_size, stride, padding, ceil_mode,
                                      count_include_pad, divisor_override):
        return AVG_POOL[n].public(grad, kernel_size, stride, padding, ceil_mode,
                                  count_include_pad, divisor_override)
    return avg_pool_backward_grad_output


def _avg_samples(n):
    call = f"nn.functional.avg_pool{n}d"
    if n == 2:
        cases = [((2, 3, 7, 6), [2, 2], [2, 2], [0, 0], False, True),
                 ((3, 5, 5), [3, 2], [2, 1], [1, 1], True, False),
                 ((1, 2, 8, 7), [2, 3], [3, 2], [1, 1], True, False)]
    else:
        cases = [((2, 2, 4, 5, 4), [2, 2, 2], [2, 2, 2], [0, 0, 0], False, True),
                 ((2, 5, 4, 5), [3, 2, 2], [2, 1, 2], [1, 1, 0], True, False),
                 ((1, 2, 5, 4, 6), [2, 3, 2], [1, 2, 3], [1, 1, 1], True, False)]

    def samples(make, shapes):
        return [Sample((make(shape), *args), call=call) for shape, *args in cases]
    return samples


AVG_POOL = {n: defop(
    f"avg_pool{n}d", _avg_pool, derivatives={"self": _avg_self(n)}, dtype="same",
    grad_fn_name=f"AvgPool{n}DBackward0", methods=(), functions=(), family=FAMILY,
    samples=_avg_samples(n)) for n in (2, 3)}

AVG_POOL_BACKWARD = {n: defop(
    f"avg_pool{n}d_backward", _avg_pool_backward, inputs=("grad_output", "self"),
    derivatives={"grad_output": _avg_backward_grad_output(n), "self": zeros_grad},
    dtype="same", grad_fn_name=f"AvgPool{n}DBackwardBackward0", methods=(), functions=(),
    family=FAMILY) for n in (2, 3)}


# -- adaptive average pooling -------------------------------------------------------------------
def adaptive_matrix(size: int, out: int, dtype):
    """(out, size) averaging matrix: row i averages input[floor(i*size/out):ceil((i+1)*size/out)]
    (the pooling is separable, so adaptive pooling is one small matrix product per dim)."""
    m = np.zeros((out, size), dtype)
    for i in range(out):
        start, end = (i * size) // out, -(-((i + 1) * size) // out)
        m[i, start:end] = 1.0 / (end - start)
    return m


def _separable(x, mats):
    """``x`` (B, *S) with each spatial dim ``d`` mapped by the matrix ``mats[d]`` (out, S[d]):
    one plain matrix product per dim, the dim moved last for it. With a NaN or an infinity in
    ``x`` each output sums only its own window (a product would spread NaN through the zero
    weights: 0 * inf), so it stays in the windows holding it, as in PyTorch's loops."""
    finite = x.dtype.kind != "f" or bool(np.isfinite(x).all())
    for d, m in enumerate(mats):
        axis = 1 + d
        moved = np.moveaxis(x, axis, -1)
        if finite:
            out = moved @ m.T
        else:
            out = np.zeros(moved.shape[:-1] + (m.shape[0],), np.result_type(moved, m))
            for i in range(m.shape[0]):
                for j in np.nonzero(m[i])[0]:
                    out[..., i] += moved[..., j] * m[i, j]
        x = np.moveaxis(out, -1, axis)
    return np.ascontiguousarray(x)


def _adaptive_avg_pool(self, output_size):
    """Average over PyTorch's adaptive windows so the last dims become ``output_size``."""
    n = len(output_size)
    # the 2-d kernel returns an empty output before its dtype dispatch; the 3-d one does not
    if self.dtype.kind != "f" and (n == 3 or (self.size and math.prod(output_size))):
        kernel = "adaptive_avg_pool2d" if n == 2 else "adaptive_avg_pool3d_cpu"
        raise NotImplementedError(f'"{kernel}" not implemented for '
                                  f"'{_TYPE_NAMES.get(self.dtype.name, self.dtype.name)}'")
    if not self.size or not math.prod(output_size):
        return np.zeros(self.shape[:-n] + tuple(output_size), self.dtype)
    mats = [adaptive_matrix(size, o, self.dtype) for size, o in zip(self.shape[-n:], output_size)]
    return _separable(flat_planes(self, n), mats).reshape(self.shape[:-n] + tuple(output_size))


_TYPE_NAMES = {"int64": "Long", "int32": "Int", "int16": "Short", "int8": "Char",
               "uint8": "Byte", "bool": "Bool"}


def _adaptive_backward(n):
    def adaptive_avg_pool_backward(grad_output, self):
        """The adjoint: each spatial dim mapped by its averaging matrix transposed."""
        for i in range(1, grad_output.ndim):   # PyTorch's check (an empty batch is fine)
            if grad_output.shape[i] == 0:
                raise RuntimeError(
                    f"adaptive_avg_pool{n}d_backward(): Expected grad_output to have non-zero "
                    f"size for non-batch dimensions, but grad_output has sizes "
                    f"[{', '.join(map(str, grad_output.shape))}] with dimension {i} being empty")
        mats = [adaptive_matrix(size, o, grad_output.dtype).T
                for size, o in zip(self.shape[-n:], grad_output.shape[-n:])]
        return _separable(flat_planes(grad_output, n), mats).reshape(self.shape)
    return adaptive_avg_pool_backward


def _adaptive_self(n):
    def adaptive_avg_pool_self(grad, self):
        return ADAPTIVE_AVG_POOL_BACKWARD[n].public(grad, self)
    return adaptive_avg_pool_self


def _adaptive_backward_grad_output(n):
    def adaptive_avg_pool_backward_grad_output(grad, grad_output_shape):
        return ADAPTIVE_AVG_POOL[n].public(grad, list(grad_output_shape[-n:]))
    return adaptive_avg_pool_backward_grad_output


def _adaptive_samples(n):
    call = f"nn.functional.adaptive_avg_pool{n}d"
    cases = {2: [((2, 3, 7, 6), [3, 4]), ((3, 5, 5), [5, 2]), ((1, 2, 4, 9), [4, 3])],
             3: [((2, 2, 5, 4, 6), [3, 2, 4]), ((2, 5, 3, 4), [2, 3, 3])]}[n]

    def samples(make, shapes):
        return [Sample((make(shape), size), call=call) for shape, size in cases]
    return samples


ADAPTIVE_AVG_POOL = {n: defop(
    f"adaptive_avg_pool{n}d", _adaptive_avg_pool, derivatives={"self": _adaptive_self(n)},
    dtype="same", grad_fn_name=f"AdaptiveAvgPool{n}DBackward0", methods=(), functions=(),
    family=FAMILY, samples=_adaptive_samples(n)) for n in (2, 3)}

ADAPTIVE_AVG_POOL_BACKWARD = {n: defop(
    f"adaptive_avg_pool{n}d_backward", _adaptive_backward(n), inputs=("grad_output", "self"),
    derivatives={"grad_output": _adaptive_backward_grad_output(n), "self": zeros_grad},
    dtype="same", grad_fn_name=f"AdaptiveAvgPool{n}DBackwardBackward0", methods=(),
    functions=(), family=FAMILY) for n in (2, 3)}
