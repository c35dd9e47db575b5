"""Serve ``import torch`` (and ``torch.nn``, ``torch.optim``...) from leafgrad.

``install()`` puts a meta-path finder in front of every other, so the alias wins even where
real PyTorch is installed. Submodules map one to one (``torch.nn.functional`` ->
``leafgrad.nn.functional``); a ``torch`` submodule leafgrad does not have raises
ModuleNotFoundError naming it.

Under the alias leafgrad's classes also answer to PyTorch's names (Note [Classes named as
torch's]): ``print(type(x))`` shows ``<class 'torch.Tensor'>`` as the program expects.
"""
from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
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

# Note [Classes named as torch's]
# Programs print classes: ``type(x)``, ``type(model.weight)``, a custom Function's grad_fn
# (``<torch.autograd.function.FBackward object at ...>``). While the alias is installed, each
# class leafgrad defines takes the module name PyTorch gives it: ``leafgrad.X`` becomes
# ``torch.X`` (the alias serves that name, so pickle still finds the class), a few core classes
# live in ``torch`` itself, and backward nodes are builtins (``<class 'MulBackward0'>``).
# Modules that load later (leafgrad.nn loads on first use) are renamed as they load, by
# ``_Renamer`` wrapping their loader.
_TORCH_MODULE = {"Tensor": "torch", "Size": "torch", "device": "torch", "dtype": "torch",
                 "Generator": "torch._C"}
_MODULE_MAP = {"leafgrad.grad_mode": "torch.autograd.grad_mode"}
# modules whose classes PyTorch defines at its top level (torch.Tensor, torch.Size, ...)
_TOP_LEVEL = ("leafgrad.tensor", "leafgrad._size", "leafgrad._device", "leafgrad.dtypes",
              "leafgrad.random")


def _torch_name(module_name: str) -> str:
    return _MODULE_MAP.get(module_name, "torch" + module_name[len("leafgrad"):])


def _rename_classes(module) -> None:
    """Give the classes ``module`` defines PyTorch's module names."""
    name = module.__name__
    for attr, value in list(vars(module).items()):
        if isinstance(value, type) and value.__module__ == name:
            value.__module__ = (_TORCH_MODULE.get(attr, _torch_name(name))
                                if name in _TOP_LEVEL else _torch_name(name))
    graph = sys.modules.get("leafgrad.autograd.graph")
    if graph is not None:   # op records made while this module loaded made node classes
        graph.node_class_module = "builtins"   # and those made later (on first use)
        bases = (graph.Node, graph.OpNode)
        stack = list(graph.Node.__subclasses__())
        while stack:
            cls = stack.pop()
            stack.extend(cls.__subclasses__())
            if cls not in bases and not cls.__module__.endswith(".autograd.function"):
                cls.__module__ = "builtins"


class _Renamer(importlib.abc.MetaPathFinder):
    """Finds ``leafgrad.*`` modules as usual, renaming their classes once they have run."""

    def find_spec(self, fullname, path=None, target=None):
        if not fullname.startswith("leafgrad."):
            return None
        spec = importlib.machinery.PathFinder.find_spec(fullname, path, target)
        loader = getattr(spec, "loader", None)
        if loader is None or not hasattr(loader, "exec_module"):
            return spec
        run = loader.exec_module

        def exec_module(module):
            run(module)
            _rename_classes(module)
        loader.exec_module = exec_module    # this loader instance serves this spec only
        return spec


_renamer = _Renamer()


def install() -> None:
    """Make ``import torch`` import leafgrad in this process."""
    for name in [m for m in sys.modules if m == "torch" or m.startswith("torch.")]:
        del sys.modules[name]
    if _finder not in sys.meta_path:
        sys.meta_path.insert(0, _finder)
    if _renamer not in sys.meta_path:
        sys.meta_path.insert(0, _renamer)
    # Submodules leafgrad has already loaded are registered under their torch names at once:
    # importing one through the finder later would rebind the parent's attribute to the module
    # (``torch.autograd.gradcheck`` is a function whose module has the same name, as in torch).
    for name, module in list(sys.modules.items()):
        if name.startswith("leafgrad.") and module is not None:
            sys.modules.setdefault("torch" + name[8:], module)
    for name, module in list(sys.modules.items()):
        if (name == "leafgrad" or name.startswith("leafgrad.")) and module is not None:
            _rename_classes(module)


def uninstall() -> None:
    for finder in (_finder, _renamer):
        if finder in sys.meta_path:
            sys.meta_path.remove(finder)
    for name in [m for m in sys.modules if m == "torch" or m.startswith("torch.")]:
        del sys.modules[name]
