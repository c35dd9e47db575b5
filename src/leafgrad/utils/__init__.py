"""``torch.utils``: ``data`` (Dataset, DataLoader, ...) and ``hooks`` (RemovableHandle)."""
from __future__ import annotations

from . import hooks, data

__all__ = ["data", "hooks"]
