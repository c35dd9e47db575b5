"""``optim.ASGD``: averaged stochastic gradient descent. Besides the parameter it keeps the
running average ``ax`` (after ``t0`` steps), and the decaying step size ``eta`` and averaging
weight ``mu`` as 0-d tensors of the optimizers' scalar dtype (float32 unless the default
dtype is float64), as PyTorch does, so they round where PyTorch's do.

>>> import leafgrad as torch
>>> w = torch.nn.Parameter(torch.tensor([1.0]))
>>> opt = torch.optim.ASGD([w], lr=0.1)
>>> w.grad = torch.tensor([2.0])
>>> opt.step()
>>> round(w.item(), 4)
0.8
"""
from __future__ import annotations

import numpy as np

from ..tensor import _wrap
from ._common import check_lr, check_step_flags, to_scalar, zeros_like
from .optimizer import Optimizer, bump, increment, scalar_dtype, step_tensor

__all__ = ["ASGD"]


class ASGD(Optimizer):
    def __init__(self, params, lr=1e-2, lambd: float = 1e-4, alpha: float = 0.75,
                 t0: float = 1e6, weight_decay: float = 0, foreach=None,
                 maximize: bool = False, differentiable: bool = False,
                 capturable: bool = False) -> None:
        check_lr(lr)
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        defaults = dict(lr=lr, lambd=lambd, alpha=alpha, t0=t0, weight_decay=weight_decay,
                        foreach=foreach, maximize=maximize, differentiable=differentiable,
                        capturable=capturable)
        super().__init__(params, defaults)

    def step(self, closure=None):
        """One ASGD update of every parameter that has a gradient."""
        loss = self._run_closure(closure)
        for group in self.param_groups:
            lr = to_scalar(group["lr"])
            lambd, alpha, t0 = group["lambd"], group["alpha"], group["t0"]
            weight_decay = group["weight_decay"]
            for p, param, grad in self._params_with_grad(group):
                check_step_flags(group, "params, mus, etas, and state_steps")
                state = self.state[p]
                if not state:
                    dtype = scalar_dtype()
                    state["step"] = step_tensor()
                    state["eta"] = _wrap(np.array(lr, dtype=dtype))
                    state["mu"] = _wrap(np.ones((), dtype=dtype))
                    state["ax"] = zeros_like(param)
                if group["maximize"]:
                    grad = -grad
                step = increment(state["step"])
                if group["foreach"]:
                    self._foreach_update(p, state, grad, weight_decay, lambd)
                else:
                    if weight_decay != 0:
                        grad = grad + weight_decay * param
                    eta = float(state["eta"]._data)
                    param *= 1 - lambd * eta              # decay
                    param += (-eta) * grad                # gradient step
                    bump(p)
                    bump(p)
                    ax, mu = state["ax"]._data, state["mu"]._data
                    if float(mu) != 1:
                        ax += (param - ax) * mu
                    else:
                        ax[...] = param
                if group["foreach"]:
                    # PyTorch's multi-tensor loop computes eta from the step *tensor*, so in
                    # the scalar dtype (float32 by default), not in Python floats
                    count = state["step"]._data
                    state["eta"]._data[...] = lr / ((1 + lambd * lr * count) ** alpha)
                else:
                    # PyTorch goes through torch.as_tensor(float): the default dtype, even
                    # when loading a state dict made eta a float64 tensor
                    state["eta"]._data[...] = scalar_dtype().type(
                        lr / ((1 + lambd * lr * step) ** alpha))
                state["mu"]._data[...] = scalar_dtype().type(1 / max(1, step - t0))
                for key in ("ax", "eta", "mu"):
                    bump(state[key])
        return loss

    @staticmethod
    def _foreach_update(p, state, grad, weight_decay, lambd) -> None:
        """PyTorch's multi-tensor ASGD (``foreach=True``) folds the decay into the gradient
        step (one in-place change of the parameter) and always averages through ``mu``."""
        param = p._data
        if weight_decay != 0:
            grad = grad + weight_decay * param
        intermediate = grad + lambd * param
        param += (-1 * intermediate) * state["eta"]._data
        bump(p)
        ax = state["ax"]._data
        ax += (param - ax) * state["mu"]._data
