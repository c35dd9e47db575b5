"""Single-op nn layers: ``_prelu_kernel`` (``PreluKernelBackward0``), ``pixel_shuffle`` /
``pixel_unshuffle``, ``native_channel_shuffle`` (``ChannelShuffleBackward0``), ``im2col`` /
``col2im`` (``F.unfold`` / ``F.fold``), ``_pdist_forward`` (``PdistBackward0``) and
``Tensor.unfold`` (a strided view, ``UnfoldBackward0``).

The rearranging ops are linear, so each one's derivative is its adjoint op (pixel_shuffle's is
pixel_unshuffle, im2col's is col2im, a shuffle of ``g`` groups is undone by one of ``C / g``);
the formulas call the other record, so double backward works.

>>> import leafgrad as torch
>>> torch.nn.functional.pixel_shuffle(torch.arange(4.).reshape(1, 4, 1, 1), 2)
tensor([[[[0., 1.],
          [2., 3.]]]])
"""
from __future__ import annotations

import numpy as np

from ..grad_mode import state as _mode
from ..errors import no_dims_error
from ..tensor import _wrap_dim
from .backward_ops import PRELU_KERNEL_BACKWARD, joint_output
from .registry import Sample, defop, export_function

FAMILY = "nn_extra"

__all__ = ["PRELU", "PIXEL_SHUFFLE", "PIXEL_UNSHUFFLE", "CHANNEL_SHUFFLE", "IM2COL", "COL2IM",
           "PDIST", "UNFOLD", "pdist"]

_NN = "nn.functional."


# -- prelu ---------------------------------------------------------------------------------------
def _prelu_kernel(self, weight):
    """``x`` where positive, ``weight * x`` elsewhere (weight already broadcastable)."""
    return np.where(self > 0, self, weight * self).astype(np.result_type(self, weight),
                                                           copy=False)


def _prelu_kernel_self(grad, self, weight):
    if _mode.grad_enabled:   # one recorded _prelu_kernel_backward (Note [Joint backward ops])
        return joint_output((grad, self, weight), 0, 2,
                            lambda: PRELU_KERNEL_BACKWARD.public(grad, self, weight))
    return grad.where(self > 0, grad * weight)


def _prelu_kernel_weight(grad, self, weight):   # weight: PyTorch saves both for either
    if _mode.grad_enabled:
        return joint_output((grad, self, weight), 1, 2,
                            lambda: PRELU_KERNEL_BACKWARD.public(grad, self, weight))
    return (grad * self).where(self <= 0, grad.new_zeros(()))


def _prelu_samples(make, shapes):
    call = _NN + "prelu"
    return [Sample((make((2, 3, 4)), make((3,))), call=call),
            Sample((make((5,)), make((1,))), call=call),
            Sample((make((2, 3)), make(())), call=call),
            Sample((make((2, 4, 2, 2)), make((1,))), call=call)]


PRELU = defop("_prelu_kernel", _prelu_kernel, inputs=("self", "weight"),
              derivatives={"self": _prelu_kernel_self, "weight": _prelu_kernel_weight},
              methods=(), functions=(), family=FAMILY, samples=_prelu_samples)


# -- pixel shuffle -------------------------------------------------------------------------------
def _check_shuffle(name, self, factor, what):
    if self.ndim < 3:
        raise RuntimeError(f"{name} expects input to have at least 3 dimensions, but got input "
                           f"with {self.ndim} dimension(s)")
    if factor <= 0:
        raise RuntimeError(f"{name} expects a positive {what}, but got {factor}")


def pixel_shuffle(self, upscale_factor):
    """(*, C*r*r, H, W) -> (*, C, H*r, W*r)."""
    r = upscale_factor
    _check_shuffle("pixel_shuffle", self, r, "upscale_factor")
    c, h, w = self.shape[-3:]
    if c % (r * r):
        raise RuntimeError(f"pixel_shuffle expects its input's 'channel' dimension to be "
                           f"divisible by the square of upscale_factor, but input.size(-3)={c} "
                           f"is not divisible by {r * r}")
    lead = self.shape[:-3]
    n = len(lead)
    x = self.reshape(lead + (c // (r * r), r, r, h, w))
    x = x.transpose(tuple(range(n)) + (n, n + 3, n + 1, n + 4, n + 2))
    return np.array(x, order="C").reshape(lead + (c // (r * r), h * r, w * r))   # a copy


def pixel_unshuffle(self, downscale_factor):
    """(*, C, H*r, W*r) -> (*, C*r*r, H, W)."""
    r = downscale_factor
    _check_shuffle("pixel_unshuffle", self, r, "downscale_factor")
    c, h, w = self.shape[-3:]
    for what, size, d in (("height", h, -2), ("width", w, -1)):
        if size % r:
            raise RuntimeError(f"pixel_unshuffle expects {what} to be divisible by "
                               f"downscale_factor, but input.size({d})={size} is not divisible "
                               f"by {r}")
    if self.size == 0:   # PyTorch's CPU kernel returns a clone of an empty input, shape kept
        return self.copy()
    lead = self.shape[:-3]
    n = len(lead)
    x = self.reshape(lead + (c, h // r, r, w // r, r))
    x = x.transpose(tuple(range(n)) + (n, n + 2, n + 4, n + 1, n + 3))
    return np.array(x, order="C").reshape(lead + (c * r * r, h // r, w // r))   # a copy


def pixel_shuffle_self(grad, upscale_factor):
    return PIXEL_UNSHUFFLE.public(grad, upscale_factor)


def pixel_unshuffle_self(grad, downscale_factor):
    g = PIXEL_SHUFFLE.public(grad, downscale_factor)
    if grad._data.size == 0:   # the forward kept the empty input's shape: so must this
        from ..autograd.reduce_grad import fit_to
        return fit_to(g, grad._data.shape, "PixelUnshuffleBackward0", 0)
    return g


PIXEL_SHUFFLE = defop(
    "pixel_shuffle", pixel_shuffle, derivatives={"self": pixel_shuffle_self}, dtype="same",
    methods=(), family=FAMILY,
    samples=lambda make, shapes: [Sample((make((2, 8, 2, 3)), 2)),
                                  Sample((make((9, 1, 2)), 3)),
                                  Sample((make((2, 1, 4, 1, 2)), 1))])
PIXEL_UNSHUFFLE = defop(
    "pixel_unshuffle", pixel_unshuffle, derivatives={"self": pixel_unshuffle_self},
    dtype="same", methods=(), family=FAMILY,
    samples=lambda make, shapes: [Sample((make((2, 2, 4, 6)), 2)),
                                  Sample((make((1, 3, 3)), 3))])


# -- channel shuffle -----------------------------------------------------------------------------
def native_channel_shuffle(self, groups):
    """(N, g*k, *) viewed (N, g, k, *), swapped to (N, k, g, *)."""
    if self.ndim <= 2:
        raise RuntimeError(f"channel_shuffle expects input with > 2 dims, but got input with "
                           f"sizes [{', '.join(map(str, self.shape))}]")
    if groups <= 0:
        raise RuntimeError(f"Number of groups to divide channels in must be positive. Value "
                           f"of groups:{groups}")
    c = self.shape[1]
    if c % groups:
        raise RuntimeError(f"Number of channels must be divisible by groups. Got {c} channels "
                           f"and {groups} groups.")
    x = self.reshape((self.shape[0], groups, c // groups) + self.shape[2:]).swapaxes(1, 2)
    return np.array(x, order="C").reshape(self.shape)   # a copy, also when no axis moves


def native_channel_shuffle_self(grad, groups):
    return CHANNEL_SHUFFLE.public(grad, grad.shape[1] // groups)


CHANNEL_SHUFFLE = defop(
    "native_channel_shuffle", native_channel_shuffle,
    derivatives={"self": native_channel_shuffle_self}, dtype="same", methods=(),
    functions=("channel_shuffle", "native_channel_shuffle"),
    grad_fn_name="ChannelShuffleBackward0", family=FAMILY,
    samples=lambda make, shapes: [Sample((make((2, 6, 3)), 2)), Sample((make((1, 6, 2, 2)), 3))])


# -- im2col / col2im -----------------------------------------------------------------------------
def _blocks(spatial, kernel_size, dilation, padding, stride):
    return tuple((spatial[d] + 2 * padding[d] - dilation[d] * (kernel_size[d] - 1) - 1)
                 // stride[d] + 1 for d in range(2))


def _t(v):
    return f"({v[0]}, {v[1]})"


def _size(shape, dim):
    """``input.size(dim)`` with PyTorch's errors."""
    if not shape:
        raise no_dims_error(dim)
    return shape[_wrap_dim(dim, len(shape))]


def _no_integers(x, kernel):
    """im2col/col2im run on floating types and bool, not on integers."""
    if x.dtype.kind in "iu":
        from .pointwise_common import not_implemented_for
        raise not_implemented_for(kernel, x.dtype)


def _shape_list(shape):
    return "[" + ", ".join(map(str, shape)) + "]"


_PARAM_CHECKS = {
    "kernel": ("kernel size should be greater than zero, but got kernel_height: {} "
               "kernel_width: {}", 1),
    "dilation": ("dilation should be greater than zero, but got dilation_height: {} "
                 "dilation_width: {}", 1),
    "padding": ("padding should be non-negative, but got pad_height: {} pad_width: {}", 0),
    "stride": ("stride should be greater than zero, but got stride_height: {} "
               "stride_width: {}", 1)}


def _check_params(**params):
    """ATen's im2col/col2im argument checks, in the order given."""
    for what, (h, w) in params.items():
        text, least = _PARAM_CHECKS[what]
        if h < least or w < least:
            raise RuntimeError(text.format(h, w))


def im2col(self, kernel_size, dilation, padding, stride):
    """(N, C, H, W) -> (N, C*kh*kw, L): each column one sliding block, channel-major."""
    _check_params(kernel=kernel_size, dilation=dilation, padding=padding, stride=stride)
    shape = self.shape
    _size(shape, 1) != 0 and _size(shape, 2)   # ATen reads both first (IndexError below 3-D)
    if not (self.ndim == 3 and 0 not in shape or self.ndim == 4 and 0 not in shape[1:]):
        raise RuntimeError(f"Expected 3D or 4D (batch mode) tensor with possibly 0 batch size "
                           f"and other non-zero dimensions for input, but got: "
                           f"{_shape_list(shape)}")
    batched = self.ndim == 4
    x = self if batched else self[None]
    n, c, h, w = x.shape
    oh, ow = _blocks((h, w), kernel_size, dilation, padding, stride)
    if oh < 1 or ow < 1:
        raise RuntimeError(f"Given input with spatial size {_t((h, w))}, kernel_size="
                           f"{_t(kernel_size)}, dilation={_t(dilation)}, padding={_t(padding)}, "
                           f"calculated shape of the array of sliding blocks as {_t((oh, ow))}, "
                           f"but its components must be at least one.")
    _no_integers(self, "im2col_out_cpu")
    (kh, kw), (dh, dw), (ph, pw), (sh, sw) = kernel_size, dilation, padding, stride
    xp = np.pad(x, ((0, 0), (0, 0), (ph, ph), (pw, pw)))
    out = np.empty((n, c, kh, kw, oh, ow), dtype=self.dtype)
    for i in range(kh):
        for j in range(kw):
            out[:, :, i, j] = xp[:, :, i * dh: i * dh + sh * (oh - 1) + 1: sh,
                                 j * dw: j * dw + sw * (ow - 1) + 1: sw]
    out = out.reshape(n, c * kh * kw, oh * ow)
    return out if batched else out[0]


def col2im(self, output_size, kernel_size, dilation, padding, stride):
    """(N, C*kh*kw, L) -> (N, C, H, W): the blocks summed back into place."""
    _check_params(kernel=kernel_size, stride=stride, dilation=dilation, padding=padding)
    shape = self.shape
    if not (self.ndim == 2 and 0 not in shape or self.ndim == 3 and 0 not in shape[1:]):
        raise RuntimeError(f"Expected 2D or 3D (batch mode) tensor for input with possibly 0 "
                           f"batch size and non-zero dimensions for input, but got: "
                           f"{_shape_list(shape)}")
    batched = self.ndim == 3
    cols = self if batched else self[None]
    n, ckk, length = cols.shape
    (kh, kw), (dh, dw), (ph, pw), (sh, sw) = kernel_size, dilation, padding, stride
    if ckk % (kh * kw):
        raise RuntimeError(f"Expected size of input's dimension 1 to be divisible by the "
                           f"product of kernel_size, but got input.size(1)={ckk} and "
                           f"kernel_size={_t(kernel_size)}.")
    oh, ow = _blocks(output_size, kernel_size, dilation, padding, stride)
    if oh * ow != length:
        raise RuntimeError(f"Given output_size={_t(output_size)}, kernel_size="
                           f"{_t(kernel_size)}, dilation={_t(dilation)}, padding={_t(padding)}, "
                           f"stride={_t(stride)}, expected size of input's dimension 2 to match "
                           f"the calculated number of sliding blocks {oh} * {ow} = {oh * ow}, "
                           f"but got input.size(2)={length}.")
    if oh < 1 or ow < 1:
        raise RuntimeError(f"Given output_size={_t(output_size)}, kernel_size="
                           f"{_t(kernel_size)}, dilation={_t(dilation)}, padding={_t(padding)}, "
                           f"stride={_t(stride)}, calculated shape of the array of sliding "
                           f"blocks as {_t((oh, ow))}, which is too small (non-positive)")
    _no_integers(self, "col2im_out_cpu")
    c = ckk // (kh * kw)
    h, w = output_size
    blocks = cols.reshape(n, c, kh, kw, oh, ow)
    out = np.zeros((n, c, h + 2 * ph, w + 2 * pw), dtype=self.dtype)
    for i in range(kh):
        for j in range(kw):
            out[:, :, i * dh: i * dh + sh * (oh - 1) + 1: sh,
                j * dw: j * dw + sw * (ow - 1) + 1: sw] += blocks[:, :, i, j]
    out = np.ascontiguousarray(out[:, :, ph: ph + h, pw: pw + w])
    return out if batched else out[0]


def im2col_self(grad, self_shape, kernel_size, dilation, padding, stride):
    return COL2IM.public(grad, tuple(self_shape[-2:]), kernel_size, dilation, padding, stride)


def col2im_self(grad, kernel_size, dilation, padding, stride):
    return IM2COL.public(grad, kernel_size, dilation, padding, stride)


def _im2col_samples(make, shapes):
    return [Sample((make((2, 3, 4, 5)), 2), call=_NN + "unfold"),
            Sample((make((1, 2, 5, 4)), (2, 3)), {"dilation": (1, 2), "padding": 1,
                                                   "stride": (2, 1)}, call=_NN + "unfold"),
            Sample((make((2, 3, 3)), 2), call=_NN + "unfold")]


def _col2im_samples(make, shapes):
    return [Sample((make((2, 12, 12)), (4, 5), 2), call=_NN + "fold"),
            Sample((make((1, 6, 3)), (4, 4), (2, 3)), {"dilation": (1, 2), "padding": 1,
                                                        "stride": 2}, call=_NN + "fold"),
            Sample((make((4, 4)), (3, 3), 2), call=_NN + "fold")]


IM2COL = defop("im2col", im2col, derivatives={"self": im2col_self}, dtype="same", methods=(),
               grad_fn_name="Im2ColBackward0",
               functions=(), family=FAMILY, samples=_im2col_samples)
COL2IM = defop("col2im", col2im, derivatives={"self": col2im_self}, dtype="same", methods=(),
               grad_fn_name="Col2ImBackward0",
               functions=(), family=FAMILY, samples=_col2im_samples)


# -- pdist ---------------------------------------------------------------------------------------
def _pairs(n):
    return np.triu_indices(n, 1)


def _pdist_forward(self, p=2.0):
    """The p-norm distance of every pair of rows i < j, in row-major order."""
    i, j = _pairs(self.shape[0])
    diff = np.abs(self[i] - self[j])
    if p == 0:
        out = np.minimum(np.ceil(diff), 1).sum(-1)   # (PyTorch's: a NaN difference is NaN)
    elif p == np.inf:
        out = diff.max(-1, initial=0)
    elif p == 1:
        out = diff.sum(-1)
    elif p == 2:
        out = np.sqrt((diff * diff).sum(-1))
    else:
        out = (diff ** p).sum(-1) ** (1.0 / p)
    return np.ascontiguousarray(out, dtype=self.dtype)


def _pdist_forward_self(grad, self, p, result):
    if self._data.dtype == np.float16:   # PyTorch's backward kernel has no half version
        raise NotImplementedError("\"pdist_backward\" not implemented for 'Half'")
    return PDIST_BACKWARD.public(grad, self, p, result)


def _pdist_backward(grad, self, p, pdist):
    """Each pair's gradient goes to row i and, negated, to row j (PyTorch's _pdist_backward:
    zero where the distance is zero, and everywhere for p = 0)."""
    out = np.zeros(self.shape, self.dtype)
    if p == 0 or not pdist.size:
        return out
    i, j = _pairs(self.shape[0])
    diff = self[i] - self[j]
    dist = pdist[:, None]
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        if p == 1:
            local = np.sign(diff)
        elif p == np.inf:
            local = np.sign(diff) * (np.abs(diff) == dist)
        elif p == 2:
            local = diff / dist
        else:
            local = np.sign(diff) * np.abs(diff) ** (p - 1) / dist ** (p - 1)
            if p < 1:
                local = np.where(diff != 0, local, 0)
        local = np.where(dist != 0, grad[:, None] * local, 0).astype(self.dtype, copy=False)
    np.add.at(out, i, local)
    np.add.at(out, j, -local)
    return out


def _pdist_backward_grad(grad):
    raise NotImplementedError("the derivative for '_pdist_backward' is not implemented.")


PDIST_BACKWARD = defop(
    "_pdist_backward", _pdist_backward, inputs=("grad", "self", "pdist"),
    derivatives={"grad": _pdist_backward_grad, "self": _pdist_backward_grad,
                 "pdist": _pdist_backward_grad},
    dtype="same", methods=(), functions=(), grad_fn_name="PdistBackwardBackward0",
    family=FAMILY)


def _pdist_samples(make, shapes):
    # grad=False: PyTorch has no double backward for pdist (tests/nn/test_nn_extra.py checks
    # the first derivatives)
    call = _NN + "pdist"
    return [Sample(args, call=call, grad=False)
            for args in ((make((4, 3)),), (make((5, 2)), 1.0), (make((3, 4)), 3.0),
                         (make((4, 2)), 1.5), (make((3, 3)), float("inf")), (make((1, 3)),))]


PDIST = defop("_pdist_forward", _pdist_forward, derivatives={"self": _pdist_forward_self},
              dtype="same", methods=(), functions=(), grad_fn_name="PdistBackward0",
              family=FAMILY, samples=_pdist_samples)


def pdist(input, p=2):
    """``torch.pdist`` / ``F.pdist``: PyTorch's checks (2-D, floating, ``p >= 0``; its
    forward kernel has no half version, used when there are pairs and columns)."""
    if input.dim() != 2:
        raise RuntimeError(f"pdist only supports 2D tensors, got: {input.dim()}D")
    if not input.dtype.is_floating_point:
        raise RuntimeError("pdist only supports floating-point dtypes")
    if p < 0:
        raise RuntimeError("pdist only supports non-negative p values")
    n, m = input.shape
    if input._data.dtype == np.float16 and n > 1 and m:
        raise NotImplementedError("\"pdist\" not implemented for 'Half'")
    return PDIST.public(input, float(p))


export_function("pdist", pdist)


# -- Tensor.unfold -------------------------------------------------------------------------------
def _unfold_dim(dimension, ndim):
    n = max(ndim, 1)
    if not -n <= dimension < n:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-n}, {n - 1}], "
                         f"but got {dimension})")
    return dimension % n


def unfold(self, dimension, size, step):
    """Every window of ``size`` elements along ``dimension``, ``step`` apart, as a new last
    dim: a strided view (no copy) sharing the input's storage and version."""
    d = _unfold_dim(dimension, self.ndim)
    length = self.shape[d] if self.ndim else 1
    if size > length:
        raise RuntimeError(f"maximum size for tensor at dimension {d} is {length} but size is "
                           f"{size}")
    if step <= 0:
        raise RuntimeError(f"step is {step} but must be > 0")
    if self.ndim == 0:
        return self.reshape(1)[:size]   # size 0 gives an empty window, as PyTorch
    count = (length - size) // step + 1
    shape = self.shape[:d] + (count,) + self.shape[d + 1:] + (size,)
    strides = self.strides[:d] + (self.strides[d] * step,) + self.strides[d + 1:] + \
        (self.strides[d],)
    return np.lib.stride_tricks.as_strided(self, shape, strides,
                                           writeable=self.flags.writeable)


def unfold_backward(grad_in, input_sizes, dim, size, step):
    """PyTorch's ``unfold_backward``: the windows' gradients summed back into a tensor of
    ``input_sizes`` (an op of its own, so the gradient's grad_fn is UnfoldBackwardBackward0)."""
    shape = tuple(input_sizes)
    if not shape:   # a 0-d input: one window of size 1 (or an empty one)
        return grad_in.sum(dtype=grad_in.dtype).reshape(())
    d = _unfold_dim(dim, len(shape))
    out = np.zeros(shape, grad_in.dtype)
    count = grad_in.shape[d]
    moved = np.moveaxis(out, d, -1)              # a view: writes land in out
    g = np.moveaxis(grad_in, d, -2)              # (..., count, size)
    for j in range(size):
        moved[..., j:j + step * (count - 1) + 1:step] += g[..., :, j]
    return out


def unfold_backward_grad_in(grad, dim, size, step):
    return UNFOLD.public(grad, dim, size, step)


UNFOLD_BACKWARD = defop("unfold_backward", unfold_backward, inputs=("grad_in",),
                        derivatives={"grad_in": unfold_backward_grad_in}, dtype="same",
                        grad_fn_name="UnfoldBackwardBackward0", methods=(), functions=(),
                        family=FAMILY)


def unfold_self(grad, self_shape, dimension, size, step):
    """The windows' gradients summed back (PyTorch's unfold_backward op)."""
    return UNFOLD_BACKWARD.public(grad, tuple(self_shape), dimension, size, step)


def _unfold_samples(make, shapes):
    return [Sample((make((3, 5)), 1, 2, 1), call="Tensor.unfold"),
            Sample((make((6, 2)), 0, 3, 2), call="Tensor.unfold"),
            Sample((make((2, 7, 2)), -2, 2, 3), call="Tensor.unfold"),
            Sample((make(()), 0, 1, 1), call="Tensor.unfold")]


UNFOLD = defop("unfold", unfold, derivatives={"self": unfold_self}, dtype="same", view=True,
               functions=(), family=FAMILY, samples=_unfold_samples)
