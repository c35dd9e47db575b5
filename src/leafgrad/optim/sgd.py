"""``optim.SGD``: stochastic gradient descent with momentum, dampening, Nesterov, weight
decay and ``maximize`` (see Note [Optimizer arithmetic] in optimizer.py).

>>> import leafgrad as torch
>>> w = torch.nn.Parameter(torch.tensor([1.0]))
>>> opt = torch.optim.SGD([w], lr=0.1, momentum=0.9)
>>> for _ in range(2):
...     w.grad = torch.tensor([1.0])
...     opt.step()
>>> round(w.item(), 4)
0.71
"""
from __future__ import annotations

from .optimizer import Optimizer, bump, bump_all

__all__ = ["SGD"]


class SGD(Optimizer):
    def __init__(self, params, lr: float = 1e-3, momentum: float = 0, dampening: float = 0,
                 weight_decay: float = 0, nesterov: bool = False, *, maximize: bool = False,
                 foreach=None, differentiable: bool = False, fused=None) -> None:
        if lr < 0.0:
            raise ValueError(f"Invalid learning rate: {lr}")
        if momentum < 0.0:
            raise ValueError(f"Invalid momentum value: {momentum}")
        if weight_decay < 0.0:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        defaults = dict(lr=lr, momentum=momentum, dampening=dampening,
                        weight_decay=weight_decay, nesterov=nesterov, maximize=maximize,
                        foreach=foreach, differentiable=differentiable, fused=fused)
        if nesterov and (momentum <= 0 or dampening != 0):
            raise ValueError("Nesterov momentum requires a momentum and zero dampening")
        super().__init__(params, defaults)

    def step(self, closure=None):
        """One update of every parameter that has a gradient."""
        loss = self._run_closure(closure)
        changed = []
        for group in self.param_groups:
            lr = group["lr"]
            momentum = group["momentum"]
            dampening = group["dampening"]
            weight_decay = group["weight_decay"]
            nesterov = group["nesterov"]
            maximize = group["maximize"]
            if not (maximize or weight_decay != 0 or momentum != 0):
                # plain SGD (the common case): the same update, without the generator and
                # the per-parameter tests of the options
                for p in group["params"]:
                    g = p._grad
                    if g is not None:
                        param = p._data
                        # lr as a NumPy scalar of the parameter's dtype: the same product as
                        # a Python float (NumPy casts that to the array's dtype), without
                        # NumPy's slower path for Python numbers
                        param -= param.dtype.type(lr) * g._data if param.dtype.kind == "f" \
                            else lr * g._data
                        changed.append(p)
                continue
            for p, param, grad in self._params_with_grad(group):
                if maximize:
                    grad = -grad
                if weight_decay != 0:
                    grad = grad + weight_decay * param
                if momentum != 0:
                    state = self.state[p]
                    buf_t = state.get("momentum_buffer")
                    if buf_t is None:
                        from ..tensor import _wrap
                        buf_t = _wrap(grad.copy())
                        state["momentum_buffer"] = buf_t
                    else:
                        buf = buf_t._data
                        buf *= momentum
                        buf += (1 - dampening) * grad
                        bump(buf_t)
                    grad = grad + momentum * buf_t._data if nesterov else buf_t._data
                param -= lr * grad
                changed.append(p)
        bump_all(changed)
        return loss
