"""``torch.backends`` flags as a CPU-only PyTorch shows them: no CUDA/cuDNN/MPS; the cuDNN
switches teaching code sets for reproducibility (``deterministic``, ``benchmark``) are plain
attributes that change nothing here.

>>> import leafgrad as torch
>>> torch.backends.mps.is_available(), torch.backends.cudnn.enabled
(False, True)
"""
from __future__ import annotations

from . import cuda, cudnn, mps

__all__ = ["cudnn", "mps", "cuda"]
