"""More of ``torch.nn.functional``: instance / RMS / local-response normalization, channel-wise
and alpha dropout, ``gumbel_softmax``, and the single-op layers whose records live in
``ops/nn_extra.py`` (``prelu``, ``pixel_shuffle``, ``channel_shuffle``, ``unfold`` / ``fold``,
``pdist``).

Where PyTorch composes a function from other ops (instance_norm is a batch_norm over a
(1, N*C, ...) view, rms_norm and local_response_norm are pointwise chains, the dropouts multiply
by a noise tensor), it is composed here the same way, so the graph and grad_fn names match.

>>> import leafgrad as torch
>>> import leafgrad.nn.functional as F
>>> F.rms_norm(torch.tensor([[3.0, 4.0]]), (2,), eps=0.0)
tensor([[0.8485, 1.1314]])
"""
from __future__ import annotations

import math
import warnings

from ...grad_mode import no_grad
from ...ops.nn_extra import CHANNEL_SHUFFLE, COL2IM, IM2COL, PIXEL_SHUFFLE, \
    PIXEL_UNSHUFFLE, PRELU, pdist as _pdist
from ...ops.embedding_bag import EMBEDDING_BAG
from ...ops.nn_layers import _indices, embedding_renorm_
from ...ops.norm import NATIVE_BATCH_NORM
from ...tensor import Tensor
from .layers import pad
from .pooling import avg_pool2d, avg_pool3d
from .normalization import empty_batch_norm, float_args

__all__ = ["instance_norm", "rms_norm", "local_response_norm", "prelu", "pixel_shuffle",
           "pixel_unshuffle", "channel_shuffle", "native_channel_shuffle", "dropout1d",
           "dropout2d", "dropout3d", "alpha_dropout", "feature_alpha_dropout", "gumbel_softmax",
           "unfold", "fold", "pdist", "embedding_bag"]


def _torch():
    import leafgrad
    return leafgrad


# -- normalization -------------------------------------------------------------------------------
def instance_norm(input: Tensor, running_mean: Tensor | None = None,
                  running_var: Tensor | None = None, weight: Tensor | None = None,
                  bias: Tensor | None = None, use_input_stats: bool = True,
                  momentum: float = 0.1, eps: float = 1e-5) -> Tensor:
    """Normalize each (sample, channel) plane by its own statistics: a batch norm of the
    (1, N*C, ...) view (ViewBackward0 over NativeBatchNormBackward0, as PyTorch); running
    statistics are the mean over the batch of the per-instance updates."""
    if use_input_stats:
        if math.prod(input.shape[2:]) == 1:
            raise ValueError(f"Expected more than 1 spatial element when training, got input "
                             f"size {input.size()}")
    float_args("instance_norm", momentum=momentum, eps=eps)
    if (running_mean is None) != (running_var is None):
        raise ValueError("running_mean and running_var must either both be None or neither "
                         "be None")
    b, c = input.shape[0], input.shape[1]
    shape = (1, b * c) + tuple(input.shape[2:])
    w = weight.repeat(b) if weight is not None else None
    bi = bias.repeat(b) if bias is not None else None
    rm = running_mean.repeat(b) if running_mean is not None else None
    rv = running_var.repeat(b) if running_var is not None else None
    if rm is not None:
        # PyTorch's dtype check sees only weight and bias here: the repeated statistics take
        # the dtype the kernel wants (the first parameter's, else the input's) and are copied
        # back into the caller's tensors, whatever their dtype.
        first = weight if weight is not None else bias
        stat_dtype = (first if first is not None else input).dtype
        rm, rv = rm.to(stat_dtype), rv.to(stat_dtype)
    if not use_input_stats and rm is None:
        raise RuntimeError("Expected running_mean and running_var to be defined when "
                           "use_input_stats is false")
    if input._data.size == 0:
        out = empty_batch_norm(input.contiguous().view(shape), w, bi)
    else:
        out = NATIVE_BATCH_NORM.public(input.contiguous().view(shape), w, bi, rm, rv,
                                       bool(use_input_stats), momentum, eps)
    if use_input_stats and running_mean is not None:
        with no_grad(), warnings.catch_warnings():   # (an empty batch: NaN, silently)
            warnings.simplefilter("ignore", RuntimeWarning)
            # PyTorch writes the averaged statistics back through an alias
            running_mean.copy_(rm.view(b, c).mean(0))
            running_var.copy_(rv.view(b, c).mean(0))
    return out.view(input.shape)


def _shape_str(shape) -> str:
    return f"[{', '.join(map(str, shape))}]"


def rms_norm(input: Tensor, normalized_shape, weight: Tensor | None = None,
             eps: float | None = None) -> Tensor:
    """``input * rsqrt(mean(input**2) + eps)`` over the trailing ``normalized_shape`` dims,
    times ``weight`` (eps defaults to the dtype's machine epsilon), composed as PyTorch."""
    shape = (normalized_shape,) if isinstance(normalized_shape, int) else \
        tuple(normalized_shape)
    n = len(shape)
    if weight is not None and tuple(weight.shape) != shape:
        raise RuntimeError(f"Expected weight to be of same shape as normalized_shape, but got "
                           f"weight of shape {_shape_str(weight.shape)} and normalized_shape = "
                           f"{_shape_str(shape)}")
    if input.dim() < n or tuple(input.shape[input.dim() - n:]) != shape:
        raise RuntimeError(f"Given normalized_shape={_shape_str(shape)}, expected input with "
                           f"shape [*{', '.join(map(str, shape))}], but got input of size"
                           f"{_shape_str(input.shape)}")
    if not input.is_floating_point():
        raise NotImplementedError(f'"rms_norm" not implemented for '
                                  f"'{input.dtype.tensor_type[:-6]}'")
    half = input.dtype == _torch().float16
    if eps is None:   # the machine epsilon of the dtype it computes in (float32 for float16)
        eps = _torch().finfo(_torch().float32 if half else input.dtype).eps
    dims = list(range(input.dim() - n, input.dim()))
    if half or (weight is not None and weight.dtype != input.dtype):
        return _rms_norm_upcast(input, weight, dims, eps)
    rsqrt = input.pow(2).mean(dims, keepdim=True).add_(eps).rsqrt()
    result = input.mul(rsqrt)
    return result if weight is None else result.mul(weight)


_rms_warned: list = []


def _rms_norm_upcast(input: Tensor, weight: Tensor | None, dims: list, eps: float) -> Tensor:
    """PyTorch's unfused path, for float16 input or a weight of another dtype (that one warns
    once per process): computed in the input's math dtype (float32 for float16), the product
    cast back to the input's dtype (a ToCopyBackward0 node when the product's dtype
    differs)."""
    if weight is not None and weight.dtype != input.dtype and not _rms_warned:
        _rms_warned.append(True)
        names = {"float32": "float", "float64": "double", "float16": "c10::Half"}
        a, w = (str(t.dtype).replace("torch.", "") for t in (input, weight))
        warnings.warn(f"Mismatch dtype between input and weight: input dtype = "
                      f"{names.get(a, a)}, weight dtype = {names.get(w, w)}, Cannot dispatch "
                      f"to fused implementation. (Triggered internally at /__w/pytorch/"
                      f"pytorch/aten/src/ATen/native/layer_norm.cpp:346.)", UserWarning,
                      stacklevel=3)
    x = input.float() if input.dtype == _torch().float16 else input
    result = x.mul(x.pow(2).mean(dims, keepdim=True).add_(eps).rsqrt())
    return (result if weight is None else result.mul(weight)).to(input.dtype)


def local_response_norm(input: Tensor, size: int, alpha: float = 1e-4, beta: float = 0.75,
                        k: float = 1.0) -> Tensor:
    """Divide each element by ``(k + alpha * mean of squares over size neighbouring
    channels) ** beta`` (an average pool over the channel dim, as PyTorch composes it)."""
    dim = input.dim()
    if dim < 3:
        raise ValueError(f"Expected 3D or higher dimensionality                          "
                         f"input (got {dim} dimensions)")
    if input.numel() == 0:
        return input
    div = input.mul(input)
    if dim == 3:
        div = div.unsqueeze(1)
        div = pad(div, (0, 0, size // 2, (size - 1) // 2))
        div = avg_pool2d(div, (size, 1), stride=1).squeeze(1)
    else:
        sizes = input.size()
        div = div.view(sizes[0], 1, sizes[1], sizes[2], -1)
        div = pad(div, (0, 0, 0, 0, size // 2, (size - 1) // 2))
        div = avg_pool3d(div, (size, 1, 1), stride=1).squeeze(1)
        div = div.view(sizes)
    div = div.mul(alpha).add(k).pow(beta)
    return input / div


# -- single-op layers ----------------------------------------------------------------------------
def prelu(input: Tensor, weight: Tensor) -> Tensor:
    """``max(0, x) + weight * min(0, x)``, one weight per channel (dim 1) or one shared."""
    if input.dtype != weight.dtype:   # checked first, before the shapes, as PyTorch
        raise RuntimeError(f"prelu: Type promoting not supported. Got "
                           f"{input.type()[6:-6]} and {weight.type()[6:-6]}")
    n = weight.numel()
    if n != 1:
        if input.dim() == 0:
            raise RuntimeError("Not allow zero-dim input tensor.")
        channels = input.shape[1] if input.dim() >= 2 else 1
        if n != channels:
            raise RuntimeError(f"Mismatch of parameter numbers and input channel size. Found "
                               f"parameter numbers = {n} and channel size = {channels}.")
    if weight.dim() > 1:
        raise RuntimeError(f"prelu: Expected `weight` to be a scalar or 1D tensor, but got: "
                           f"ndim = {weight.dim()}")
    if not input.dtype.is_floating_point:
        raise NotImplementedError(f'"prelu_cpu" not implemented for \'{input.type()[6:-6]}\'')
    w = weight
    if input.dim() != weight.dim():   # PyTorch reshapes the weight to broadcast (a view)
        shape = [1] * input.dim()
        if input.dim() >= 2:
            shape[1] = n
        w = weight.reshape(shape)
    return PRELU.public(input, w)


def pixel_shuffle(input: Tensor, upscale_factor: int) -> Tensor:
    """(*, C*r*r, H, W) -> (*, C, H*r, W*r)."""
    return PIXEL_SHUFFLE.public(input, upscale_factor)


def pixel_unshuffle(input: Tensor, downscale_factor: int) -> Tensor:
    """(*, C, H*r, W*r) -> (*, C*r*r, H, W)."""
    return PIXEL_UNSHUFFLE.public(input, downscale_factor)


def channel_shuffle(input: Tensor, groups: int) -> Tensor:
    """Interleave the channels of ``groups`` groups: (N, g*k, *) viewed (N, g, k, *),
    transposed to (N, k, g, *)."""
    return CHANNEL_SHUFFLE.public(input, groups)


native_channel_shuffle = channel_shuffle


def _pair(v, n=2):
    return tuple(v) if isinstance(v, (tuple, list)) else (v,) * n


def unfold(input: Tensor, kernel_size, dilation=1, padding=0, stride=1) -> Tensor:
    """im2col: (N, C, H, W) -> (N, C*kh*kw, L), one column per sliding block."""
    return IM2COL.public(input, _pair(kernel_size), _pair(dilation), _pair(padding),
                         _pair(stride))


def fold(input: Tensor, output_size, kernel_size, dilation=1, padding=0, stride=1) -> Tensor:
    """col2im: (N, C*kh*kw, L) -> (N, C, H, W), summing overlapping blocks."""
    return COL2IM.public(input, _pair(output_size), _pair(kernel_size), _pair(dilation),
                         _pair(padding), _pair(stride))


pdist = _pdist   # torch.pdist's own function: the same checks


# -- dropout -------------------------------------------------------------------------------------
def _check_p(p) -> None:
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")


def _dropout_impl(input, p, train, inplace, feature, alpha):
    """ATen's _dropout_impl: noise per element, or per (sample, channel) for ``feature``."""
    if p == 0 or not train or input.numel() == 0:
        return input
    torch = _torch()
    if feature and input.dim() < 2:
        raise RuntimeError("Feature dropout requires at least 2 dimensions in the input")
    if p == 1:
        zero = torch.zeros((), dtype=input.dtype)
        return input.mul_(zero) if inplace else input.mul(zero)
    if feature:
        noise = torch.empty(tuple(input.shape[:2]) + (1,) * (input.dim() - 2),
                            dtype=input.dtype)
    else:
        noise = torch.empty_like(input)
    noise.bernoulli_(1 - p)
    if alpha:
        a_ = 1.7580993408473766
        a = 1.0 / math.sqrt((a_ * a_ * p + 1) * (1 - p))
        b = noise.add(-1).mul_(a_ * a).add_(a_ * a * p)
        noise.mul_(a)
        out = input.mul_(noise) if inplace else input.mul(noise)
        return out.add_(b)
    noise.div_(1 - p)
    return input.mul_(noise) if inplace else input.mul(noise)


def _feature_dropout(input, p, training, inplace, batched_dims):
    batched = input.dim() == batched_dims
    if not batched:
        input = input.unsqueeze_(0) if inplace else input.unsqueeze(0)
    result = _dropout_impl(input, p, training, inplace, feature=True, alpha=False)
    if not batched:
        result = result.squeeze_(0) if inplace else result.squeeze(0)
    return result


def dropout1d(input: Tensor, p: float = 0.5, training: bool = True,
              inplace: bool = False) -> Tensor:
    """Zero whole channels of (N, C, L) or (C, L) input with probability ``p``."""
    _check_p(p)
    if input.dim() not in (2, 3):
        raise RuntimeError(
            f"dropout1d: Expected 2D or 3D input, but received a {input.dim()}D input. Note "
            "that dropout1d exists to provide channel-wise dropout on inputs with 1 spatial "
            "dimension, a channel dimension, and an optional batch dimension (i.e. 2D or 3D "
            "inputs).")
    return _feature_dropout(input, p, training, inplace, 3)


def dropout2d(input: Tensor, p: float = 0.5, training: bool = True,
              inplace: bool = False) -> Tensor:
    """Zero whole channels of (N, C, H, W) input with probability ``p``."""
    _check_p(p)
    d = input.dim()
    if d not in (3, 4):
        warnings.warn(
            f"dropout2d: Received a {d}-D input to dropout2d, which is deprecated and will "
            "result in an error in a future release. To retain the behavior and silence this "
            "warning, please use dropout instead. Note that dropout2d exists to provide "
            "channel-wise dropout on inputs with 2 spatial dimensions, a channel dimension, "
            "and an optional batch dimension (i.e. 3D or 4D inputs).", stacklevel=2)
    if d == 3:
        warnings.warn(
            "dropout2d: Received a 3D input to dropout2d and assuming that channel-wise 1D "
            "dropout behavior is desired - input is interpreted as shape (N, C, L), where C is "
            "the channel dim. This behavior will change in a future release to interpret the "
            "input as one without a batch dimension, i.e. shape (C, H, W). To maintain the 1D "
            "channel-wise dropout behavior, please switch to using dropout1d instead.",
            stacklevel=2)
    return _dropout_impl(input, p, training, inplace, feature=True, alpha=False)


def dropout3d(input: Tensor, p: float = 0.5, training: bool = True,
              inplace: bool = False) -> Tensor:
    """Zero whole channels of (N, C, D, H, W) or (C, D, H, W) input with probability ``p``."""
    _check_p(p)
    d = input.dim()
    if d not in (4, 5):
        warnings.warn(
            f"dropout3d: Received a {d}-D input to dropout3d, which is deprecated and will "
            "result in an error in a future release. To retain the behavior and silence this "
            "warning, please use dropout instead. Note that dropout3d exists to provide "
            "channel-wise dropout on inputs with 3 spatial dimensions, a channel dimension, "
            "and an optional batch dimension (i.e. 4D or 5D inputs).", stacklevel=2)
    return _feature_dropout(input, p, training, inplace, 5)


def alpha_dropout(input: Tensor, p: float = 0.5, training: bool = False,
                  inplace: bool = False) -> Tensor:
    """Dropout that keeps SELU's self-normalizing mean and variance."""
    _check_p(p)
    return _dropout_impl(input, p, training, inplace, feature=False, alpha=True)


def feature_alpha_dropout(input: Tensor, p: float = 0.5, training: bool = False,
                          inplace: bool = False) -> Tensor:
    """Alpha dropout of whole channels."""
    _check_p(p)
    return _dropout_impl(input, p, training, inplace, feature=True, alpha=True)


def gumbel_softmax(logits: Tensor, tau: float = 1, hard: bool = False, eps: float = 1e-10,
                   dim: int = -1) -> Tensor:
    """Samples from the Gumbel-softmax distribution; ``hard`` gives one-hot samples whose
    gradient is the soft sample's (straight-through)."""
    if eps != 1e-10:
        warnings.warn("`eps` parameter is deprecated and has no effect.", stacklevel=2)
    torch = _torch()
    gumbels = -torch.empty_like(logits).exponential_().log()
    gumbels = (logits + gumbels) / tau
    y_soft = gumbels.softmax(dim)
    if hard:
        index = y_soft.max(dim, keepdim=True)[1]
        y_hard = torch.zeros_like(logits).scatter_(dim, index, 1.0)
        return y_hard - y_soft.detach() + y_soft
    return y_soft



# -- embedding_bag -------------------------------------------------------------------------------
def embedding_bag(input: Tensor, weight: Tensor, offsets: Tensor | None = None,
                  max_norm: float | None = None, norm_type: float = 2,
                  scale_grad_by_freq: bool = False, mode: str = "mean", sparse: bool = False,
                  per_sample_weights: Tensor | None = None, include_last_offset: bool = False,
                  padding_idx: int | None = None) -> Tensor:
    """Sums, means or maxima of bags of embeddings: each row of a 2-D ``input`` is a bag, or
    ``offsets`` mark where each bag starts in a 1-D ``input``."""
    torch = _torch()
    if weight.dtype == torch.long and input.is_floating_point():
        warnings.warn("Argument order of nn.functional.embedding_bag was changed. Usage "
                      "`embedding_bag(weight, input, ...)` is deprecated, and should now be "
                      "`embedding_bag(input, weight, ...)`.", stacklevel=2)
        weight, input = input, weight
    if per_sample_weights is not None and input.size() != per_sample_weights.size():
        raise ValueError(f"embedding_bag: If per_sample_weights ({per_sample_weights.shape}) "
                         f"is not None, then it must have the same shape as the input "
                         f"({input.shape})")
    if weight.dim() != 2:
        raise ValueError(f"weight has to be a 2D Tensor, but got Tensor of dimension "
                         f"{weight.dim()}")
    if input.dim() == 2:
        if offsets is not None:
            raise ValueError(f"if input is 2D, then offsets has to be None, as input is treated "
                             f"is a mini-batch of fixed length sequences. However, found "
                             f"offsets of type {type(offsets)}")
        offsets = torch.arange(0, input.numel(), input.size(1), dtype=input.dtype)
        include_last_offset = False
        input = input.reshape(-1)
        if per_sample_weights is not None:
            per_sample_weights = per_sample_weights.reshape(-1)
    elif input.dim() == 1:
        if offsets is None:
            raise ValueError("offsets has to be a 1D Tensor but got None")
        if offsets.dim() != 1:
            raise ValueError("offsets has to be a 1D Tensor")
    else:
        raise ValueError(f"input has to be 1D or 2D Tensor, but got Tensor of dimension "
                         f"{input.dim()}")
    modes = {"sum": 0, "mean": 1, "max": 2}
    if mode not in modes:
        raise ValueError("mode has to be one of sum, mean or max")
    if mode == "max" and scale_grad_by_freq:
        raise ValueError("max mode does not support scaling the gradient by the frequency")
    if mode == "max" and sparse:
        raise ValueError("max mode does not support sparse weights")
    if sparse:
        raise NotImplementedError("leafgrad: sparse gradients (sparse=True) are not "
                                  "implemented")
    if scale_grad_by_freq:
        raise NotImplementedError("leafgrad: F.embedding_bag(scale_grad_by_freq=True) is not "
                                  "implemented (PyTorch's frequency scaling of the weight "
                                  "gradient is not reproduced yet)")
    for t in (input, offsets):   # float indices (say, from a float NumPy array) are refused
        _indices(t, "embedding_bag")
    if max_norm is not None:
        with no_grad():
            embedding_renorm_(weight, input, max_norm, norm_type)
    if per_sample_weights is not None and mode != "sum":
        raise NotImplementedError(
            f"embedding_bag: per_sample_weights was not None. per_sample_weights is only "
            f"supported for mode='sum' (got mode='{mode}'). Please open a feature request on "
            f"GitHub.")
    if padding_idx is not None and padding_idx < 0:
        padding_idx += weight.shape[0]
    return EMBEDDING_BAG.public(weight, input, offsets, scale_grad_by_freq, modes[mode],
                                sparse, per_sample_weights, include_last_offset, padding_idx)
