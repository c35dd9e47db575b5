"""linalg ops (family file)."""
from __future__ import annotations

FAMILY = "linalg"
