"""Random numbers: ``manual_seed``, ``Generator``, ``rand``/``randn``/... (to be filled in)."""
from __future__ import annotations

__all__: list = []
