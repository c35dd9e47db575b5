"""``nn.Module``: parameters, buffers and submodules registered by attribute assignment.

Note [Module state]
A module keeps three ordered tables, ``_parameters``, ``_buffers`` and ``_modules``;
``__setattr__`` routes each assigned value into the right one (a Parameter, a Module, or a
tensor already registered as a buffer) and ``__getattr__`` reads them back. Everything else
(``parameters()``, ``state_dict()``, ``train()``, ``to()``...) walks those tables, so a
parameter shared by two submodules is one object and is listed once.

>>> import leafgrad as torch
>>> class Net(torch.nn.Module):
...     def __init__(self):
...         super().__init__()
...         self.fc = torch.nn.Linear(2, 1)
...     def forward(self, x):
...         return self.fc(x)
>>> [name for name, _ in Net().named_parameters()]
['fc.weight', 'fc.bias']
"""
from __future__ import annotations

from collections import OrderedDict, namedtuple

from ... import dtypes as _dt
from ...grad_mode import no_grad
from ...tensor import Tensor, _wrap, check_device
from .. import _raw
from ..parameter import Buffer, Parameter, typename
from . import _hooks, _state_dict

# torch.nn.modules.module is where PyTorch code imports the global hook registrations from
from ._hooks import (  # noqa: F401
    register_module_backward_hook,
    register_module_forward_hook,
    register_module_forward_pre_hook,
    register_module_full_backward_hook,
    register_module_full_backward_pre_hook,
)

__all__ = ["Module"]

# the global hook tables (the same dict objects, never rebound), read on every call
_GLOBAL_FORWARD_PRE = _hooks._global_forward_pre_hooks
_GLOBAL_FORWARD = _hooks._global_forward_hooks
_GLOBAL_BACKWARD_PRE = _hooks._global_backward_pre_hooks
_GLOBAL_BACKWARD = _hooks._global_backward_hooks


class _IncompatibleKeys(namedtuple("IncompatibleKeys", ["missing_keys", "unexpected_keys"])):
    __slots__ = ()

    def __repr__(self) -> str:
        if not self.missing_keys and not self.unexpected_keys:
            return "<All keys matched successfully>"
        return super().__repr__()

    __str__ = __repr__


def _addindent(text: str, spaces: int) -> str:
    lines = text.split("\n")
    if len(lines) == 1:
        return text
    first = lines.pop(0)
    rest = [(" " * spaces) + line if line.strip() else "" for line in lines]
    return first + "\n" + "\n".join(rest)


def _forward_unimplemented(self, *args, **kwargs):
    raise NotImplementedError(
        f'Module [{type(self).__name__}] is missing the required "forward" function')


class Module:
    """Base class of every layer and model; subclasses define ``forward``."""

    training: bool
    _version: int = 1
    forward = _forward_unimplemented

    def __init__(self, *args, **kwargs) -> None:
        if kwargs:
            raise TypeError(f"{type(self).__name__}.__init__() got an unexpected keyword "
                            f"argument '{next(iter(kwargs))}'")
        if args:
            raise TypeError(f"{type(self).__name__}.__init__() takes 1 positional argument "
                            f"but {len(args) + 1} were given")
        # object.__setattr__: these must exist before our own __setattr__ can route anything.
        setattr_ = object.__setattr__
        setattr_(self, "training", True)
        setattr_(self, "_parameters", {})
        setattr_(self, "_buffers", {})
        setattr_(self, "_non_persistent_buffers_set", set())
        setattr_(self, "_modules", {})
        setattr_(self, "_forward_hooks", OrderedDict())
        setattr_(self, "_forward_hooks_with_kwargs", OrderedDict())
        setattr_(self, "_forward_hooks_always_called", OrderedDict())
        setattr_(self, "_forward_pre_hooks", OrderedDict())
        setattr_(self, "_forward_pre_hooks_with_kwargs", OrderedDict())
        setattr_(self, "_backward_pre_hooks", OrderedDict())
        setattr_(self, "_backward_hooks", OrderedDict())
        setattr_(self, "_is_full_backward_hook", None)
        setattr_(self, "_state_dict_hooks", OrderedDict())
        setattr_(self, "_load_state_dict_post_hooks", OrderedDict())

    # -- registration ----------------------------------------------------------------
    def register_buffer(self, name: str, tensor, persistent: bool = True) -> None:
        """Add a tensor that is module state but not a parameter (e.g. running stats)."""
        if "_buffers" not in self.__dict__:
            raise AttributeError("cannot assign buffer before Module.__init__() call")
        if not isinstance(name, str):
            raise TypeError(f"buffer name should be a string. Got {typename(name)}")
        if "." in name:
            raise KeyError('buffer name can\'t contain "."')
        if name == "":
            raise KeyError('buffer name can\'t be empty string ""')
        if hasattr(self, name) and name not in self._buffers:
            raise KeyError(f"attribute '{name}' already exists")
        if tensor is not None and not isinstance(tensor, Tensor):
            raise TypeError(f"cannot assign '{typename(tensor)}' object to buffer '{name}' "
                            "(torch Tensor or None required)")
        if isinstance(tensor, Buffer):
            persistent = tensor.persistent
        self._buffers[name] = tensor
        if persistent:
            self._non_persistent_buffers_set.discard(name)
        else:
            self._non_persistent_buffers_set.add(name)

    def register_parameter(self, name: str, param) -> None:
        """Add a Parameter (or None, a declared but absent parameter such as no bias)."""
        if "_parameters" not in self.__dict__:
            raise AttributeError("cannot assign parameter before Module.__init__() call")
        if not isinstance(name, str):
            raise TypeError(f"parameter name should be a string. Got {typename(name)}")
        if "." in name:
            raise KeyError('parameter name can\'t contain "."')
        if name == "":
            raise KeyError('parameter name can\'t be empty string ""')
        if hasattr(self, name) and name not in self._parameters:
            raise KeyError(f"attribute '{name}' already exists")
        if param is None:
            self._parameters[name] = None
            return
        if not isinstance(param, Parameter):
            raise TypeError(f"cannot assign '{typename(param)}' object to parameter '{name}' "
                            "(torch.nn.Parameter or None required)")
        if param.grad_fn is not None:
            raise ValueError(
                f"Cannot assign non-leaf Tensor to parameter '{name}'. Model parameters must "
                f"be created explicitly. To express '{name}' as a function of another Tensor, "
                "compute the value in the forward() method.")
        self._parameters[name] = param

    def add_module(self, name: str, module) -> None:
        if not isinstance(module, Module) and module is not None:
            raise TypeError(f"{typename(module)} is not a Module subclass")
        if not isinstance(name, str):
            raise TypeError(f"module name should be a string. Got {typename(name)}")
        if hasattr(self, name) and name not in self._modules:
            raise KeyError(f"attribute '{name}' already exists")
        if "." in name:
            raise KeyError(f'module name can\'t contain ".", got: {name}')
        if name == "":
            raise KeyError('module name can\'t be empty string ""')
        self._modules[name] = module

    register_module = add_module

    def __getattr__(self, name: str):
        # Only called when normal lookup fails: look in the three tables.
        d = self.__dict__
        for table in ("_parameters", "_buffers", "_modules"):
            if table in d and name in d[table]:
                return d[table][name]
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def __setattr__(self, name: str, value) -> None:
        d = self.__dict__

        def remove_from(*tables):
            for t in tables:
                if name in t:
                    if isinstance(t, dict):
                        del t[name]
                    else:
                        t.discard(name)

        params = d.get("_parameters")
        if isinstance(value, Parameter):
            if params is None:
                raise AttributeError("cannot assign parameters before Module.__init__() call")
            remove_from(d, self._buffers, self._modules, self._non_persistent_buffers_set)
            self.register_parameter(name, value)
        elif params is not None and name in params:
            if value is not None:
                raise TypeError(f"cannot assign '{typename(value)}' as parameter '{name}' "
                                "(torch.nn.Parameter or None expected)")
            self.register_parameter(name, value)
        else:
            modules = d.get("_modules")
            if isinstance(value, Module):
                if modules is None:
                    raise AttributeError("cannot assign module before Module.__init__() call")
                remove_from(d, self._parameters, self._buffers,
                            self._non_persistent_buffers_set)
                modules[name] = value
            elif modules is not None and name in modules:
                if value is not None:
                    raise TypeError(f"cannot assign '{typename(value)}' as child module "
                                    f"'{name}' (torch.nn.Module or None expected)")
                modules[name] = value
            else:
                buffers = d.get("_buffers")
                if isinstance(value, Buffer) or (buffers is not None and name in buffers):
                    if value is not None and not isinstance(value, Tensor):
                        raise TypeError(f"cannot assign '{typename(value)}' as buffer "
                                        f"'{name}' (torch.nn.Buffer, torch.Tensor or None "
                                        "expected)")
                    if isinstance(value, Buffer):
                        persistent = value.persistent
                    else:
                        persistent = name not in self._non_persistent_buffers_set
                    self.register_buffer(name, value, persistent)
                else:
                    object.__setattr__(self, name, value)

    def __delattr__(self, name: str) -> None:
        if name in self._parameters:
            del self._parameters[name]
        elif name in self._buffers:
            del self._buffers[name]
            self._non_persistent_buffers_set.discard(name)
        elif name in self._modules:
            del self._modules[name]
        else:
            object.__delattr__(self, name)

    def __dir__(self):
        keys = list(object.__dir__(self))
        keys += list(self._parameters) + list(self._modules) + list(self._buffers)
        return sorted(k for k in set(keys) if not k[0].isdigit())

    # -- calling (hooks: see _hooks.py) ----------------------------------------------
    def __call__(self, *args, **kwargs):
        if not (self._forward_pre_hooks or self._forward_hooks or self._backward_hooks
                or self._backward_pre_hooks or _GLOBAL_FORWARD_PRE or _GLOBAL_FORWARD
                or _GLOBAL_BACKWARD_PRE or _GLOBAL_BACKWARD):
            return self.forward(*args, **kwargs)
        return _hooks.call_with_hooks(self, args, kwargs)

    register_forward_pre_hook = _hooks.register_forward_pre_hook
    register_forward_hook = _hooks.register_forward_hook
    register_full_backward_pre_hook = _hooks.register_full_backward_pre_hook
    register_full_backward_hook = _hooks.register_full_backward_hook
    register_backward_hook = _hooks.register_backward_hook

    # -- walking the tree ------------------------------------------------------------
    def _named_members(self, get_members, prefix="", recurse=True, remove_duplicate=True):
        memo = set()
        modules = (self.named_modules(prefix=prefix, remove_duplicate=remove_duplicate)
                   if recurse else [(prefix, self)])
        for module_prefix, module in modules:
            for name, value in get_members(module):
                if value is None:
                    continue
                if remove_duplicate:
                    # id(): tensors compare elementwise, so a set of tensors would not do.
                    if id(value) in memo:
                        continue
                    memo.add(id(value))
                yield (module_prefix + ("." if module_prefix else "") + name, value)

    def named_parameters(self, prefix: str = "", recurse: bool = True,
                         remove_duplicate: bool = True):
        """(dotted name, Parameter) pairs; a parameter shared by two submodules comes once."""
        yield from self._named_members(lambda m: m._parameters.items(), prefix, recurse,
                                       remove_duplicate)

    def parameters(self, recurse: bool = True):
        for _, p in self.named_parameters(recurse=recurse):
            yield p

    def named_buffers(self, prefix: str = "", recurse: bool = True,
                      remove_duplicate: bool = True):
        yield from self._named_members(lambda m: m._buffers.items(), prefix, recurse,
                                       remove_duplicate)

    def buffers(self, recurse: bool = True):
        for _, b in self.named_buffers(recurse=recurse):
            yield b

    def named_children(self):
        memo = set()
        for name, module in self._modules.items():
            if module is not None and id(module) not in memo:
                memo.add(id(module))
                yield name, module

    def children(self):
        for _, m in self.named_children():
            yield m

    def named_modules(self, memo=None, prefix: str = "", remove_duplicate: bool = True):
        """Depth-first (self first) (dotted name, module) pairs."""
        if memo is None:
            memo = set()
        if remove_duplicate:
            if id(self) in memo:
                return
            memo.add(id(self))
        yield prefix, self
        for name, module in self._modules.items():
            if module is None:
                continue
            sub = prefix + ("." if prefix else "") + name
            yield from module.named_modules(memo, sub, remove_duplicate)

    def modules(self):
        for _, m in self.named_modules():
            yield m

    def get_submodule(self, target: str) -> "Module":
        if target == "":
            return self
        mod = self
        for item in target.split("."):
            if not hasattr(mod, item):
                raise AttributeError(mod._get_name() + " has no attribute `" + item + "`")
            mod = getattr(mod, item)
            if not isinstance(mod, Module):
                raise AttributeError("`" + item + "` is not an nn.Module")
        return mod

    def get_parameter(self, target: str) -> Parameter:
        module_path, _, name = target.rpartition(".")
        mod = self.get_submodule(module_path)
        if not hasattr(mod, name):
            raise AttributeError(mod._get_name() + " has no attribute `" + name + "`")
        param = getattr(mod, name)
        if not isinstance(param, Parameter):
            raise AttributeError("`" + name + "` is not an nn.Parameter")
        return param

    def get_buffer(self, target: str) -> Tensor:
        module_path, _, name = target.rpartition(".")
        mod = self.get_submodule(module_path)
        if not hasattr(mod, name):
            raise AttributeError(mod._get_name() + " has no attribute `" + name + "`")
        if name not in mod._buffers:
            raise AttributeError("`" + name + "` is not a buffer")
        return getattr(mod, name)

    # -- modes -----------------------------------------------------------------------
    def train(self, mode: bool = True) -> "Module":
        """Set training mode here and in every submodule (affects Dropout, norms)."""
        if not isinstance(mode, bool):
            raise ValueError("training mode is expected to be boolean")
        self.training = mode
        for module in self.children():
            module.train(mode)
        return self

    def eval(self) -> "Module":
        """``train(False)``. It does not turn off gradient recording; ``no_grad`` does."""
        return self.train(False)

    def requires_grad_(self, requires_grad: bool = True) -> "Module":
        for p in self.parameters():
            p.requires_grad_(requires_grad)
        return self

    def zero_grad(self, set_to_none: bool = True) -> None:
        """Reset every parameter's ``.grad``: to None (default) or to zeros in place."""
        for p in self.parameters():
            grad = p._grad
            if grad is None:
                continue
            if set_to_none:
                p.grad = None
            else:
                if grad._grad_fn is not None:
                    grad.detach_()
                else:
                    grad.requires_grad_(False)
                _raw.zero_(grad)

    def apply(self, fn) -> "Module":
        """Call ``fn`` on every submodule (children first), then on self."""
        for module in self.children():
            module.apply(fn)
        fn(self)
        return self

    # -- dtype conversion ------------------------------------------------------------
    def _apply(self, fn) -> "Module":
        """Convert every parameter, gradient and buffer with ``fn``, keeping Parameter
        objects (optimizers hold them) and replacing only their data."""
        for module in self.children():
            module._apply(fn)
        for key, param in self._parameters.items():
            if param is None:
                continue
            with no_grad():
                applied = fn(param)
            param._data = applied._data
            grad = param._grad
            if grad is not None:
                with no_grad():
                    grad._data = fn(grad)._data
        for key, buf in self._buffers.items():
            if buf is not None:
                self._buffers[key] = fn(buf)
        return self

    def _cast_floats(self, np_dtype) -> "Module":
        def cast(t):
            if t._data.dtype.kind != "f" or t._data.dtype == np_dtype:
                return t
            out = _wrap(t._data.astype(np_dtype))
            out._requires_grad = t._requires_grad if t._grad_fn is None else False
            return out
        return self._apply(cast)

    def to(self, *args, **kwargs) -> "Module":
        """``to(dtype)``, ``to(device)``, ``to(device, dtype)``, ``to(tensor)``: cast the
        floating-point parameters and buffers (integer ones keep their dtype)."""
        dtype = kwargs.pop("dtype", None)
        device = kwargs.pop("device", None)
        kwargs.pop("non_blocking", None)
        kwargs.pop("memory_format", None)
        if kwargs:
            raise TypeError(f"to() received an invalid combination of arguments - got "
                            f"unexpected keyword argument '{next(iter(kwargs))}'")
        for a in args:
            if isinstance(a, Tensor):
                dtype = a.dtype
            elif isinstance(a, _dt.dtype):
                dtype = a
            elif isinstance(a, bool):
                continue
            else:
                device = a
        check_device(device)
        if dtype is None:
            return self
        dtype = _dt.to_dtype(dtype)
        if not dtype.is_floating_point:
            raise TypeError("nn.Module.to only accepts floating point or complex dtypes, but "
                            f"got desired dtype={dtype}")
        return self._cast_floats(dtype.np)

    def double(self) -> "Module":
        return self._cast_floats(_dt.float64.np)

    def float(self) -> "Module":
        return self._cast_floats(_dt.float32.np)

    def half(self) -> "Module":
        return self._cast_floats(_dt.float16.np)

    def cpu(self) -> "Module":
        return self

    def cuda(self, device=None) -> "Module":
        check_device("cuda")
        return self

    def share_memory(self) -> "Module":
        return self

    # -- state dict (_state_dict.py) ------------------------------------------------
    state_dict = _state_dict.state_dict
    _load_from_state_dict = _state_dict._load_from_state_dict
    load_state_dict = _state_dict.load_state_dict
    register_load_state_dict_post_hook = _state_dict.register_load_state_dict_post_hook

    # -- printing --------------------------------------------------------------------
    def _get_name(self) -> str:
        return type(self).__name__

    def extra_repr(self) -> str:
        """The text inside this module's parentheses; layers override it."""
        return ""

    def __repr__(self) -> str:
        extra = self.extra_repr()
        extra_lines = extra.split("\n") if extra else []
        child_lines = []
        for key, module in self._modules.items():
            child_lines.append("(" + key + "): " + _addindent(repr(module), 2))
        lines = extra_lines + child_lines
        text = self._get_name() + "("
        if lines:
            if len(extra_lines) == 1 and not child_lines:
                text += extra_lines[0]
            else:
                text += "\n  " + "\n  ".join(lines) + "\n"
        return text + ")"

    def __setstate__(self, state) -> None:
        self.__dict__.update(state)
        # modules pickled before the backward-hook tables existed
        for name in ("_backward_pre_hooks", "_backward_hooks"):
            self.__dict__.setdefault(name, OrderedDict())
        self.__dict__.setdefault("_is_full_backward_hook", None)
