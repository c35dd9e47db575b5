"""More losses of ``torch.nn.functional``: ``multi_margin_loss`` and
``multilabel_margin_loss`` (records in ``ops/margin_losses.py``), ``triplet_margin_loss`` and
``triplet_margin_with_distance_loss`` (composed as PyTorch: pairwise distances, a clamp, a
reduction), and the ``*_with_indices`` spellings of the max poolings.

>>> import leafgrad as torch
>>> import leafgrad.nn.functional as F
>>> a, p, n = torch.zeros(1, 2), torch.zeros(1, 2), torch.ones(1, 2)
>>> F.triplet_margin_loss(a, p, n, margin=2.0)
tensor(0.5858)
"""
from __future__ import annotations

from ...ops.margin_losses import MULTI_MARGIN_LOSS, MULTILABEL_MARGIN_LOSS
from ...tensor import Tensor
from ._common import legacy_reduction, reduction_enum
from .loss import pairwise_distance
from .pooling import max_pool1d, max_pool2d, max_pool3d
from .pooling_adaptive import adaptive_max_pool1d, adaptive_max_pool2d, adaptive_max_pool3d

__all__ = ["multi_margin_loss", "multilabel_margin_loss", "triplet_margin_loss",
           "triplet_margin_with_distance_loss", "max_pool1d_with_indices",
           "max_pool2d_with_indices", "max_pool3d_with_indices",
           "adaptive_max_pool1d_with_indices", "adaptive_max_pool2d_with_indices",
           "adaptive_max_pool3d_with_indices"]


def _enum(size_average, reduce, reduction) -> int:
    return reduction_enum(legacy_reduction(size_average, reduce, reduction))


def multi_margin_loss(input: Tensor, target: Tensor, p: int = 1, margin: float = 1.0,
                      weight: Tensor | None = None, size_average=None, reduce=None,
                      reduction: str = "mean") -> Tensor:
    """Multi-class hinge loss: ``sum_{j != y} max(0, margin - x[y] + x[j]) ** p / C``."""
    code = _enum(size_average, reduce, reduction)
    if p != 1 and p != 2:
        raise ValueError("only p == 1 and p == 2 supported")
    if weight is not None and weight.dim() != 1:
        raise ValueError("weight must be one-dimensional")
    return MULTI_MARGIN_LOSS.public(input, target, p, margin, weight, code)


def multilabel_margin_loss(input: Tensor, target: Tensor, size_average=None, reduce=None,
                           reduction: str = "mean") -> Tensor:
    """Multi-label hinge loss over the target classes listed in ``target`` (ended by -1)."""
    return MULTILABEL_MARGIN_LOSS.public(input, target, _enum(size_average, reduce,
                                                              reduction))


def _reduce(loss, code):
    if code == 1:
        return loss.mean()
    if code == 2:
        return loss.sum()
    return loss


def _check_dims(anchor, positive, negative):
    a, p, n = anchor.dim(), positive.dim(), negative.dim()
    if not (a == p and p == n):
        raise RuntimeError(f"The anchor, positive, and negative tensors are expected to have "
                           f"the same number of dimensions, but got: anchor {a}D, positive "
                           f"{p}D, and negative {n}D inputs")


def triplet_margin_loss(anchor: Tensor, positive: Tensor, negative: Tensor,
                        margin: float = 1.0, p: float = 2, eps: float = 1e-6,
                        swap: bool = False, size_average=None, reduce=None,
                        reduction: str = "mean") -> Tensor:
    """``max(0, margin + d(a, p) - d(a, n))`` with ``d`` the pairwise p-norm distance."""
    code = _enum(size_average, reduce, reduction)
    if margin <= 0:
        raise ValueError(f"margin must be greater than 0, got {margin}")
    _check_dims(anchor, positive, negative)
    dist_pos = pairwise_distance(anchor, positive, p, eps)
    dist_neg = pairwise_distance(anchor, negative, p, eps)
    if swap:
        dist_neg = dist_neg.minimum(pairwise_distance(positive, negative, p, eps))
    return _reduce((margin + dist_pos - dist_neg).clamp_min(0), code)


def triplet_margin_with_distance_loss(anchor: Tensor, positive: Tensor, negative: Tensor, *,
                                      distance_function=None, margin: float = 1.0,
                                      swap: bool = False, reduction: str = "mean") -> Tensor:
    """The triplet loss with any ``distance_function`` (default: pairwise distance)."""
    if reduction not in ("mean", "sum", "none"):
        raise ValueError(f"{reduction} is not a valid value for reduction")
    if margin <= 0:
        raise ValueError(f"margin must be greater than 0, got {margin}")
    _check_dims(anchor, positive, negative)
    if distance_function is None:
        distance_function = pairwise_distance
    dist_pos = distance_function(anchor, positive)
    dist_neg = distance_function(anchor, negative)
    if swap:
        dist_neg = dist_neg.minimum(distance_function(positive, negative))
    return _reduce((margin + dist_pos - dist_neg).clamp_min(0), reduction_enum(reduction))


def max_pool1d_with_indices(input, kernel_size, stride=None, padding=0, dilation=1,
                            ceil_mode=False, return_indices=False):
    return max_pool1d(input, kernel_size, stride, padding, dilation, ceil_mode, True)


def max_pool2d_with_indices(input, kernel_size, stride=None, padding=0, dilation=1,
                            ceil_mode=False, return_indices=False):
    return max_pool2d(input, kernel_size, stride, padding, dilation, ceil_mode, True)


def max_pool3d_with_indices(input, kernel_size, stride=None, padding=0, dilation=1,
                            ceil_mode=False, return_indices=False):
    return max_pool3d(input, kernel_size, stride, padding, dilation, ceil_mode, True)


def adaptive_max_pool1d_with_indices(input, output_size, return_indices=False):
    return adaptive_max_pool1d(input, output_size, True)


def adaptive_max_pool2d_with_indices(input, output_size, return_indices=False):
    return adaptive_max_pool2d(input, output_size, True)


def adaptive_max_pool3d_with_indices(input, output_size, return_indices=False):
    return adaptive_max_pool3d(input, output_size, True)
