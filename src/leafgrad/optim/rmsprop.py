"""``optim.RMSprop`` (with ``centered``, ``momentum``, weight decay, ``maximize``).

>>> import leafgrad as torch
>>> w = torch.nn.Parameter(torch.tensor([1.0]))
>>> opt = torch.optim.RMSprop([w], lr=0.01)
>>> w.grad = torch.tensor([1.0])
>>> opt.step()
>>> round(w.item(), 4)
0.9
"""
from __future__ import annotations

import numpy as np

from ..tensor import _wrap
from .optimizer import Optimizer, bump, increment, lerp_, step_tensor

__all__ = ["RMSprop"]


class RMSprop(Optimizer):
    def __init__(self, params, lr: float = 1e-2, alpha: float = 0.99, eps: float = 1e-8,
                 weight_decay: float = 0, momentum: float = 0, centered: bool = False,
                 capturable: bool = False, foreach=None, maximize: bool = False,
                 differentiable: bool = False) -> None:
        if not 0.0 <= lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 <= eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        if not 0.0 <= momentum:
            raise ValueError(f"Invalid momentum value: {momentum}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        if not 0.0 <= alpha:
            raise ValueError(f"Invalid alpha value: {alpha}")
        defaults = dict(lr=lr, momentum=momentum, alpha=alpha, eps=eps, centered=centered,
                        weight_decay=weight_decay, capturable=capturable, foreach=foreach,
                        maximize=maximize, differentiable=differentiable)
        super().__init__(params, defaults)

    def step(self, closure=None):
        loss = self._run_closure(closure)
        for group in self.param_groups:
            lr, alpha, eps = group["lr"], group["alpha"], group["eps"]
            weight_decay, momentum = group["weight_decay"], group["momentum"]
            centered = group["centered"]
            for p, param, grad in self._params_with_grad(group):
                state = self.state[p]
                if not state:
                    state["step"] = step_tensor()
                    state["square_avg"] = _wrap(np.zeros_like(param))
                    if momentum > 0:
                        state["momentum_buffer"] = _wrap(np.zeros_like(param))
                    if centered:
                        state["grad_avg"] = _wrap(np.zeros_like(param))
                if group["maximize"]:
                    grad = -grad
                increment(state["step"])
                if weight_decay != 0:
                    grad = grad + weight_decay * param
                square_avg = state["square_avg"]._data
                square_avg *= alpha
                square_avg += (1 - alpha) * (grad * grad)
                bump(state["square_avg"])
                if centered:
                    grad_avg = state["grad_avg"]._data
                    lerp_(grad_avg, grad, 1 - alpha)
                    bump(state["grad_avg"])
                    avg = np.sqrt(square_avg - grad_avg * grad_avg)
                else:
                    avg = np.sqrt(square_avg)
                avg += eps
                if momentum > 0:
                    buf = state["momentum_buffer"]._data
                    buf *= momentum
                    buf += grad / avg
                    bump(state["momentum_buffer"])
                    param -= lr * buf
                else:
                    param += (-lr) * (grad / avg)
                bump(p)
        return loss
