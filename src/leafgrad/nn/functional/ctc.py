"""``F.ctc_loss``: connectionist temporal classification, composed as ATen's ``ctc_loss``:
the ``_ctc_loss`` record (ops/ctc.py, grad_fn ``CtcLossBackward0``), then ``where`` for
``zero_infinity``, then the reduction (``mean`` divides each loss by its target length,
clamped to at least 1, before averaging), and a squeeze for unbatched input.

>>> import leafgrad as torch
>>> import leafgrad.nn.functional as F
>>> lp = torch.zeros(3, 1, 3).log_softmax(2)
>>> F.ctc_loss(lp, torch.tensor([[1, 2]]), torch.tensor([3]), torch.tensor([2]))
tensor(0.8432)
"""
from __future__ import annotations

from ...tensor import Tensor
from ._common import reduction_enum

__all__ = ["ctc_loss"]


def _lengths(value, name: str):
    """Lengths given as a tensor (integral, any shape: its values in order) or as a sequence
    of ints -> tuple of ints."""
    if isinstance(value, Tensor):
        if value.dtype.is_floating_point or value.dtype.is_complex or \
                str(value.dtype) == "torch.bool":
            raise RuntimeError(f"{name} must be integral")
        return tuple(int(v) for v in value.reshape(-1).tolist())
    return tuple(int(v) for v in value)


def ctc_loss(log_probs: Tensor, targets: Tensor, input_lengths, target_lengths,
             blank: int = 0, reduction: str = "mean", zero_infinity: bool = False) -> Tensor:
    """CTC loss of ``log_probs`` (T, N, C) or (T, C) against ``targets`` (N, S) padded or
    concatenated (sum(target_lengths),). ``reduction='mean'`` divides each loss by its
    target length before averaging over the batch."""
    from ...ops.ctc import CTC_LOSS   # on first use: keeps import leafgrad short
    code = reduction_enum(reduction)
    il = _lengths(input_lengths, "input_lengths")
    tl = _lengths(target_lengths, "target_lengths")
    if log_probs.numel() == 0:
        raise RuntimeError("log_probs tensor must not be empty")
    batched = log_probs.dim() == 3
    lp = log_probs if batched else log_probs.unsqueeze(1)
    res = CTC_LOSS.public(lp, targets._data if isinstance(targets, Tensor) else targets, il, tl,
                          blank, zero_infinity)
    if zero_infinity:
        res = _zero_inf(res)
    if code == 1:
        return (res / res.new_tensor(tl, dtype=res.dtype).clamp_min(1)).mean()
    if code == 2:
        return res.sum()
    return res if batched else res.squeeze(0)


def _zero_inf(res):
    """``where(res == inf, zeros({}), res)`` (grad_fn WhereBackward0)."""
    from ...ops.registry import RECORDS
    return RECORDS["where"].public(res == float("inf"), res.new_zeros(()), res)
