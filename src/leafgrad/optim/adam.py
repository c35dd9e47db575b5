"""``optim.Adam`` and ``optim.AdamW`` (decoupled weight decay), with ``amsgrad`` and
``maximize`` (see Note [Optimizer arithmetic] in optimizer.py).

>>> import leafgrad as torch
>>> w = torch.nn.Parameter(torch.tensor([1.0]))
>>> opt = torch.optim.Adam([w], lr=0.1)
>>> w.grad = torch.tensor([5.0])
>>> opt.step()
>>> round(w.item(), 4)
0.9
"""
from __future__ import annotations

import numpy as np

from ..tensor import _wrap
from .optimizer import Optimizer, bump, increment, lerp_, step_tensor

__all__ = ["Adam", "AdamW"]


def _check(lr, eps, betas, weight_decay):
    if not 0.0 <= lr:
        raise ValueError(f"Invalid learning rate: {lr}")
    if not 0.0 <= eps:
        raise ValueError(f"Invalid epsilon value: {eps}")
    if not 0.0 <= betas[0] < 1.0:
        raise ValueError(f"Invalid beta parameter at index 0: {betas[0]}")
    if not 0.0 <= betas[1] < 1.0:
        raise ValueError(f"Invalid beta parameter at index 1: {betas[1]}")
    if not 0.0 <= weight_decay:
        raise ValueError(f"Invalid weight_decay value: {weight_decay}")


class Adam(Optimizer):
    def __init__(self, params, lr: float = 1e-3, betas=(0.9, 0.999), eps: float = 1e-8,
                 weight_decay: float = 0, amsgrad: bool = False, *, foreach=None,
                 maximize: bool = False, capturable: bool = False,
                 differentiable: bool = False, fused=None,
                 decoupled_weight_decay: bool = False) -> None:
        _check(lr, eps, betas, weight_decay)
        defaults = dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay,
                        amsgrad=amsgrad, maximize=maximize, foreach=foreach,
                        capturable=capturable, differentiable=differentiable, fused=fused,
                        decoupled_weight_decay=decoupled_weight_decay)
        super().__init__(params, defaults)

    def step(self, closure=None):
        """One Adam update of every parameter that has a gradient."""
        loss = self._run_closure(closure)
        for group in self.param_groups:
            lr = group["lr"]
            beta1, beta2 = group["betas"]
            eps = group["eps"]
            weight_decay = group["weight_decay"]
            amsgrad = group["amsgrad"]
            decoupled = group["decoupled_weight_decay"]
            for p, param, grad in self._params_with_grad(group):
                state = self.state[p]
                if not state:
                    state["step"] = step_tensor()
                    state["exp_avg"] = _wrap(np.zeros_like(param))
                    state["exp_avg_sq"] = _wrap(np.zeros_like(param))
                    if amsgrad:
                        state["max_exp_avg_sq"] = _wrap(np.zeros_like(param))
                if group["maximize"]:
                    grad = -grad
                step = increment(state["step"])
                if weight_decay != 0:
                    if decoupled:
                        param *= 1 - lr * weight_decay
                        bump(p)
                    else:
                        grad = grad + weight_decay * param
                exp_avg, exp_avg_sq = state["exp_avg"], state["exp_avg_sq"]
                lerp_(exp_avg._data, grad, 1 - beta1)
                sq = exp_avg_sq._data
                sq *= beta2
                sq += (1 - beta2) * (grad * grad)
                bump(exp_avg)
                bump(exp_avg_sq)
                bias_correction1 = 1 - beta1 ** step
                bias_correction2_sqrt = (1 - beta2 ** step) ** 0.5
                step_size = lr / bias_correction1
                if amsgrad:
                    best = state["max_exp_avg_sq"]
                    np.maximum(best._data, sq, out=best._data)
                    bump(best)
                    denom = np.sqrt(best._data) / bias_correction2_sqrt + eps
                else:
                    denom = np.sqrt(sq) / bias_correction2_sqrt + eps
                param += (-step_size) * (exp_avg._data / denom)
                bump(p)
        return loss


class AdamW(Adam):
    """Adam with decoupled weight decay: ``param *= 1 - lr * weight_decay`` each step."""

    def __init__(self, params, lr: float = 1e-3, betas=(0.9, 0.999), eps: float = 1e-8,
                 weight_decay: float = 1e-2, amsgrad: bool = False, *, maximize: bool = False,
                 foreach=None, capturable: bool = False, differentiable: bool = False,
                 fused=None) -> None:
        super().__init__(params, lr, betas, eps, weight_decay, amsgrad, foreach=foreach,
                         maximize=maximize, capturable=capturable,
                         differentiable=differentiable, fused=fused,
                         decoupled_weight_decay=True)
