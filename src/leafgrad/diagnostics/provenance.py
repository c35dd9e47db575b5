"""Side tables filled while diagnostics are on: where tensors and nodes were made, what cut.

Nothing here touches a tensor: each record lives in ``TABLE`` keyed by ``id(obj)`` and holds a
weak reference whose callback drops the entry when the object dies (so an id reused later
never finds a stale record). ``lookup`` checks the reference, too.

Note [Cuts]
A *cut* is a place where a value that depended on tensors requiring grad went on without its
history: ``detach()``, ``.data``, ``.item()``/``float()``/``tolist()``, ``.numpy()``,
``torch.tensor(t)``, an integer cast, a non-differentiable op, an op under ``no_grad`` or
``inference_mode``. Each site (code, file, line) keeps one ``Cut`` whose ``leaves`` are the
leaves requiring grad that the cut value depended on, gathered when the cut happened (a walk
of the graph then: nothing is kept alive). Tensors made from cut values carry the cut in their
record's ``cuts`` (a taint), so a loss can say which cuts flowed into it.
"""
from __future__ import annotations

import os
import sys
import weakref
from itertools import count

from ..tensor import Tensor

__all__ = [
    "CUTS",
    "TABLE",
    "Cut",
    "Prov",
    "Site",
    "graph_leaves",
    "lookup",
    "record_cut",
    "remember",
    "reset",
    "state",
    "user_site",
]

_PKG = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep
_getframe = sys._getframe
_seq = count(1)


class Site(tuple):
    """``(file, line, function)`` of the user's frame."""

    __slots__ = ()

    @property
    def file(self):
        return self[0]

    @property
    def line(self):
        return self[1]

    @property
    def func(self):
        return self[2]


def _internal(frame) -> bool:
    fn = frame.f_code.co_filename
    # the registry's generated op functions are compiled from strings; they hold ``_rec``
    return fn.startswith(_PKG) or (fn == "<string>" and "_rec" in frame.f_globals)


def user_frame(depth: int = 2):
    """The innermost frame outside leafgrad (the user's code), or None."""
    f = _getframe(depth)
    while f is not None and _internal(f):
        f = f.f_back
    return f


def user_site(depth: int = 3):
    f = user_frame(depth)
    if f is None:
        return None
    return Site((f.f_code.co_filename, f.f_lineno, f.f_code.co_name))


def called_from_user(depth: int = 2) -> bool:
    """Whether the frame ``depth`` levels up (the caller of a wrapper) is user code."""
    f = _getframe(depth)
    return f is not None and not _internal(f)


class Prov:
    """How one tensor (or node) was made: site, op name, grad mode, cuts it descends from."""

    __slots__ = ("cut", "cuts", "extra", "from_grad", "mode", "op", "ref", "site")

    def __init__(self, site, op, mode, cuts=(), cut=None, from_grad=False):
        self.site = site
        self.op = op
        self.mode = mode
        self.cuts = cuts
        self.cut = cut          # the Cut that made this very tensor, if any
        self.ref = None
        self.extra = None
        self.from_grad = from_grad   # computed from some tensor's ``.grad`` (an update)


class Cut:
    """One site where a path to leaves requiring grad was cut (see Note [Cuts])."""

    __slots__ = ("code", "leaves", "seq", "site", "what", "with_site", "with_what")

    def __init__(self, code, site, what):
        self.code = code
        self.site = site
        self.what = what
        self.leaves: dict = {}
        self.seq = 0
        self.with_site = None   # the user's ``with torch.no_grad()`` line, for no-grad cuts
        self.with_what = None   # what switched grad off there: "torch.no_grad()", ...

    def touches(self, t) -> bool:
        ref = self.leaves.get(id(t))
        return ref is not None and ref() is t


TABLE: dict = {}
CUTS: dict = {}     # (code, file, line, what) -> Cut


class _State:
    """Run-wide records: backward calls, modes entered by the user, findings noted."""

    def __init__(self):
        self.reset()

    def reset(self):
        self.backwards = []          # [BackwardRecord], most recent last (bounded)
        self.reached: dict = {}      # id(leaf) -> weakref: leaves some backward reached
        self.user_modes = []         # stack: (kind, Site, label), None for leafgrad's own
        self.plain_mode = None       # (kind, Site, label, depth): see Note [Plain grad switch]
        self.findings = []           # Finding, in the order noted
        self.keys = set()            # (code, file, line) already noted
        self.versions: dict = {}     # id(vc) -> (vc, [(version, Site, op name)])
        self.inplace_depth = 0
        self.backward_depth = 0
        self.call_depth = 0          # Module.__call__ nesting
        self.step_depth = 0          # Optimizer.step nesting (super().step() in a subclass)
        self.snapshots: dict = {}    # id(param) -> (weakref param, grad id, grad copy)
        self.grad_reads = 0
        self.frozen: dict = {}       # id(tensor) -> (weakref, Site of requires_grad_(False))


state = _State()


def reset() -> None:
    TABLE.clear()
    CUTS.clear()
    state.reset()


def _dropper(key):
    def drop(_ref, key=key):
        p = TABLE.get(key)
        if p is not None and p.ref is _ref:
            del TABLE[key]
    return drop


def remember(obj, prov: Prov) -> Prov:
    key = id(obj)
    prov.ref = weakref.ref(obj, _dropper(key))
    TABLE[key] = prov
    return prov


def lookup(obj):
    p = TABLE.get(id(obj))
    if p is not None and p.ref() is obj:
        return p
    return None


def graph_leaves(t, limit: int = 100000) -> dict:
    """Leaves requiring grad that ``t`` depends on through its graph: id -> weakref."""
    out: dict = {}
    if not isinstance(t, Tensor):
        return out
    if t._grad_fn is None:
        if t._requires_grad:
            out[id(t)] = weakref.ref(t)
        return out
    seen = set()
    stack = [t._grad_fn]
    while stack and len(seen) < limit:
        node = stack.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        for fn, _ in getattr(node, "_edges", ()):
            if fn is None:
                continue
            if isinstance(fn, Tensor):
                out[id(fn)] = weakref.ref(fn)
            else:
                stack.append(fn)
        var = getattr(node, "variable", None)   # an AccumulateGrad node in a custom graph
        if isinstance(var, Tensor):
            out[id(var)] = weakref.ref(var)
    return out


def graph_nodes(root_fn, limit: int = 100000):
    """Every node reachable from ``root_fn`` (iteratively), in depth-first order."""
    out = []
    seen = set()
    stack = [root_fn]
    while stack and len(out) < limit:
        node = stack.pop()
        if node is None or isinstance(node, Tensor) or id(node) in seen:
            continue
        seen.add(id(node))
        out.append(node)
        for fn, _ in reversed(getattr(node, "_edges", ())):
            stack.append(fn)
    return out


def record_cut(code: str, site, what: str, source) -> Cut | None:
    """Note that ``source``'s history was cut at ``site``; returns the site's Cut."""
    if site is None:
        return None
    key = (code, site[0], site[1], what)
    cut = CUTS.get(key)
    if cut is None:
        cut = CUTS[key] = Cut(code, site, what)
    if isinstance(source, (list, tuple)):
        for s in source:
            cut.leaves.update(graph_leaves(s))
    else:
        cut.leaves.update(graph_leaves(source))
    cut.seq = next(_seq)
    return cut


# Note [Plain grad switch]
# ``torch.set_grad_enabled(False)`` as a plain call turns grad off with no block to close, so
# it is not on the ``user_modes`` stack: ``plain_mode`` remembers it with the stack depth it
# was called at (blocks opened later are inside it; closing the block it was called in ends
# it). Used as a ``with`` block or a decorator, set_grad_enabled restores ``plain_mode`` on
# exit, as it restores the grad mode itself.

def _user_entry(entries):
    for entry in reversed(entries):
        if entry is None:
            continue                  # leafgrad's own block: look further out
        return None if entry[0] == "enable" else entry
    return False


def current_user_mode():
    """The innermost grad-mode switch the user made (kind, Site, label), if it turned grad
    off; None when grad is off only by leafgrad's own blocks (or the user turned it back on)."""
    modes = state.user_modes
    plain = state.plain_mode
    depth = plain[3] if plain is not None else 0
    found = _user_entry(modes[depth:])
    if found is not False:
        return found
    if plain is not None:
        return None if plain[0] == "enable" else plain
    found = _user_entry(modes[:depth])
    return found or None


def from_grad(tensors) -> bool:
    for t in tensors:
        p = TABLE.get(id(t))
        if p is not None and p.from_grad and p.ref() is t:
            return True
    return False


def taint_of(tensors) -> tuple:
    cuts: tuple = ()
    for t in tensors:
        p = TABLE.get(id(t))
        if p is not None and p.cuts and p.ref() is t:
            if not cuts:
                cuts = p.cuts
            else:
                cuts = cuts + tuple(c for c in p.cuts if c not in cuts)
    return cuts[-8:] if len(cuts) > 8 else cuts
