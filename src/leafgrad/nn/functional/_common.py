"""Shared pieces of nn.functional: primitive lookup and loss reductions.

Note [Primitive or composite]
PyTorch computes many functional ops (``leaky_relu``, ``mse_loss``, ``nll_loss``...) as single
ATen ops, which is why their ``grad_fn`` is ``LeakyReluBackward0``, ``MseLossBackward0``...
Where the op table (``ops/``) has a record of that name, nn.functional calls it with ATen's
argument order, so values, gradients and ``grad_fn`` names all match. Where it has none yet,
nn.functional builds the same function from existing ops: values and gradients match, only
the ``grad_fn`` name differs.
"""
from __future__ import annotations

import warnings

from ...ops.registry import RECORDS

__all__ = ["prim", "reduction_enum", "reduce", "legacy_reduction"]

_REDUCTIONS = {"none": 0, "mean": 1, "sum": 2}


def prim(name: str):
    """The public function of op record ``name``, or None when the op table lacks it."""
    rec = RECORDS.get(name)
    return None if rec is None else rec.public


def reduction_enum(reduction: str) -> int:
    """ATen's reduction code (0 none, 1 mean, 2 sum), with PyTorch's error for a bad name."""
    try:
        return _REDUCTIONS[reduction]
    except (KeyError, TypeError):
        raise ValueError(f"{reduction} is not a valid value for reduction") from None


def reduce(loss, reduction: str):
    """Apply ``reduction`` ('none' | 'mean' | 'sum') to an elementwise loss."""
    code = reduction_enum(reduction)
    if code == 1:
        return loss.mean()
    if code == 2:
        return loss.sum()
    return loss


def legacy_reduction(size_average, reduce_, reduction: str, emit_warning: bool = True) -> str:
    """Map the deprecated ``size_average``/``reduce`` flags onto ``reduction``."""
    if size_average is None and reduce_ is None:
        return reduction
    if size_average is None:
        size_average = True
    if reduce_ is None:
        reduce_ = True
    if size_average and reduce_:
        ret = "mean"
    elif reduce_:
        ret = "sum"
    else:
        ret = "none"
    if emit_warning:
        warnings.warn(f"size_average and reduce args will be deprecated, please use "
                      f"reduction='{ret}' instead.", UserWarning, stacklevel=3)
    return ret
