"""``torch.linalg``: the vector norms and products leafgrad implements.

>>> import leafgrad as torch
>>> torch.linalg.vector_norm(torch.tensor([3.0, 4.0]))
tensor(5.)
"""
from __future__ import annotations

from .ops.linalg import matmul
from .ops.norms import linalg_norm as norm, vector_norm

__all__ = ["matmul", "norm", "vector_norm"]
