"""More of ``torch.nn.functional``."""
from __future__ import annotations

__all__: list = []
