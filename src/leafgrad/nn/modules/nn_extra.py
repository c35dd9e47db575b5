"""More ``torch.nn`` layers."""
from __future__ import annotations

__all__: list = []
