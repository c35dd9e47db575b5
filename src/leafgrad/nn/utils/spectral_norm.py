"""``torch.nn.utils.spectral_norm`` (the older, hook-based API; the parametrization is in
``parametrizations.py``).

The parameter moves to ``<name>_orig``; ``<name>_u`` / ``<name>_v`` are buffers (drawn by
``normal_`` and normalised, no warm-up iterations); a forward pre-hook sets ``module.<name>``
to ``<name>_orig / sigma`` before each forward, running ``n_power_iterations`` power
iterations first in training mode, as PyTorch does.

>>> import leafgrad as torch
>>> m = torch.nn.utils.spectral_norm(torch.nn.Linear(3, 2))
>>> [n for n, _ in m.named_parameters()], [n for n, _ in m.named_buffers()]
(['bias', 'weight_orig'], ['weight_u', 'weight_v'])
"""
from __future__ import annotations

__all__ = ["SpectralNorm", "remove_spectral_norm", "spectral_norm"]


class SpectralNorm:
    """The forward pre-hook computing ``<name> = <name>_orig / sigma``."""

    _version = 1

    def __init__(self, name: str = "weight", n_power_iterations: int = 1, dim: int = 0,
                 eps: float = 1e-12) -> None:
        self.name = name
        self.dim = dim
        if n_power_iterations <= 0:
            raise ValueError("Expected n_power_iterations to be positive, but got "
                             f"n_power_iterations={n_power_iterations}")
        self.n_power_iterations = n_power_iterations
        self.eps = eps

    def reshape_weight_to_matrix(self, weight):
        if self.dim != 0:
            weight = weight.permute(self.dim, *[d for d in range(weight.dim()) if d != self.dim])
        return weight.reshape(weight.size(0), -1)

    def compute_weight(self, module, do_power_iteration: bool):
        import leafgrad
        import leafgrad.nn.functional as F
        weight = getattr(module, self.name + "_orig")
        u = getattr(module, self.name + "_u")
        v = getattr(module, self.name + "_v")
        weight_mat = self.reshape_weight_to_matrix(weight)
        if do_power_iteration:
            with leafgrad.no_grad():
                for _ in range(self.n_power_iterations):
                    # in place: the buffers keep their identity
                    v = F.normalize(leafgrad.mv(weight_mat.t(), u), dim=0, eps=self.eps, out=v)
                    u = F.normalize(leafgrad.mv(weight_mat, v), dim=0, eps=self.eps, out=u)
                u = u.clone()
                v = v.clone()
        sigma = leafgrad.dot(u, leafgrad.mv(weight_mat, v))
        return weight / sigma

    def remove(self, module) -> None:
        import leafgrad
        from ..parameter import Parameter
        with leafgrad.no_grad():
            weight = self.compute_weight(module, do_power_iteration=False)
        delattr(module, self.name)
        delattr(module, self.name + "_u")
        delattr(module, self.name + "_v")
        delattr(module, self.name + "_orig")
        module.register_parameter(self.name, Parameter(weight.detach()))

    def __call__(self, module, inputs) -> None:
        setattr(module, self.name, self.compute_weight(module, do_power_iteration=module.training))

    @staticmethod
    def apply(module, name: str, n_power_iterations: int, dim: int, eps: float):
        import leafgrad
        import leafgrad.nn.functional as F
        from ..modules.lazy import UninitializedParameter
        for hook in module._forward_pre_hooks.values():
            if isinstance(hook, SpectralNorm) and hook.name == name:
                raise RuntimeError(f"Cannot register two spectral_norm hooks on the same "
                                   f"parameter {name}")
        fn = SpectralNorm(name, n_power_iterations, dim, eps)
        weight = module._parameters[name]
        if weight is None:
            raise ValueError(f"`SpectralNorm` cannot be applied as parameter `{name}` is None")
        if isinstance(weight, UninitializedParameter):
            raise ValueError("The module passed to `SpectralNorm` can't have uninitialized "
                             "parameters. Make sure to run the dummy forward before applying "
                             "spectral normalization")
        with leafgrad.no_grad():
            weight_mat = fn.reshape_weight_to_matrix(weight)
            h, w = weight_mat.size()
            u = F.normalize(weight.new_empty(h).normal_(0, 1), dim=0, eps=fn.eps)
            v = F.normalize(weight.new_empty(w).normal_(0, 1), dim=0, eps=fn.eps)
        delattr(module, fn.name)
        module.register_parameter(fn.name + "_orig", weight)
        setattr(module, fn.name, weight.data)   # a plain attribute until the first forward
        module.register_buffer(fn.name + "_u", u)
        module.register_buffer(fn.name + "_v", v)
        module.register_forward_pre_hook(fn)
        return fn


def spectral_norm(module, name: str = "weight", n_power_iterations: int = 1,
                  eps: float = 1e-12, dim: int | None = None):
    """Spectrally normalise ``module.<name>`` (returns ``module``)."""
    import leafgrad.nn as nn
    if dim is None:
        transposed = (nn.ConvTranspose1d, nn.ConvTranspose2d, nn.ConvTranspose3d)
        dim = 1 if isinstance(module, transposed) else 0
    SpectralNorm.apply(module, name, n_power_iterations, dim, eps)
    return module


def remove_spectral_norm(module, name: str = "weight"):
    """Undo ``spectral_norm``: ``<name>`` becomes a parameter holding the normalised weight."""
    for key, hook in module._forward_pre_hooks.items():
        if isinstance(hook, SpectralNorm) and hook.name == name:
            hook.remove(module)
            del module._forward_pre_hooks[key]
            return module
    raise ValueError(f"spectral_norm of '{name}' not found in {module}")
