"""``optim.RAdam``: Adam whose adaptive step is switched on only once the variance of the
second-moment estimate is tractable (``rho_t > 5``), optionally with decoupled weight decay
(see Note [Optimizer arithmetic] in optimizer.py).

>>> import leafgrad as torch
>>> w = torch.nn.Parameter(torch.tensor([1.0]))
>>> opt = torch.optim.RAdam([w], lr=0.1)
>>> w.grad = torch.tensor([5.0])
>>> opt.step()
>>> round(w.item(), 4)
0.5
"""
from __future__ import annotations

import numpy as np

from ._common import check_lr, check_step_flags, to_scalar, zeros_like
from .adamax import check_betas_eps_decay
from .optimizer import Optimizer, bump, increment, lerp_, step_tensor

__all__ = ["RAdam"]


class RAdam(Optimizer):
    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps: float = 1e-8,
                 weight_decay: float = 0, decoupled_weight_decay: bool = False, *,
                 foreach=None, maximize: bool = False, capturable: bool = False,
                 differentiable: bool = False) -> None:
        check_lr(lr)
        check_betas_eps_decay(betas, eps, weight_decay)
        defaults = dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay,
                        maximize=maximize, foreach=foreach, capturable=capturable,
                        decoupled_weight_decay=decoupled_weight_decay,
                        differentiable=differentiable)
        super().__init__(params, defaults)

    def step(self, closure=None):
        """One RAdam update of every parameter that has a gradient."""
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
                    state["exp_avg_sq"] = zeros_like(param)
                if group["maximize"]:
                    grad = -grad
                step = increment(state["step"])
                if weight_decay != 0:
                    if group["decoupled_weight_decay"]:
                        param *= 1 - lr * weight_decay
                        bump(p)
                    else:
                        grad = grad + weight_decay * param
                exp_avg, exp_avg_sq = state["exp_avg"]._data, state["exp_avg_sq"]._data
                lerp_(exp_avg, grad, 1 - beta1)
                exp_avg_sq *= beta2
                exp_avg_sq += (1 - beta2) * grad * grad
                bump(state["exp_avg"])
                bump(state["exp_avg_sq"])
                bias_correction1 = 1 - beta1 ** step
                bias_correction2 = 1 - beta2 ** step
                corrected = exp_avg / bias_correction1
                rho_inf = 2 / (1 - beta2) - 1
                rho_t = rho_inf - 2 * step * (beta2 ** step) / bias_correction2
                if rho_t > 5.0:
                    rect = ((rho_t - 4) * (rho_t - 2) * rho_inf
                            / ((rho_inf - 4) * (rho_inf - 2) * rho_t)) ** 0.5
                    adaptive = (bias_correction2 ** 0.5) / (np.sqrt(exp_avg_sq) + eps)
                    param -= corrected * lr * adaptive * rect
                else:
                    param -= corrected * lr
                bump(p)
        return loss
