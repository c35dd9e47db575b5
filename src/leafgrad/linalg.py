"""``torch.linalg``: norms, products, and the decompositions leafgrad implements.

>>> import leafgrad as torch
>>> torch.linalg.vector_norm(torch.tensor([3.0, 4.0]))
tensor(5.)
"""
from __future__ import annotations

from .ops.linalg import matmul
from .ops.norms import linalg_norm as norm, vector_norm
# importing these modules registers their records (ops/__init__ reaches them through here)
from .ops.matmul_extra import cross_linalg as cross, multi_dot

__all__ = ["matmul", "norm", "vector_norm", "cross", "multi_dot"]
