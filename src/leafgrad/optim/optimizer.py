"""``Optimizer``: parameter groups, per-parameter state, ``zero_grad``, state dicts.

Note [Optimizer arithmetic]
Subclasses update parameters in place on their NumPy arrays, without building a graph, in
the order PyTorch's single-tensor CPU implementations use (so float64 trajectories agree with
PyTorch to rounding). Each in-place change of a parameter bumps its version counter once,
as PyTorch's ``param.add_(...)`` does, so a graph that saved the old value still notices.
A parameter whose ``.grad`` is None is skipped entirely (its state does not move); a zero
gradient is a gradient, and momentum and weight decay still act on it.

>>> import leafgrad as torch
>>> w = torch.nn.Parameter(torch.tensor([1.0]))
>>> opt = torch.optim.SGD([w], lr=0.5)
>>> w.grad = torch.tensor([2.0])
>>> opt.step()
>>> w
Parameter containing:
tensor([0.], requires_grad=True)
"""
from __future__ import annotations

import copy
import functools
import warnings
from collections import OrderedDict, defaultdict
from itertools import chain

import numpy as np

from .. import dtypes as _dt
from .._zerotensor import check_mutable
from ..grad_mode import state as _grad_state
from ..tensor import Tensor, _wrap, bump_version, user_location
from ..utils.hooks import RemovableHandle

__all__ = ["Optimizer", "required"]


class _RequiredParameter:
    """Marks a hyper-parameter without a default (e.g. ``lr`` of old SGD)."""

    def __repr__(self) -> str:
        return "<required parameter>"


required = _RequiredParameter()


def _typename(obj) -> str:
    from ..nn.parameter import typename
    return typename(obj)


def scalar_dtype() -> np.dtype:
    """dtype of the ``step`` counters: float64 when that is the default dtype, else float32."""
    return np.dtype(np.float64) if _dt.get_default_dtype() is _dt.float64 else \
        np.dtype(np.float32)


def step_tensor() -> Tensor:
    return _wrap(np.zeros((), dtype=scalar_dtype()))


def increment(step: Tensor) -> float:
    """``step += 1`` in place; returns the new count as a Python float."""
    step._data += 1
    step._vc[0] += 1
    return float(step._data)


def lerp_(a: np.ndarray, b: np.ndarray, weight: float) -> None:
    """``a.lerp_(b, weight)`` with PyTorch's two-branch formula (exact at both ends)."""
    if abs(weight) < 0.5:
        a += weight * (b - a)
    else:
        np.subtract(b, (b - a) * (1 - weight), out=a)


def bump(t: Tensor) -> None:
    bump_version(t)


def bump_all(tensors) -> None:
    """``bump`` for every tensor one ``step()`` changed: the user's line (Note [Where a value
    changed] in tensor.py) is looked up once, not once per parameter."""
    if not tensors:
        return
    where = user_location()
    for t in tensors:
        vc = t._vc
        vc[0] += 1
        if len(vc) == 1:
            vc.append(where)
        else:
            vc[1] = where


class Optimizer:
    """Base class: holds ``param_groups`` (dicts with ``params`` and hyper-parameters) and
    ``state`` (a dict per parameter); subclasses implement ``step``."""

    def __init__(self, params, defaults: dict) -> None:
        self.defaults = defaults
        self._optimizer_step_pre_hooks: OrderedDict = OrderedDict()
        self._optimizer_step_post_hooks: OrderedDict = OrderedDict()
        if isinstance(params, Tensor):
            raise TypeError("params argument given to the optimizer should be an iterable of "
                            "Tensors or dicts, but got " + _typename(params))
        self.state: defaultdict = defaultdict(dict)
        self.param_groups: list = []
        param_groups = list(params)
        if len(param_groups) == 0:
            raise ValueError("optimizer got an empty parameter list")
        if not isinstance(param_groups[0], dict):
            param_groups = [{"params": param_groups}]
        for group in param_groups:
            self.add_param_group(group)

    def __getstate__(self) -> dict:
        return {"defaults": self.defaults, "state": self.state,
                "param_groups": self.param_groups}

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)
        self.__dict__.setdefault("_optimizer_step_pre_hooks", OrderedDict())
        self.__dict__.setdefault("_optimizer_step_post_hooks", OrderedDict())

    def __repr__(self) -> str:
        text = type(self).__name__ + " ("
        for i, group in enumerate(self.param_groups):
            text += f"\nParameter Group {i}\n"
            for key in sorted(group):
                if key != "params":
                    text += f"    {key}: {group[key]}\n"
        return text + ")"

    def add_param_group(self, param_group: dict) -> None:
        """Add a group of parameters, filling unspecified hyper-parameters from defaults."""
        if not isinstance(param_group, dict):
            raise TypeError(f"param_group must be a dict, but got "
                            f"{type(param_group).__name__}")
        params = param_group["params"]
        if isinstance(params, Tensor):
            param_group["params"] = [params]
        elif isinstance(params, set):
            raise TypeError("optimizer parameters need to be organized in ordered "
                            "collections, but the ordering of tensors in sets will change "
                            "between runs. Please use a list instead.")
        else:
            param_group["params"] = list(params)
        for param in param_group["params"]:
            if not isinstance(param, Tensor):
                raise TypeError("optimizer can only optimize Tensors, but one of the params "
                                "is " + _typename(param))
            if not self.defaults.get("differentiable", None) and \
                    not (param.is_leaf or param.retains_grad):
                raise ValueError("can't optimize a non-leaf Tensor")
        for name, default in self.defaults.items():
            if default is required and name not in param_group:
                raise ValueError("parameter group didn't specify a value of required "
                                 f"optimization parameter {name}")
            param_group.setdefault(name, default)
        ids = [id(p) for p in param_group["params"]]
        if len(ids) != len(set(ids)):
            warnings.warn("optimizer contains a parameter group with duplicate parameters; in "
                          "future, this will cause an error; see "
                          "github.com/pytorch/pytorch/issues/40967 for more information",
                          stacklevel=3)
        existing = {id(p) for g in self.param_groups for p in g["params"]}
        if not existing.isdisjoint(ids):
            raise ValueError("some parameters appear in more than one parameter group")
        self.param_groups.append(param_group)

    def zero_grad(self, set_to_none: bool = True) -> None:
        """Reset gradients: to None (default; the next backward writes fresh ones) or to
        zeros in place."""
        for group in self.param_groups:
            for p in group["params"]:
                grad = p._grad
                if grad is None:
                    continue
                if set_to_none:
                    p._grad = None
                else:
                    if grad._grad_fn is not None:
                        grad.detach_()
                    else:
                        grad.requires_grad_(False)
                    if type(grad._data) is not np.ndarray:
                        check_mutable(grad)   # a zero tensor (Note in _zerotensor.py)
                    grad._data[...] = 0
                    grad._vc[0] += 1

    def step(self, closure=None):
        raise NotImplementedError

    @staticmethod
    def _params_with_grad(group):
        """(parameter, its array, its gradient's array) for each parameter of ``group`` that
        has a gradient: a parameter whose ``.grad`` is None is skipped, as in PyTorch."""
        for p in group["params"]:
            grad = p._grad
            if grad is not None:
                yield p, p._data, grad._data

    def _run_closure(self, closure):
        if closure is None:
            return None
        from ..grad_mode import enable_grad
        with enable_grad():
            return closure()

    # -- hooks ---------------------------------------------------------------------
    def register_step_pre_hook(self, hook) -> RemovableHandle:
        handle = RemovableHandle(self._optimizer_step_pre_hooks)
        self._optimizer_step_pre_hooks[handle.id] = hook
        return handle

    def register_step_post_hook(self, hook) -> RemovableHandle:
        handle = RemovableHandle(self._optimizer_step_post_hooks)
        self._optimizer_step_post_hooks[handle.id] = hook
        return handle

    def __init_subclass__(cls, **kwargs) -> None:
        # Wrap each subclass's step: no_grad, step hooks, and the call count that lr
        # schedulers check ("lr_scheduler.step() before optimizer.step()").
        super().__init_subclass__(**kwargs)
        if "step" in cls.__dict__:
            cls.step = _wrap_step(cls.__dict__["step"])

    # -- state dict ----------------------------------------------------------------
    def state_dict(self) -> dict:
        """``{'state': {index: {...}}, 'param_groups': [{..., 'params': [index...]}]}``:
        parameters are replaced by their position across all groups."""
        mapping: dict = {}
        start = 0
        groups = []
        for group in self.param_groups:
            packed = {k: v for k, v in group.items() if k != "params"}
            for i, p in enumerate(group["params"], start):
                mapping.setdefault(id(p), i)
            packed["params"] = [mapping[id(p)] for p in group["params"]]
            start += len(packed["params"])
            groups.append(packed)
        state = {(mapping[id(k)] if isinstance(k, Tensor) else k): v
                 for k, v in self.state.items()}
        return {"state": state, "param_groups": groups}

    def load_state_dict(self, state_dict: dict) -> None:
        """Restore hyper-parameters and state saved by ``state_dict`` (same group layout)."""
        state_dict = dict(state_dict)
        groups = self.param_groups
        saved_groups = copy.deepcopy(state_dict["param_groups"])
        if len(groups) != len(saved_groups):
            raise ValueError("loaded state dict has a different number of parameter groups")
        if any(len(g["params"]) != len(s["params"]) for g, s in zip(groups, saved_groups)):
            raise ValueError("loaded state dict contains a parameter group that doesn't match "
                             "the size of optimizer's group")
        id_map = dict(zip(chain.from_iterable(g["params"] for g in saved_groups),
                          chain.from_iterable(g["params"] for g in groups)))

        def cast(param, value, key=None):
            if isinstance(value, Tensor):
                if key != "step" and param._data.dtype.kind == "f" and \
                        value._data.dtype != param._data.dtype:
                    return _wrap(value._data.astype(param._data.dtype))
                return value
            if isinstance(value, dict):
                return {k: cast(param, v, k) for k, v in value.items()}
            return value

        state: defaultdict = defaultdict(dict)
        for k, v in state_dict["state"].items():
            if k in id_map:
                state[id_map[k]] = cast(id_map[k], v)
            else:
                state[k] = v
        new_groups = []
        for group, saved in zip(groups, saved_groups):
            saved["params"] = group["params"]
            new_groups.append(saved)
        self.__setstate__({"state": state, "param_groups": new_groups})


def _wrap_step(step):
    @functools.wraps(step)
    def wrapper(self, *args, **kwargs):
        hooks = self._optimizer_step_pre_hooks
        if hooks:
            for hook in list(hooks.values()):
                out = hook(self, args, kwargs)
                if out is not None:
                    if isinstance(out, tuple) and len(out) == 2:
                        args, kwargs = out
                    else:
                        raise RuntimeError(f"{step} must return None or a tuple of (new_args, "
                                           f"new_kwargs), but got {out}.")
        self._opt_called = True
        d = self.__dict__
        d["_step_count"] = d.get("_step_count", 0) + 1
        prev = _grad_state.grad_enabled   # ``with no_grad():`` without its object
        _grad_state.grad_enabled = False
        try:
            out = step(self, *args, **kwargs)
        finally:
            _grad_state.grad_enabled = prev
        hooks = self._optimizer_step_post_hooks
        if hooks:
            for hook in list(hooks.values()):
                hook(self, args, kwargs)
        return out
    return wrapper
