"""More ``torch.nn`` layers: instance / RMS / local-response norm, PReLU, RReLU, the shrink
activations, Softmax2d, CosineSimilarity, PairwiseDistance, pixel and channel shuffles,
channel-wise and alpha dropout, Unfold / Fold (the math is in ``nn.functional``).

>>> import leafgrad as torch
>>> torch.nn.InstanceNorm2d(3)
InstanceNorm2d(3, eps=1e-05, momentum=0.1, affine=False, bias=False, track_running_stats=False)
"""
from __future__ import annotations

import numbers
import warnings

from ... import dtypes as _dt
from ...factories import empty
from .. import functional as F
from .. import init
from ..parameter import Parameter
from .batchnorm import _NormBase
from .module import Module

__all__ = ["InstanceNorm1d", "InstanceNorm2d", "InstanceNorm3d", "RMSNorm", "LocalResponseNorm",
           "PReLU", "RReLU", "Softshrink", "Hardshrink", "Softmax2d", "CosineSimilarity",
           "PairwiseDistance", "PixelShuffle", "PixelUnshuffle", "ChannelShuffle", "Dropout1d",
           "Dropout2d", "Dropout3d", "AlphaDropout", "FeatureAlphaDropout", "Unfold", "Fold", "EmbeddingBag"]


def _kw(dtype):
    return {} if dtype is None else {"dtype": _dt.to_dtype(dtype)}


# -- normalization -------------------------------------------------------------------------------
class _InstanceNorm(_NormBase):
    _batched_dims = 0

    def __init__(self, num_features: int, eps: float = 1e-5, momentum: float = 0.1,
                 affine: bool = False, track_running_stats: bool = False, device=None,
                 dtype=None, *, bias: bool = True) -> None:
        super().__init__(num_features, eps, momentum, affine, track_running_stats, device,
                         dtype, bias=bias)

    def _check_input_dim(self, input) -> None:
        b = self._batched_dims
        if input.dim() not in (b - 1, b):
            raise ValueError(f"expected {b - 1}D or {b}D input (got {input.dim()}D input)")

    def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict, missing_keys,
                              unexpected_keys, error_msgs):
        """A state dict without version metadata (saved before PyTorch 0.4) may hold running
        statistics an instance norm without ``track_running_stats`` has no buffers for: they
        are reported as PyTorch words it (strict or not) and dropped."""
        if local_metadata.get("version", None) is None and not self.track_running_stats:
            found = [prefix + name for name in ("running_mean", "running_var")
                     if prefix + name in state_dict]
            if found:
                cls = type(self).__name__
                names = " and ".join(f'"{k}"' for k in found)
                error_msgs.append(
                    f"Unexpected running stats buffer(s) {names} for {cls} with "
                    f"track_running_stats=False. If state_dict is a checkpoint saved before "
                    f"0.4.0, this may be expected because {cls} does not track running stats "
                    f"by default since 0.4.0. Please remove these keys from state_dict. If the "
                    f"running stats are actually needed, instead set track_running_stats=True "
                    f"in {cls} to enable them. See the documentation of {cls} for details.")
                for key in found:
                    state_dict.pop(key)
        super()._load_from_state_dict(state_dict, prefix, local_metadata, strict,
                                      missing_keys, unexpected_keys, error_msgs)

    def _apply_instance_norm(self, input):
        return F.instance_norm(input, self.running_mean, self.running_var, self.weight,
                               self.bias, self.training or not self.track_running_stats,
                               self.momentum if self.momentum is not None else 0.0, self.eps)

    def forward(self, input):
        self._check_input_dim(input)
        feature_dim = input.dim() - (self._batched_dims - 1)
        if input.size(feature_dim) != self.num_features:
            if self.affine:
                raise ValueError(f"expected input's size at dim={feature_dim} to match "
                                 f"num_features ({self.num_features}), but got: "
                                 f"{input.size(feature_dim)}.")
            warnings.warn(f"input's size at dim={feature_dim} does not match num_features. You "
                          "can silence this warning by not passing in num_features, which is "
                          "not used because affine=False", stacklevel=2)
        if input.dim() == self._batched_dims - 1:
            return self._apply_instance_norm(input.unsqueeze(0)).squeeze(0)
        return self._apply_instance_norm(input)


class InstanceNorm1d(_InstanceNorm):
    """Instance norm over (N, C, L) or (C, L) input."""
    _batched_dims = 3


class InstanceNorm2d(_InstanceNorm):
    """Instance norm over (N, C, H, W) or (C, H, W) input."""
    _batched_dims = 4


class InstanceNorm3d(_InstanceNorm):
    """Instance norm over (N, C, D, H, W) or (C, D, H, W) input."""
    _batched_dims = 5


class RMSNorm(Module):
    """Root-mean-square norm over the trailing ``normalized_shape`` dims; weight starts at 1."""

    def __init__(self, normalized_shape, eps: float | None = None,
                 elementwise_affine: bool = True, device=None, dtype=None) -> None:
        super().__init__()
        if isinstance(normalized_shape, numbers.Integral):
            normalized_shape = (normalized_shape,)
        self.normalized_shape = tuple(normalized_shape)
        self.eps = eps
        self.elementwise_affine = elementwise_affine
        if elementwise_affine:
            self.weight = Parameter(empty(self.normalized_shape, **_kw(dtype)))
        else:
            self.register_parameter("weight", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        if self.elementwise_affine:
            init.ones_(self.weight)

    def forward(self, x):
        return F.rms_norm(x, self.normalized_shape, self.weight, self.eps)

    def extra_repr(self) -> str:
        return (f"{self.normalized_shape}, eps={self.eps}, "
                f"elementwise_affine={self.elementwise_affine}")


class LocalResponseNorm(Module):
    """Normalize each element by the squares of ``size`` neighbouring channels."""

    def __init__(self, size: int, alpha: float = 1e-4, beta: float = 0.75,
                 k: float = 1.0) -> None:
        super().__init__()
        self.size, self.alpha, self.beta, self.k = size, alpha, beta, k

    def forward(self, input):
        return F.local_response_norm(input, self.size, self.alpha, self.beta, self.k)

    def extra_repr(self) -> str:
        return f"{self.size}, alpha={self.alpha}, beta={self.beta}, k={self.k}"


# -- activations ---------------------------------------------------------------------------------
class PReLU(Module):
    """Leaky ReLU with a learned slope (one shared, or one per channel), initially ``init``."""

    def __init__(self, num_parameters: int = 1, init: float = 0.25, device=None,
                 dtype=None) -> None:
        self.num_parameters = num_parameters
        super().__init__()
        self.init = init
        self.weight = Parameter(empty(num_parameters, **_kw(dtype)))
        self.reset_parameters()

    def reset_parameters(self) -> None:
        init.constant_(self.weight, self.init)

    def forward(self, input):
        return F.prelu(input, self.weight)

    def extra_repr(self) -> str:
        return f"num_parameters={self.num_parameters}"


class RReLU(Module):
    """Randomized leaky ReLU (slopes drawn from U(lower, upper) in training)."""

    def __init__(self, lower: float = 1.0 / 8, upper: float = 1.0 / 3,
                 inplace: bool = False) -> None:
        super().__init__()
        self.lower, self.upper, self.inplace = lower, upper, inplace

    def forward(self, input):
        return F.rrelu(input, self.lower, self.upper, self.training, self.inplace)

    def extra_repr(self) -> str:
        inplace = ", inplace=True" if self.inplace else ""
        return f"lower={self.lower}, upper={self.upper}{inplace}"


class Softshrink(Module):
    def __init__(self, lambd: float = 0.5) -> None:
        super().__init__()
        self.lambd = lambd

    def forward(self, input):
        return F.softshrink(input, self.lambd)

    def extra_repr(self) -> str:
        return str(self.lambd)


class Hardshrink(Softshrink):
    def forward(self, input):
        return F.hardshrink(input, self.lambd)


class Softmax2d(Module):
    """Softmax over the channel dim (-3) of (N, C, H, W) or (C, H, W) input."""

    def forward(self, input):
        if input.dim() not in (3, 4):
            raise ValueError(f"Softmax2d: expected input to be 3D or 4D, got {input.dim()}D "
                             f"instead")
        return F.softmax(input, -3, _stacklevel=5)


class CosineSimilarity(Module):
    def __init__(self, dim: int = 1, eps: float = 1e-8) -> None:
        super().__init__()
        self.dim, self.eps = dim, eps

    def forward(self, x1, x2):
        return F.cosine_similarity(x1, x2, self.dim, self.eps)


class PairwiseDistance(Module):
    def __init__(self, p: float = 2.0, eps: float = 1e-6, keepdim: bool = False) -> None:
        super().__init__()
        self.norm, self.eps, self.keepdim = p, eps, keepdim

    def forward(self, x1, x2):
        return F.pairwise_distance(x1, x2, self.norm, self.eps, self.keepdim)


# -- rearranging ---------------------------------------------------------------------------------
class PixelShuffle(Module):
    def __init__(self, upscale_factor: int) -> None:
        super().__init__()
        self.upscale_factor = upscale_factor

    def forward(self, input):
        return F.pixel_shuffle(input, self.upscale_factor)

    def extra_repr(self) -> str:
        return f"upscale_factor={self.upscale_factor}"


class PixelUnshuffle(Module):
    def __init__(self, downscale_factor: int) -> None:
        super().__init__()
        self.downscale_factor = downscale_factor

    def forward(self, input):
        return F.pixel_unshuffle(input, self.downscale_factor)

    def extra_repr(self) -> str:
        return f"downscale_factor={self.downscale_factor}"


class ChannelShuffle(Module):
    def __init__(self, groups: int) -> None:
        super().__init__()
        self.groups = groups

    def forward(self, input):
        return F.channel_shuffle(input, self.groups)

    def extra_repr(self) -> str:
        return f"groups={self.groups}"


class Unfold(Module):
    """im2col: sliding blocks of a (N, C, H, W) input as columns."""

    def __init__(self, kernel_size, dilation=1, padding=0, stride=1) -> None:
        super().__init__()
        self.kernel_size, self.dilation = kernel_size, dilation
        self.padding, self.stride = padding, stride

    def forward(self, input):
        return F.unfold(input, self.kernel_size, self.dilation, self.padding, self.stride)

    def extra_repr(self) -> str:
        return (f"kernel_size={self.kernel_size}, dilation={self.dilation}, padding="
                f"{self.padding}, stride={self.stride}")


class Fold(Module):
    """col2im: columns of sliding blocks summed back into a (N, C, H, W) tensor."""

    def __init__(self, output_size, kernel_size, dilation=1, padding=0, stride=1) -> None:
        super().__init__()
        self.output_size, self.kernel_size = output_size, kernel_size
        self.dilation, self.padding, self.stride = dilation, padding, stride

    def forward(self, input):
        return F.fold(input, self.output_size, self.kernel_size, self.dilation, self.padding,
                      self.stride)

    def extra_repr(self) -> str:
        return (f"output_size={self.output_size}, kernel_size={self.kernel_size}, "
                f"dilation={self.dilation}, padding={self.padding}, stride={self.stride}")


# -- dropout -------------------------------------------------------------------------------------
class _DropoutNd(Module):
    _fn = None

    def __init__(self, p: float = 0.5, inplace: bool = False) -> None:
        super().__init__()
        if p < 0 or p > 1:
            raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
        self.p, self.inplace = p, inplace

    def forward(self, input):
        return getattr(F, self._fn)(input, self.p, self.training, self.inplace)

    def extra_repr(self) -> str:
        return f"p={self.p}, inplace={self.inplace}"


class Dropout1d(_DropoutNd):
    _fn = "dropout1d"


class Dropout2d(_DropoutNd):
    _fn = "dropout2d"


class Dropout3d(_DropoutNd):
    _fn = "dropout3d"


class AlphaDropout(_DropoutNd):
    _fn = "alpha_dropout"


class FeatureAlphaDropout(_DropoutNd):
    _fn = "feature_alpha_dropout"


# -- embedding bag -------------------------------------------------------------------------------
class EmbeddingBag(Module):
    """Sums, means or maxima of bags of embeddings (weight initialised N(0, 1))."""

    def __init__(self, num_embeddings: int, embedding_dim: int, max_norm: float | None = None,
                 norm_type: float = 2.0, scale_grad_by_freq: bool = False, mode: str = "mean",
                 sparse: bool = False, _weight=None, include_last_offset: bool = False,
                 padding_idx: int | None = None, device=None, dtype=None) -> None:
        super().__init__()
        self.num_embeddings, self.embedding_dim = num_embeddings, embedding_dim
        self.max_norm, self.norm_type = max_norm, norm_type
        self.scale_grad_by_freq = scale_grad_by_freq
        if padding_idx is not None:
            if padding_idx > 0:
                assert padding_idx < num_embeddings, \
                    "padding_idx must be within num_embeddings"
            elif padding_idx < 0:
                assert padding_idx >= -num_embeddings, \
                    "padding_idx must be within num_embeddings"
                padding_idx = num_embeddings + padding_idx
        self.padding_idx = padding_idx
        if _weight is None:
            self.weight = Parameter(empty((num_embeddings, embedding_dim), **_kw(dtype)))
            self.reset_parameters()
        else:
            if list(_weight.shape) != [num_embeddings, embedding_dim]:
                raise AssertionError("Shape of weight does not match num_embeddings and "
                                     "embedding_dim")
            self.weight = Parameter(_weight)
        self.mode, self.sparse = mode, sparse
        self.include_last_offset = include_last_offset

    def reset_parameters(self) -> None:
        init.normal_(self.weight)
        if self.padding_idx is not None:
            from ...grad_mode import no_grad
            with no_grad():
                self.weight[self.padding_idx].fill_(0)

    def forward(self, input, offsets=None, per_sample_weights=None):
        return F.embedding_bag(input, self.weight, offsets, self.max_norm, self.norm_type,
                               self.scale_grad_by_freq, self.mode, self.sparse,
                               per_sample_weights, self.include_last_offset, self.padding_idx)

    def extra_repr(self) -> str:
        s = f"{self.num_embeddings!r}, {self.embedding_dim!r}"
        if self.max_norm is not None:
            s += f", max_norm={self.max_norm!r}"
        if self.norm_type != 2:
            s += f", norm_type={self.norm_type!r}"
        if self.scale_grad_by_freq is not False:
            s += f", scale_grad_by_freq={self.scale_grad_by_freq!r}"
        s += f", mode={self.mode!r}"
        if self.padding_idx is not None:
            s += f", padding_idx={self.padding_idx!r}"
        return s
