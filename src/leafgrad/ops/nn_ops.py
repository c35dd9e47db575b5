"""nn_ops ops (family file)."""
from __future__ import annotations

FAMILY = "nn_ops"
