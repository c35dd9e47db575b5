"""``torch.accelerator`` on a machine without one (leafgrad runs on the CPU).

>>> import leafgrad as torch
>>> torch.accelerator.is_available(), torch.accelerator.current_accelerator()
(False, None)
"""
from __future__ import annotations

__all__ = ["is_available", "current_accelerator", "device_count"]


def is_available(check_available: bool = False) -> bool:
    return False


def current_accelerator(check_available: bool = False):
    return None


def device_count() -> int:
    return 0
