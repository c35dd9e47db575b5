"""indexing ops (family file)."""
from __future__ import annotations

FAMILY = "indexing"
