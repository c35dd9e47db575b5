"""``torch.cuda`` as a CPU-only PyTorch build answers it: no devices.

Teaching code asks before it picks a device (``"cuda" if torch.cuda.is_available() else
"cpu"``) and seeds every generator (``torch.cuda.manual_seed_all``); those work. Calls that
need a GPU raise PyTorch's CPU-build error.

>>> import leafgrad as torch
>>> torch.cuda.is_available(), torch.cuda.device_count()
(False, 0)
"""
from __future__ import annotations

__all__ = ["is_available", "device_count", "is_initialized", "manual_seed", "manual_seed_all",
           "seed", "seed_all", "empty_cache", "memory_allocated", "max_memory_allocated",
           "current_device", "synchronize", "get_device_name", "set_device"]


def _not_compiled(*args, **kwargs):
    raise AssertionError("Torch not compiled with CUDA enabled")


def is_available() -> bool:
    return False


def device_count() -> int:
    return 0


def is_initialized() -> bool:
    return False


def manual_seed(seed) -> None:
    """Seeds nothing: there is no CUDA generator (PyTorch ignores the call the same way)."""


manual_seed_all = manual_seed


def seed() -> None:
    pass


seed_all = seed


def empty_cache() -> None:
    pass


def memory_allocated(device=None) -> int:
    return 0


max_memory_allocated = memory_allocated
current_device = synchronize = get_device_name = set_device = _not_compiled
