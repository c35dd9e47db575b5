"""Upsampling as single records, one per ATen op: ``upsample_nearest{1,2,3}d``,
``_upsample_nearest_exact{1,2,3}d``, ``upsample_linear1d``, ``upsample_bilinear2d``,
``upsample_trilinear3d`` and ``upsample_bicubic2d`` (grad_fn ``UpsampleNearest2DBackward0``,
``UpsampleBilinear2DBackward0``, ...). ``F.interpolate`` chooses among them.

Note [Separable upsampling]
Every mode here is separable: an output element is a weighted sum over a few input positions
along each spatial dim (1 tap for nearest, 2 for linear, 4 for cubic), and PyTorch's CPU
kernel nests those sums with the last dim innermost. So the forward applies one dim at a time,
last dim first, as ``sum_k take(x, index[k], dim) * weight[k]``, computing the source positions
and weights in the kernel's "opmath" type (float32 for float32 input) with the kernel's index
rules. The backward is the adjoint of that linear map: per dim, a product with the dense
(out, in) interpolation matrix, written in leafgrad ops so that it is differentiable again.

>>> import leafgrad as torch
>>> torch.nn.functional.interpolate(torch.tensor([[[1., 2.]]]), scale_factor=2)
tensor([[[1., 1., 2., 2.]]])
"""
from __future__ import annotations

import math

import numpy as np

from ..dtypes import from_numpy_dtype
from .registry import Sample, defop

FAMILY = "upsample"

__all__ = ["UPSAMPLE", "upsample_output_size"]

_DIMS = {1: ("W",), 2: ("H", "W"), 3: ("D", "H", "W")}


def _opmath(dtype):
    return np.float64 if dtype == np.float64 else np.float32


def upsample_output_size(input_shape, output_size, scale_factors, n: int) -> list:
    """The output's spatial sizes (ATen's upsample_compute_output_size), with its errors."""
    if output_size is not None:
        if scale_factors is not None:
            raise RuntimeError("Must specify exactly one of output_size and scale_factors")
        if len(output_size) != n:
            raise RuntimeError(f"It is expected output_size equals to {n}, but got size "
                               f"{len(output_size)}")
        return [int(s) for s in output_size]
    if scale_factors is None:
        raise RuntimeError("Must specify exactly one of output_size and scale_factors")
    if len(scale_factors) != n:
        raise RuntimeError(f"It is expected scale_factors equals to {n}, but got size "
                           f"{len(scale_factors)}")
    return [int(math.floor(float(s) * float(f)))
            for s, f in zip(input_shape[-n:], scale_factors)]


def _check(input_shape, out, n: int) -> None:
    """ATen's upsample_{1,2,3}d_common_check: positive spatial sizes first, then a non-empty
    sample (a zero batch is fine)."""
    full = len(input_shape) == n + 2
    spatial = input_shape[2:] if full else input_shape[-n:]
    if min(spatial) <= 0 or min(out) <= 0:
        names = _DIMS[n]
        ins = ", ".join(f"{a}: {s}" for a, s in zip(names, spatial))
        outs = ", ".join(f"{a}: {s}" for a, s in zip(names, out))
        joint = " and" if n == 1 else ""    # the 1-d message alone says "and output"
        raise RuntimeError(f"Input and output sizes should be greater than 0, but got input "
                           f"({ins}){joint} output ({outs})")
    if not full or math.prod(input_shape[1:]) == 0:
        raise RuntimeError(f"Non-empty {n + 2}D data tensor expected but got a tensor with "
                           f"sizes [{', '.join(map(str, input_shape))}]")


# The dtype dispatch that refuses integer and bool inputs, by (mode, spatial dims): its name
# and whether it takes uint8. The 2-d nearest and bilinear kernels name their channels-last
# variant whatever the layout; the others fail computing their indices and weights.
_KERNELS = {("nearest", 2): ("upsample_nearest2d_channels_last", True),
            ("linear", 2): ("upsample_bilinear2d_channels_last", True),
            ("nearest", 1): ("compute_indices_weights_nearest", True),
            ("nearest", 3): ("compute_indices_weights_nearest", True),
            ("linear", 1): ("compute_indices_weights_linear", False),
            ("linear", 3): ("compute_indices_weights_linear", False),
            ("cubic", 2): ("compute_indices_weights_cubic", True)}


def _channels_last_3d(a) -> bool:
    """PyTorch's is_contiguous(ChannelsLast3d): dims C, W, H, D, N dense in that order
    (size-1 dims skipped)."""
    expected = 1
    for d in (1, 4, 3, 2, 0):
        if a.shape[d] != 1:
            if a.strides[d] != expected * a.itemsize:
                return False
            expected *= a.shape[d]
    return True


def _check_dtype(mode, dtype, n, input=None):
    if dtype.kind == "f" or dtype.kind == "c":
        return
    kernel, uint8 = _KERNELS["nearest" if mode == "nearest_exact" else mode, n]
    if n == 3 and input is not None and input.shape[1] > 3 and _channels_last_3d(input):
        # the 3-d kernels take their vectorized channels-last path for a channels-last input
        # of more than 3 channels (a (N, C, 1, 1, 1) tensor is one; seed 124)
        kernel = f"upsample_{'trilinear' if mode == 'linear' else 'nearest'}3d_channels_last"
    if uint8 and dtype == np.uint8:
        return
    raise NotImplementedError(f'"{kernel}" not implemented for '
                              f"'{from_numpy_dtype(dtype).tensor_type[:-6]}'")


def _scale(in_size, out_size, scale, opmath):
    """compute_scales_value: 1/scale when a positive scale was given, else in/out."""
    if scale is not None and scale > 0:
        return opmath(1.0 / scale)
    return opmath(in_size) / opmath(out_size)


def _taps(mode, in_size, out_size, scale, align_corners, opmath):
    """(indices (k, out), weights (k, out) or None) of one dim (see Note [Separable ...])."""
    dst = np.arange(out_size)
    if mode in ("nearest", "nearest_exact"):
        if mode == "nearest" and out_size == in_size:
            return dst[None], None
        if mode == "nearest" and out_size == 2 * in_size:
            return (dst >> 1)[None], None
        s = _scale(in_size, out_size, scale, np.float32)
        pos = dst.astype(np.float32) if mode == "nearest" else dst.astype(np.float32) + \
            np.float32(0.5)
        idx = np.minimum(np.floor(pos * s).astype(np.int64), in_size - 1)
        return idx[None], None
    if mode == "linear" and out_size == in_size:
        # compute_source_index_and_lambda: "scale_factor = 1, simply copy": both taps the
        # same element, weights 1 and 0 (a NaN neighbour is not pulled in)
        return np.stack([dst, dst]), np.stack([np.ones(out_size, opmath),
                                               np.zeros(out_size, opmath)])
    if align_corners:
        s = opmath(in_size - 1) / opmath(out_size - 1) if out_size > 1 else opmath(0)
        src = s * dst.astype(opmath)
    else:
        s = _scale(in_size, out_size, scale, opmath)
        src = s * (dst.astype(opmath) + opmath(0.5)) - opmath(0.5)
        if mode == "linear":
            src = np.maximum(src, opmath(0))
    if mode == "linear":
        i0 = np.minimum(np.floor(src).astype(np.int64), in_size - 1)
        lam1 = np.clip(src - i0.astype(opmath), opmath(0), opmath(1))
        i1 = i0 + (i0 < in_size - 1)
        return np.stack([i0, i1]), np.stack([opmath(1) - lam1, lam1])
    base = np.floor(src)
    t = (src - base).astype(opmath)
    a = opmath(-0.75)

    def conv1(x):
        return ((a + 2) * x - (a + 3)) * x * x + 1

    def conv2(x):
        return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a

    one = opmath(1)
    weights = np.stack([conv2(t + one), conv1(t), conv1(one - t), conv2(one - t + one)])
    idx = np.stack([np.clip(base.astype(np.int64) - 1 + k, 0, in_size - 1) for k in range(4)])
    return idx, weights.astype(opmath)


def _plan(mode, input_shape, output_size, scale_factors, align_corners, dtype):
    n = len(input_shape) - 2
    out = upsample_output_size(input_shape, output_size, scale_factors, n)
    _check(tuple(input_shape), out, n)
    scales = list(scale_factors) if scale_factors is not None else [None] * n
    opmath = _opmath(dtype)
    return [_taps(mode, input_shape[2 + d], out[d], scales[d], align_corners, opmath)
            for d in range(n)]


def _apply(mode, input, output_size, scale_factors, align_corners=False):
    plan = _plan(mode, input.shape, output_size, scale_factors, align_corners, input.dtype)
    _check_dtype(mode, input.dtype, len(plan), input)
    y = input
    opmath = _opmath(input.dtype) if input.dtype.kind == "f" else None
    for d in reversed(range(len(plan))):
        axis = 2 + d
        idx, w = plan[d]
        if w is None:
            y = np.take(y, idx[0], axis=axis)
            continue
        shape = (-1,) + (1,) * (y.ndim - axis - 1)
        acc = None
        for k in range(idx.shape[0]):
            term = np.take(y, idx[k], axis=axis).astype(opmath, copy=False) * \
                w[k].reshape(shape)
            acc = term if acc is None else acc + term
        y = acc.astype(input.dtype, copy=False)
    return np.ascontiguousarray(y)


def _adjoint(mode, grad, input_shape, output_size, scale_factors, align_corners=False):
    """The gradient w.r.t. the input (arrays): per dim, each output's gradient (times its
    tap's weight) added onto the input positions it read, in the gradient's dtype. Added,
    as ATen's backward kernels do, not a product with the dense (out, in) matrix: an inf or
    NaN gradient reaches only the positions its output read (seed 132: 0 * NaN from the
    matrix's zeros made every position NaN)."""
    dtype = grad.dtype
    plan = _plan(mode, input_shape, output_size, scale_factors, align_corners, dtype)
    acc = _opmath(dtype) if dtype.kind == "f" else dtype   # (half sums in float)
    grad = grad.astype(acc, copy=False)
    for d, (idx, w) in enumerate(plan):
        axis = 2 + d
        g = np.moveaxis(grad, axis, -1)
        lead = g.shape[:-1]
        g = g.reshape(-1, g.shape[-1])
        out = np.zeros((g.shape[0], input_shape[axis]), acc)
        with np.errstate(all="ignore"):
            for k in range(idx.shape[0]):
                np.add.at(out, (slice(None), idx[k]), g if w is None else g * w[k].astype(acc))
        grad = np.moveaxis(out.reshape(lead + (input_shape[axis],)), -1, axis)
    return np.ascontiguousarray(grad.astype(dtype, copy=False))


# -- the records ---------------------------------------------------------------------------------
# Each op's backward is a record of its own, as PyTorch's upsample_*_backward: under
# create_graph the gradient's node is Upsample...BackwardBackward0, whose derivative is the
# forward op again (both maps are linear).
UPSAMPLE = {}
UPSAMPLE_BACKWARD = {}


def _nearest_record(name, mode, grad_fn_name, n):
    def forward(input, output_size, scale_factors):
        return _apply(mode, input, output_size, scale_factors)

    def formula(grad, input_shape, output_size, scale_factors):
        return UPSAMPLE_BACKWARD[name].public(grad, list(input_shape), output_size,
                                              scale_factors)

    def backward(grad_output, input_size, output_size, scale_factors):
        return _adjoint(mode, grad_output, input_size, output_size, scale_factors)

    def backward_grad_output(grad, output_size, scale_factors):
        return UPSAMPLE[name].public(grad, output_size, scale_factors)

    forward.__name__ = name
    formula.__name__ = f"{name}_input"
    backward.__name__ = f"{name}_backward"

    def samples(make, shapes):
        call = "nn.functional.interpolate"
        kind = "nearest" if mode == "nearest" else "nearest-exact"
        spatial = (3, 4, 2)[:n]
        return [Sample((make((2, 3) + spatial),), {"scale_factor": 2, "mode": kind}, call=call),
                Sample((make((1, 2) + spatial),), {"size": (5, 3, 4)[:n], "mode": kind},
                       call=call),
                Sample((make((1, 2) + spatial),), {"scale_factor": 1.7, "mode": kind},
                       call=call)]

    UPSAMPLE[name] = defop(name, forward, inputs=("input",), derivatives={"input": formula},
                           dtype="same", methods=(), functions=(), grad_fn_name=grad_fn_name,
                           family=FAMILY, samples=samples)
    UPSAMPLE_BACKWARD[name] = defop(
        f"{name}_backward", backward, inputs=("grad_output",),
        derivatives={"grad_output": backward_grad_output}, dtype="same", methods=(),
        functions=(), grad_fn_name=grad_fn_name.replace("Backward0", "BackwardBackward0"),
        family=FAMILY)


def _linear_record(name, mode, grad_fn_name, n, fmode):
    def forward(input, output_size, align_corners, scale_factors):
        return _apply(mode, input, output_size, scale_factors, align_corners)

    def formula(grad, input_shape, output_size, align_corners, scale_factors):
        return UPSAMPLE_BACKWARD[name].public(grad, list(input_shape), output_size,
                                              align_corners, scale_factors)

    def backward(grad_output, input_size, output_size, align_corners, scale_factors):
        return _adjoint(mode, grad_output, input_size, output_size, scale_factors,
                        align_corners)

    def backward_grad_output(grad, output_size, align_corners, scale_factors):
        return UPSAMPLE[name].public(grad, output_size, align_corners, scale_factors)

    forward.__name__ = name
    formula.__name__ = f"{name}_input"
    backward.__name__ = f"{name}_backward"

    def samples(make, shapes):
        call = "nn.functional.interpolate"
        spatial = (3, 4, 2)[:n]
        return [Sample((make((2, 2) + spatial),), {"scale_factor": 2, "mode": fmode},
                       call=call),
                Sample((make((1, 2) + spatial),), {"size": (5, 7, 3)[:n], "mode": fmode,
                                                   "align_corners": True}, call=call),
                Sample((make((1, 2) + spatial),), {"size": (2, 3, 1)[:n], "mode": fmode},
                       call=call),
                Sample((make((1, 1) + spatial),), {"scale_factor": 1.6, "mode": fmode},
                       call=call),
                Sample((make((1, 1) + spatial).astype(np.float32),),
                       {"scale_factor": 2.5, "mode": fmode}, call=call, atol=1e-5)]

    UPSAMPLE[name] = defop(name, forward, inputs=("input",), derivatives={"input": formula},
                           dtype="same", methods=(), functions=(), grad_fn_name=grad_fn_name,
                           family=FAMILY, samples=samples)
    UPSAMPLE_BACKWARD[name] = defop(
        f"{name}_backward", backward, inputs=("grad_output",),
        derivatives={"grad_output": backward_grad_output}, dtype="same", methods=(),
        functions=(), grad_fn_name=grad_fn_name.replace("Backward0", "BackwardBackward0"),
        family=FAMILY)


for _n in (1, 2, 3):
    _nearest_record(f"upsample_nearest{_n}d", "nearest", f"UpsampleNearest{_n}DBackward0", _n)
    _nearest_record(f"_upsample_nearest_exact{_n}d", "nearest_exact",
                    f"UpsampleNearestExact{_n}DBackward0", _n)
_linear_record("upsample_linear1d", "linear", "UpsampleLinear1DBackward0", 1, "linear")
_linear_record("upsample_bilinear2d", "linear", "UpsampleBilinear2DBackward0", 2, "bilinear")
_linear_record("upsample_trilinear3d", "linear", "UpsampleTrilinear3DBackward0", 3, "trilinear")
_linear_record("upsample_bicubic2d", "cubic", "UpsampleBicubic2DBackward0", 2, "bicubic")
del _n
