"""``optim.Rprop``: resilient backpropagation, which uses only the sign of each gradient
coordinate and grows or shrinks a per-coordinate step size (see Note [Optimizer arithmetic]
in optimizer.py).

>>> import leafgrad as torch
>>> w = torch.nn.Parameter(torch.tensor([1.0, 1.0]))
>>> opt = torch.optim.Rprop([w], lr=0.1)
>>> w.grad = torch.tensor([3.0, -0.5])
>>> opt.step()
>>> w
Parameter containing:
tensor([0.9000, 1.1000], requires_grad=True)
"""
from __future__ import annotations

import numpy as np

from ..tensor import _wrap
from ._common import check_lr, check_step_flags, to_scalar, zeros_like
from .optimizer import Optimizer, bump, increment, step_tensor

__all__ = ["Rprop"]


class Rprop(Optimizer):
    def __init__(self, params, lr=1e-2, etas=(0.5, 1.2), step_sizes=(1e-6, 50), *,
                 capturable: bool = False, foreach=None, maximize: bool = False,
                 differentiable: bool = False) -> None:
        check_lr(lr)
        if not 0.0 < etas[0] < 1.0 < etas[1]:
            raise ValueError(f"Invalid eta values: {etas[0]}, {etas[1]}")
        defaults = dict(lr=lr, etas=etas, step_sizes=step_sizes, foreach=foreach,
                        maximize=maximize, differentiable=differentiable,
                        capturable=capturable)
        super().__init__(params, defaults)

    def step(self, closure=None):
        """One Rprop update of every parameter that has a gradient."""
        loss = self._run_closure(closure)
        for group in self.param_groups:
            etaminus, etaplus = group["etas"]
            step_size_min, step_size_max = group["step_sizes"]
            for p, param, grad in self._params_with_grad(group):
                check_step_flags(group)
                state = self.state[p]
                if not state:
                    state["step"] = step_tensor()
                    state["prev"] = zeros_like(param)
                    state["step_size"] = _wrap(np.full_like(grad, to_scalar(group["lr"])))
                increment(state["step"])
                if group["maximize"]:
                    grad = -grad
                prev, step_size = state["prev"]._data, state["step_size"]._data
                sign = np.sign(grad * prev)
                # masks taken before rewriting: etaminus/etaplus never equal 0 or +-1
                grew, shrank = sign > 0, sign < 0
                sign[grew] = etaplus
                sign[shrank] = etaminus
                sign[sign == 0] = 1
                step_size *= sign
                np.clip(step_size, step_size_min, step_size_max, out=step_size)
                grad = grad.copy()
                grad[shrank] = 0        # after a sign change, skip this coordinate once
                param += -1 * np.sign(grad) * step_size
                prev[...] = grad
                bump(state["step_size"])
                bump(state["prev"])
                bump(p)
        return loss
