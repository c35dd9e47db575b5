"""Loss functions of ``torch.nn.functional`` (see Note [Primitive or composite]).

Every loss takes ``reduction`` = 'mean' | 'sum' | 'none' and the deprecated
``size_average``/``reduce`` flags, as PyTorch's do.

>>> import leafgrad as torch
>>> import leafgrad.nn.functional as F
>>> F.mse_loss(torch.tensor([1.0, 3.0]), torch.tensor([0.0, 0.0]))
tensor(5.)
"""
from __future__ import annotations

import math

import warnings

import numpy as _np

from ...ops.losses import (
    ADD_SCALAR,
    DIV_SCALAR,
    HUBER_LOSS,
    MSE_LOSS,
    MUL_SCALAR,
    SMOOTH_L1_LOSS,
)
from ...ops.losses_extra import SOFT_MARGIN_LOSS
from ...ops.ce_fused import cross_entropy_2d as _cross_entropy_2d
from ...ops.nll_loss import NLL_LOSS, NLL_LOSS2D
from ...tensor import Tensor
from ._common import legacy_reduction, prim, reduction_enum
from ._common import reduce as _apply_reduction

__all__ = [
    "binary_cross_entropy",
    "binary_cross_entropy_with_logits",
    "cosine_embedding_loss",
    "cosine_similarity",
    "cross_entropy",
    "gaussian_nll_loss",
    "hinge_embedding_loss",
    "huber_loss",
    "kl_div",
    "l1_loss",
    "margin_ranking_loss",
    "mse_loss",
    "multilabel_soft_margin_loss",
    "nll_loss",
    "pairwise_distance",
    "poisson_nll_loss",
    "smooth_l1_loss",
    "soft_margin_loss",
]


def _torch():
    import leafgrad
    return leafgrad


_NLL_LOSS, _NLL_LOSS2D = NLL_LOSS.public, NLL_LOSS2D.public
_mul_scalar, _div_scalar = MUL_SCALAR.public, DIV_SCALAR.public
_add_scalar = ADD_SCALAR.public
_MSE_LOSS, _HUBER_LOSS, _SMOOTH_L1_LOSS = MSE_LOSS.public, HUBER_LOSS.public, SMOOTH_L1_LOSS.public


def _warn_size(input: Tensor, target: Tensor) -> None:
    if target.size() != input.size():
        warnings.warn(
            f"Using a target size ({target.size()}) that is different to the input size "
            f"({input.size()}). This will likely lead to incorrect results due to "
            "broadcasting. Please ensure they have the same size.", UserWarning, stacklevel=3)


def _weighted(loss, weight, reduction, mean_by_weight: bool):
    """PyTorch's Python-level weighted losses: 'mean' is ``sum(w loss) / sum(w)`` for
    mse/l1 (``mean_by_weight``) and ``mean(w loss)`` for huber."""
    loss = loss * weight
    if reduction == "none":
        return loss
    if reduction == "sum":
        return loss.sum()
    if reduction == "mean":
        return loss.sum() / weight.sum() if mean_by_weight else loss.mean()
    raise ValueError(f"Invalid reduction mode: {reduction}. Expected one of 'none', 'mean', "
                     "'sum'.")


def _check_weight_size(weight, input):
    if weight.size() != input.size():
        raise ValueError("Weights and input must have the same size.")


def mse_loss(input: Tensor, target: Tensor, size_average=None, reduce=None,
             reduction: str = "mean", weight=None) -> Tensor:
    """``(input - target) ** 2``, reduced: one ``MseLossBackward0`` node (unweighted)."""
    _warn_size(input, target)
    reduction = legacy_reduction(size_average, reduce, reduction)
    a, b = _torch().broadcast_tensors(input, target)
    if weight is not None:
        _check_weight_size(weight, input)
        return _weighted((a - b).pow(2), weight, reduction, True)
    return _MSE_LOSS(a, b, reduction_enum(reduction))


def _reduce_loss(loss, reduction):
    return _apply_reduction(loss, reduction)


def l1_loss(input: Tensor, target: Tensor, size_average=None, reduce=None,
            reduction: str = "mean", weight=None) -> Tensor:
    """``|input - target|``, reduced: a composite in PyTorch too (after broadcasting)."""
    _warn_size(input, target)
    reduction = legacy_reduction(size_average, reduce, reduction)
    a, b = _torch().broadcast_tensors(input, target)
    if weight is not None:
        _check_weight_size(weight, input)
        return _weighted((a - b).abs(), weight, reduction, True)
    code = reduction_enum(reduction)
    return _reduce_loss((a - b).abs(), ("none", "mean", "sum")[code])


def smooth_l1_loss(input: Tensor, target: Tensor, size_average=None, reduce=None,
                   reduction: str = "mean", beta: float = 1.0) -> Tensor:
    """Quadratic inside ``beta``, linear outside: one ``SmoothL1LossBackward0`` node (the
    composite l1 loss for ``beta=0``, as in PyTorch)."""
    _warn_size(input, target)
    reduction = legacy_reduction(size_average, reduce, reduction)
    a, b = _torch().broadcast_tensors(input, target)
    code = reduction_enum(reduction)
    if beta == 0.0:
        return _reduce_loss((a - b).abs(), ("none", "mean", "sum")[code])
    if beta < 0:
        raise RuntimeError("smooth_l1_loss does not support negative values for beta.")
    return _SMOOTH_L1_LOSS(a, b, code, float(beta))   # a C double, as PyTorch saves it


def huber_loss(input: Tensor, target: Tensor, reduction: str = "mean", delta: float = 1.0,
               weight=None) -> Tensor:
    """Quadratic inside ``delta``, linear outside: one ``HuberLossBackward0`` node
    (unweighted)."""
    _warn_size(input, target)
    if delta <= 0:
        raise RuntimeError("huber_loss does not support non-positive values for delta.")
    a, b = _torch().broadcast_tensors(input, target)
    if weight is None:
        return _HUBER_LOSS(a, b, reduction_enum(reduction), float(delta))   # a C double
    _check_weight_size(weight, input)
    return _weighted(_HUBER_LOSS(a, b, 0, float(delta)), weight, reduction, False)


# -- classification ----------------------------------------------------------------------
def _check_nll(input: Tensor, target: Tensor):
    """nll_loss_nd's checks (on the arrays' metadata: this is on the hot path)."""
    shape, tshape = input._data.shape, target._data.shape
    if len(shape) < 1:
        raise ValueError(f"Expected 1 or more dimensions (got {len(shape)})")
    if len(shape) != 1 and (not tshape or shape[0] != tshape[0]):
        # (a 0-d target's size(0) reads as 0 there)
        raise ValueError(f"Expected input batch_size ({shape[0]}) to match target "
                         f"batch_size ({tshape[0] if tshape else 0}).")


def nll_loss(input: Tensor, target: Tensor, weight=None, size_average=None,
             ignore_index: int = -100, reduce=None, reduction: str = "mean") -> Tensor:
    """Negative log-likelihood of the target class; ``input`` holds log-probabilities,
    classes along dim 1 (dim 0 for an unbatched 1-D input)."""
    reduction = legacy_reduction(size_average, reduce,
                                 reduction)
    code = reduction_enum(reduction)
    _check_nll(input, target)
    return _nll_loss_nd(input, target, weight, code, ignore_index)


def _nll_loss_nd(input, target, weight, code, ignore_index):
    """PyTorch's ``nll_loss_nd``: ``nll_loss`` for 1-D/2-D input, ``nll_loss2d`` for 4-D,
    other ranks viewed as 4-D ``(N, C, 1, -1)`` (and a 'none' result viewed back)."""
    dim = input._data.ndim
    if dim <= 2:
        return _NLL_LOSS(input, target, weight, code, ignore_index)
    if dim == 4:
        return _NLL_LOSS2D(input, target, weight, code, ignore_index)
    n, c = input.shape[0], input.shape[1]
    out_size = [n] + list(input.shape[2:])
    if list(target.shape[1:]) != list(input.shape[2:]):
        raise RuntimeError(f"Expected target size {out_size}, got {list(target.shape)}")
    if input.numel() > 0:
        input = input.contiguous().view(n, c, 1, -1)
    else:
        input = input.contiguous().view(n, c, 0, 0)
    if target.numel() > 0:
        target = target.contiguous().view(n, 1, -1)
    else:
        target = target.contiguous().view(n, 0, 0)
    out = _NLL_LOSS2D(input, target, weight, code, ignore_index)
    return out if code != 0 else out.view(out_size)


def _label_smoothed(log_probs, target, weight, ignore_index, code, smoothing, class_dim):
    """PyTorch's label-smoothing cross entropy: ``(1 - s) nll + s / C * smooth`` where
    ``smooth`` is the (weighted) negative sum of the log-probabilities, with PyTorch's
    nodes (two ``MulBackward1`` into an ``AddBackward0``)."""
    n_classes = log_probs.shape[class_dim]
    nll = _nll_loss_nd(log_probs, target, weight, code, ignore_index)
    if weight is not None:
        shape = [1] * log_probs.dim()
        shape[class_dim] = weight.shape[0]
        smooth = -(log_probs * weight.view(shape)).sum(class_dim)
    else:
        smooth = -log_probs.sum(class_dim)
    ignored = target == ignore_index
    smooth.masked_fill_(ignored, 0.0)
    if code == 1:
        if weight is not None:
            denom = weight.gather(0, target.masked_select(~ignored).flatten()).sum()
        else:
            denom = (~ignored).sum()
        smooth = smooth.sum() / denom
    elif code == 2:
        smooth = smooth.sum()
    return _mul_scalar(nll, 1 - smoothing) + _mul_scalar(smooth, _per_class(smoothing, n_classes))


def _per_class(smoothing: float, n_classes: int) -> float:
    """``smoothing / n_classes`` as C++'s double division: inf for zero classes (an empty
    input, whose loss never reads it), not Python's ZeroDivisionError."""
    return smoothing / n_classes if n_classes else math.inf


def cross_entropy(input: Tensor, target: Tensor, weight=None, size_average=None,
                  ignore_index: int = -100, reduce=None, reduction: str = "mean",
                  label_smoothing: float = 0.0) -> Tensor:
    """``log_softmax`` over the class dim, then NLL (class-index targets) or the
    expected negative log-probability (class-probability targets: ``target`` has the
    input's shape). Two nodes for class indices, as in PyTorch: ``NllLossBackward0`` over
    ``LogSoftmaxBackward0``."""
    if (weight is None and reduction == "mean" and size_average is None and reduce is None
            and label_smoothing == 0.0 and type(ignore_index) is int):
        # the everyday case in one frame, same nodes and bits (Note [Fused cross_entropy])
        out = _cross_entropy_2d(input, target, ignore_index)
        if out is not None:
            return out
    if size_average is not None or reduce is not None:
        reduction = legacy_reduction(size_average, reduce, reduction)
    code = reduction_enum(reduction)
    class_dim = 0 if input._data.ndim == 1 else 1
    if input._data.shape == target._data.shape:
        if target._data.dtype.kind != "f":
            raise RuntimeError(f"Expected floating point type for target with class "
                               f"probabilities, got {target.dtype.tensor_type[:-6]}")
        if ignore_index >= 0:
            raise RuntimeError("ignore_index is not supported for floating point target")
        if not input._data.ndim:   # PyTorch reads the class count: size(1), no wrapping
            raise IndexError("Dimension specified as 1 but tensor has no dimensions")
        return _cross_entropy_probs(input, target, weight, code, label_smoothing, class_dim)
    if label_smoothing > 0.0:
        if label_smoothing > 1.0:
            raise RuntimeError(f"label_smoothing must be between 0.0 and 1.0. Got: "
                               f"{label_smoothing}")
        log_probs = input.log_softmax(class_dim)   # (its dim error comes first)
        _check_nll(input, target)
        return _label_smoothed(log_probs, target, weight, ignore_index, code, label_smoothing,
                               class_dim)
    log_probs = input.log_softmax(class_dim)
    _check_nll(input, target)
    return _nll_loss_nd(log_probs, target, weight, code, ignore_index)


def _cross_entropy_probs(input, target, weight, code, smoothing, class_dim):
    """Cross entropy against class probabilities, as PyTorch composes it."""
    n_classes = input.shape[class_dim]
    if weight is not None and (weight.dim() != 1 or weight.numel() != n_classes):
        raise RuntimeError(f"cross_entropy: weight tensor should be defined either for all "
                           f"{n_classes} classes or no classes but got weight tensor of shape: "
                           f"{list(weight.shape)}")
    log_probs = input.log_softmax(class_dim)
    if smoothing > 0.0:
        if smoothing > 1.0:
            raise RuntimeError(f"label_smoothing must be between 0.0 and 1.0. Got: "
                               f"{smoothing}")
        target = _add_scalar(_mul_scalar(target, 1 - smoothing),
                             _per_class(smoothing, n_classes))
    terms = log_probs * target
    if weight is not None:
        if log_probs.dim() > 1:
            shape = [1] * log_probs.dim()
            shape[1] = weight.shape[0]
            weight = weight.view(shape)
        terms = terms * weight
    if code == 0:
        return -terms.sum(class_dim)
    if code == 2:
        return -terms.sum()
    if input.numel() == 0:   # PyTorch's -(...).sum().fill_(NAN): a NegBackward0 node
        return -terms.sum().fill_(float("nan"))
    return _div_scalar(-terms.sum(), input.numel() // n_classes)


def binary_cross_entropy(input: Tensor, target: Tensor, weight=None, size_average=None,
                         reduce=None, reduction: str = "mean") -> Tensor:
    """``-(t log x + (1-t) log(1-x))`` with each log clamped at -100, as PyTorch does."""
    reduction = legacy_reduction(size_average, reduce,
                                 reduction)
    code = reduction_enum(reduction)
    if target.size() != input.size():
        raise ValueError(f"Using a target size ({target.size()}) that is different to the "
                         f"input size ({input.size()}) is deprecated. Please ensure they have "
                         "the same size.")
    if weight is not None and weight.shape != input.shape:
        # PyTorch's: the weight expanded to the size inferred from target's and its own; the
        # kernel then writes into an output of the input's shape
        ts, ws = tuple(target.shape), tuple(weight.shape)
        for i in range(-1, -min(len(ts), len(ws)) - 1, -1):   # torch.broadcast_shapes' text
            if ws[i] != ts[i] and ws[i] != 1 and ts[i] != 1:
                raise RuntimeError(
                    f"Attempting to broadcast a dimension of length {ws[i]} at {i}! "
                    f"Mismatching argument at index 1 had torch.Size({list(ws)}); but "
                    f"expected shape should be broadcastable to {list(ts)}")
        new_size = tuple(_np.broadcast_shapes(ts, ws))
        if new_size != tuple(input.shape):
            raise RuntimeError(f"output with shape {list(input.shape)} doesn't match the "
                               f"broadcast shape {list(new_size)}")
        weight = weight.expand(new_size)
    op = prim("binary_cross_entropy")
    if op is not None:
        return op(input, target, weight, code)
    if ((input < 0) | (input > 1)).any().item():
        raise RuntimeError("all elements of input should be between 0 and 1")
    log_x = input.log().clamp(min=-100)
    log_1mx = (1 - input).log().clamp(min=-100)
    loss = -(target * log_x + (1 - target) * log_1mx)
    if weight is not None:
        loss = loss * weight
    return _reduce_loss(loss, reduction)


def binary_cross_entropy_with_logits(input: Tensor, target: Tensor, weight=None,
                                     size_average=None, reduce=None, reduction: str = "mean",
                                     pos_weight=None) -> Tensor:
    """Sigmoid + BCE in one stable formula: ``(1-t) x - w_pos(t) log sigmoid(x)``."""
    reduction = legacy_reduction(size_average, reduce,
                                 reduction)
    code = reduction_enum(reduction)
    if target.size() != input.size():
        raise ValueError(f"Target size ({target.size()}) must be the same as input size "
                         f"({input.size()})")
    op = prim("binary_cross_entropy_with_logits")
    if op is not None:
        return op(input, target, weight, pos_weight, code)
    from .activation import logsigmoid
    log_sig = logsigmoid(input)
    if pos_weight is not None:
        log_weight = (pos_weight - 1) * target + 1
        loss = (1 - target) * input - log_weight * log_sig
    else:
        loss = (1 - target) * input - log_sig
    if weight is not None:
        loss = loss * weight
    return _reduce_loss(loss, reduction)


def _xlogx(t: Tensor) -> Tensor:
    """``xlogy(t, t)``: 0 where t == 0 (value and gradient), t log t elsewhere."""
    op = prim("xlogy")
    if op is not None:
        return op(t, t)
    torch = _torch()
    positive = t > 0
    safe = torch.where(positive, t, torch.ones_like(t))
    return torch.where(positive, t * safe.log(), torch.zeros_like(t))


def kl_div(input: Tensor, target: Tensor, size_average=None, reduce=None,
           reduction: str = "mean", log_target: bool = False) -> Tensor:
    """KL(target || input) with ``input`` given as log-probabilities."""
    if size_average is not None or reduce is not None:
        reduction = legacy_reduction(size_average, reduce,
                                     reduction)
    elif reduction == "mean":
        warnings.warn("reduction: 'mean' divides the total loss by both the batch size and "
                      "the support size.'batchmean' divides only by the batch size, and "
                      "aligns with the KL div math definition.'mean' will be changed to behave "
                      "the same as 'batchmean' in the next major release.", UserWarning,
                      stacklevel=2)
    if not (input.dtype.is_floating_point and target.dtype.is_floating_point):
        raise RuntimeError("kl_div: Integral inputs not supported.")
    if log_target:
        loss = target.exp() * (target - input)
    else:
        loss = _xlogx(target) - target * input
    if reduction == "batchmean":
        if input.dim() == 0:
            return loss.sum()
        return loss.sum() / input.size(0)
    return _reduce_loss(loss, reduction)


def soft_margin_loss(input: Tensor, target: Tensor, size_average=None, reduce=None,
                     reduction: str = "mean") -> Tensor:
    """``log(1 + exp(-target * input))``, reduced: one ``SoftMarginLossBackward0`` node."""
    reduction = legacy_reduction(size_average, reduce, reduction)
    return SOFT_MARGIN_LOSS.public(input, target, reduction_enum(reduction))


def poisson_nll_loss(input: Tensor, target: Tensor, log_input: bool = True,
                     full: bool = False, size_average=None, eps: float = 1e-8, reduce=None,
                     reduction: str = "mean") -> Tensor:
    reduction = legacy_reduction(size_average, reduce,
                                 reduction)
    if log_input:
        loss = input.exp() - target * input
    else:
        loss = input - target * (input + eps).log()
    if full:
        import math
        torch = _torch()
        stirling = target * target.log() - target + (target * (2 * math.pi)).log() * 0.5
        # in place, as PyTorch (the loss comes back at version 1)
        loss += stirling.masked_fill(target <= 1, 0)
    return _reduce_loss(loss, reduction)


def cosine_similarity(x1: Tensor, x2: Tensor, dim: int = 1, eps: float = 1e-8) -> Tensor:
    """``<x1, x2> / (|x1| |x2|)`` over ``dim``, as PyTorch computes it: each input divided by
    its norm (clamped to ``eps`` without recording), then the product summed (SumBackward1)."""
    torch = _torch()
    common = torch.result_type(x1, x2)
    if not common.is_floating_point and not common.is_complex:   # checked before the shapes
        raise RuntimeError(f"expected common dtype to be floating point, yet common dtype is "
                           f"{common.tensor_type[:-len('Tensor')]}")
    if not x1.dtype.is_floating_point and not x1.dtype.is_complex:
        x1 = x1.to(common)
    if not x2.dtype.is_floating_point and not x2.dtype.is_complex:
        x2 = x2.to(common)
    # expand_outplace: inputs of one shape are used as they are, else both are expanded
    # (ExpandBackward0 even on the one already of the full shape)
    if tuple(x1.shape) != tuple(x2.shape):
        from ...errors import broadcast_error
        error = broadcast_error((x1.shape, x2.shape))   # infer_size's message, as PyTorch
        if error is not None:
            raise error
        shape = torch.broadcast_shapes(x1.shape, x2.shape)
        x1, x2 = x1.expand(shape), x2.expand(shape)
    n1 = torch.linalg.vector_norm(x1, 2, dim, keepdim=True).clone()
    n2 = torch.linalg.vector_norm(x2, 2, dim, keepdim=True).clone()
    with torch.no_grad():
        n1.clamp_min_(eps)
        n2.clamp_min_(eps)
    return ((x1 / n1) * (x2 / n2)).sum(dim)


def pairwise_distance(x1: Tensor, x2: Tensor, p: float = 2.0, eps: float = 1e-6,
                      keepdim: bool = False) -> Tensor:
    """The ``p``-norm of ``x1 - x2 + eps`` over the last dim (NormBackward1, as PyTorch)."""
    from ...ops.losses import ADD_SCALAR
    from ...ops.losses_extra import NORM_DIM
    dim = max(x1.dim(), x2.dim()) - 1
    return NORM_DIM.public(ADD_SCALAR.public(x1 - x2, eps), p, dim, keepdim)


def cosine_embedding_loss(input1, input2, target, margin: float = 0.0, size_average=None,
                          reduce=None, reduction: str = "mean") -> Tensor:
    reduction = legacy_reduction(size_average, reduce,
                                 reduction)
    if target.dim() not in (0, 1):
        raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
    want = target.dim() + 1   # one row per target entry
    if input1.dim() != want or input2.dim() != want:
        raise RuntimeError(f"{target.dim()}D target tensor expects {want}D input tensors, but "
                           f"found inputs with sizes {list(input1.shape)} and "
                           f"{list(input2.shape)}.")
    torch = _torch()
    # PyTorch's own formula (not cosine_similarity's): the 1e-12 goes into each squared
    # magnitude before the product, which decides the rounding of near-zero gradients.
    prod_sum = (input1 * input2).sum(-1)
    mag_square1 = (input1 * input1).sum(-1) + 1e-12
    mag_square2 = (input2 * input2).sum(-1) + 1e-12
    cos = prod_sum / (mag_square1 * mag_square2).sqrt()
    zeros = torch.zeros_like(cos)
    loss = torch.where(target == 1, 1 - cos, zeros) + \
        torch.where(target == -1, (cos - margin).clamp(min=0), zeros)
    return _reduce_loss(loss, reduction)


def margin_ranking_loss(input1, input2, target, margin: float = 0.0, size_average=None,
                        reduce=None, reduction: str = "mean") -> Tensor:
    reduction = legacy_reduction(size_average, reduce,
                                 reduction)
    if input1.dim() != input2.dim() or input1.dim() != target.dim():
        raise RuntimeError(f"margin_ranking_loss : All input tensors should have same dimension "
                           f"but got sizes: input1: {input1.size()}, input2: {input2.size()}, "
                           f"target: {target.size()} ")
    # PyTorch's composite evaluates ``input1 - input2`` before ``-target`` (bool inputs get
    # the subtraction's error first), and clamps in place (ClampMinBackward0, version 1)
    diff = input1 - input2
    return _reduce_loss((-target * diff + margin).clamp_min_(0), reduction)


def hinge_embedding_loss(input, target, margin: float = 1.0, size_average=None, reduce=None,
                         reduction: str = "mean") -> Tensor:
    reduction = legacy_reduction(size_average, reduce,
                                 reduction)
    # PyTorch's composite: the margin in the input's dtype (a bool input so subtracts two
    # bools), clamped in place; targets other than 1 take the margin term, other than -1
    # the input itself (both for a target like 0)
    torch = _torch()
    zeros = torch.zeros_like(input)
    margin_clamp = (torch.full((), margin, dtype=input.dtype) - input).clamp_min_(0)
    loss = torch.where(target != 1, margin_clamp, zeros) + \
        torch.where(target != -1, input, zeros)
    return _reduce_loss(loss, reduction)


def gaussian_nll_loss(input: Tensor, target: Tensor, var, full: bool = False,
                      eps: float = 1e-6, reduction: str = "mean") -> Tensor:
    """The negative log likelihood of ``target`` under N(``input``, ``var``), composed as in
    PyTorch: ``0.5 * (log(var) + (input - target) ** 2 / var)`` with ``var`` clamped to ``eps``
    (the clamp is not recorded), plus ``0.5 * log(2 pi)`` when ``full``."""
    import math
    torch = _torch()
    if isinstance(var, float):
        if var < 0:
            raise ValueError("var has negative entry/entries")
        var = var * torch.ones_like(input)
    elif bool((var < 0).any()):
        raise ValueError("var has negative entry/entries")
    if tuple(var.shape) != tuple(input.shape):
        if tuple(input.shape[:-1]) == tuple(var.shape):
            var = var.unsqueeze(-1)   # one variance per sample: broadcast over the last dim
        elif not (input.dim() == var.dim() and
                  sum(b for a, b in zip(input.shape, var.shape) if a != b) == 1):
            raise ValueError("var is of incorrect size")
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(reduction + " is not valid")
    var = var.clone()
    with torch.no_grad():
        var.clamp_(min=eps)
    loss = 0.5 * (torch.log(var) + (input - target) ** 2 / var)
    if full:
        loss += 0.5 * math.log(2 * math.pi)
    if reduction == "mean":
        return loss.mean()
    if reduction == "sum":
        return loss.sum()
    return loss


def multilabel_soft_margin_loss(input: Tensor, target: Tensor, weight=None, size_average=None,
                                reduce=None, reduction: str = "mean") -> Tensor:
    """Binary cross entropy of each label (``logsigmoid``), averaged over the classes (the
    last dim), then reduced over the samples; composed as in PyTorch."""
    from .activation import logsigmoid
    reduction = legacy_reduction(size_average, reduce, reduction)
    loss = -(target * logsigmoid(input) + (1 - target) * logsigmoid(-input))
    if weight is not None:
        loss = loss * weight
    class_dim = input.dim() - 1
    loss = loss.sum(dim=class_dim) / input.size(class_dim)
    if reduction == "none":
        return loss
    if reduction == "mean":
        return loss.mean()
    if reduction == "sum":
        return loss.sum()
    raise ValueError(reduction + " is not valid")
