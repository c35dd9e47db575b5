"""Op families that load on first use (issue 5: ``import leafgrad`` start-up time).

Note [Lazy families]
Registering an op family (its ``defop`` calls, node bookkeeping, its module's bytecode) is
most of ``import leafgrad`` after NumPy, yet a program uses a few families. The families in
``LAZY`` (linear algebra, convolution and pooling, special functions, the rarer tensor
utilities...) are imported the first time one of their names is reached, through any of:

- ``leafgrad.<name>``: the module ``__getattr__`` in ``leafgrad/__init__.py`` (also
  ``dir(leafgrad)`` and ``leafgrad.__all__`` list the lazy names);
- ``Tensor.<name>`` / ``x.<name>``: a placeholder ``_LazyAttr`` stands on the class for each
  lazy attribute. It is a descriptor, so attribute reads of every other name (slots, core
  methods) take their usual, specialised path: Tensor gets no ``__getattr__``. The first read
  imports the family, puts the real function (or property) on the class in the placeholder's
  place and returns it bound;
- ``registry.RECORDS`` / ``registry.FUNCTIONS`` (``_Table``): a missing key loads the family
  that defines it; iterating, ``len``, ``keys/values/items`` load every family first, so the
  docs table, the registry-driven tests, the fuzz generator and diagnostics see all records;
- ``leafgrad.ops.<family>``, and plain ``import leafgrad.ops.<family>``.

Which family defines which name comes from ``lazy_index.py``, generated from the families
themselves (``python -m leafgrad.ops.lazy --write``); tests/test_import_lazy.py fails when it
drifts from what the families define.

Threads: a family is loaded with ``importlib.import_module``, which holds the module's import
lock, so a second thread reaching a lazy name waits until the family is fully imported. The
family's ``bind_method`` calls do not replace the placeholders while it loads: they leave the
function in the placeholder (``value``), and the placeholder hands it out only after the
import returns, so another thread never sees a half-loaded family through a Tensor attribute
or ``leafgrad.<name>``. (The internal tables fill as ``defop`` runs; a thread reading them
directly can see a record of a family still loading, whose forward might call a helper
defined further down that family's module.)
"""
from __future__ import annotations

import importlib
import sys

from ..tensor import Tensor

__all__ = ["LAZY", "load", "load_all", "loaded_all", "install"]

_PKG = __name__.rsplit(".", 1)[0]          # leafgrad.ops
_ROOT = _PKG.rsplit(".", 1)[0]             # leafgrad

# The families loaded on first use, in the order ``load_all`` imports them (the order
# ops/__init__.py imported them in before they became lazy). Everything else in ops/ loads
# with ``import leafgrad``. A family here must not be imported at the top of a core module.
LAZY = tuple(_PKG + "." + m if "." not in m else m for m in (
    "sorting", "rearrange", "nn_ops", "nn_activations", "shrink", "nn_layers", "xlogy", "conv",
    "pooling", "pooling_avg", "pooling_adaptive", "pooling_unpool", "padding", "norm", "special",
    "pointwise_extra", "matrix_extra", "reduction_extra", "order_stats", "index_extra",
    "scatter_reduce", "tensor_extra", "upsample", "nn_extra", "margin_losses", "embedding_bag",
    "repeat_interleave", "leafgrad.linalg", "leafgrad._random_inplace", "grid_sample", "ctc",
    "pooling_fractional"))

_UNSET = object()
_ALL = "<every lazy family>"
_all_loaded = False


class _LazyAttr:
    """A Tensor class attribute whose family is not loaded yet (Note [Lazy families])."""

    __slots__ = ("name", "module", "value")

    def __init__(self, name: str, module: str):
        self.name, self.module, self.value = name, module, _UNSET

    def resolve(self):
        importlib.import_module(self.module)   # waits while another thread imports it
        value = self.value
        if value is _UNSET:
            # the family did not define it (lazy_index.py is out of date), or it is being
            # imported by this very thread and has not reached that name yet
            raise AttributeError(f"type object 'Tensor' has no attribute '{self.name}'")
        if Tensor.__dict__.get(self.name) is self and not _initializing(self.module):
            setattr(Tensor, self.name, value)   # from now on a plain class attribute
        return value

    def __get__(self, obj, cls=None):
        value = self.resolve()
        get = getattr(type(value), "__get__", None)
        return value if get is None else get(value, obj, cls)

    def __set__(self, obj, value):
        self.resolve()
        setattr(obj, self.name, value)

    def __delete__(self, obj):
        self.resolve()
        delattr(obj, self.name)

    def __repr__(self) -> str:
        return f"<lazy Tensor.{self.name} from {self.module}>"


def _initializing(module: str) -> bool:
    mod = sys.modules.get(module)
    return mod is None or getattr(getattr(mod, "__spec__", None), "_initializing", False)


def lazy_slot(name: str):
    """The placeholder standing for ``Tensor.<name>``, or None (used by ``bind_method``)."""
    cur = Tensor.__dict__.get(name)
    return cur if type(cur) is _LazyAttr else None


class _Table(dict):
    """``RECORDS`` / ``FUNCTIONS``: a dict that loads lazy families when asked for them.

    Reads of present keys are plain dict reads (``__missing__`` runs only on a miss), so the
    registry's own lookups cost what they did."""

    __slots__ = ("_index",)

    def __init__(self, index_name: str):
        super().__init__()
        self._index = index_name   # "RECORDS" or "FUNCTIONS" in lazy_index

    def _owner(self, key):
        if _all_loaded or not isinstance(key, str):
            return None
        owner = _index()[self._index].get(key)
        if owner is None and self._index == "RECORDS":
            # a record missing from lazy_index.py (added since it was generated): load them
            # all rather than answer wrongly; records are internal, so this stays rare
            return _ALL
        return owner

    def __missing__(self, key):
        owner = self._owner(key)
        if owner is not None:
            load(owner)
            if dict.__contains__(self, key):
                return dict.__getitem__(self, key)
        raise KeyError(key)

    def get(self, key, default=None):
        try:
            return self[key]
        except KeyError:
            return default

    def __contains__(self, key):
        if dict.__contains__(self, key):
            return True
        owner = self._owner(key)
        if owner is None:
            return False
        load(owner)
        return dict.__contains__(self, key)

    def __iter__(self):
        load_all()
        return dict.__iter__(self)

    def __len__(self):
        load_all()
        return dict.__len__(self)

    def keys(self):
        load_all()
        return dict.keys(self)

    def values(self):
        load_all()
        return dict.values(self)

    def items(self):
        load_all()
        return dict.items(self)

    def copy(self):
        load_all()
        return dict(dict.items(self))

    def __repr__(self) -> str:
        load_all()
        return dict.__repr__(self)

    def __reduce__(self):
        return (dict, (self.copy(),))


_INDEX = None


def _index() -> dict:
    """{"TENSOR"|"FUNCTIONS"|"RECORDS": {name: family module}} from lazy_index.py."""
    global _INDEX
    if _INDEX is None:
        from . import lazy_index
        index = {}
        for kind in ("TENSOR", "FUNCTIONS", "RECORDS"):
            index[kind] = {name: _module_name(fam)
                           for fam, names in getattr(lazy_index, kind).items()
                           for name in names.split()}
        _INDEX = index
    return _INDEX


def _module_name(family: str) -> str:
    return family if "." in family else _PKG + "." + family


def load(module: str):
    """Import lazy family ``module`` (a full module name) if it is not loaded yet, and
    publish what it defined: its Tensor attributes, ``torch.<name>_`` in-place functions."""
    if module is _ALL:
        return load_all()
    mod = sys.modules.get(module)
    if mod is None or getattr(getattr(mod, "__spec__", None), "_initializing", False):
        mod = importlib.import_module(module)
    if not _initializing(module):
        _publish(module)
    return mod


def _publish(module: str) -> None:
    """Put the real attributes of a loaded family on Tensor, in their placeholders' place,
    and export ``torch.<name>_`` for its in-place methods as tensor_utils does for the core."""
    from .registry import export_function
    from .tensor_utils import _INPLACE_FUNCTIONS
    d = Tensor.__dict__
    tensor_index = _index()["TENSOR"]
    for name, owner in tensor_index.items():
        if owner != module:
            continue
        cur = d.get(name)
        if type(cur) is _LazyAttr and cur.value is not _UNSET:
            setattr(Tensor, name, cur.value)
    functions = sys.modules[_PKG + ".registry"].FUNCTIONS
    for name in _INPLACE_FUNCTIONS:   # export_inplace_functions, for what is loaded now
        if not dict.__contains__(functions, name):
            method = d.get(name)
            if method is not None and type(method) is not _LazyAttr:
                export_function(name, method)


def load_all() -> None:
    """Load every lazy family (for whatever iterates the whole op table)."""
    global _all_loaded
    if _all_loaded:
        return
    for module in LAZY:
        load(module)
    if not any(_initializing(m) for m in LAZY):   # not from inside a family's own import
        _all_loaded = True


def loaded_all() -> bool:
    return _all_loaded


def install() -> None:
    """Put a placeholder on Tensor for each lazy attribute (called by ops/__init__.py once
    the core families are loaded)."""
    d = Tensor.__dict__
    for name, module in _index()["TENSOR"].items():
        if name not in d and module not in sys.modules:
            setattr(Tensor, name, _LazyAttr(name, module))


def function_owner(name: str):
    """The lazy family defining ``torch.<name>``, or None when it is core or unknown."""
    return _index()["FUNCTIONS"].get(name)


def lazy_functions() -> dict:
    """{name: family module} of every ``torch.<name>`` function a lazy family defines."""
    return _index()["FUNCTIONS"]


# -- the index: which lazy family defines which name ----------------------------------------
def build_index() -> tuple:
    """({"TENSOR"|"FUNCTIONS"|"RECORDS": {family: [names]}}, [problems]) from loading each
    lazy family in turn, in a fresh interpreter where none is loaded yet, and seeing what it
    added. A problem is a lazy family changing something the core (or an earlier family)
    already defined: it would behave differently loaded late, so it must be made core."""
    import leafgrad  # noqa: F401
    from . import registry
    loaded = [m for m in LAZY if m in sys.modules]
    if loaded:
        raise RuntimeError(f"build_index needs a fresh interpreter; already loaded: {loaded}")

    def tensor_now():
        return {n: v for n, v in Tensor.__dict__.items()
                if not (type(v) is _LazyAttr and v.value is _UNSET)}

    def real(v):
        return v.value if type(v) is _LazyAttr else v

    index = {"TENSOR": {}, "FUNCTIONS": {}, "RECORDS": {}}
    problems = []
    for module in LAZY:
        short = module[len(_PKG) + 1:] if module.startswith(_PKG + ".") else module
        before = (tensor_now(), dict(dict.items(registry.FUNCTIONS)),
                  dict(dict.items(registry.RECORDS)))
        load(module)
        after = (tensor_now(), dict(dict.items(registry.FUNCTIONS)),
                 dict(dict.items(registry.RECORDS)))
        for kind, old, new in zip(("TENSOR", "FUNCTIONS", "RECORDS"), before, after):
            index[kind][short] = sorted(set(new) - set(old))
            for name in set(old) & set(new):
                if real(old[name]) is not real(new[name]):
                    problems.append(f"{short} changes {kind} {name!r}")
    return index, problems


def render_index(index: dict) -> str:
    lines = ['"""Which lazy op family defines which name (Note [Lazy families] in lazy.py).',
             "",
             "GENERATED by ``python -c \"from leafgrad.ops import lazy; lazy.write_index()\"``",
             'in a fresh interpreter; tests/test_import_lazy.py fails when it is out of date."""',
             ""]
    for kind in ("TENSOR", "FUNCTIONS", "RECORDS"):
        lines.append(f"{kind} = {{")
        for fam, names in index[kind].items():
            if not names:
                continue
            chunks, cur = [], ""
            for n in names:
                if cur and len(cur) + len(n) + 1 > 78:
                    chunks.append(cur)
                    cur = ""
                cur = f"{cur} {n}" if cur else n
            chunks.append(cur)
            lines.append(f'    "{fam}": (')
            lines.extend(f'        "{c}{" " if i < len(chunks) - 1 else ""}"'
                         for i, c in enumerate(chunks))
            lines[-1] += "),"
        lines.append("}")
        lines.append("")
    return "\n".join(lines)


def write_index() -> None:
    """Regenerate lazy_index.py (run in a fresh interpreter)."""
    import os
    index, problems = build_index()
    if problems:
        raise RuntimeError("lazy families change core names: " + "; ".join(problems))
    path = os.path.join(os.path.dirname(__file__), "lazy_index.py")
    with open(path, "w") as f:
        f.write(render_index(index))
