"""``optim.Adamax``: Adam with the infinity norm in place of the second moment (see Note
[Optimizer arithmetic] in optimizer.py).

>>> import leafgrad as torch
>>> w = torch.nn.Parameter(torch.tensor([1.0]))
>>> opt = torch.optim.Adamax([w], lr=0.1)
>>> w.grad = torch.tensor([5.0])
>>> opt.step()
>>> round(w.item(), 4)
0.9
"""
from __future__ import annotations

import numpy as np

from ._common import check_lr, check_step_flags, to_scalar, zeros_like
from .optimizer import Optimizer, bump, increment, lerp_, step_tensor

__all__ = ["Adamax"]


def check_betas_eps_decay(betas, eps, weight_decay) -> None:
    """PyTorch's messages for ``eps``, ``betas`` and ``weight_decay`` of the Adam family."""
    if not 0.0 <= eps:
        raise ValueError(f"Invalid epsilon value: {eps}")
    if not 0.0 <= betas[0] < 1.0:
        raise ValueError(f"Invalid beta parameter at index 0: {betas[0]}")
    if not 0.0 <= betas[1] < 1.0:
        raise ValueError(f"Invalid beta parameter at index 1: {betas[1]}")
    if not 0.0 <= weight_decay:
        raise ValueError(f"Invalid weight_decay value: {weight_decay}")


class Adamax(Optimizer):
    def __init__(self, params, lr=2e-3, betas=(0.9, 0.999), eps: float = 1e-8,
                 weight_decay: float = 0, foreach=None, *, maximize: bool = False,
                 differentiable: bool = False, capturable: bool = False) -> None:
        check_lr(lr)
        check_betas_eps_decay(betas, eps, weight_decay)
        defaults = dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay,
                        foreach=foreach, maximize=maximize, differentiable=differentiable,
                        capturable=capturable)
        super().__init__(params, defaults)

    def step(self, closure=None):
        """One Adamax update of every parameter that has a gradient."""
        loss = self._run_closure(closure)
        for group in self.param_groups:
            lr = to_scalar(group["lr"])
            beta1, beta2 = group["betas"]
            eps, weight_decay = group["eps"], group["weight_decay"]
            for p, param, grad in self._params_with_grad(group):
                check_step_flags(group)
                state = self.state[p]
                if not state:
                    state["step"] = step_tensor()
                    state["exp_avg"] = zeros_like(param)
                    state["exp_inf"] = zeros_like(param)
                if group["maximize"]:
                    grad = -grad
                step = increment(state["step"])
                if weight_decay != 0:
                    grad = grad + weight_decay * param
                exp_avg, exp_inf = state["exp_avg"]._data, state["exp_inf"]._data
                lerp_(exp_avg, grad, 1 - beta1)
                exp_inf *= beta2
                np.maximum(exp_inf, np.abs(grad) + eps, out=exp_inf)
                clr = lr / (1 - beta1 ** step)
                param += (-clr) * (exp_avg / exp_inf)
                bump(state["exp_avg"])
                bump(state["exp_inf"])
                bump(p)
        return loss
