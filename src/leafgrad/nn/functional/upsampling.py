"""``F.interpolate`` and the deprecated ``F.upsample*`` (records in ``ops/upsample.py``;
``mode='area'`` is adaptive average pooling, as in PyTorch).

>>> import leafgrad as torch
>>> import leafgrad.nn.functional as F
>>> F.interpolate(torch.tensor([[[0., 2.]]]), size=3, mode="linear", align_corners=True)
tensor([[[0., 1., 2.]]])
"""
from __future__ import annotations

import math
import numbers
import warnings

from ...ops.upsample import UPSAMPLE
from ...tensor import Tensor
from .pooling_adaptive import adaptive_avg_pool1d, adaptive_avg_pool2d, adaptive_avg_pool3d

__all__ = ["interpolate", "upsample", "upsample_nearest", "upsample_bilinear"]

_ALL_MODES = ("nearest | linear | bilinear | bicubic | trilinear | lanczos | area | "
              "nearest-exact")


def _is_integer(x) -> bool:
    if isinstance(x, Tensor):
        return not x.is_floating_point() and not x.is_complex()
    return isinstance(x, numbers.Integral)


def _sizes(input, size, scale_factor, dim):
    """(output_size, scale_factors): exactly one is a list, as PyTorch's interpolate."""
    if size is not None and scale_factor is not None:
        raise ValueError("only one of size or scale_factor should be defined")
    if size is not None:
        if isinstance(size, (list, tuple)):
            if len(size) != dim:
                raise ValueError(
                    "Input and output must have the same number of spatial dimensions, but "
                    f"got input with spatial dimensions of {list(input.shape[2:])} and output "
                    f"size of {size}. Please provide input tensor in (N, C, d1, d2, ...,dK) "
                    "format and output size in (o1, o2, ...,oK) format.")
            if not all(_is_integer(x) for x in size):
                raise TypeError("expected size to be one of int or Tuple[int] or Tuple[int, "
                                "int] or Tuple[int, int, int], but got size with types "
                                f"{[type(x) for x in size]}")
            return [int(s) for s in size], None
        return [int(size)] * dim, None
    if scale_factor is not None:
        if isinstance(scale_factor, (list, tuple)):
            if len(scale_factor) != dim:
                raise ValueError(
                    "Input and scale_factor must have the same number of spatial dimensions, "
                    f"but got input with spatial dimensions of {list(input.shape[2:])} and "
                    f"scale_factor of shape {scale_factor}. Please provide input tensor in (N, "
                    "C, d1, d2, ...,dK) format and scale_factor in (s1, s2, ...,sK) format.")
            return None, [float(f) for f in scale_factor]
        return None, [float(scale_factor)] * dim
    raise ValueError("either size or scale_factor should be defined")


def interpolate(input: Tensor, size=None, scale_factor=None, mode: str = "nearest",
                align_corners: bool | None = None, recompute_scale_factor: bool | None = None,
                antialias: bool = False) -> Tensor:
    """Resize the spatial dims (all after the first two) to ``size`` or by ``scale_factor``
    with ``mode`` nearest | nearest-exact | linear | bilinear | bicubic | trilinear | area."""
    if mode in ("nearest", "area", "nearest-exact"):
        if align_corners is not None:
            raise ValueError("align_corners option can only be set with the interpolating "
                             "modes: linear | bilinear | bicubic | trilinear")
    elif align_corners is None:
        align_corners = False
    dim = input.dim() - 2
    output_size, scales = _sizes(input, size, scale_factor, dim)
    if recompute_scale_factor and size is not None:
        raise ValueError("recompute_scale_factor is not meaningful with an explicit size.")
    if mode == "area" and output_size is None:
        recompute_scale_factor = True
    if recompute_scale_factor:
        output_size = [math.floor(input.shape[i + 2] * scales[i]) for i in range(dim)]
        scales = None
    if antialias and not (mode in ("bilinear", "bicubic", "lanczos") and input.dim() == 4):
        raise ValueError("Anti-alias option is restricted to bilinear, bicubic, and lanczos "
                         "modes and requires a 4-D tensor as input")
    if antialias:
        raise NotImplementedError("leafgrad: F.interpolate(antialias=True) is not implemented")
    n = input.dim()
    if mode in ("nearest", "nearest-exact") and n in (3, 4, 5):
        name = ("upsample_nearest" if mode == "nearest" else "_upsample_nearest_exact")
        return UPSAMPLE[f"{name}{n - 2}d"].public(input, output_size, scales)
    if mode == "area" and n in (3, 4, 5):
        pool = (adaptive_avg_pool1d, adaptive_avg_pool2d, adaptive_avg_pool3d)[n - 3]
        return pool(input, output_size)
    linear = {(3, "linear"): "upsample_linear1d", (4, "bilinear"): "upsample_bilinear2d",
              (5, "trilinear"): "upsample_trilinear3d", (4, "bicubic"): "upsample_bicubic2d"}
    if (n, mode) in linear:
        return UPSAMPLE[linear[(n, mode)]].public(input, output_size, align_corners, scales)
    if n == 4 and mode == "lanczos":
        if align_corners:
            raise ValueError("Lanczos mode does not support align_corners=True")
        raise ValueError("Lanczos mode requires antialias=True")
    needs = {"linear": 3, "bilinear": 4, "trilinear": 5}
    if n in (3, 4, 5) and mode in needs:
        raise NotImplementedError(f"Got {n}D input, but {mode} mode needs {needs[mode]}D input")
    raise NotImplementedError(f"Input Error: Only 3D, 4D and 5D input Tensors supported (got "
                              f"{n}D) for the modes: {_ALL_MODES} (got {mode})")


def upsample(input, size=None, scale_factor=None, mode="nearest", align_corners=None):
    """Deprecated alias of :func:`interpolate` (warns as PyTorch)."""
    warnings.warn("`nn.functional.upsample` is deprecated. Use `nn.functional.interpolate` "
                  "instead.", stacklevel=2)
    return interpolate(input, size, scale_factor, mode, align_corners)


def upsample_nearest(input, size=None, scale_factor=None):
    """Deprecated: ``interpolate(..., mode='nearest')``."""
    warnings.warn("`nn.functional.upsample_nearest` is deprecated. Use "
                  "`nn.functional.interpolate` instead.", stacklevel=2)
    return interpolate(input, size, scale_factor, mode="nearest")


def upsample_bilinear(input, size=None, scale_factor=None):
    """Deprecated: ``interpolate(..., mode='bilinear', align_corners=True)``."""
    warnings.warn("`nn.functional.upsample_bilinear` is deprecated. Use "
                  "`nn.functional.interpolate` instead.", stacklevel=2)
    return interpolate(input, size, scale_factor, mode="bilinear", align_corners=True)
