"""Padding layers: ``nn.{Reflection,Replication,Circular,Zero,Constant}Pad{1,2,3}d``, each a thin
wrapper of ``F.pad`` with its mode.

``padding`` is an int (the same amount on every side) or a tuple ``(left, right, top, bottom,
front, back)`` (as many as the layer pads dims, last dim first).

>>> import leafgrad as torch
>>> torch.nn.ReflectionPad2d(1)
ReflectionPad2d((1, 1, 1, 1))
>>> torch.nn.ConstantPad1d((1, 2), 3.5)(torch.zeros(1, 2))
tensor([[3.5000, 0.0000, 0.0000, 3.5000, 3.5000]])
"""
from __future__ import annotations

from .. import functional as F
from .module import Module

__all__ = [
    "CircularPad1d", "CircularPad2d", "CircularPad3d",
    "ConstantPad1d", "ConstantPad2d", "ConstantPad3d",
    "ReflectionPad1d", "ReflectionPad2d", "ReflectionPad3d",
    "ReplicationPad1d", "ReplicationPad2d", "ReplicationPad3d",
    "ZeroPad1d", "ZeroPad2d", "ZeroPad3d",
]


def _padding(value, n: int) -> tuple:
    if isinstance(value, (tuple, list)):
        return tuple(value)
    return (value,) * (2 * n)


class _PadNd(Module):
    """A padding layer: ``F.pad(input, self.padding, mode)``."""

    _mode = "constant"
    _n = 1

    def __init__(self, padding) -> None:
        super().__init__()
        self.padding = _padding(padding, self._n)

    def forward(self, input):
        return F.pad(input, self.padding, self._mode)

    def extra_repr(self) -> str:
        return f"{self.padding}"


class _CircularPadNd(_PadNd):
    _mode = "circular"

    def _check_input_dim(self, input) -> None:
        n = self._n
        if input.dim() not in (n + 1, n + 2):
            raise ValueError(f"expected {n + 1}D or {n + 2}D input (got {input.dim()}D input)")

    def forward(self, input):
        self._check_input_dim(input)
        return F.pad(input, self.padding, "circular")


class _ConstantPadNd(_PadNd):
    def __init__(self, padding, value: float) -> None:
        super().__init__(padding)
        self.value = value

    def forward(self, input):
        return F.pad(input, self.padding, "constant", self.value)

    def extra_repr(self) -> str:
        return f"padding={self.padding}, value={self.value}"


class _ZeroPadNd(_ConstantPadNd):
    def __init__(self, padding) -> None:
        super().__init__(padding, 0.0)

    def extra_repr(self) -> str:
        return f"{self.padding}"


def _layer(base, name: str, n: int, what: str):
    """One concrete layer class (the 1-d, 2-d and 3-d ones differ only in ``_n``)."""
    dims = ("the last dim", "the last 2 dims", "the last 3 dims")[n - 1]
    return type(name, (base,), {"_n": n, "__doc__": f"{what} of {dims}.",
                                "__module__": __name__})


class _ReflectionPadNd(_PadNd):
    _mode = "reflect"


class _ReplicationPadNd(_PadNd):
    _mode = "replicate"


ReflectionPad1d = _layer(_ReflectionPadNd, "ReflectionPad1d", 1, "Reflection padding")
ReflectionPad2d = _layer(_ReflectionPadNd, "ReflectionPad2d", 2, "Reflection padding")
ReflectionPad3d = _layer(_ReflectionPadNd, "ReflectionPad3d", 3, "Reflection padding")
ReplicationPad1d = _layer(_ReplicationPadNd, "ReplicationPad1d", 1, "Replication padding")
ReplicationPad2d = _layer(_ReplicationPadNd, "ReplicationPad2d", 2, "Replication padding")
ReplicationPad3d = _layer(_ReplicationPadNd, "ReplicationPad3d", 3, "Replication padding")
CircularPad1d = _layer(_CircularPadNd, "CircularPad1d", 1, "Circular padding")
CircularPad2d = _layer(_CircularPadNd, "CircularPad2d", 2, "Circular padding")
CircularPad3d = _layer(_CircularPadNd, "CircularPad3d", 3, "Circular padding")
ConstantPad1d = _layer(_ConstantPadNd, "ConstantPad1d", 1, "Padding with a constant ``value``")
ConstantPad2d = _layer(_ConstantPadNd, "ConstantPad2d", 2, "Padding with a constant ``value``")
ConstantPad3d = _layer(_ConstantPadNd, "ConstantPad3d", 3, "Padding with a constant ``value``")
ZeroPad1d = _layer(_ZeroPadNd, "ZeroPad1d", 1, "Zero padding")
ZeroPad2d = _layer(_ZeroPadNd, "ZeroPad2d", 2, "Zero padding")
ZeroPad3d = _layer(_ZeroPadNd, "ZeroPad3d", 3, "Zero padding")
