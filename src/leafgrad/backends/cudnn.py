"""cuDNN switches (there is no cuDNN in leafgrad: setting them changes nothing)."""
from __future__ import annotations

enabled = True
benchmark = False
deterministic = False
allow_tf32 = True


def is_available() -> bool:
    return False
