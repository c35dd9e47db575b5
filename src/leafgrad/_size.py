"""``torch.Size``: the shape tuple tensors report."""
from __future__ import annotations

__all__ = ["Size"]


class Size(tuple):
    """``torch.Size``: a tuple that prints as ``torch.Size([2, 3])``."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "torch.Size([" + ", ".join(str(s) for s in self) + "])"

    __str__ = __repr__

    def numel(self) -> int:
        n = 1
        for s in self:
            n *= s
        return n

    def __getitem__(self, item):
        out = tuple.__getitem__(self, item)
        return Size(out) if isinstance(item, slice) else out

    def __add__(self, other):
        return Size(tuple.__add__(self, tuple(other)))
