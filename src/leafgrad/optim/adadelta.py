"""``optim.Adadelta``: per-coordinate step sizes from running averages of squared gradients
and squared updates (see Note [Optimizer arithmetic] in optimizer.py).

>>> import leafgrad as torch
>>> w = torch.nn.Parameter(torch.tensor([1.0]))
>>> opt = torch.optim.Adadelta([w])
>>> w.grad = torch.tensor([1.0])
>>> opt.step()
>>> round(w.item(), 6)
0.996838
"""
from __future__ import annotations

import numpy as np

from ._common import SUPPORTED_DEVICES, check_lr, check_step_flags, to_scalar, zeros_like
from .optimizer import Optimizer, bump, increment, step_tensor

__all__ = ["Adadelta"]


class Adadelta(Optimizer):
    def __init__(self, params, lr=1.0, rho: float = 0.9, eps: float = 1e-6,
                 weight_decay: float = 0, foreach=None, *, capturable: bool = False,
                 maximize: bool = False, differentiable: bool = False) -> None:
        check_lr(lr)
        if not 0.0 <= rho <= 1.0:
            raise ValueError(f"Invalid rho value: {rho}")
        if not 0.0 <= eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        defaults = dict(lr=lr, rho=rho, eps=eps, weight_decay=weight_decay, maximize=maximize,
                        capturable=capturable, foreach=foreach, differentiable=differentiable)
        super().__init__(params, defaults)

    def step(self, closure=None):
        """One Adadelta update of every parameter that has a gradient."""
        loss = self._run_closure(closure)
        for group in self.param_groups:
            lr = to_scalar(group["lr"])
            rho, eps, weight_decay = group["rho"], group["eps"], group["weight_decay"]
            for p, param, grad in self._params_with_grad(group):
                # PyTorch's Adadelta lists the capturable devices without xla
                check_step_flags(group, devices=SUPPORTED_DEVICES.replace(", 'xla'", ""))
                state = self.state[p]
                if not state:
                    state["step"] = step_tensor()
                    state["square_avg"] = zeros_like(param)
                    state["acc_delta"] = zeros_like(param)
                increment(state["step"])
                if group["maximize"]:
                    grad = -grad
                if weight_decay != 0:
                    grad = grad + weight_decay * param
                square_avg, acc_delta = state["square_avg"]._data, state["acc_delta"]._data
                square_avg *= rho
                square_avg += (1 - rho) * grad * grad
                std = np.sqrt(square_avg + eps)
                delta = np.sqrt(acc_delta + eps)
                delta /= std
                delta *= grad
                acc_delta *= rho
                acc_delta += (1 - rho) * delta * delta
                param += (-lr) * delta
                bump(state["square_avg"])
                bump(state["acc_delta"])
                bump(p)
        return loss
