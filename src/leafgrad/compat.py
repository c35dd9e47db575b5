"""Serve ``import torch`` (and ``torch.nn``, ``torch.optim``...) from leafgrad.

``install()`` puts a meta-path finder in front of every other, so the alias wins even where
real PyTorch is installed. Submodules map one to one (``torch.nn.functional`` ->
``leafgrad.nn.functional``); a ``torch`` submodule leafgrad does not have raises
ModuleNotFoundError naming it.
"""
from __future__ import annotations

import importlib
import importlib.abc
import importlib.util
import sys

__all__ = ["install", "uninstall", "TorchAlias"]


class _AliasLoader(importlib.abc.Loader):
    def __init__(self, target: str):
        self.target = target

    def create_module(self, spec):
        return importlib.import_module(self.target)

    def exec_module(self, module):
        pass


class TorchAlias(importlib.abc.MetaPathFinder):
    """Finder mapping ``torch[.x]`` to ``leafgrad[.x]``."""

    def find_spec(self, fullname, path=None, target=None):
        if fullname != "torch" and not fullname.startswith("torch."):
            return None
        target_name = "leafgrad" + fullname[5:]
        if importlib.util.find_spec(target_name) is None:
            raise ModuleNotFoundError(
                f"No module named '{fullname}' (leafgrad serves 'torch', but has no "
                f"'{target_name}' yet)", name=fullname)
        return importlib.util.spec_from_loader(fullname, _AliasLoader(target_name))


_finder = TorchAlias()


def install() -> None:
    """Make ``import torch`` import leafgrad in this process."""
    for name in [m for m in sys.modules if m == "torch" or m.startswith("torch.")]:
        del sys.modules[name]
    if _finder not in sys.meta_path:
        sys.meta_path.insert(0, _finder)
    # Submodules leafgrad has already loaded are registered under their torch names at once:
    # importing one through the finder later would rebind the parent's attribute to the module
    # (``torch.autograd.gradcheck`` is a function whose module has the same name, as in torch).
    for name, module in list(sys.modules.items()):
        if name.startswith("leafgrad.") and module is not None:
            sys.modules.setdefault("torch" + name[8:], module)


def uninstall() -> None:
    if _finder in sys.meta_path:
        sys.meta_path.remove(_finder)
    for name in [m for m in sys.modules if m == "torch" or m.startswith("torch.")]:
        del sys.modules[name]
