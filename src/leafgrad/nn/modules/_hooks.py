"""Module backward hooks and the global (every-module) hook tables.

Note [Full backward hooks]
``register_full_backward_hook(hook)`` calls ``hook(module, grad_input, grad_output)`` once the
gradients with respect to the module's positional inputs are known. As in PyTorch, this is
done with two identity autograd Functions, ``BackwardHookFunction``: one wraps the tensor
inputs before ``forward`` and one wraps the tensor outputs after it (so the module's outputs
show ``grad_fn=<BackwardHookFunctionBackward>``). A post-hook on the output node records
``grad_output`` (after the backward pre-hooks, which may replace it) and a post-hook on the
input node calls the user hooks with ``grad_input``, whose return value replaces what flows on
to the inputs. Positions that hold no tensor (or a tensor that needs no gradient) show None.

>>> import leafgrad as torch
>>> lin = torch.nn.Linear(2, 1)
>>> seen = []
>>> handle = lin.register_full_backward_hook(lambda m, gi, go: seen.append(len(gi)))
>>> lin(torch.ones(1, 2, requires_grad=True)).sum().backward()
>>> seen
[1]
>>> handle.remove()
"""
from __future__ import annotations

import warnings
import weakref
from collections import OrderedDict

import numpy as np

from ..._data import warn_user
from ...autograd.function import Function
from ...grad_mode import is_grad_enabled
from ...tensor import Tensor, _wrap
from ...utils.hooks import RemovableHandle

__all__ = [
    "BackwardHook",
    "BackwardHookFunction",
    "register_module_backward_hook",
    "register_module_forward_hook",
    "register_module_forward_pre_hook",
    "register_module_full_backward_hook",
    "register_module_full_backward_pre_hook",
]

# The global tables, read by Module.__call__ (PyTorch keeps them in torch.nn.modules.module).
_global_forward_pre_hooks: OrderedDict = OrderedDict()
_global_forward_hooks: OrderedDict = OrderedDict()
_global_forward_hooks_with_kwargs: OrderedDict = OrderedDict()
_global_forward_hooks_always_called: OrderedDict = OrderedDict()
_global_backward_pre_hooks: OrderedDict = OrderedDict()
_global_backward_hooks: OrderedDict = OrderedDict()
_global_state = {"is_full": None}   # None until a global backward hook is registered

_MIXED_MODULE = ("Cannot use both regular backward hooks and full backward hooks on a single "
                 "Module. Please use only one of them.")
_MIXED_GLOBAL = ("Cannot use both regular backward hooks and full backward hooks as a global "
                 "Module hook. Please use only one of them.")
_NO_INPUT_GRAD = (
    "Full backward hook is firing when gradients are computed with respect to module outputs "
    "since no inputs require gradients. See https://docs.pytorch.org/docs/main/generated/"
    "torch.nn.Module.html#torch.nn.Module.register_full_backward_hook for more details.")


def register_module_forward_pre_hook(hook) -> RemovableHandle:
    """A forward pre-hook run before every module's own ones."""
    handle = RemovableHandle(_global_forward_pre_hooks)
    _global_forward_pre_hooks[handle.id] = hook
    return handle


def register_module_forward_hook(hook, *, with_kwargs: bool = False,
                                 always_call: bool = False) -> RemovableHandle:
    """A forward hook run after every module's forward, before its own forward hooks."""
    handle = RemovableHandle(_global_forward_hooks,
                             extra_dict=[_global_forward_hooks_with_kwargs,
                                         _global_forward_hooks_always_called])
    _global_forward_hooks[handle.id] = hook
    if with_kwargs:
        _global_forward_hooks_with_kwargs[handle.id] = True
    if always_call:
        _global_forward_hooks_always_called[handle.id] = True
    return handle


def register_module_backward_hook(hook) -> RemovableHandle:
    """The deprecated (non-full) backward hook, for every module."""
    if _global_state["is_full"] is True:
        raise RuntimeError(_MIXED_GLOBAL)
    _global_state["is_full"] = False
    handle = RemovableHandle(_global_backward_hooks)
    _global_backward_hooks[handle.id] = hook
    return handle


def register_module_full_backward_pre_hook(hook) -> RemovableHandle:
    """A full backward pre-hook for every module, run before the module's own ones."""
    handle = RemovableHandle(_global_backward_pre_hooks)
    _global_backward_pre_hooks[handle.id] = hook
    return handle


def register_module_full_backward_hook(hook) -> RemovableHandle:
    """A full backward hook for every module, run before the module's own ones."""
    if _global_state["is_full"] is False:
        raise RuntimeError(_MIXED_GLOBAL)
    _global_state["is_full"] = True
    handle = RemovableHandle(_global_backward_hooks)
    _global_backward_hooks[handle.id] = hook
    return handle


def backward_hooks_of(module):
    """(full hooks, non-full hooks), globals first, as PyTorch's ``_get_backward_hooks``."""
    full, legacy = [], []
    is_full = _global_state["is_full"]
    if is_full is True:
        full += _global_backward_hooks.values()
    elif is_full is False:
        legacy += _global_backward_hooks.values()
    if module._is_full_backward_hook is True:
        full += module._backward_hooks.values()
    elif module._is_full_backward_hook is False:
        legacy += module._backward_hooks.values()
    return full, legacy


def backward_pre_hooks_of(module) -> list:
    return list(_global_backward_pre_hooks.values()) + list(module._backward_pre_hooks.values())


class BackwardHookFunction(Function):
    """Identity on its tensor arguments; its node is where the module hooks attach."""

    @staticmethod
    def forward(ctx, *args):
        ctx.mark_non_differentiable(*[a for a in args if not a.requires_grad])
        return args

    @staticmethod
    def backward(ctx, *grads):
        return grads


def _pack_with_none(indices, values, size) -> tuple:
    out = [None] * size
    for i, v in zip(indices, values):
        out[i] = v
    return tuple(out)


def _checked(new, old) -> tuple:
    """The engine's check of a node hook's result (the closures below are named ``hook``):
    a gradient may be replaced, not resized."""
    for n, o in zip(new, old):
        if n is not None and o is not None and tuple(n.shape) != tuple(o.shape):
            raise RuntimeError("hook 'hook' has changed the size of value")
    return new


class BackwardHook:
    """One module call's backward hooks (Note [Full backward hooks])."""

    def __init__(self, module, user_hooks, user_pre_hooks) -> None:
        self.module = module
        self.user_hooks = user_hooks
        self.user_pre_hooks = user_pre_hooks
        self.grad_outputs = None
        self.n_inputs = -1
        self.n_outputs = -1
        self.input_tensors_index = None
        self.output_tensors_index = None

    def _wrap_tensors(self, args, on_node):
        """Route the tensors of ``args`` through one BackwardHookFunction and call
        ``on_node`` with its node; returns (new args, tensor positions or None)."""
        index = [i for i, a in enumerate(args) if isinstance(a, Tensor)]
        tensors = [args[i] for i in index]
        if not (any(t.requires_grad for t in tensors) and is_grad_enabled()):
            return args, None
        wrapped = BackwardHookFunction.apply(*tensors)
        node = next(t.grad_fn for t in wrapped if t.grad_fn is not None)
        on_node(node)
        out = list(args)
        for i, t in zip(index, wrapped):
            out[i] = t
        return (tuple(out) if type(args) is tuple else type(args)(*out)), index

    def setup_input_hook(self, args):
        def on_node(node):
            shapes = node._args

            def hook(grad_inputs, _grad_outputs):
                if self.grad_outputs is None:
                    # The gradient reached the inputs without passing through the outputs
                    # (e.g. a double backward): PyTorch calls nothing then.
                    return None
                # An input that needs no gradient still shows the identity's zeros, as in
                # PyTorch, where the node's result is kept for its hooks.
                grads = tuple(g if g is not None else _wrap(np.zeros(*meta))
                              for g, meta in zip(grad_inputs, shapes))
                res = _pack_with_none(self.input_tensors_index, grads, self.n_inputs)
                for user_hook in self.user_hooks:
                    out = user_hook(self.module, res, self.grad_outputs)
                    if out is None:
                        continue
                    if len(out) != len(res):
                        raise RuntimeError("Backward hook returned an invalid number of "
                                           f"grad_input, got {len(out)}, but expected "
                                           f"{len(res)}")
                    res = out
                self.grad_outputs = None
                return _checked(tuple(res[i] for i in self.input_tensors_index), grads)

            node.register_hook(hook)

        res, index = self._wrap_tensors(args, on_node)
        self.n_inputs = len(args)
        self.input_tensors_index = index
        return res

    def setup_output_hook(self, result):
        def on_node(node):
            def hook(_grad_inputs, grad_outputs):
                grad_outputs_in = grad_outputs
                self.grad_outputs = _pack_with_none(self.output_tensors_index, grad_outputs,
                                                    self.n_outputs)
                expected = len(self.grad_outputs)
                for pre_hook in self.user_pre_hooks:
                    new = pre_hook(self.module, self.grad_outputs)
                    if new is None:
                        continue
                    if len(new) != expected:
                        raise RuntimeError("Backward pre hook returned an invalid number of "
                                           f"grad_output, got {len(new)}, but expected "
                                           f"{expected}")
                    self.grad_outputs = new
                grad_outputs = self.grad_outputs
                if self.input_tensors_index is None:
                    # No input needs a gradient: the hooks fire here, with grad_input all None.
                    warn_user(_NO_INPUT_GRAD)
                    grad_inputs = (None,) * self.n_inputs
                    for user_hook in self.user_hooks:
                        res = user_hook(self.module, grad_inputs, self.grad_outputs)
                        if res is not None and not (isinstance(res, tuple)
                                                    and all(r is None for r in res)):
                            raise RuntimeError(
                                "Backward hook for Modules where no input requires gradient "
                                "should always return None or None for all gradients.")
                    self.grad_outputs = None
                return _checked(tuple(grad_outputs[i] for i in self.output_tensors_index),
                                grad_outputs_in)

            node.register_hook(hook)

        is_tuple = isinstance(result, tuple)
        args = result if is_tuple else (result,)
        res, index = self._wrap_tensors(args, on_node)
        self.n_outputs = len(args)
        self.output_tensors_index = index
        return res if is_tuple else res[0]


class _WrappedHook:
    """A deprecated (non-full) module backward hook, as a post-hook of one output node."""

    def __init__(self, hook, module) -> None:
        self.hook = hook
        self.module = weakref.ref(module)

    def __call__(self, grad_inputs, grad_outputs):
        module = self.module()
        if module is None:
            raise RuntimeError("You are trying to call the hook of a dead Module!")
        return self.hook(module, grad_inputs, grad_outputs)


def setup_legacy_hooks(module, hooks, args, result) -> None:
    """Attach the deprecated backward hooks to the node of the first output tensor, with
    PyTorch's FutureWarnings for the cases they get wrong."""
    var = result
    while not isinstance(var, Tensor):
        if isinstance(var, dict):
            var = next(v for v in var.values() if isinstance(v, Tensor))
        else:
            var = var[0]
    grad_fn = var.grad_fn
    if grad_fn is None:
        return
    for hook in hooks:
        grad_fn.register_hook(_WrappedHook(hook, module))
    _warn_legacy(args, result, grad_fn)


def _warn_legacy(inputs, result, grad_fn) -> None:
    def warn(text):
        warnings.warn(text, FutureWarning, stacklevel=4)

    full = "Please use register_full_backward_hook to get the documented behavior."
    if isinstance(result, Tensor):
        result = (result,)
    elif not (isinstance(result, tuple) and all(isinstance(r, Tensor) for r in result)):
        warn("Using non-full backward hooks on a Module that does not return a single Tensor "
             "or a tuple of Tensors is deprecated and will be removed in future versions. "
             f"This hook will be missing some of the grad_output. {full}")
        return
    if isinstance(inputs, Tensor):
        inputs = (inputs,)
    elif not (isinstance(inputs, tuple) and all(isinstance(i, Tensor) for i in inputs)):
        warn("Using non-full backward hooks on a Module that does not take as input a single "
             "Tensor or a tuple of Tensors is deprecated and will be removed in future "
             f"versions. This hook will be missing some of the grad_input. {full}")
        return
    out_fns = {id(r.grad_fn) for r in result if r.grad_fn is not None}
    if not out_fns or (len(out_fns) == 1 and id(grad_fn) not in out_fns):
        warn("Using a non-full backward hook when outputs are nested in python data structure "
             "is deprecated and will be removed in future versions. This hook will be missing "
             "some grad_output.")
    elif len(out_fns) > 1:
        warn("Using a non-full backward hook when outputs are generated by different autograd "
             "Nodes is deprecated and will be removed in future versions. This hook will be "
             f"missing some grad_output. {full}")
    else:
        input_fns = {id(i.grad_fn) for i in inputs if i.grad_fn is not None}
        next_fns = {id(fn) for fn, _ in grad_fn.next_functions}
        if input_fns != next_fns:
            warn("Using a non-full backward hook when the forward contains multiple autograd "
                 "Nodes is deprecated and will be removed in future versions. This hook will "
                 f"be missing some grad_input. {full}")


# -- Module methods (bound in module.py) -----------------------------------------------------
def register_forward_pre_hook(self, hook, *, prepend: bool = False,
                              with_kwargs: bool = False) -> RemovableHandle:
    """``hook(module, args)`` (or ``(module, args, kwargs)``) runs before forward."""
    handle = RemovableHandle(self._forward_pre_hooks,
                             extra_dict=self._forward_pre_hooks_with_kwargs)
    self._forward_pre_hooks[handle.id] = hook
    if with_kwargs:
        self._forward_pre_hooks_with_kwargs[handle.id] = True
    if prepend:
        self._forward_pre_hooks.move_to_end(handle.id, last=False)
    return handle


def register_forward_hook(self, hook, *, prepend: bool = False, with_kwargs: bool = False,
                          always_call: bool = False) -> RemovableHandle:
    """``hook(module, args, output)`` runs after forward; a non-None return replaces the
    output. ``always_call=True``: it also runs when forward raises."""
    handle = RemovableHandle(self._forward_hooks,
                             extra_dict=[self._forward_hooks_with_kwargs,
                                         self._forward_hooks_always_called])
    self._forward_hooks[handle.id] = hook
    if with_kwargs:
        self._forward_hooks_with_kwargs[handle.id] = True
    if always_call:
        self._forward_hooks_always_called[handle.id] = True
    if prepend:
        self._forward_hooks.move_to_end(handle.id, last=False)
    return handle


def register_full_backward_pre_hook(self, hook, prepend: bool = False) -> RemovableHandle:
    """``hook(module, grad_output)`` runs when the gradients of the outputs are known; a
    non-None return (a tuple as long as grad_output) replaces them."""
    handle = RemovableHandle(self._backward_pre_hooks)
    self._backward_pre_hooks[handle.id] = hook
    if prepend:
        self._backward_pre_hooks.move_to_end(handle.id, last=False)
    return handle


def register_full_backward_hook(self, hook, prepend: bool = False) -> RemovableHandle:
    """``hook(module, grad_input, grad_output)`` runs when the gradients of the positional
    inputs are known; a non-None return replaces grad_input (Note [Full backward hooks])."""
    if self._is_full_backward_hook is False:
        raise RuntimeError(_MIXED_MODULE)
    self._is_full_backward_hook = True
    handle = RemovableHandle(self._backward_hooks)
    self._backward_hooks[handle.id] = hook
    if prepend:
        self._backward_hooks.move_to_end(handle.id, last=False)
    return handle


def register_backward_hook(self, hook) -> RemovableHandle:
    """Deprecated: a post-hook on the node of the first output tensor (PyTorch warns when
    that misses gradients); use ``register_full_backward_hook``."""
    if self._is_full_backward_hook is True:
        raise RuntimeError(_MIXED_MODULE)
    self._is_full_backward_hook = False
    handle = RemovableHandle(self._backward_hooks)
    self._backward_hooks[handle.id] = hook
    return handle


def call_with_hooks(self, args, kwargs):
    """``Module.__call__`` when some hook is registered, in PyTorch's order: forward
    pre-hooks (global, then the module's), input backward hook, forward, forward hooks,
    output backward hook, deprecated backward hooks."""
    called = set()
    result = None
    try:
        full, legacy = [], []
        pre = []
        if self._backward_pre_hooks or _global_backward_pre_hooks:
            pre = backward_pre_hooks_of(self)
        if self._backward_hooks or _global_backward_hooks:
            full, legacy = backward_hooks_of(self)
        for hook_id, hook in (*_global_forward_pre_hooks.items(),
                              *self._forward_pre_hooks.items()):
            if hook_id in self._forward_pre_hooks_with_kwargs:
                out = hook(self, args, kwargs)
                if out is not None:
                    if isinstance(out, tuple) and len(out) == 2:
                        args, kwargs = out
                    else:
                        raise RuntimeError("forward pre-hook must return None or a tuple of "
                                           f"(new_args, new_kwargs), but got {out}.")
            else:
                out = hook(self, args)
                if out is not None:
                    args = out if isinstance(out, tuple) else (out,)
        bw_hook = None
        if full or pre:
            bw_hook = BackwardHook(self, full, pre)
            args = bw_hook.setup_input_hook(args)
        result = self.forward(*args, **kwargs)
        for hook_id, hook in (*_global_forward_hooks.items(), *self._forward_hooks.items()):
            if (hook_id in self._forward_hooks_always_called
                    or hook_id in _global_forward_hooks_always_called):
                called.add(hook_id)
            if (hook_id in self._forward_hooks_with_kwargs
                    or hook_id in _global_forward_hooks_with_kwargs):
                out = hook(self, args, kwargs, result)
            else:
                out = hook(self, args, result)
            if out is not None:
                result = out
        if bw_hook is not None:
            if not isinstance(result, (Tensor, tuple)):
                warnings.warn("For backward hooks to be called, module output should be a "
                              f"Tensor or a tuple of Tensors but received {type(result)}",
                              stacklevel=3)
            result = bw_hook.setup_output_hook(result)
        if legacy:
            setup_legacy_hooks(self, legacy, args, result)
        return result
    except Exception:
        _run_always_called(self, args, kwargs, result, called)
        raise


def _run_always_called(self, args, kwargs, result, called) -> None:
    """After forward raised: the ``always_call`` forward hooks not yet run, their own errors
    turned into warnings (PyTorch's texts)."""
    for hook_id, hook in _global_forward_hooks.items():
        if hook_id in _global_forward_hooks_always_called and hook_id not in called:
            try:
                out = hook(self, args, result)
                if out is not None:
                    result = out
            except Exception as e:  # noqa: BLE001  (PyTorch turns any hook error into a warning)
                warnings.warn("global module forward hook with ``always_call=True`` raised an "
                              f"exception that was silenced as another error was raised in "
                              f"forward: {e}", stacklevel=3)
    for hook_id, hook in self._forward_hooks.items():
        if hook_id in self._forward_hooks_always_called and hook_id not in called:
            try:
                if hook_id in self._forward_hooks_with_kwargs:
                    out = hook(self, args, kwargs, result)
                else:
                    out = hook(self, args, result)
                if out is not None:
                    result = out
            except Exception as e:  # noqa: BLE001  (PyTorch turns any hook error into a warning)
                warnings.warn("module forward hook with ``always_call=True`` raised an "
                              "exception that was silenced as another error was raised in "
                              f"forward: {e}", stacklevel=3)
