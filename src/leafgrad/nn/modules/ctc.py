"""``nn.CTCLoss``: the connectionist temporal classification loss as a module (the math is in
``F.ctc_loss``).

>>> import leafgrad as torch
>>> torch.nn.CTCLoss(blank=0, zero_infinity=True)
CTCLoss()
"""
from __future__ import annotations

from .. import functional as F
from .loss import _Loss

__all__ = ["CTCLoss"]


class CTCLoss(_Loss):
    """CTC loss; ``forward(log_probs, targets, input_lengths, target_lengths)``."""

    def __init__(self, blank: int = 0, reduction: str = "mean",
                 zero_infinity: bool = False) -> None:
        super().__init__(reduction=reduction)
        self.blank = blank
        self.zero_infinity = zero_infinity

    def forward(self, log_probs, targets, input_lengths, target_lengths):
        return F.ctc_loss(log_probs, targets, input_lengths, target_lengths, self.blank,
                          self.reduction, self.zero_infinity)
