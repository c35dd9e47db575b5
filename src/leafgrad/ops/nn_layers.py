"""Layer ops of ``torch.nn.functional`` as single records: ``layer_norm``
(``NativeLayerNormBackward0``), ``embedding`` (``EmbeddingBackward0``, with
``embedding_dense_backward``) and ``constant_pad_nd`` (``ConstantPadNdBackward0``).

Note [Layer norm formulas]
The forward computes statistics in float32 for float16 input (as PyTorch's CPU kernel) and
two-pass (mean, then the mean of squared deviations) for accuracy. The formulas recompute the
normalized input from the saved input instead of saving mean and rstd (a formula sees the
op's inputs and output only). Under create_graph they record PyTorch's
``native_layer_norm_backward`` op (``NativeLayerNormBackwardBackward0``, Note [Normalization
backward ops] in norm_backward.py); otherwise they run under no-grad as leafgrad ops.

>>> import leafgrad as torch
>>> torch.nn.functional.pad(torch.tensor([1.0, 2.0]), (1, 2))
tensor([0., 1., 2., 0., 0.])
"""
from __future__ import annotations

import numpy as np

from .._exactmath import fma32, fused
from .. import dtypes as _dt
from ..tensor import Tensor, _wrap
from ..grad_mode import state as _mode
from .iter_layout import CONTIG
from .norm import check_norm_dtypes
from .norm_backward import joint_layer_norm
from .registry import Sample, defop

FAMILY = "nn_layers"

__all__ = ["CONSTANT_PAD_ND", "EMBEDDING", "LAYER_NORM", "TRILINEAR", "embedding_renorm_"]

_F16 = np.dtype(np.float16)


def _type_name(dtype) -> str:
    return _dt.from_numpy_dtype(np.dtype(dtype)).tensor_type[:-6]


def _shape_str(shape) -> str:
    return f"[{', '.join(map(str, shape))}]"


# -- layer_norm ----------------------------------------------------------------------------------
def _check_layer_norm(input, normalized_shape, weight, bias):
    shape = tuple(normalized_shape)
    first = weight if weight is not None else bias
    if first is not None and first.dtype != input.dtype:
        check_norm_dtypes(input.dtype, (weight, bias))   # the mixed-dtype check comes first
    if not shape:
        raise RuntimeError("Expected normalized_shape to be at least 1-dimensional, i.e., "
                           "containing at least one element, but got normalized_shape = []")
    for name, t in (("weight", weight), ("bias", bias)):
        if t is not None and t.shape != shape:
            raise RuntimeError(f"Expected {name} to be of same shape as normalized_shape, but "
                               f"got {name} of shape {_shape_str(t.shape)} and "
                               f"normalized_shape = {_shape_str(shape)}")
    n = len(shape)
    if input.ndim < n or input.shape[input.ndim - n:] != shape:
        raise RuntimeError(f"Given normalized_shape={_shape_str(shape)}, expected input with "
                           f"shape [*, {', '.join(map(str, shape))}], but got input of size"
                           f"{_shape_str(input.shape)}")
    check_norm_dtypes(input.dtype, (weight, bias))
    if input.dtype.kind != "f":
        raise NotImplementedError(f'"LayerNormKernelImpl" not implemented for '
                                  f"'{_type_name(input.dtype)}'")
    return tuple(range(input.ndim - n, input.ndim))


def _row_moments(x, axes):
    """Two-pass mean, centred values and biased variance over ``axes`` (kept dims)."""
    mean = x.mean(axis=axes, keepdims=True)
    centered = x - mean
    return mean, centered, np.mean(centered * centered, axis=axes, keepdims=True)


def layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-5, cudnn_enable=True):
    """Normalize over the trailing ``normalized_shape`` dims (biased variance), then scale by
    ``weight`` and shift by ``bias``."""
    axes = _check_layer_norm(input, normalized_shape, weight, bias)
    x = input.astype(np.float32) if input.dtype == _F16 else input
    if x.size == 0:
        return np.empty_like(input)
    if input.dtype == _F16:
        mean, _, var = _row_moments(x, axes)
        return _layer_norm_half(x, mean, var, weight, bias, eps)
    # (PyTorch's float/double kernel takes the row moments with ATen's RowwiseMoments, a
    # vectorised Welford: its bits differ from this two-pass mean/variance in the last place
    # of about a third of rows. Redone step for step it cost ~20x this function's time on
    # small rows (session 10), so the two-pass statistics stay.)
    mean, centered, var = _row_moments(x, axes)
    rstd = 1.0 / np.sqrt(var + eps)
    # PyTorch's kernel: (x - mean) * rstd, then * gamma + beta fused; with a bias and no
    # weight (its gamma 1) the compiler folds it to one fma of (x - mean) and rstd
    if bias is not None:
        if weight is not None:
            centered *= rstd
            return fused(centered, weight, bias, x.size)
        return fused(centered, rstd, bias, x.size)
    centered *= rstd
    if weight is not None:
        centered *= weight
    centered += 0.0   # PyTorch's kernel adds a zero bias when there is none: a zero is +0
    return centered


def _layer_norm_half(x, mean, var, weight, bias, eps):
    """PyTorch's half layer_norm (its mixed-type kernel): in float, ``x * rstd + (-rstd *
    mean)`` fused (one rounding: for a row of one value and a tiny eps the result is the
    product's rounding error, not 0; fuzz seed 230), then ``* gamma + beta`` fused, one
    rounding to half."""
    f32 = np.float32
    rstd = f32(1) / np.sqrt(var + f32(eps))
    t = fma32(x, rstd, -rstd * mean)
    gamma = f32(1) if weight is None else weight.astype(f32)
    beta = f32(0) if bias is None else bias.astype(f32)
    return fma32(t, gamma, beta).astype(_F16)


def _normalized(input, normalized_shape, eps):
    """(x - mean) * rstd and rstd over the trailing dims, as leafgrad expressions."""
    dims = list(range(input.dim() - len(normalized_shape), input.dim()))
    centered = input - input.mean(dims, keepdim=True)
    rstd = ((centered * centered).mean(dims, keepdim=True) + eps).rsqrt()
    return centered * rstd, rstd, dims


# PyTorch's one formula for the three saves input, weight and bias whichever needs a
# gradient: each of these declares all three, so an in-place change of any is caught
# Under create_graph the three come from one recorded native_layer_norm_backward, as
# PyTorch's (Note [Normalization backward ops] in norm_backward.py)
def _check_backward_types(input, normalized_shape, weight, bias):
    """PyTorch's forward takes a float16 input with a float32 bias and no weight as mixed
    types (float32 mean and rstd), its backward kernel as one type (the weight decides): it
    reads the float32 mean as half and fails (when there are rows)."""
    if (weight is None and bias is not None and input._data.dtype == _F16
            and bias._data.dtype == np.float32
            and np.prod(input.shape[:input.dim() - len(normalized_shape)]) > 0):
        raise RuntimeError("expected scalar type Half but found Float")


def layer_norm_input(grad, input, normalized_shape, weight, bias, eps):
    _check_backward_types(input, normalized_shape, weight, bias)
    if _mode.grad_enabled or input._data.dtype == _F16:
        # (float16: the backward op's kernel, in float rounded once, as PyTorch's)
        return joint_layer_norm(0, grad, input, normalized_shape, weight, bias, eps)
    xhat, rstd, dims = _normalized(input, normalized_shape, eps)
    gy = grad if weight is None else grad * weight
    inner = gy - gy.mean(dims, keepdim=True) - xhat * (gy * xhat).mean(dims, keepdim=True)
    out = inner * rstd
    # the input's dtype, as PyTorch's kernel gives (a float16 input with float32 weight
    # promoted the product; seed 122)
    return out if out.dtype == input.dtype else out.to(input.dtype)


def layer_norm_weight(grad, input, normalized_shape, weight, bias, eps):
    _check_backward_types(input, normalized_shape, weight, bias)
    if _mode.grad_enabled:
        return joint_layer_norm(1, grad, input, normalized_shape, weight, bias, eps)
    x = input._data
    lead = list(range(input.dim() - len(normalized_shape)))
    if x.dtype.char in "fd" and np.isfinite(x).all():
        # PyTorch's backward kernel forms xhat as ``x * rstd + (-rstd * mean)`` fused: for a
        # row of one value that is the product's rounding error, not 0, which a later inf or
        # huge gradient turns into inf where 0 gives nan (fuzz seed 157)
        mean, _, var = _row_moments(x, tuple(range(len(lead), x.ndim)))
        rstd = 1.0 / np.sqrt(var + eps)
        xhat = _wrap(fused(x, rstd, -rstd * mean, x.size))
    else:
        xhat, _, _ = _normalized(input, normalized_shape, eps)
    out = grad * xhat
    return out.sum(lead) if lead else out


def layer_norm_bias(grad, input, normalized_shape, weight, bias, eps):
    _check_backward_types(input, normalized_shape, weight, bias)
    if _mode.grad_enabled:
        return joint_layer_norm(2, grad, input, normalized_shape, weight, bias, eps)
    lead = list(range(grad.dim() - len(normalized_shape)))
    return grad.sum(lead) if lead else grad


def _layer_norm_samples(make, shapes):
    call = "nn.functional.layer_norm"
    return [Sample((make((3, 4)), (4,), make((4,)), make((4,))), call=call),
            Sample((make((2, 3, 4)), (3, 4)), call=call),
            Sample((make((2, 5)), [5], make((5,)), None), {"eps": 0.1}, call=call),
            Sample((make((2, 3)).astype(np.float32), (3,), make((3,)).astype(np.float32),
                    make((3,)).astype(np.float32)), call=call, atol=5e-3)]
    # float32: a row of close values makes second derivatives of size ~100 whose last float32
    # bits depend on the order of additions (a draw differed by 1.6e-5 relative)


LAYER_NORM = defop(
    "layer_norm", layer_norm, layout=CONTIG, inputs=("input", "weight", "bias"),
    derivatives={"input": layer_norm_input, "weight": layer_norm_weight,
                 "bias": layer_norm_bias},
    dtype="same", grad_fn_name="NativeLayerNormBackward0", methods=(), family=FAMILY,
    samples=_layer_norm_samples)


# -- embedding -----------------------------------------------------------------------------------
def _indices(indices, function="embedding", arg=1):
    data = indices._data if isinstance(indices, Tensor) else indices
    if data.dtype != np.int64 and data.dtype != np.int32:
        got = "CPUBoolType" if data.dtype == np.bool_ else f"torch.{_type_name(data.dtype)}Tensor"
        raise RuntimeError(f"Expected tensor for argument #{arg} 'indices' to have one of the "
                           f"following scalar types: Long, Int; but got {got} instead (while "
                           f"checking arguments for {function})")
    return data


def embedding(weight, indices, padding_idx=-1, scale_grad_by_freq=False, sparse=False):
    """Rows of ``weight`` picked by the integer ``indices``."""
    if weight.ndim != 2:
        raise RuntimeError("'weight' must be 2-D")
    idx = _indices(indices)
    if idx.size and (idx.min() < 0 or idx.max() >= weight.shape[0]):
        if not weight.shape[0]:     # PyTorch's index_select of an empty table
            raise RuntimeError("index_select(): self indexing axis dim should be positive")
        if not weight.size:   # rows without columns: its empty-input path names the value
            flat = idx.reshape(-1)
            bad = flat[(flat < 0) | (flat >= weight.shape[0])][0]
            raise RuntimeError(f"INDICES element is out of DATA bounds, id={bad} "
                               f"axis_dim={weight.shape[0]}")
        raise IndexError("index out of range in self")
    return weight[idx]


def embedding_weight(grad, weight_shape, indices, padding_idx, scale_grad_by_freq, sparse):
    if sparse:
        raise NotImplementedError("leafgrad has no sparse tensors: embedding(sparse=True)")
    return EMBEDDING_DENSE_BACKWARD.public(grad, indices, weight_shape[0], padding_idx,
                                           scale_grad_by_freq)


def embedding_dense_backward(grad_output, indices, num_weights, padding_idx,
                             scale_grad_by_freq):
    """The rows of ``grad_output`` summed into the rows of a zero weight gradient (none into
    row ``padding_idx``; each divided by its index's count with ``scale_grad_by_freq``)."""
    idx = _indices(indices, "embedding_backward").reshape(-1)
    dim = grad_output.shape[-1]
    rows = grad_output.reshape(idx.shape[0], dim)   # (-1 is ambiguous when dim is 0; seed 124)
    out = np.zeros((num_weights, dim), dtype=grad_output.dtype)
    if scale_grad_by_freq:
        counts = np.bincount(idx, minlength=num_weights)
        rows = rows / counts[idx, None].astype(rows.dtype)
    np.add.at(out, idx, rows)
    if padding_idx >= 0:
        out[padding_idx] = 0
    return out


def embedding_dense_backward_grad_output(grad, indices, padding_idx):
    """The rows of ``grad`` the indices pick, as PyTorch's embedding_dense_double_backward:
    an index_select of the flattened indices (padding rows zeroed in place), viewed as
    ``indices.shape + (-1,)`` (which PyTorch cannot do for empty indices: its error)."""
    flat = indices.reshape(-1)
    out = grad.index_select(0, flat)
    if padding_idx >= 0:
        out.masked_fill_((flat == padding_idx).reshape(-1, 1), 0)
    return out.view(tuple(indices.shape) + (-1,))


def _embedding_samples(make, shapes):
    call = "nn.functional.embedding"
    idx = make((2, 3), 0, 5, np.int64)
    idx[0, 0] = idx[1, 2] = 2
    return [Sample((idx, make((5, 3))), call=call),
            Sample((idx, make((5, 3))), {"padding_idx": 2}, call=call),
            Sample((idx, make((5, 4))), {"scale_grad_by_freq": True}, call=call),
            Sample((make((), 0, 4, np.int64), make((4, 2))), call=call)]


EMBEDDING = defop(
    "embedding", embedding, inputs=("weight",), derivatives={"weight": embedding_weight},
    dtype="same", methods=(), family=FAMILY, samples=_embedding_samples,
    saved_tensor_args=("indices",))   # PyTorch saves the indices tensor: freed after backward
EMBEDDING_DENSE_BACKWARD = defop(
    "embedding_dense_backward", embedding_dense_backward, inputs=("grad_output",),
    derivatives={"grad_output": embedding_dense_backward_grad_output},
    dtype="same", methods=(), functions=(), family=FAMILY)


def embedding_renorm_(weight: Tensor, indices: Tensor, max_norm: float,
                      norm_type: float) -> Tensor:
    """Scale, in place, each row of ``weight`` named in ``indices`` whose ``norm_type``-norm
    exceeds ``max_norm`` down to ``max_norm`` (PyTorch's ``embedding_renorm_``: no gradient,
    the version counter moves)."""
    data = weight._data
    if data.ndim != 2:
        raise RuntimeError(f"Expected 2-dimensional tensor, but got {data.ndim}-dimensional "
                           f"tensor for argument #1 'self' (while checking arguments for "
                           f"embedding_renorm_)")
    n = data.shape[0]
    # PyTorch's loop: the distinct indices in order, each row taken by select() (negative
    # indices count from the end; the first out of range raises select's IndexError); its
    # norm read as a double, the scale computed in double and applied in the row's dtype
    for i in np.unique(_indices(indices, "embedding_renorm_", 2)).tolist():
        if not -n <= i < n:
            raise IndexError(f"select(): index {i} out of range for tensor of size "
                             f"[{n}, {data.shape[1]}] at dimension 0")
        if data.dtype.kind not in "fc":
            raise RuntimeError(f"norm(): input dtype should be either floating point or "
                               f"complex. Got {_type_name(data.dtype)} instead.")
        row = data[i]
        norm = float(np.linalg.norm(row, ord=norm_type))
        if norm > max_norm:
            row *= data.dtype.type(max_norm / (norm + 1e-7))
    weight._vc[0] += 1
    return weight


# -- constant_pad_nd -------------------------------------------------------------------------------
def _pad_plan(shape, pad):
    """(slices of the input to keep, output shape, slices of the output it fills)."""
    pad = list(pad)
    if len(pad) % 2:
        raise RuntimeError(f"Length of pad must be even but instead it equals {len(pad)}")
    if len(pad) // 2 > len(shape):
        raise RuntimeError(f"Length of pad should be no more than twice the number of "
                           f"dimensions of the input. Pad length is {len(pad)}while the input "
                           f"has {len(shape)}dimensions.")
    keep, out_shape, place = [], list(shape), []
    lead = len(shape) - len(pad) // 2
    for d in range(len(shape)):
        if d < lead:
            keep.append(slice(None))
            place.append(slice(None))
            continue
        i = 2 * (len(shape) - 1 - d)
        left, right = pad[i], pad[i + 1]
        size = shape[d]
        start, stop = max(-left, 0), size - max(-right, 0)
        if stop < start:
            raise RuntimeError("narrow(): length must be non-negative.")
        keep.append(slice(start, stop))
        out_shape[d] = size + left + right
        if out_shape[d] < 0:
            raise RuntimeError("narrow(): length must be non-negative.")
        lo = max(left, 0)
        place.append(slice(lo, lo + stop - start))
    return tuple(keep), tuple(out_shape), tuple(place)


def constant_pad_nd(self, pad, value=0):
    """Pad the last ``len(pad) // 2`` dims with ``value``: ``pad = (left, right, top,
    bottom, ...)`` from the last dim backwards; negative amounts crop."""
    keep, out_shape, place = _pad_plan(self.shape, pad)
    if self.dtype.kind in "iu" and isinstance(value, float):
        value = int(value)
    out = np.full(out_shape, value, dtype=self.dtype)
    out[place] = self[keep]
    return out


def constant_pad_nd_self(grad, pad):
    return CONSTANT_PAD_ND.public(grad, [-p for p in pad], 0)


def _pad_samples(make, shapes):
    call = "nn.functional.pad"
    return [Sample((make((2, 3)), (1, 2)), call=call),
            Sample((make((2, 3, 4)), (1, 0, 2, 1)), {"value": 1.5}, call=call),
            Sample((make((3, 4)), (-1, 2, 1, -2)), call=call),
            Sample((make((2, 3, 2)), (1, 1, 0, 0, 2, 1)), call=call),
            Sample((make((4,)), (2, -1)), call="constant_pad_nd")]


CONSTANT_PAD_ND = defop(
    "constant_pad_nd", constant_pad_nd, derivatives={"self": constant_pad_nd_self},
    dtype="same", methods=(), family=FAMILY, samples=_pad_samples)


# -- _trilinear (F.bilinear) ---------------------------------------------------------------------
def _trilinear(i1, i2, i3, expand1, expand2, expand3, sumdim, unroll_dim=1):
    """ATen's ``_trilinear``: the three inputs, each unsqueezed at its ``expand`` dims to one
    rank, multiplied and summed over ``sumdim`` (those dims dropped). As ATen, the product of
    the first two is summed first over the summed dims the third lacks, then with the third."""
    total = i1.ndim + len(expand1)
    letters = "abcdefghijklmnopqrstuvwxyz"[:total]
    subs = ["".join(letters[d] for d in range(total) if d not in ex)
            for ex in (expand1, expand2, expand3)]
    out = "".join(letters[d] for d in range(total) if d not in sumdim)
    shape = []
    for d in range(total):
        if d in sumdim:
            continue
        size = 1
        for t, ex, s in zip((i1, i2, i3), (expand1, expand2, expand3), subs):
            if d not in ex:
                size = t.shape[s.index(letters[d])]
        shape.append(size)
    if 0 in i1.shape or 0 in i2.shape or 0 in i3.shape:
        return np.zeros(shape, i1.dtype)
    first = "".join(c for c in letters
                    if (c in subs[0] or c in subs[1])
                    and (c in out or letters.index(c) not in expand3 or c in subs[2]))
    ab = np.einsum(f"{subs[0]},{subs[1]}->{first}", i1, i2)
    return np.einsum(f"{first},{subs[2]}->{out}", ab, i3).astype(i1.dtype, copy=False)


def _trilinear_backward(grad, i1, i2, i3, expand1, expand2, expand3, sumdim, unroll_dim,
                        output_mask):
    """PyTorch's _trilinear_backward: each gradient is a _trilinear of the gradient and the
    other two inputs, the gradient taking the summed dims' place."""
    pub = TRILINEAR.public
    return (pub(grad, i2, i3, sumdim, expand2, expand3, expand1) if output_mask[0] else None,
            pub(i1, grad, i3, expand1, sumdim, expand3, expand2) if output_mask[1] else None,
            pub(i1, i2, grad, expand1, expand2, sumdim, expand3) if output_mask[2] else None)


TRILINEAR = defop(
    "_trilinear", _trilinear, inputs=("i1", "i2", "i3"),
    derivatives={("i1", "i2", "i3"): _trilinear_backward}, dtype="same",
    grad_fn_name="TrilinearBackward0", methods=(), family=FAMILY)
