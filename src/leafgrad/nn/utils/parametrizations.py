"""``torch.nn.utils.parametrizations``: ready-made parametrizations (see ``parametrize``).

``spectral_norm(module)`` divides the weight by its largest singular value, estimated by
power iteration: the vectors ``_u`` / ``_v`` (buffers of the parametrization) start from
``normal_`` draws and 15 iterations, and each training-mode forward runs
``n_power_iterations`` more, as in PyTorch (so seeded programs see the same values).
``orthogonal`` and ``weight_norm`` are not implemented yet.

>>> import leafgrad as torch
>>> layer = torch.nn.utils.parametrizations.spectral_norm(torch.nn.Linear(3, 2))
>>> type(layer).__name__, [n for n, _ in layer.named_buffers()]
('ParametrizedLinear', ['parametrizations.weight.0._u', 'parametrizations.weight.0._v'])
"""
from __future__ import annotations

from ...tensor import Tensor
from ..modules.module import Module
from . import parametrize

__all__ = ["orthogonal", "spectral_norm", "weight_norm"]


class _SpectralNorm(Module):
    """``weight / sigma``, ``sigma`` the power-iteration estimate of the largest singular
    value of the weight seen as a matrix (``dim`` first)."""

    def __init__(self, weight, n_power_iterations: int = 1, dim: int = 0,
                 eps: float = 1e-12) -> None:
        import leafgrad.nn.functional as F
        super().__init__()
        ndim = weight.ndim
        if dim >= ndim or dim < -ndim:
            raise IndexError(f"Dimension out of range (expected to be in range of [-{ndim}, "
                             f"{ndim - 1}] but got {dim})")
        if n_power_iterations <= 0:
            raise ValueError("Expected n_power_iterations to be positive, but got "
                             f"n_power_iterations={n_power_iterations}")
        self.dim = dim if dim >= 0 else dim + ndim
        self.eps = eps
        if ndim > 1:
            self.n_power_iterations = n_power_iterations
            weight_mat = self._reshape_weight_to_matrix(weight)
            h, w = weight_mat.size()
            u = weight_mat.new_empty(h).normal_(0, 1)
            v = weight_mat.new_empty(w).normal_(0, 1)
            self.register_buffer("_u", F.normalize(u, dim=0, eps=self.eps))
            self.register_buffer("_v", F.normalize(v, dim=0, eps=self.eps))
            self._power_method(weight_mat, 15)

    def _reshape_weight_to_matrix(self, weight):
        if weight.ndim <= 1:
            raise AssertionError(f"Expected weight to have more than 1 dimension, got "
                                 f"{weight.ndim}")
        if self.dim != 0:
            weight = weight.permute(self.dim, *(d for d in range(weight.dim())
                                                if d != self.dim))
        return weight.flatten(1)

    def _power_method(self, weight_mat, n_power_iterations: int) -> None:
        import leafgrad
        import leafgrad.nn.functional as F
        with leafgrad.no_grad():
            for _ in range(n_power_iterations):
                # written into the buffers, which stay the same tensors
                F.normalize(leafgrad.mv(weight_mat, self._v), dim=0, eps=self.eps,
                            out=self._u)
                F.normalize(leafgrad.mv(weight_mat.H, self._u), dim=0, eps=self.eps,
                            out=self._v)

    def forward(self, weight):
        import leafgrad
        import leafgrad.nn.functional as F
        if weight.ndim == 1:
            return F.normalize(weight, dim=0, eps=self.eps)
        weight_mat = self._reshape_weight_to_matrix(weight)
        if self.training:
            self._power_method(weight_mat, self.n_power_iterations)
        u = self._u.clone()
        v = self._v.clone()
        sigma = leafgrad.vdot(u, leafgrad.mv(weight_mat, v))
        return weight / sigma

    def right_inverse(self, value):
        return value


def spectral_norm(module, name: str = "weight", n_power_iterations: int = 1,
                  eps: float = 1e-12, dim: int | None = None):
    """Parametrize ``module.<name>`` as itself divided by its spectral norm."""
    import leafgrad.nn as nn
    weight = getattr(module, name, None)
    if not isinstance(weight, Tensor):
        raise ValueError(f"Module '{module}' has no parameter or buffer with name '{name}'")
    if dim is None:
        transposed = (nn.ConvTranspose1d, nn.ConvTranspose2d, nn.ConvTranspose3d)
        dim = 1 if isinstance(module, transposed) else 0
    parametrize.register_parametrization(
        module, name, _SpectralNorm(weight, n_power_iterations, dim, eps))
    return module


def orthogonal(module, name="weight", orthogonal_map=None, *, use_trivialization=True):
    raise NotImplementedError("leafgrad: torch.nn.utils.parametrizations.orthogonal is not "
                              "implemented yet")


def weight_norm(module, name="weight", dim=0):
    raise NotImplementedError("leafgrad: torch.nn.utils.parametrizations.weight_norm is not "
                              "implemented yet (it needs the _weight_norm op)")
