"""torch.* functions that are not op records (``isclose``, ``allclose``, ``equal``, ...)."""
from __future__ import annotations

__all__: list = []
