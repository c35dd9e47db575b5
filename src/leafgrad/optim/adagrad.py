"""``optim.Adagrad`` (with ``lr_decay``, weight decay, ``maximize``).

>>> import leafgrad as torch
>>> w = torch.nn.Parameter(torch.tensor([1.0]))
>>> opt = torch.optim.Adagrad([w], lr=0.1)
>>> w.grad = torch.tensor([2.0])
>>> opt.step()
>>> round(w.item(), 4)
0.9
"""
from __future__ import annotations

import numpy as np

from ..tensor import _wrap
from .optimizer import Optimizer, bump, increment, step_tensor

__all__ = ["Adagrad"]


class Adagrad(Optimizer):
    def __init__(self, params, lr: float = 1e-2, lr_decay: float = 0,
                 weight_decay: float = 0, initial_accumulator_value: float = 0,
                 eps: float = 1e-10, foreach=None, *, maximize: bool = False,
                 differentiable: bool = False, fused=None) -> None:
        if not 0.0 <= lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 <= lr_decay:
            raise ValueError(f"Invalid lr_decay value: {lr_decay}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        if not 0.0 <= initial_accumulator_value:
            raise ValueError(f"Invalid initial_accumulator_value value: "
                             f"{initial_accumulator_value}")
        if not 0.0 <= eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        defaults = dict(lr=lr, lr_decay=lr_decay, eps=eps, weight_decay=weight_decay,
                        initial_accumulator_value=initial_accumulator_value,
                        foreach=foreach, maximize=maximize, differentiable=differentiable,
                        fused=fused)
        super().__init__(params, defaults)
        # Unlike Adam, Adagrad creates its state up front (PyTorch does too).
        for group in self.param_groups:
            for p in group["params"]:
                state = self.state[p]
                state["step"] = step_tensor()
                state["sum"] = _wrap(np.full_like(p._data, group["initial_accumulator_value"]))

    def step(self, closure=None):
        loss = self._run_closure(closure)
        for group in self.param_groups:
            lr, lr_decay, eps = group["lr"], group["lr_decay"], group["eps"]
            weight_decay = group["weight_decay"]
            for p, param, grad in self._params_with_grad(group):
                state = self.state[p]
                step = increment(state["step"])
                if group["maximize"]:
                    grad = -grad
                if weight_decay != 0:
                    grad = grad + weight_decay * param
                clr = lr / (1 + (step - 1) * lr_decay)
                total = state["sum"]._data
                total += grad * grad
                bump(state["sum"])
                std = np.sqrt(total) + eps
                param += (-clr) * (grad / std)
                bump(p)
        return loss
