"""``F.grid_sample`` and ``F.affine_grid`` (spatial transformer networks).

Both warn, as PyTorch 2.13 does, when ``align_corners`` is left unspecified, then use False.
The work is done by the ``grid_sampler_2d/3d`` and ``affine_grid_generator`` records
(ops/grid_sample.py).

>>> import leafgrad as torch
>>> import leafgrad.nn.functional as F
>>> theta = torch.tensor([[[1., 0., 0.], [0., 1., 0.]]])
>>> F.affine_grid(theta, (1, 1, 2, 2), align_corners=True)[0, 1]
tensor([[-1.,  1.],
        [ 1.,  1.]])
"""
from __future__ import annotations

import warnings


__all__ = ["grid_sample", "affine_grid"]

_ALIGN_WARNING = ("Default grid_sample and affine_grid behavior has changed to "
                  "align_corners=False since 1.3.0. Please specify align_corners=True if the old "
                  "behavior is desired. See the documentation of grid_sample for details.")
_MODES = {"bilinear": 0, "nearest": 1, "bicubic": 2}
_PADDINGS = {"zeros": 0, "border": 1, "reflection": 2}


def grid_sample(input, grid, mode: str = "bilinear", padding_mode: str = "zeros",
                align_corners: bool | None = None):
    """Sample ``input`` (N, C, H, W) or (N, C, D, H, W) at the normalized positions of
    ``grid`` (N, H_out, W_out, 2) or (N, D_out, H_out, W_out, 3), x first."""
    if mode not in _MODES:
        raise ValueError("nn.functional.grid_sample(): expected mode to be 'bilinear', "
                         f"'nearest' or 'bicubic', but got: '{mode}'")
    if padding_mode not in _PADDINGS:
        raise ValueError("nn.functional.grid_sample(): expected padding_mode to be 'zeros', "
                         f"'border', or 'reflection', but got: '{padding_mode}'")
    if align_corners is None:
        warnings.warn(_ALIGN_WARNING, UserWarning, stacklevel=2)
        align_corners = False
    from ...ops.grid_sample import GRID_SAMPLER, check_grid_sampler   # on first use
    # checked here too: the dispatcher reads a kernel's NotImplementedError on two inputs of
    # different shapes as a broadcasting error, which grid sampling is not
    check_grid_sampler(input._data, grid._data, _MODES[mode])
    record = GRID_SAMPLER[2 if input.dim() == 4 else 3]
    return record.public(input, grid, _MODES[mode], _PADDINGS[padding_mode], align_corners)


def affine_grid(theta, size, align_corners: bool | None = None):
    """The sampling grid (N, H, W, 2) or (N, D, H, W, 3) of the affine maps ``theta``
    (N, 2, 3) or (N, 3, 4) for an output of ``size`` (N, C, H, W) or (N, C, D, H, W)."""
    if align_corners is None:
        warnings.warn(_ALIGN_WARNING, UserWarning, stacklevel=2)
        align_corners = False
    if not theta.is_floating_point():
        raise ValueError(f"Expected theta to have floating point type, but got {theta.dtype}")
    if len(size) == 4:
        if theta.dim() != 3 or theta.shape[-2] != 2 or theta.shape[-1] != 3:
            raise ValueError("Expected a batch of 2D affine matrices of shape Nx2x3 for size "
                             f"{size}. Got {theta.shape}.")
        spatial = size[-2:]
    elif len(size) == 5:
        if theta.dim() != 3 or theta.shape[-2] != 3 or theta.shape[-1] != 4:
            raise ValueError("Expected a batch of 3D affine matrices of shape Nx3x4 for size "
                             f"{size}. Got {theta.shape}.")
        spatial = size[-3:]
    else:
        raise NotImplementedError("affine_grid only supports 4D and 5D sizes, for 2D and 3D "
                                  f"affine transforms, respectively. Got size {size}.")
    if align_corners and min(spatial) == 1:
        warnings.warn("Since version 1.3.0, affine_grid behavior has changed for unit-size "
                      "grids when align_corners=True. This is not an intended use case of "
                      "affine_grid. See the documentation of affine_grid for details.",
                      UserWarning, stacklevel=2)
    elif min(size) <= 0:
        raise ValueError(f"Expected non-zero, positive output size. Got {size}")
    from ...ops.grid_sample import AFFINE_GRID
    return AFFINE_GRID.public(theta, list(size), align_corners)
