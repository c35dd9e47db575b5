"""More nn op records."""
from __future__ import annotations

__all__: list = []
