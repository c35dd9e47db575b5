"""``nn.Module``'s state dict: ``state_dict``, ``load_state_dict`` (with PyTorch's messages)
and its post hooks. Module binds these functions as its methods (module.py's class body).
"""
from __future__ import annotations

import itertools
from collections import OrderedDict
from collections.abc import Mapping

from ...tensor import Tensor
from ...utils.hooks import RemovableHandle
from .. import _raw
from ..parameter import Parameter

__all__ = ["state_dict", "load_state_dict", "register_load_state_dict_post_hook"]


def state_dict(self, *args, destination=None, prefix: str = "", keep_vars: bool = False):
    """An OrderedDict of dotted name -> tensor (parameters detached, persistent buffers)."""
    if args:
        # Legacy positional form state_dict(destination, prefix, keep_vars).
        destination = args[0]
        if len(args) > 1:
            prefix = args[1]
        if len(args) > 2:
            keep_vars = args[2]
    if destination is None:
        destination = OrderedDict()
        destination._metadata = OrderedDict()
    metadata = getattr(destination, "_metadata", None)
    if metadata is not None:
        metadata[prefix[:-1]] = {"version": self._version}
    for name, param in self._parameters.items():
        if param is not None:
            destination[prefix + name] = param if keep_vars else param.detach()
    for name, buf in self._buffers.items():
        if buf is not None and name not in self._non_persistent_buffers_set:
            destination[prefix + name] = buf if keep_vars else buf.detach()
    for name, module in self._modules.items():
        if module is not None:
            module.state_dict(destination=destination, prefix=prefix + name + ".",
                              keep_vars=keep_vars)
    return destination


def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict, missing_keys,
                          unexpected_keys, error_msgs):
    """PyTorch's signature: ``local_metadata`` is this module's entry of the state dict's
    ``_metadata`` ({} for a plain dict), ``assign`` travels in it."""
    assign = local_metadata.get("assign_to_params_buffers", False)
    persistent = {k: v for k, v in self._buffers.items()
                  if k not in self._non_persistent_buffers_set}
    local_state = {k: v for k, v in itertools.chain(self._parameters.items(),
                                                     persistent.items()) if v is not None}
    for name, param in local_state.items():
        key = prefix + name
        if key not in state_dict:
            missing_keys.append(key)
            continue
        value = state_dict[key]
        if not isinstance(value, Tensor):
            error_msgs.append(
                f'While copying the parameter named "{key}", expected torch.Tensor or '
                f"Tensor-like object from checkpoint but received {type(value)}")
            continue
        if value.shape != param.shape:
            error_msgs.append(
                f"size mismatch for {key}: copying a param with shape {value.shape} from "
                f"checkpoint, the shape in current model is {param.shape}.")
            continue
        if assign:
            if isinstance(param, Parameter):
                new = value if isinstance(value, Parameter) else \
                    Parameter(value, requires_grad=param.requires_grad)
                setattr(self, name, new)
            else:
                setattr(self, name, value)
        else:
            _raw.write_(param, value)
    for key in state_dict:
        if key.startswith(prefix):
            parts = key[len(prefix):].split(".", 1)
            if len(parts) > 1:
                if parts[0] not in self._modules:
                    unexpected_keys.append(key)
            elif parts[0] not in local_state:
                unexpected_keys.append(key)


def load_state_dict(self, state_dict, strict: bool = True, assign: bool = False):
    """Copy values from ``state_dict`` into this module's parameters and buffers."""
    if not isinstance(state_dict, Mapping):
        raise TypeError(f"Expected state_dict to be dict-like, got {type(state_dict)}.")
    from .module import _IncompatibleKeys   # module.py imports this file
    missing_keys: list = []
    unexpected_keys: list = []
    error_msgs: list = []
    metadata = getattr(state_dict, "_metadata", None)
    state_dict = OrderedDict(state_dict)
    if metadata is not None:
        state_dict._metadata = metadata

    def load(module, local_state, prefix=""):
        # the saved version of each module (BatchNorm reads it), as PyTorch passes it
        local_metadata = {} if metadata is None else metadata.get(prefix[:-1], {})
        if assign:
            local_metadata["assign_to_params_buffers"] = assign
        module._load_from_state_dict(local_state, prefix, local_metadata, True,
                                     missing_keys, unexpected_keys, error_msgs)
        for name, child in module._modules.items():
            if child is not None:
                child_prefix = prefix + name + "."
                child_state = {k: v for k, v in local_state.items()
                               if k.startswith(child_prefix)}
                load(child, child_state, child_prefix)
        keys = _IncompatibleKeys(missing_keys, unexpected_keys)
        for hook in module._load_state_dict_post_hooks.values():
            hook(module, keys)

    load(self, state_dict)
    if strict:
        if unexpected_keys:
            error_msgs.insert(0, "Unexpected key(s) in state_dict: {}. ".format(
                ", ".join(f'"{k}"' for k in unexpected_keys)))
        if missing_keys:
            error_msgs.insert(0, "Missing key(s) in state_dict: {}. ".format(
                ", ".join(f'"{k}"' for k in missing_keys)))
    if error_msgs:
        raise RuntimeError("Error(s) in loading state_dict for {}:\n\t{}".format(
            type(self).__name__, "\n\t".join(error_msgs)))
    return _IncompatibleKeys(missing_keys, unexpected_keys)


def register_load_state_dict_post_hook(self, hook) -> RemovableHandle:
    handle = RemovableHandle(self._load_state_dict_post_hooks)
    self._load_state_dict_post_hooks[handle.id] = hook
    return handle


for _fn in (state_dict, _load_from_state_dict, load_state_dict,
            register_load_state_dict_post_hook):
    _fn.__qualname__ = "Module." + _fn.__name__   # as when written in the class
