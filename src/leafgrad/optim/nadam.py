"""``optim.NAdam``: Adam with Nesterov momentum and a momentum schedule
(``momentum_decay``), optionally with decoupled weight decay (see Note [Optimizer
arithmetic] in optimizer.py).

The running product of the momentum coefficients, ``mu_product``, is a 0-d tensor of the
optimizers' scalar dtype (float32 unless the default dtype is float64), as in PyTorch, so it
rounds where PyTorch's does.

>>> import leafgrad as torch
>>> w = torch.nn.Parameter(torch.tensor([1.0]))
>>> opt = torch.optim.NAdam([w], lr=0.1)
>>> w.grad = torch.tensor([5.0])
>>> opt.step()
>>> round(w.item(), 4)
0.8944
"""
from __future__ import annotations

import numpy as np

from ..tensor import _wrap
from ._common import check_lr, check_step_flags, to_scalar, zeros_like
from .adamax import check_betas_eps_decay
from .optimizer import Optimizer, bump, increment, lerp_, scalar_dtype, step_tensor

__all__ = ["NAdam"]


class NAdam(Optimizer):
    def __init__(self, params, lr=2e-3, betas=(0.9, 0.999), eps: float = 1e-8,
                 weight_decay: float = 0, momentum_decay: float = 4e-3,
                 decoupled_weight_decay: bool = False, *, foreach=None,
                 maximize: bool = False, capturable: bool = False,
                 differentiable: bool = False) -> None:
        check_lr(lr)
        check_betas_eps_decay(betas, eps, weight_decay)
        if not 0.0 <= momentum_decay:
            raise ValueError(f"Invalid momentum_decay value: {momentum_decay}")
        defaults = dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay,
                        momentum_decay=momentum_decay,
                        decoupled_weight_decay=decoupled_weight_decay, maximize=maximize,
                        foreach=foreach, capturable=capturable, differentiable=differentiable)
        super().__init__(params, defaults)

    def step(self, closure=None):
        """One NAdam update of every parameter that has a gradient."""
        loss = self._run_closure(closure)
        for group in self.param_groups:
            lr = to_scalar(group["lr"])
            beta1, beta2 = group["betas"]
            eps, weight_decay = group["eps"], group["weight_decay"]
            momentum_decay = group["momentum_decay"]
            for p, param, grad in self._params_with_grad(group):
                check_step_flags(group, "params, mu_products and state_steps")
                state = self.state[p]
                if not state:
                    state["step"] = step_tensor()
                    state["mu_product"] = _wrap(np.ones((), dtype=scalar_dtype()))
                    state["exp_avg"] = zeros_like(param)
                    state["exp_avg_sq"] = zeros_like(param)
                if group["maximize"]:
                    grad = -grad
                step = increment(state["step"])
                bias_correction2 = 1 - beta2 ** step
                if weight_decay != 0:
                    if group["decoupled_weight_decay"]:
                        param *= 1 - lr * weight_decay
                        bump(p)
                    else:
                        grad = grad + weight_decay * param
                mu = beta1 * (1.0 - 0.5 * (0.96 ** (step * momentum_decay)))
                mu_next = beta1 * (1.0 - 0.5 * (0.96 ** ((step + 1) * momentum_decay)))
                mu_product = state["mu_product"]
                mu_product._data *= mu
                bump(mu_product)
                exp_avg, exp_avg_sq = state["exp_avg"]._data, state["exp_avg_sq"]._data
                lerp_(exp_avg, grad, 1 - beta1)
                exp_avg_sq *= beta2
                exp_avg_sq += (1 - beta2) * grad * grad
                denom = np.sqrt(exp_avg_sq / bias_correction2)
                denom += eps
                product = float(mu_product._data)
                product_next = product * mu_next
                param += (-lr * (1.0 - mu) / (1.0 - product)) * (grad / denom)
                param += ((-lr * mu_next) / (1.0 - product_next)) * (exp_avg / denom)
                bump(state["exp_avg"])
                bump(state["exp_avg_sq"])
                bump(p)
                bump(p)
        return loss
