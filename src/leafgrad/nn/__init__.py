"""``torch.nn``: Module, Parameter, layers, ``functional`` (as F), ``init`` and ``utils``.

>>> import leafgrad as torch
>>> model = torch.nn.Sequential(torch.nn.Linear(2, 4), torch.nn.ReLU(), torch.nn.Linear(4, 1))
>>> sum(p.numel() for p in model.parameters())
17
"""
from __future__ import annotations

from . import functional, init, modules, utils
from .modules import __all__ as _module_names
from .parameter import Buffer, Parameter

for _name in _module_names:
    globals()[_name] = getattr(modules, _name)
del _name

__all__ = ["Parameter", "Buffer", "functional", "init", "utils"] + list(_module_names)
