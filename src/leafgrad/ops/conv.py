"""Convolution: ``torch.convolution`` (1-d, 2-d and 3-d, transposed or not) as one record.

Note [Convolution as three linear maps]
A convolution ``y = conv(x, w)`` is linear in ``x`` for a fixed ``w`` (call the map ``A_w``)
and linear in ``w`` for a fixed ``x`` (``B_x``). Its backward needs the two adjoints:
``grad_input = A_w^T g`` and ``grad_weight = B_x^T g``. A transposed convolution *is* ``A_w^T``.
So three NumPy kernels cover everything, and the records close under differentiation:

    convolution (ConvolutionBackward0):      y = A_w x  (or A_w^T x when transposed)
    convolution_backward_input:              A_w^T g    (grad_output, weight)
    convolution_backward_weight:             B_x^T g    (grad_output, input)

and each derivative is again one of them (``<u, A_w^T g> = <A_w u, g>``...), so double
backward (``create_graph=True``) works, recording PyTorch's ``ConvolutionBackwardBackward0``.

Note [im2col layout]
The kernels unfold the (zero-padded) input into columns of shape
``(C * kh * kw, N * OH * OW)`` with one strided copy per kernel offset (a loop over kh*kw,
never over pixels), so a convolution is one BLAS matrix product ``W (O, C*kh*kw) @ cols``.
Channels first in the columns (rather than ``(N*OH*OW, C*kh*kw)``) keeps every copy's inner
rows contiguous in memory, which is several times faster for NCHW inputs. The result
``(O, N, OH, OW)`` is copied once into a contiguous NCHW array: outputs are contiguous as in
PyTorch, so ``.view`` works on them. The input gradient runs the product backwards and adds
each offset's columns back with strided slicing (col2im without ``np.add.at``). float32 and
float64 convolutions run the flat-window kernels of ``ops/conv_flat.py`` instead (Note [Flat
windows]: contiguous runs, cache-sized chunks); these strided kernels serve the other dtypes
and the input gradient of a non-finite weight.

>>> import leafgrad as torch
>>> x = torch.ones(1, 1, 3, 3)
>>> torch.convolution(x, torch.ones(1, 1, 2, 2), None, [1, 1], [0, 0], [1, 1], False, [0, 0], 1)
tensor([[[[4., 4.],
          [4., 4.]]]])
"""
from __future__ import annotations

import itertools
import math
import weakref

import numpy as np

from ..grad_mode import state as _mode
from ..tensor import Tensor, _wrap
from . import conv_flat
from .conv_checks import (_C_NAMES, _as_2d, _check_transposed_size, _size,  # noqa: F401
                          check_conv_args, transposed_output_shape, _use_mkldnn)
from .iter_layout import (channels_last_like, channels_last_strides, contiguous_result,
                          elem_strides, with_strides)
from .registry import Sample, defop, export_function

FAMILY = "conv"

__all__ = ["CONVOLUTION", "check_conv_args", "conv_output_size", "convolution"]


# -- NumPy kernels (any number of spatial dims) -------------------------------------------------
def conv_output_size(size: int, k: int, s: int, p: int, d: int) -> int:
    """Output length of a convolution along one spatial dim."""
    return (size + 2 * p - d * (k - 1) - 1) // s + 1


def _offsets(kernel, out, stride, dilation):
    """(kernel offset, slices into the padded input) of each kernel offset: the positions
    that offset sees in every window form one strided slice per spatial dim."""
    for idx in itertools.product(*[range(k) for k in kernel]):
        yield idx, tuple(slice(i * d, i * d + s * (o - 1) + 1, s)
                         for i, d, s, o in zip(idx, dilation, stride, out))


_ALL2 = (slice(None), slice(None))


def _swap01(ndim: int) -> tuple:
    return (1, 0) + tuple(range(2, ndim))


def _padded_cn(x, padding):
    """``x`` (N, C, *S) as a (C, N, *(S + 2p)) array (a view when there is no padding)."""
    xt = x.transpose(_swap01(x.ndim))
    if not any(padding):
        return xt
    n, c = x.shape[:2]
    spatial = x.shape[2:]
    xp = np.zeros((c, n) + tuple(s + 2 * p for s, p in zip(spatial, padding)), x.dtype)
    xp[_ALL2 + tuple(slice(p, p + s) for s, p in zip(spatial, padding))] = xt
    return xp


def _im2col(x, kernel, out, stride, padding, dilation):
    """Columns (C*prod(k), N*prod(out)) of the padded input (see Note [im2col layout])."""
    n, c = x.shape[:2]
    xp = _padded_cn(x, padding)
    cols = np.empty((c,) + tuple(kernel) + (n,) + tuple(out), x.dtype)
    for idx, where in _offsets(kernel, out, stride, dilation):
        cols[(slice(None),) + idx] = xp[_ALL2 + where]
    return cols.reshape(c * math.prod(kernel), n * math.prod(out))


def _grouped_matmul(a, b, groups):
    """``a @ b`` per group: a (G*m, k) and b (G*k, n) split along their first dims."""
    if groups == 1:
        return a @ b
    ga = a.reshape(groups, a.shape[0] // groups, a.shape[1])
    gb = b.reshape(groups, b.shape[0] // groups, b.shape[1])
    out = np.matmul(ga, gb)
    return out.reshape(groups * out.shape[1], out.shape[2])


def _to_onck(g):
    """(N, O, *S) -> contiguous (O, N*prod(S))."""
    o = g.shape[1]
    return np.ascontiguousarray(g.transpose(_swap01(g.ndim))).reshape(o, -1)


def _conv_nd(x, w, b, stride, padding, dilation, groups):
    """The convolution and its im2col columns (kept for the weight gradient; None from the
    flat kernels, which rebuild them: Note [Flat windows] in ops/conv_flat.py)."""
    if conv_flat.usable(x.dtype, w.dtype, stride, groups):
        return conv_flat.forward(x, w, b, stride, padding, dilation, groups), None
    n = x.shape[0]
    o = w.shape[0]
    kernel = w.shape[2:]
    out_sp = tuple(conv_output_size(x.shape[2 + i], kernel[i], stride[i], padding[i],
                                    dilation[i]) for i in range(len(kernel)))
    cols = _im2col(x, kernel, out_sp, stride, padding, dilation)
    out = _grouped_matmul(w.reshape(o, -1), cols, groups)
    if b is not None:
        out += b[:, None]
    out = out.reshape((o, n) + out_sp).transpose(_swap01(2 + len(out_sp)))
    return np.ascontiguousarray(out), cols


# Note [im2col reuse]
# The weight gradient needs the same columns as the forward. Rebuilding them costs as much as
# a third of the forward, so a forward run with grad mode on keeps them here, keyed by the
# identity of its input array and the geometry, until the weight gradient takes them (once) or
# the input array dies (a weakref callback drops the entry: a forward without a backward
# frees them with its graph). The engine has already refused a backward whose saved input was
# changed in place, so columns found here match the input the backward sees.
_COLS: dict = {}


def _keep_cols(x, key, cols) -> None:
    if not _mode.grad_enabled:
        return
    if len(_COLS) >= 16:   # a bound for odd uses (forwards on many inputs, no backward)
        _COLS.pop(next(iter(_COLS)))
    ident = id(x)
    try:
        ref = weakref.ref(x, lambda _ref, ident=ident: _drop_cols(ident, _ref))
    except TypeError:
        return
    _COLS[ident] = (ref, key, cols)


def _drop_cols(ident, ref) -> None:
    entry = _COLS.get(ident)
    if entry is not None and entry[0] is ref:
        del _COLS[ident]


def _take_cols(x, key):
    entry = _COLS.get(id(x))
    if entry is not None and entry[0]() is x and entry[1] == key:
        del _COLS[id(x)]
        return entry[2]
    return None


def _conv_input_grad(g, w, x_shape, stride, padding, dilation, groups, gm=None):
    """``A_w^T g``: the gradient of conv(x, w) w.r.t. an input of shape ``x_shape``
    (``gm``: ``_to_onck(g)`` when the caller has it)."""
    if not g.size or not w.size:   # an empty convolution (zero batch or channels)
        return np.zeros(x_shape, g.dtype)
    if conv_flat.usable(g.dtype, w.dtype, stride, groups) and conv_flat.input_grad_ok(w):
        return conv_flat.input_grad(g, w, x_shape, stride, padding, dilation, groups)
    n, c = x_shape[:2]
    spatial = tuple(x_shape[2:])
    o = w.shape[0]
    kernel = w.shape[2:]
    out_sp = g.shape[2:]
    wt = w.reshape(groups, o // groups, -1).transpose(0, 2, 1).reshape(-1, o // groups)
    cols = _grouped_matmul(wt, _to_onck(g) if gm is None else gm, groups).reshape(
        (c,) + kernel + (n,) + out_sp)
    if not any(padding):
        # summed straight into the NCHW result, seen as (C, N, *S): no final copy
        gx = np.zeros((n, c) + spatial, cols.dtype)
        gxp = gx.transpose(_swap01(gx.ndim))
    else:
        gxp = np.zeros((c, n) + tuple(s + 2 * p for s, p in zip(spatial, padding)),
                       cols.dtype)
    for idx, where in _offsets(kernel, out_sp, stride, dilation):
        gxp[_ALL2 + where] += cols[(slice(None),) + idx]
    if not any(padding):
        return gx
    inner = gxp[_ALL2 + tuple(slice(p, p + s) for s, p in zip(spatial, padding))]
    return np.ascontiguousarray(inner.transpose(_swap01(inner.ndim)))


def _conv_weight_grad(g, x, w_shape, stride, padding, dilation, groups, cols=None, gm=None):
    """``B_x^T g``: the gradient of conv(x, w) w.r.t. a weight of shape ``w_shape``."""
    if not g.size or not x.size:   # an empty convolution (zero batch or channels)
        return np.zeros(w_shape, g.dtype)
    if cols is None and conv_flat.usable(g.dtype, x.dtype, stride, groups):
        return conv_flat.weight_grad(g, x, w_shape, stride, padding, dilation, groups)
    o, cg = w_shape[:2]
    kernel = tuple(w_shape[2:])
    if cols is None:
        cols = _im2col(x, kernel, g.shape[2:], stride, padding, dilation)
    if gm is None:
        gm = _to_onck(g)
    if groups == 1:
        return np.ascontiguousarray(_gemm_nt(gm, cols)).reshape(w_shape)
    gg = gm.reshape(groups, o // groups, -1)
    cc = cols.reshape(groups, cg * math.prod(kernel), -1)
    return np.ascontiguousarray(_gemm_nt(gg, cc)).reshape(w_shape)


def _gemm_nt(a, b):
    """``a @ b^T`` over a long inner dim (N*OH*OW). OpenBLAS is many times slower (up to 100x
    measured, with a single-digit row count) when the first operand has fewer rows than the
    second, so the product is taken in the faster order and transposed back (a view)."""
    if a.shape[-2] >= b.shape[-2]:
        return np.matmul(a, np.swapaxes(b, -1, -2))
    return np.swapaxes(np.matmul(b, np.swapaxes(a, -1, -2)), -1, -2)


# -- the records ------------------------------------------------------------------------------
def _convolution(input, weight, bias, stride, padding, dilation, transposed, output_padding,
                 groups):
    """N-d convolution (1-d, 2-d or 3-d) of ``input`` (N, C, *) with ``weight``, as ATen's
    ``convolution``; ``transposed`` makes it the adjoint (a "deconvolution")."""
    check_conv_args(input, weight, bias, stride, padding, dilation, transposed,
                    output_padding, groups)
    if input.ndim not in (3, 4, 5):
        raise NotImplementedError("leafgrad implements 1-d, 2-d and 3-d convolutions only, got "
                                  f"a {input.ndim}-d input")
    if not input.size and (input.shape[0] == 0 or input.shape[1] == 0):
        return _empty_convolution(input, weight, stride, padding, dilation, transposed,
                                  output_padding, groups)
    if not transposed:
        out, cols = _conv_nd(input, weight, bias, stride, padding, dilation, groups)
        if cols is not None:
            _keep_cols(input, (weight.shape, tuple(stride), tuple(padding), tuple(dilation)),
                       cols)
        return out
    shape = transposed_output_shape(input.shape, weight.shape, stride, padding, dilation,
                                    output_padding, groups)
    if any(v < 0 for v in shape[2:]):
        if input.dtype == np.float32 and _use_mkldnn(input.shape, weight.shape, stride,
                                                     dilation, True, output_padding, groups):
            # MKLDNN takes an empty output (size 0) but no negative size (fuzz seed 26)
            raise RuntimeError("could not construct a memory descriptor using a format tag")
        _check_transposed_size(input.shape, weight.shape, stride, padding, dilation,
                               output_padding)
    out = _conv_input_grad(input, weight, shape, stride, padding, dilation, groups)
    if bias is not None:
        out += bias.reshape((1, -1) + (1,) * (out.ndim - 2))
    return out


def _empty_convolution(input, weight, stride, padding, dilation, transposed, output_padding,
                       groups):
    """PyTorch's "empty" backend (a zero batch or zero channels): an empty output whose
    shape is the convolution's, except that zero input channels give zero output channels."""
    n, c = input.shape[:2]
    if transposed:
        shape = transposed_output_shape(input.shape, weight.shape, stride, padding, dilation,
                                        output_padding, groups)
        bad = [i for i, v in enumerate(_as_2d(shape)) if v < 0]
        if bad:
            raise RuntimeError(f"invalid shape dimension {_as_2d(shape)[bad[0]]} at index "
                               f"{bad[0]} of shape {_size(_as_2d(shape))}")
    else:
        spatial = tuple(conv_output_size(input.shape[2 + i], weight.shape[2 + i], stride[i],
                                         padding[i], dilation[i])
                        for i in range(input.ndim - 2))
        shape = (n, weight.shape[0] if c else 0) + spatial
    return np.zeros(shape, input.dtype)


def convolution_backward_input(grad_output, input, weight, stride, padding, dilation, groups):
    """``A_w^T grad_output``: the input gradient of a convolution (see Note above); ``input``
    gives the shape (and, as in PyTorch, is an input of the node, with no gradient)."""
    return _conv_input_grad(grad_output, weight, input.shape, stride, padding, dilation, groups)


def convolution_backward_weight(grad_output, input, weight, stride, padding, dilation, groups,
                                gm=None):
    """``B_x^T grad_output``: the weight gradient of a convolution (see Note above); ``weight``
    gives the shape (and, as in PyTorch, is an input of the node: its result requires grad when
    the weight does, with no gradient flowing to it)."""
    shape = weight.shape
    cols = _take_cols(input, (shape, tuple(stride), tuple(padding), tuple(dilation)))
    return _conv_weight_grad(grad_output, input, shape, stride, padding, dilation, groups, cols,
                             gm)


# Note [Shared gradient layout]
# A convolution's input and weight gradients both start from ``grad_output`` laid out as
# (O, N*prod(S)) (``_to_onck``: a transposing copy, 4.7 MB per step for W6's second conv).
# Without create_graph the two formulas call the NumPy kernels directly (Note [Plain NumPy
# without create_graph] in ops/linalg.py) and share that copy: the first to run keeps it in
# ``_GM`` with a weak reference to the gradient tensor and that tensor's version; the other
# uses it only for the very same tensor at the same version (the layout is a function of the
# gradient's values alone), and takes it out. An entry nobody takes dies with its gradient
# tensor (the weak reference's callback), which the engine drops right after the node ran.
_GM: list = [None]   # (weakref to the gradient tensor, its version, _to_onck of its array)


def _drop_gm(ref) -> None:
    entry = _GM[0]
    if entry is not None and entry[0] is ref:
        _GM[0] = None


def _shared_gm(grad):
    """``_to_onck(grad._data)``, computed once for the two formulas of one node."""
    entry = _GM[0]
    if entry is not None and entry[0]() is grad and entry[1] == grad._vc[0]:
        _GM[0] = None
        return entry[2]
    gm = _to_onck(grad._data)
    _GM[0] = (weakref.ref(grad, _drop_gm), grad._vc[0], gm)
    return gm


def _zeros(n):
    return [0] * n


def _conv(x, w, stride, padding, dilation, groups):
    return CONVOLUTION.public(x, w, None, stride, padding, dilation, False,
                              _zeros(len(stride)), groups)


def _input_grad(g, x, w, stride, padding, dilation, groups):
    return CONV_BACKWARD_INPUT.public(g, x, w, stride, padding, dilation, groups)


def _weight_grad(g, x, w, stride, padding, dilation, groups):
    return CONV_BACKWARD_WEIGHT.public(g, x, w, stride, padding, dilation, groups)


def _plain(grad, weight) -> bool:
    """Whether the NumPy kernels may run directly (Note [Shared gradient layout]): no
    create_graph, and the dtypes the records' ``same`` rule would pass through as they are."""
    g = grad._data
    return (not _mode.grad_enabled and g.ndim > 2 and g.size and weight._data.size
            and g.dtype == weight._data.dtype)


def convolution_input(grad, input, weight, stride, padding, dilation, transposed, groups):
    if transposed:   # a convolution of grad, recorded as PyTorch's convolution_backward
        return CONV_BACKWARD_TINPUT.public(grad, input, weight, stride, padding, dilation,
                                           groups)
    if _plain(grad, weight):
        g, w = grad._data, weight._data
        flat = conv_flat.usable(g.dtype, w.dtype, stride, groups) and conv_flat.input_grad_ok(w)
        return _wrap(_conv_input_grad(g, w, input._data.shape, stride, padding, dilation,
                                      groups, None if flat else _shared_gm(grad)))
    return _input_grad(grad, input, weight, stride, padding, dilation, groups)


def convolution_weight(grad, input, weight, stride, padding, dilation, transposed, groups):
    if transposed:   # y = A_w^T x, so <g, y> = <A_w g, x>: g plays the input, x the output
        return CONV_BACKWARD_TWEIGHT.public(grad, input, weight, stride, padding, dilation,
                                            groups)
    if _plain(grad, weight) and input._data.size:
        g, x = grad._data, input._data
        flat = conv_flat.usable(g.dtype, x.dtype, stride, groups)   # (it rebuilds, takes no gm)
        return _wrap(convolution_backward_weight(g, x, weight._data, stride, padding, dilation,
                                                 groups, None if flat else _shared_gm(grad)))
    return _weight_grad(grad, input, weight, stride, padding, dilation, groups)


def convolution_bias(grad, input, weight, bias_shape):
    if grad.shape[1] != bias_shape[0]:   # zero input channels gave zero output channels
        return grad.new_zeros(bias_shape)
    # recorded as PyTorch's convolution_backward (its one node also takes input and weight)
    return CONV_BACKWARD_BIAS.public(grad, input, weight)


def backward_input_grad_output(grad, weight, stride, padding, dilation, groups):
    return _conv(grad, weight, stride, padding, dilation, groups)


def backward_input_weight(grad, grad_output, weight, stride, padding, dilation, groups):
    # (PyTorch's double backward builds this from grad_output alone: a detached weight)
    return _weight_grad(grad_output, grad, weight.detach(), stride, padding, dilation, groups)


def backward_weight_grad_output(grad, input, stride, padding, dilation, groups):
    return _conv(input, grad, stride, padding, dilation, groups)


def backward_weight_input(grad, grad_output, input, stride, padding, dilation, groups):
    return _input_grad(grad_output, input, grad, stride, padding, dilation, groups)


def convolution_backward_tinput(grad_output, input, weight, stride, padding, dilation, groups):
    """The input gradient of a transposed convolution: a plain convolution of the gradient
    (``input``: an input of PyTorch's node, as below). With an ``output_padding`` that the
    stride does not absorb (stride 1, dilation > 1) the convolution of the larger gradient is
    larger than the input: the extra trailing positions belong to no input element."""
    out = _conv_nd(grad_output, weight, None, stride, padding, dilation, groups)[0]
    if out.shape[2:] != input.shape[2:]:
        out = np.ascontiguousarray(out[(Ellipsis,) + tuple(slice(0, s) for s in input.shape[2:])])
    return out


def backward_tinput_grad_output(grad, grad_output, weight, stride, padding, dilation, groups):
    return _input_grad(grad, grad_output, weight, stride, padding, dilation, groups)


def backward_tinput_weight(grad, grad_output, weight, stride, padding, dilation, groups):
    return _weight_grad(grad, grad_output, weight, stride, padding, dilation, groups)


def convolution_backward_tweight(grad_output, input, weight, stride, padding, dilation, groups):
    """The weight gradient of a transposed convolution: the plain one with ``grad_output``
    playing the input and ``input`` the output (the node's inputs in PyTorch's order)."""
    return convolution_backward_weight(input, grad_output, weight, stride, padding, dilation,
                                       groups)


def backward_tweight_grad_output(grad, input, grad_output, stride, padding, dilation, groups):
    return _input_grad(input, grad_output, grad, stride, padding, dilation, groups)


def backward_tweight_input(grad, grad_output, stride, padding, dilation, groups):
    return _conv(grad_output, grad, stride, padding, dilation, groups)


def convolution_backward_bias(grad_output, input, weight):
    """The bias gradient: grad_output summed over all but the channel dim (``input`` and
    ``weight``: inputs of PyTorch's one convolution_backward node, which its result requires
    grad through under create_graph, with no gradient flowing to them)."""
    return grad_output.sum(axis=(0,) + tuple(range(2, grad_output.ndim)))


def _no_gradient(grad):
    """An input of PyTorch's convolution_backward node that this part does not depend on: an
    edge (its result requires grad through it), an undefined gradient."""
    return None


def backward_bias_grad_output(grad, grad_output_shape):
    return grad.reshape([1, -1] + [1] * (len(grad_output_shape) - 2)).expand(grad_output_shape)


def _conv_samples(make, shapes):
    z2, o2, t2 = [0, 0], [1, 1], [2, 2]
    return [
        Sample((make((2, 3, 6, 5)), make((4, 3, 3, 2)), make((4,)), o2, [1, 0], o2, False,
                z2, 1), call="convolution", atol=1e-5),
        Sample((make((2, 4, 7, 7)), make((4, 2, 3, 3)), None, t2, o2, t2, False, z2, 2),
               call="convolution", atol=1e-5),
        Sample((make((1, 2, 9)), make((3, 2, 4)), make((3,)), [2], [1], [1], False, [0], 1),
               call="convolution", atol=1e-5),
        Sample((make((2, 4, 3, 4)), make((4, 3, 3, 2)), make((6,)), t2, o2, o2, True,
                [1, 0], 2), call="convolution", atol=1e-5),
        Sample((make((1, 2, 4, 3, 4)), make((4, 1, 2, 2, 3)), make((4,)), [1, 2, 1], [1, 0, 1],
                [1, 1, 2], False, [0, 0, 0], 2), call="convolution", atol=1e-5),
        Sample((make((1, 2, 2, 3, 2)), make((2, 2, 2, 2, 2)), make((2,)), [2, 1, 2], [0, 1, 0],
                [1, 1, 1], True, [1, 0, 0], 1), call="convolution", atol=1e-5),
    ]


def _conv_layout(out, arrays):
    """The layout of a convolution's output (``defop(layout=...)``): channels-last where
    PyTorch's CPU backend picks it (``determine_backend_memory_format``): the 2-d kernels
    when the input or the weight suggests it, the 1-d ones (run as 2-d on ``unsqueeze(2)``
    views) when the weight does (the input's layout, measured, never decides), the 3-d ones
    only through oneDNN (float32, a batch of two or more: measured); else contiguous."""
    x, w = arrays[0], arrays[1]
    if x.flags.c_contiguous and w.flags.c_contiguous and 1 not in x.shape \
            and 1 not in w.shape:   # (such inputs never suggest channels-last)
        return out if out.flags.c_contiguous and 1 not in out.shape else contiguous_result(out)
    nd = out.ndim
    if nd == 3:
        ws = elem_strides(w)
        if channels_last_like((w.shape[0], w.shape[1], 1, w.shape[2]),
                              (ws[0], ws[1], w.shape[2] * ws[2], ws[2])):
            st = channels_last_strides((out.shape[0], out.shape[1], 1, out.shape[2]))
            return with_strides(out, (st[0], st[1], st[3]))
    elif (nd == 4 or (nd == 5 and out.dtype == np.float32 and out.shape[0] > 1)) and (
            channels_last_like(x.shape, elem_strides(x))
            or channels_last_like(w.shape, elem_strides(w))):
        return with_strides(out, channels_last_strides(out.shape))
    return contiguous_result(out)


def convolution_backward_formula(grad, input, weight, stride, padding, dilation, transposed,
                                 groups, bias_shape, output_mask):
    """PyTorch's one formula for the three (Note [Joint formulas] in autograd/graph.py):
    without create_graph the kernels run part by part (Note [Shared gradient layout]); under
    it, one convolution_backward op gives the three gradients as the outputs of one
    ConvolutionBackwardBackward0 node, which a second backward through the others then finds
    freed, as PyTorch's."""
    if not _mode.grad_enabled:
        return (convolution_input(grad, input, weight, stride, padding, dilation, transposed,
                                  groups) if output_mask[0] else None,
                convolution_weight(grad, input, weight, stride, padding, dilation, transposed,
                                   groups) if output_mask[1] else None,
                convolution_bias(grad, input, weight, bias_shape) if output_mask[2] else None)
    zero_bias = output_mask[2] and grad.shape[1] != bias_shape[0]
    parts = [bool(output_mask[0]), bool(output_mask[1]), bool(output_mask[2]) and not zero_bias]
    if not any(parts):
        return None, None, convolution_bias(grad, input, weight, bias_shape)
    g_input, g_weight, g_bias = CONV_BACKWARD.public(grad, input, weight, stride, padding,
                                                     dilation, transposed, groups, parts)
    if zero_bias:   # zero input channels gave zero output channels
        g_bias = grad.new_zeros(bias_shape)
    return g_input, g_weight, g_bias


CONVOLUTION = defop(
    "convolution", _convolution, inputs=("input", "weight", "bias"),
    derivatives={("input", "weight", "bias"): convolution_backward_formula},
    dtype="same", methods=(), functions=(), family=FAMILY, samples=_conv_samples,
    layout=_conv_layout)


def _spatial_arg(name: str, value, n: int) -> list:
    """A per-spatial-dim argument as a list of ``n`` ints (one value stands for all)."""
    value = [int(value)] if isinstance(value, int) else [int(v) for v in value]
    if len(value) == 1:
        return value * n
    if len(value) != n:
        raise RuntimeError(f"expected {name} to be a single integer value or a list of {n} "
                           f"values to match the convolution dimensions, but got "
                           f"{name}={value}")
    return value


def convolution(input: Tensor, weight: Tensor, bias: Tensor | None, stride, padding, dilation,
                transposed: bool, output_padding, groups: int) -> Tensor:
    """``torch.convolution``: the op behind every ``conv*`` function (``ConvolutionBackward0``).
    """
    if isinstance(weight, Tensor) and weight.dim() < 3:
        raise RuntimeError("weight should have at least three dimensions")   # before the args
    n = max(weight.dim() - 2, 1)
    args = [_spatial_arg(name, v, n) for name, v in (("stride", stride), ("padding", padding),
                                                     ("dilation", dilation),
                                                     ("output_padding", output_padding))]
    return CONVOLUTION.public(input, weight, bias, args[0], args[1], args[2], bool(transposed),
                              args[3], groups)


export_function("convolution", convolution)

def _backward_part(name, forward, derivatives):
    """One part of PyTorch's single convolution_backward node: its inputs (grad_output,
    input, weight) and its name, ConvolutionBackwardBackward0, under create_graph."""
    return defop(name, forward, inputs=("grad_output", "input", "weight"),
                 derivatives=derivatives, dtype="same",
                 grad_fn_name="ConvolutionBackwardBackward0", methods=(), functions=(),
                 family=FAMILY)


CONV_BACKWARD_INPUT = _backward_part(
    "convolution_backward_input", convolution_backward_input,
    {"grad_output": backward_input_grad_output, "input": _no_gradient,
     "weight": backward_input_weight})
# the other parts: under create_graph the bias's and a transposed convolution's gradients are
# ConvolutionBackwardBackward0 too
CONV_BACKWARD_TINPUT = _backward_part(
    "convolution_backward_tinput", convolution_backward_tinput,
    {"grad_output": backward_tinput_grad_output, "input": _no_gradient,
     "weight": backward_tinput_weight})
CONV_BACKWARD_BIAS = _backward_part(
    "convolution_backward_bias", convolution_backward_bias,
    {"grad_output": backward_bias_grad_output, "input": _no_gradient, "weight": _no_gradient})
CONV_BACKWARD_WEIGHT = _backward_part(
    "convolution_backward_weight", convolution_backward_weight,
    {"grad_output": backward_weight_grad_output, "input": backward_weight_input,
     "weight": _no_gradient})
CONV_BACKWARD_TWEIGHT = _backward_part(
    "convolution_backward_tweight", convolution_backward_tweight,
    {"grad_output": backward_tweight_grad_output, "input": backward_tweight_input,
     "weight": _no_gradient})


# -- convolution_backward: the three parts as one node under create_graph -------------------------
def convolution_backward(grad_output, input, weight, stride, padding, dilation, transposed,
                         groups, parts):
    """``[grad_input, grad_weight, grad_bias]``, those ``parts`` asks for (None for the
    others): PyTorch's convolution_backward, whose node (ConvolutionBackwardBackward0) the
    create_graph gradients of a convolution's inputs share."""
    args = (grad_output, input, weight, stride, padding, dilation, groups)
    g_input = g_weight = g_bias = None
    if parts[0]:
        g_input = (convolution_backward_tinput if transposed else convolution_backward_input)(
            *args)
    if parts[1]:
        g_weight = (convolution_backward_tweight if transposed else
                    convolution_backward_weight)(*args)
    if parts[2]:
        g_bias = convolution_backward_bias(grad_output, input, weight)
    return [g_input, g_weight, g_bias]


def _add(a, b):
    return b if a is None else a if b is None else a + b


def convolution_double_backward(grads, grad_output, input, weight, stride, padding, dilation,
                                transposed, groups, output_mask):
    """The three parts' vector-Jacobian products (the formulas of the part records above),
    summed per input of the node: grad_output, input, weight."""
    gg_input, gg_weight, gg_bias = grads
    args = (stride, padding, dilation, groups)
    g_out = g_in = g_w = None
    if gg_input is not None:
        if transposed:
            g_out = backward_tinput_grad_output(gg_input, grad_output, weight, *args)
            if output_mask[2]:
                g_w = backward_tinput_weight(gg_input, grad_output, weight, *args)
        else:
            g_out = backward_input_grad_output(gg_input, weight, *args)
            if output_mask[2]:
                g_w = backward_input_weight(gg_input, grad_output, weight, *args)
    if gg_weight is not None:
        if transposed:
            g_out = _add(g_out, backward_tweight_grad_output(gg_weight, input, grad_output,
                                                             *args))
            if output_mask[1]:
                g_in = backward_tweight_input(gg_weight, grad_output, *args)
        else:
            g_out = _add(g_out, backward_weight_grad_output(gg_weight, input, *args))
            if output_mask[1]:
                g_in = backward_weight_input(gg_weight, grad_output, input, *args)
    if gg_bias is not None:
        g_out = _add(g_out, backward_bias_grad_output(gg_bias, grad_output.shape))
    return (g_out if output_mask[0] else None), g_in, g_w


def _keep_none(grads, metas):
    return list(grads)


CONV_BACKWARD = defop(
    "convolution_backward", convolution_backward, inputs=("grad_output", "input", "weight"),
    derivatives={("grad_output", "input", "weight"): convolution_double_backward},
    dtype="same", n_outputs=3, materialize=_keep_none,
    grad_fn_name="ConvolutionBackwardBackward0", methods=(), functions=(), family=FAMILY)
CONV_BACKWARD.node_class.n_outputs = 3
