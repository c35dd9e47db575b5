"""``nn.Dropout``: active in training mode, the identity after ``eval()``.

>>> import leafgrad as torch
>>> drop = torch.nn.Dropout(0.5).eval()
>>> drop(torch.ones(3))
tensor([1., 1., 1.])
"""
from __future__ import annotations

from .. import functional as F
from .module import Module

__all__ = ["Dropout"]


class Dropout(Module):
    def __init__(self, p: float = 0.5, inplace: bool = False) -> None:
        super().__init__()
        if p < 0 or p > 1:
            raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
        self.p, self.inplace = p, inplace

    def forward(self, input):
        return F.dropout(input, self.p, self.training, self.inplace)

    def extra_repr(self) -> str:
        return f"p={self.p}, inplace={self.inplace}"
