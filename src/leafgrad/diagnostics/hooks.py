"""What the installed wrappers do when an op, a cut, a backward or an optimizer step happens.

Each ``on_*`` function is called by a wrapper in ``install.py`` (only while diagnostics are
on); it fills the side tables of ``provenance.py`` and notes findings for the ``explain`` verb.
"""
from __future__ import annotations

import weakref

import numpy as np

from ..grad_mode import state as _mode
from ..tensor import Tensor
from . import provenance as pv
from .codes import CODES, classify_error, make
from .explain import _loss_phrase, _where, cut_finding, explain_tensor

__all__ = ["BackwardRecord", "before_backward", "note", "on_cut", "on_error", "on_op"]

_MAX_BACKWARDS = 16
_MAX_VERSION_EVENTS = 8


def note(finding) -> None:
    """Add a finding to the run's list, once per (code, file, line)."""
    key = (finding.code, finding.file, finding.line)
    if key in pv.state.keys:
        return
    pv.state.keys.add(key)
    pv.state.findings.append(finding)


def _mode_name() -> str:
    if _mode.inference:
        return "inference"
    return "grad" if _mode.grad_enabled else "no_grad"


def _tensors_in(args, rec=None):
    out = []
    for a in args:
        if isinstance(a, Tensor):
            out.append(a)
        elif isinstance(a, (list, tuple)):
            out.extend(x for x in a if isinstance(x, Tensor))
    return out


def on_op(rec, args, out) -> None:
    """Provenance for an op record's results; a cut when a result lost its history."""
    inputs = _tensors_in(args)
    results = out if isinstance(out, tuple) else (out,)
    site = pv.user_site(4)
    mode = _mode_name()
    taint = pv.taint_of(inputs)
    grad_made = pv.from_grad(inputs)
    cut = None
    needs = [t for t in inputs if t._requires_grad]
    if needs and not pv.state.inplace_depth and any(
            isinstance(r, Tensor) and not r._requires_grad for r in results):
        code = with_site = with_what = None
        if not rec.differentiable:
            code = "non-differentiable-op"
        elif not _mode.grad_enabled:
            entry = pv.current_user_mode()
            if entry is not None:   # grad turned off by the user, not inside leafgrad
                code = "inference-mode" if _mode.inference else "no-grad"
                with_site, with_what = entry[1], entry[2]
        if code is not None:
            cut = pv.record_cut(code, site, f"{rec.name}(...)", needs)
            if cut is not None:
                cut.with_site = with_site
                cut.with_what = with_what
    for r in results:
        if not isinstance(r, Tensor):
            continue
        own_cut = cut if (cut is not None and not r._requires_grad) else None
        cuts = taint + (own_cut,) if own_cut is not None else taint
        old = pv.lookup(r)
        if old is None or old.op != rec.name:
            pv.remember(r, pv.Prov(site, rec.name, mode, cuts, own_cut, grad_made))
        node = r._grad_fn
        if node is not None and pv.lookup(node) is None:
            pv.remember(node, pv.Prov(site, rec.name, mode)).extra = weakref.ref(r)


def on_made(result, name, source=None) -> None:
    """A factory or a cutting method made ``result``; ``source`` is what it was made from."""
    if not isinstance(result, Tensor):
        return
    if pv.lookup(result) is not None and source is None:
        return
    site = pv.user_site(4)
    cuts = pv.taint_of([source]) if isinstance(source, Tensor) else ()
    pv.remember(result, pv.Prov(site, name, _mode_name(), cuts))


def on_cut(code: str, what: str, source, result=None, site=None):
    """``source``'s history was cut at the user's line; ``result`` (if a tensor) carries it."""
    sources = source if isinstance(source, list) else [source]
    needs = [s for s in sources if isinstance(s, Tensor)]
    upstream = pv.taint_of(needs)
    if not any(s._requires_grad for s in needs) and not upstream:
        if isinstance(result, Tensor):
            on_made(result, what)
        return None
    site = site or pv.user_site(4)
    cut = pv.record_cut(code, site, what, [s for s in needs if s._requires_grad])
    if cut is None:
        return None
    for c in upstream:                 # a cut of an already cut value: same leaves
        cut.leaves.update(c.leaves)
    if isinstance(result, Tensor):
        pv.remember(result, pv.Prov(site, what, _mode_name(), upstream + (cut,), cut))
    return cut


# -- grad-mode blocks entered by the user --------------------------------------------
def on_mode_enter(kind: str, from_user: bool, site, label: str = "") -> None:
    """A grad-mode block opened: the user's blocks are (kind, Site, label); leafgrad's own
    blocks are None (transparent: a cut inside them is the user's block's, if any)."""
    pv.state.user_modes.append((kind, site, label) if from_user else None)


def on_mode_exit(mode=None) -> None:
    st = pv.state
    if st.user_modes:
        st.user_modes.pop()
    if mode is not None and hasattr(mode, "_diag_plain"):
        st.plain_mode = mode._diag_plain      # set_grad_enabled's __exit__ restores the mode
    elif st.plain_mode is not None and st.plain_mode[3] > len(st.user_modes):
        st.plain_mode = None                  # a plain switch inside the block ends with it


def on_plain_mode(enabled: bool, site, label: str) -> None:
    """The user called ``set_grad_enabled(mode)`` (maybe as a plain switch)."""
    kind = "enable" if enabled else "no-grad"
    pv.state.plain_mode = (kind, site, label, len(pv.state.user_modes))


# -- in-place changes ----------------------------------------------------------------
def on_version(vc, site, what: str) -> None:
    entry = pv.state.versions.get(id(vc))
    if entry is None or entry[0] is not vc:
        entry = pv.state.versions[id(vc)] = (vc, [])
        if len(pv.state.versions) > 100000:
            pv.state.versions.pop(next(iter(pv.state.versions)))
    events = entry[1]
    events.append((vc[0], site, what))
    if len(events) > _MAX_VERSION_EVENTS:
        del events[0]


def _inplace_culprit(roots):
    """(Site, what, node) of the in-place op that broke a saved value of the roots' graph."""
    for root in roots:
        if not isinstance(root, Tensor) or root._grad_fn is None:
            continue
        for node in pv.graph_nodes(root._grad_fn):
            versions = getattr(node, "_versions", None)
            saved = getattr(node, "_saved", None)
            if not versions or not saved:
                continue
            for value, version in zip(saved, versions):
                if version is None:
                    continue
                vc = getattr(value, "vc", None) if not isinstance(value, Tensor) else value._vc
                if vc is None or vc[0] == version:
                    continue
                entry = pv.state.versions.get(id(vc))
                if entry is not None and entry[0] is vc:
                    for v, site, what in entry[1]:
                        if v > version:
                            return site, what, node
                return None, None, node
    return None, None, None


# -- backward ----------------------------------------------------------------------
class BackwardRecord:
    __slots__ = ("root_desc", "roots", "site", "taint")

    def __init__(self, site, roots):
        self.site = site
        self.roots = roots
        descs = []
        taint: tuple = ()
        for r in roots:
            p = pv.lookup(r)
            if p is not None:
                taint += p.cuts
            fn = r._grad_fn
            name = f"`{type(fn).__name__}`" if fn is not None else "a tensor without grad_fn"
            if p is not None and p.site is not None:
                name += f" made at line {p.site[1]}"
            descs.append(name)
        self.root_desc = ", ".join(descs) or "nothing"
        self.taint = taint


def before_backward(roots, site, accumulate: bool) -> None:
    st = pv.state
    rec = BackwardRecord(site, list(roots))
    st.backwards.append(rec)
    if len(st.backwards) > _MAX_BACKWARDS:
        del st.backwards[0]
    for r in roots:
        if r._grad_fn is not None:
            for node in pv.graph_nodes(r._grad_fn):
                if getattr(node, "_saved", None) is not None:   # not freed yet
                    _FREED_BY[id(node)] = (weakref.ref(node), site)
    leaves = {}
    for r in roots:
        leaves.update(pv.graph_leaves(r))
    st.reached.update(leaves)
    if not accumulate:
        return
    for key, ref in leaves.items():
        p = ref()
        if p is None or p._grad is None:
            continue
        snap = st.snapshots.get(key)
        if snap is None or snap[0]() is not p:
            continue
        old, step_site = snap[1], snap[2]
        g = p._grad._data
        if old.any() and g.shape == old.shape and np.array_equal(g, old):
            note(make("accumulated",
                      f"backward() at {_where(site)} adds into the gradient that was already "
                      f"used by the optimizer step at {_where(step_site)}: gradients were not "
                      "cleared in between, so each step uses the sum of all past gradients",
                      site))


_FREED_BY: dict = {}


def _freed_site(roots):
    for root in roots:
        if not isinstance(root, Tensor) or root._grad_fn is None:
            continue
        for node in pv.graph_nodes(root._grad_fn):
            if getattr(node, "_saved", ()) is None:
                hit = _FREED_BY.get(id(node))
                if hit is not None and hit[0]() is node:
                    return hit[1]
    return None


# -- errors ------------------------------------------------------------------------
def on_error(exc, site, roots=(), args=()) -> None:
    """A leafgrad error passed through a wrapper: note its cause once (even if caught)."""
    if getattr(exc, "_leafgrad_noted", False):
        return
    code = classify_error(exc)
    if code is None:
        return
    try:
        exc._leafgrad_noted = True
    except AttributeError:
        pass
    first_line = str(exc).split("\n")[0]
    if code == "inplace-saved":
        culprit, what, node = _inplace_culprit(roots)
        saver = f"`{type(node).__name__}`" if node is not None else "a node"
        if culprit is not None:
            note(make(code, f"`{what}` at {_where(culprit)} modified in place a tensor that "
                      f"{saver} saved for backward; backward() at {_where(site)} then failed "
                      "(version-counter check)", culprit))
        else:
            note(make(code, f"a tensor that {saver} saved for backward was modified in place;"
                      f" backward() at {_where(site)} failed", site))
    elif code == "graph-freed":
        first = _freed_site(roots)
        if first is not None and first != site:
            note(make(code, f"backward() at {_where(first)} freed the graph's saved values "
                      f"(no retain_graph=True); the backward at {_where(site)} went through "
                      "the same graph again", first))
        else:
            note(make(code, f"backward() at {_where(site)} went through a graph that was "
                      "already freed by an earlier backward", site))
    elif code == "inference-mode" and "saved" in first_line:
        made = None
        for t in _tensors_in(args):
            if t.is_inference():
                p = pv.lookup(t)
                made = p.site if p is not None else None
                break
        note(make(code, f"a tensor made under `torch.inference_mode()` at {_where(made)} was "
                  f"used at {_where(site)} in an op that saves it for backward",
                  made or site))
    elif code == "requires-grad-false" and "element" in first_line:
        note(_no_grad_root(roots, site))
    elif code == "numpy":
        note(make(code, f"`.numpy()` at {_where(site)} on a tensor that requires grad",
                  site, fix="call `.detach().numpy()` if you only need the values"))
    else:
        note(make(code, f"{CODES[code][0]} (at {_where(site)}: {first_line})", site))


def _no_grad_root(roots, site):
    """Why the tensor given to backward() has no grad_fn."""
    for r in roots:
        if not isinstance(r, Tensor) or r._requires_grad:
            continue
        p = pv.lookup(r)
        if p is not None:
            if p.cut is not None:
                return cut_finding(p.cut, "the loss")
            if p.cuts:
                return cut_finding(max(p.cuts, key=lambda c: c.seq), "the loss")
            if p.mode in ("no_grad", "inference"):
                code = "no-grad" if p.mode == "no_grad" else "inference-mode"
                return make(code, f"the loss was computed at {_where(p.site)} with grad "
                            f"recording off, so backward() at {_where(site)} has no graph",
                            p.site)
        found = explain_tensor(r, "the loss")
        if found:
            f = found[0]
            if f.line is None:
                f.file, f.line = (site[0], site[1]) if site else (None, None)
            return f
    return make("requires-grad-false", f"backward() at {_where(site)} on a tensor that does "
                "not require grad", site)


# -- optimizer steps ---------------------------------------------------------------
def before_step(opt):
    zero = []
    for group in getattr(opt, "param_groups", ()):
        for p in group["params"]:
            g = p._grad
            if g is not None and not np.any(g._data):
                zero.append((p, p._data.copy(), group))
    versions = [(p, p._vc[0]) for group in getattr(opt, "param_groups", ())
                for p in group["params"]]
    return zero, versions


def after_step(opt, before, site) -> None:
    zero, versions = before
    for p, old, group in zero:
        if not np.array_equal(p._data, old):
            why = ", ".join(f"{k}={group[k]}" for k in ("weight_decay", "momentum")
                            if group.get(k))
            note(make("zero-grad-updated",
                      f"optimizer step at {_where(site)} changed a parameter whose gradient "
                      f"was all zeros ({why or 'optimizer state'} moved it); "
                      f"{_loss_phrase()}", site))
    for p, v in versions:
        if p._vc[0] != v:
            on_version(p._vc, site, f"{type(opt).__name__}.step()")
    for group in getattr(opt, "param_groups", ()):
        for p in group["params"]:
            if p._grad is not None:
                pv.state.snapshots[id(p)] = (weakref.ref(p), p._grad._data.copy(), site)


# -- modules -----------------------------------------------------------------------
def after_module_call(module, out, site) -> None:
    if module.training or not _mode.grad_enabled:
        return
    t = out
    if isinstance(out, (tuple, list)) and out:
        t = out[0]
    if isinstance(t, Tensor) and t._grad_fn is not None:
        note(make("eval-records-graph",
                  f"`{type(module).__name__}` is in eval() mode but ran at {_where(site)} with "
                  "grad recording on: its output keeps a backward graph (memory and time) "
                  "although it is being evaluated", site))


def on_requires_grad(t, value, site) -> None:
    """The user set ``requires_grad`` (``requires_grad_(False)`` freezes a tensor)."""
    if value or site is None:
        pv.state.frozen.pop(id(t), None)
    else:
        pv.state.frozen[id(t)] = (weakref.ref(t), site)


def on_grad_read(g, site) -> None:
    """User code read a ``.grad``: values computed from it are updates, not forward math."""
    pv.remember(g, pv.Prov(site, "grad", _mode_name(), from_grad=True))


def on_grad_none(t, site) -> None:
    """User code read ``t.grad`` and got None (or zeros, on a leaf): note why."""
    for f in explain_tensor(t, read_site=site):
        note(f)
