"""``import leafgrad`` loads the core only; nn, optim, utils, func, serialization and the
diagnostics load on first use (Note [Lazy submodules] in leafgrad/__init__.py)."""
import subprocess
import sys

import leafgrad

LAZY = ("nn", "optim", "utils", "func", "serialization", "diagnostics")


def test_import_leaves_heavy_submodules_unloaded():
    code = ("import sys, leafgrad; print(sorted({m.split('.')[1] for m in sys.modules "
            "if m.startswith('leafgrad.')} & set(%r)))" % (LAZY,))
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         env={"PYTHONPATH": leafgrad.__path__[0].rsplit("/", 1)[0]}, check=True)
    assert out.stdout.strip() == "[]"


def test_lazy_names_match_their_modules():
    from leafgrad import serialization, diagnostics
    assert {n for n, m in leafgrad._LAZY_NAMES.items() if m == "serialization"} \
        == set(serialization.__all__)
    assert leafgrad.save is serialization.save and leafgrad.load is serialization.load
    assert leafgrad.explain is diagnostics.explain and leafgrad.viz is diagnostics.viz
    for name in LAZY:
        assert getattr(leafgrad, name).__name__ == "leafgrad." + name
        assert name in dir(leafgrad)
    assert {"save", "load"} <= set(leafgrad.__all__)


def test_torch_submodules_under_the_alias():
    code = ("from leafgrad import compat; compat.install(); import torch; import torch.nn as nn; "
            "import torch.nn.functional as F; from torch.optim import SGD; "
            "assert nn is torch.nn and F is torch.nn.functional; "
            "import leafgrad.nn, leafgrad.optim; "
            "assert nn.Linear is leafgrad.nn.Linear and SGD is leafgrad.optim.SGD; "
            "print(type(nn.Linear(2, 3)).__module__, SGD.__module__)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         env={"PYTHONPATH": leafgrad.__path__[0].rsplit("/", 1)[0]}, check=True)
    # one module object per name; under the alias classes carry PyTorch's module names
    assert out.stdout.split() == ["torch.nn.modules.linear", "torch.optim.sgd"]


def test_unknown_attribute_raises_attribute_error():
    try:
        leafgrad.no_such_thing
    except AttributeError as exc:
        assert str(exc) == "module 'leafgrad' has no attribute 'no_such_thing'"
    else:
        raise AssertionError("no AttributeError")
