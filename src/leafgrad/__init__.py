"""leafgrad: PyTorch's autograd, exactly, in pure Python on NumPy.

``import leafgrad as torch`` runs PyTorch teaching code and small models unchanged.

>>> import leafgrad as torch
>>> w = torch.tensor(2.0, requires_grad=True)
>>> loss = 3 * w.square()
>>> loss.backward()
>>> w.grad
tensor(12.)
"""
from __future__ import annotations

import gc as _gc
import importlib

# Note [Import without the collector]
# Loading the op table allocates tens of thousands of objects (records, functions, node
# bookkeeping), none of them garbage, and the cyclic collector ran ~30 times over the whole
# heap meanwhile (about a tenth of ``import leafgrad``). It is paused while the core loads
# and restored as it was, even if the import fails. Re-enabled, it would then run once over
# every object the import made (still all "young"): another ~10%. Those are module state,
# so they go straight to the oldest generation instead (``freeze`` + ``unfreeze`` moves every
# tracked object there without a pass), where the next full collection sees them as it would
# have anyway; skipped if the program froze objects itself (``unfreeze`` would free them).
_gc_was_enabled = _gc.isenabled()
_gc.disable()
try:
    from . import dtypes as _dtypes
    from .dtypes import (dtype, float16, float32, float64, int8, int16, int32, int64, uint8,
                         get_default_dtype, set_default_dtype, promote_types)
    from .grad_mode import (no_grad, enable_grad, set_grad_enabled, inference_mode,
                            is_grad_enabled, is_inference_mode_enabled)
    from .tensor import Tensor, Size, is_tensor, device
    from .autograd.anomaly_mode import (is_anomaly_enabled, is_anomaly_check_nan_enabled,
                                        set_anomaly_enabled)
    from . import ops as _ops
    from . import autograd
    from . import factories, random, _printing, functions  # noqa: F401  (exported below)
finally:
    if _gc_was_enabled:
        if not _gc.get_freeze_count():
            _gc.freeze()
            _gc.unfreeze()
        _gc.enable()

# Note [Lazy submodules]
# torch.nn, torch.optim, torch.utils, torch.func, torch.save/torch.load (serialization) and
# leafgrad's diagnostics (leafgrad.explain, leafgrad.viz) load on first use, through the module
# ``__getattr__`` below: ``import leafgrad`` then costs the core (tensor, ops, autograd) only.
# ``import torch.nn`` under ``leafgrad run`` goes through the alias finder in compat.py, which
# imports ``leafgrad.nn`` by name, so it works whether or not ``nn`` was loaded yet.
_LAZY_MODULES = ("nn", "optim", "utils", "func", "serialization", "diagnostics", "cuda",
                 "accelerator", "backends", "testing", "special", "linalg", "distributions")
_LAZY_NAMES = {"save": "serialization", "load": "serialization",   # serialization.__all__
               "explain": "diagnostics", "viz": "diagnostics"}
_LAZY_NAMES.update(dict.fromkeys(   # torch.FloatTensor & co. (_legacy_types.__all__)
    ("BoolTensor", "ByteTensor", "CharTensor", "DoubleTensor", "FloatTensor", "HalfTensor",
     "IntTensor", "LongTensor", "ShortTensor"), "_legacy_types"))


def __getattr__(name: str):
    if name in _LAZY_MODULES:
        return importlib.import_module("." + name, __name__)   # also binds it here
    owner = _LAZY_NAMES.get(name)
    if owner is not None:
        value = getattr(importlib.import_module("." + owner, __name__), name)
        globals()[name] = value
        return value
    family = _ops.lazy.function_owner(name)
    if family is not None:   # an op of a family not loaded yet (Note [Lazy families])
        _ops.lazy.load(family)
        value = _ops.registry.FUNCTIONS.get(name)
        if value is not None:
            globals()[name] = value
            return value
    raise AttributeError(f"module '{__name__}' has no attribute '{name}'")


def __dir__():
    return sorted(set(globals()) | set(_LAZY_MODULES) | set(_LAZY_NAMES)
                  | set(_ops.lazy.lazy_functions()))

__version__ = "0.1.0"

# torch-style aliases; bound here rather than in dtypes so the module keeps Python's names.
bool = _dtypes.bool_
float = float32
double = float64
half = float16
long = int64
int = int32
short = int16


import builtins as _builtins  # noqa: E402

# torch's math constants (``torch.nan``, ``torch.pi``, ...) and ``torch.newaxis``
nan = _builtins.float("nan")   # ``float`` is torch.float here
inf = _builtins.float("inf")
pi = 3.141592653589793
e = 2.718281828459045
newaxis = None


def _export(names_and_objects):
    g = globals()
    for name, obj in names_and_objects:
        g[name] = obj


# torch.<name>: every op's function from the registry, then each listed module's __all__.
_EXPORTING = (factories, random, _printing, functions)
_export(dict.items(_ops.registry.FUNCTIONS))   # the lazy families' come via __getattr__
for _m in _EXPORTING:
    _export((n, getattr(_m, n)) for n in _m.__all__)
# (private in PyTorch too: not in __all__)
from ._zerotensor import efficientzerotensor as _efficientzerotensor  # noqa: E402

__all__ = sorted(
    ["dtype", "float16", "float32", "float64", "int8", "int16", "int32", "int64", "uint8",
     "bool", "float", "double", "half", "long", "int", "short", "get_default_dtype",
     "set_default_dtype", "promote_types", "no_grad", "enable_grad", "set_grad_enabled",
     "inference_mode", "is_grad_enabled", "is_inference_mode_enabled", "Tensor", "Size",
     "is_tensor", "device", "autograd", "is_anomaly_enabled", "is_anomaly_check_nan_enabled",
     "set_anomaly_enabled"]
    + list(dict.keys(_ops.registry.FUNCTIONS))
    + [n for n in _ops.lazy.lazy_functions()
       if not dict.__contains__(_ops.registry.FUNCTIONS, n)]
    + [n for m in _EXPORTING for n in m.__all__]
    + ["save", "load"])
