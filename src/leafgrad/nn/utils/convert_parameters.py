"""Flatten parameters into one vector and back.

>>> import leafgrad as torch
>>> layer = torch.nn.Linear(2, 1)
>>> torch.nn.utils.parameters_to_vector(layer.parameters()).shape
torch.Size([3])
"""
from __future__ import annotations

from ...grad_mode import no_grad
from ...tensor import Tensor

__all__ = ["parameters_to_vector", "vector_to_parameters"]


def parameters_to_vector(parameters) -> Tensor:
    """One 1-D tensor of every parameter, flattened and concatenated (differentiable)."""
    import leafgrad
    return leafgrad.cat([p.view(-1) for p in parameters])


def vector_to_parameters(vec: Tensor, parameters) -> None:
    """Copy consecutive slices of ``vec`` into each parameter's data."""
    if not isinstance(vec, Tensor):
        raise TypeError(f"expected torch.Tensor, but got: {type(vec).__name__}")
    data = vec._data
    pointer = 0
    with no_grad():
        for p in parameters:
            n = p.numel()
            p._data = data[pointer:pointer + n].reshape(p.shape)
            pointer += n
