"""``optim.swa_utils``: stochastic weight averaging. ``AveragedModel`` keeps a running
average (equal weights by default, or EMA / any ``avg_fn``) of a model's parameters (and
optionally buffers); ``SWALR`` anneals each group's lr to a constant ``swa_lr``;
``update_bn`` recomputes BatchNorm statistics for the averaged weights.

>>> import leafgrad as torch
>>> model = torch.nn.Linear(1, 1, bias=False)
>>> swa = torch.optim.swa_utils.AveragedModel(model)
>>> for value in (1.0, 2.0, 6.0):
...     with torch.no_grad():
...         _ = model.weight.fill_(value)
...     swa.update_parameters(model)
>>> swa.module.weight.item(), swa.n_averaged.item()
(3.0, 3)
"""
from __future__ import annotations

import itertools
import math
import warnings
from copy import deepcopy

from .. import factories
from ..grad_mode import no_grad
from ..tensor import Tensor
from .lr_scheduler import LRScheduler, _per_group

__all__ = ["AveragedModel", "update_bn", "SWALR", "get_ema_multi_avg_fn",
           "get_swa_multi_avg_fn", "get_ema_avg_fn", "get_swa_avg_fn"]


def _check_decay(decay) -> None:
    if decay < 0.0 or decay > 1.0:
        raise ValueError(f"Invalid decay value {decay} provided. Please provide a value in "
                         "[0,1] range.")


def get_ema_avg_fn(decay=0.999):
    """``avg_fn`` for an exponential moving average with weight ``decay`` on the past."""
    _check_decay(decay)

    def ema_update(ema_param, current_param, num_averaged):
        with no_grad():
            return decay * ema_param + (1 - decay) * current_param
    return ema_update


def get_swa_avg_fn():
    """``avg_fn`` for the equal-weight running mean (AveragedModel's default)."""
    def swa_update(averaged_param, current_param, num_averaged):
        with no_grad():
            return averaged_param + (current_param - averaged_param) / (num_averaged + 1)
    return swa_update


def get_ema_multi_avg_fn(decay=0.999):
    """``multi_avg_fn``: the EMA update in place on lists of tensors."""
    _check_decay(decay)

    def ema_update(ema_params, current_params, _):
        with no_grad():
            for ema, cur in zip(ema_params, current_params):
                if ema.is_floating_point():
                    ema.lerp_(cur, 1 - decay)
                else:
                    ema.copy_(ema * decay + cur * (1 - decay))
    return ema_update


def get_swa_multi_avg_fn():
    """``multi_avg_fn``: the running-mean update in place on lists of tensors."""
    def swa_update(averaged_params, current_params, num_averaged):
        with no_grad():
            for avg, cur in zip(averaged_params, current_params):
                if avg.is_floating_point():
                    avg.lerp_(cur, float(1 / (num_averaged + 1)))
                elif isinstance(num_averaged, Tensor):
                    avg.addcdiv_(cur - avg, num_averaged + 1)
                else:
                    avg.add_(cur - avg, alpha=1.0 / (num_averaged + 1))
    return swa_update


def _module_base():
    from ..nn import Module
    return Module


def _make_averaged_model():
    """``AveragedModel`` subclasses ``nn.Module``; it is made on first use so that
    importing ``optim`` does not import ``nn``."""
    Module = _module_base()

    class AveragedModel(Module):
        """A copy of ``model`` whose parameters are the average of the ``model``'s
        parameters at each ``update_parameters(model)`` call."""

        def __init__(self, model, device=None, avg_fn=None, multi_avg_fn=None,
                     use_buffers=False) -> None:
            super().__init__()
            if avg_fn is not None and multi_avg_fn is not None:
                raise AssertionError("Only one of avg_fn and multi_avg_fn should be provided")
            self.module = deepcopy(model)
            if device is not None:
                self.module = self.module.to(device)
            self.register_buffer("n_averaged", factories.tensor(0, dtype=_long()))
            self.avg_fn = avg_fn
            self.multi_avg_fn = multi_avg_fn
            self.use_buffers = use_buffers

        def forward(self, *args, **kwargs):
            return self.module(*args, **kwargs)

        def update_parameters(self, model) -> None:
            if self.use_buffers:
                mine = itertools.chain(self.module.parameters(), self.module.buffers())
                theirs = itertools.chain(model.parameters(), model.buffers())
            else:
                mine, theirs = self.parameters(), model.parameters()
            averaged, current = [], []
            first = bool(self.n_averaged == 0)
            for p_avg, p_model in zip(mine, theirs):
                averaged.append(p_avg.detach())
                current.append(p_model.detach())
                if first:
                    with no_grad():
                        p_avg.detach().copy_(p_model.detach())
            if self.n_averaged > 0:
                if self.multi_avg_fn is not None:
                    self.multi_avg_fn(averaged, current, self.n_averaged)
                else:
                    # PyTorch's CPU path: avg_fn (default: the running mean) tensor by tensor
                    avg_fn = self.avg_fn if self.avg_fn is not None else get_swa_avg_fn()
                    with no_grad():
                        for p_avg, p_model in zip(averaged, current):
                            p_avg.copy_(avg_fn(p_avg, p_model, self.n_averaged))
            if not self.use_buffers:
                # buffers (e.g. BatchNorm statistics) are copied, not averaged
                with no_grad():
                    for b_swa, b_model in zip(self.module.buffers(), model.buffers()):
                        b_swa.detach().copy_(b_model.detach())
            with no_grad():
                self.n_averaged += 1

    # made after the module loaded: take its module name from SWALR (the ``torch`` alias
    # renames the classes a module defines as it loads)
    AveragedModel.__module__ = SWALR.__module__
    AveragedModel.__qualname__ = "AveragedModel"
    return AveragedModel


def _long():
    from .. import dtypes
    return dtypes.int64


_LAZY = {}


def __getattr__(name: str):
    if name == "AveragedModel":
        if name not in _LAZY:
            _LAZY[name] = _make_averaged_model()
        globals()[name] = _LAZY[name]
        return _LAZY[name]
    raise AttributeError(f"module '{__name__}' has no attribute '{name}'")


def update_bn(loader, model, device=None) -> None:
    """Recompute the running statistics of every BatchNorm in ``model`` with one pass over
    ``loader`` (a cumulative average: ``momentum=None`` for the pass)."""
    from ..nn.modules.batchnorm import _BatchNorm
    with no_grad():
        momenta = {}
        for module in model.modules():
            if isinstance(module, _BatchNorm):
                module.reset_running_stats()
                momenta[module] = module.momentum
        if not momenta:
            return
        was_training = model.training
        model.train()
        for module in momenta:
            module.momentum = None
        for batch in loader:
            if isinstance(batch, (list, tuple)):
                batch = batch[0]
            if device is not None:
                batch = batch.to(device)
            model(batch)
        for module, momentum in momenta.items():
            module.momentum = momentum
        model.train(was_training)


class SWALR(LRScheduler):
    """Anneal each group's lr from its value to ``swa_lr`` over ``anneal_epochs`` steps
    (cosine or linear), then hold it."""

    def __init__(self, optimizer, swa_lr, anneal_epochs=10, anneal_strategy="cos",
                 last_epoch=-1) -> None:
        swa_lrs = _per_group("swa_lr", swa_lr, optimizer)
        for value, group in zip(swa_lrs, optimizer.param_groups):
            group["swa_lr"] = value
        if anneal_strategy not in ("cos", "linear"):
            raise ValueError("anneal_strategy must be one of 'cos' or 'linear', instead got "
                             f"{anneal_strategy}")
        self._set_anneal_func(anneal_strategy)
        if not isinstance(anneal_epochs, int) or anneal_epochs < 0:
            raise ValueError(f"anneal_epochs must be equal or greater than 0, got "
                             f"{anneal_epochs}")
        self.anneal_epochs = anneal_epochs
        super().__init__(optimizer, last_epoch)

    @staticmethod
    def _linear_anneal(t):
        return t

    @staticmethod
    def _cosine_anneal(t):
        return (1 - math.cos(math.pi * t)) / 2

    @staticmethod
    def _get_initial_lr(lr, swa_lr, alpha):
        # the lr the schedule started from, recovered from the current one
        if alpha == 1:
            return swa_lr
        return (lr - alpha * swa_lr) / (1 - alpha)

    def _set_anneal_func(self, anneal_strategy) -> None:
        self._anneal_strategy = anneal_strategy
        self.anneal_func = self._cosine_anneal if anneal_strategy == "cos" \
            else self._linear_anneal

    def get_lr(self) -> list:
        if not self._get_lr_called_within_step:
            warnings.warn("To get the last learning rate computed by the scheduler, please "
                          "use `get_last_lr()`.", UserWarning, stacklevel=2)
        step = self._step_count - 1
        if self.anneal_epochs == 0:
            step = max(1, step)
        span = max(1, self.anneal_epochs)
        prev_alpha = self.anneal_func(max(0, min(1, (step - 1) / span)))
        starts = [self._get_initial_lr(g["lr"], g["swa_lr"], prev_alpha)
                  for g in self.optimizer.param_groups]
        alpha = self.anneal_func(max(0, min(1, step / span)))
        return [g["swa_lr"] * alpha + lr * (1 - alpha)
                for g, lr in zip(self.optimizer.param_groups, starts)]

    def state_dict(self) -> dict:
        return {k: v for k, v in self.__dict__.items() if k not in ("optimizer", "anneal_func")}

    def load_state_dict(self, state_dict: dict) -> None:
        self.__dict__.update(state_dict)
        self._set_anneal_func(self._anneal_strategy)
