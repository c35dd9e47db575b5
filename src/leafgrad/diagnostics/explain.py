"""``explain(t)``: why a tensor's ``.grad`` is None or zero, from the graph and provenance.

Works without provenance too (codes from the graph alone, no lines); with diagnostics on
(``leafgrad.diagnostics.enable()`` or ``leafgrad explain FILE``) each finding names the line
where the cause happened.
"""
from __future__ import annotations

import sys

import numpy as np

from ..tensor import Tensor
from . import provenance as pv
from .codes import Finding, make

__all__ = ["explain", "explain_tensor", "format_findings"]

# nodes whose derivative is zero almost everywhere: a path through them carries no signal
ZERO_DERIVATIVE = {"RoundBackward0", "RoundBackward1", "FloorBackward0", "CeilBackward0",
                   "TruncBackward0", "SignBackward0", "SgnBackward0"}
# among cuts at one line, the most specific wins (``t.detach().numpy()`` is a NumPy trip)
_PRIORITY = {"numpy": 0, "python-number": 1, "new-leaf": 2, "integer-dtype": 3,
             "non-differentiable-op": 4, "inference-mode": 5, "no-grad": 6, "detached": 7}


def _where(site) -> str:
    return f"line {site[1]}" if site is not None else "an unknown line"


def _name(t, subject) -> str:
    if subject:
        return f"`{subject}`"
    p = pv.lookup(t)
    if p is not None and p.site is not None:
        return f"the tensor made at line {p.site[1]}"
    return "this tensor"


def _loss_phrase() -> str:
    """"the last backward() (line 9), from `SumBackward0` made at line 8"."""
    if not pv.state.backwards:
        return "no backward() ran"
    rec = pv.state.backwards[-1]
    return f"the last backward() ({_where(rec.site)}) started from {rec.root_desc}"


def _reached(t) -> bool:
    ref = pv.state.reached.get(id(t))
    return ref is not None and ref() is t


def _choose_cut(t):
    cands = [c for c in pv.CUTS.values() if c.touches(t)]
    if not cands:
        return None
    if pv.state.backwards:
        taint = pv.state.backwards[-1].taint
        flowed = [c for c in cands if c in taint]
        if flowed:
            cands = flowed
    latest = max(cands, key=lambda c: c.seq)
    same_line = [c for c in cands if c.site[:2] == latest.site[:2]]
    return min(same_line, key=lambda c: (_PRIORITY.get(c.code, 9), -c.seq))


def cut_finding(cut, who: str) -> Finding:
    what = {"no-grad": "ran under `torch.no_grad()`",
            "inference-mode": "ran under `torch.inference_mode()`"}.get(cut.code)
    if what is not None and cut.with_what:
        what = f"ran with grad off by `{cut.with_what}`"
    if what is not None:
        block = f" (switched off at {_where(cut.with_site)})" if cut.with_site else ""
        msg = f"{who} gets no gradient: `{cut.what}` at {_where(cut.site)} {what}{block}, " \
              "so its result has no history"
    else:
        msg = f"{who} gets no gradient: `{cut.what}` at {_where(cut.site)} cut the path " \
              "from it to the loss"
    return make(cut.code, msg + f"; {_loss_phrase()}", cut.site)


def _made_by(t, who):
    """Findings from how a tensor that does not require grad was made."""
    p = pv.lookup(t)
    if p is None:
        return None
    if p.cut is not None:
        return cut_finding(p.cut, who)
    if p.mode in ("no_grad", "inference") and p.op not in _FACTORY_OPS:
        code = "no-grad" if p.mode == "no_grad" else "inference-mode"
        how = ("with grad recording off (`torch.no_grad()` or `torch.set_grad_enabled(False)`)"
               if code == "no-grad" else "under `torch.inference_mode()`")
        return make(code, f"{who} was computed by `{p.op}` {how} at {_where(p.site)}, so it "
                    "has no history", p.site)
    return None


_FACTORY_OPS = {"tensor", "as_tensor", "asarray", "from_numpy", "Parameter", "zeros", "ones",
                "randn", "rand", "empty", "full", "arange", "linspace", "eye", "randint",
                "zeros_like", "ones_like", "randn_like", "rand_like", "full_like",
                "empty_like", "normal", "logspace"}


def _non_leaf(t, who) -> list:
    p = pv.lookup(t)
    site = p.site if p is not None else None
    owners = [ref() for ref in pv.graph_leaves(t).values()]
    trained = [o for o in owners if o is not None and o._grad is not None
               and o._data.shape == t._data.shape]
    if trained and p is not None and p.from_grad:
        return [make("reassigned",
                     f"{who} is not a leaf: the name was rebound at {_where(site)} to the "
                     f"result of `{p.op if p else 'an op'}` on a parameter that already had a "
                     "gradient (an update written with grad recording on), so it is now a "
                     "non-leaf whose `.grad` stays None", site)]
    return [make("not-leaf", f"{who} is not a leaf: it was computed by "
                 f"`{p.op if p else type(t._grad_fn).__name__}` at {_where(site)}, and "
                 "backward() fills `.grad` only on leaves", site)]


def _zero_path(t, who) -> list:
    rec = pv.state.backwards[-1] if pv.state.backwards else None
    if rec is None:
        return []
    for root in rec.roots:
        if root is None or root._grad_fn is None:
            continue
        for node in pv.graph_nodes(root._grad_fn):
            if type(node).__name__ not in ZERO_DERIVATIVE:
                continue
            below = {}
            for fn, _ in node._edges:
                if isinstance(fn, Tensor):
                    below[id(fn)] = fn
                elif fn is not None:
                    for n in pv.graph_nodes(fn):
                        for f2, _ in n._edges:
                            if isinstance(f2, Tensor):
                                below[id(f2)] = f2
            if below.get(id(t)) is t:
                p = pv.lookup(node)
                site = p.site if p is not None else None
                op = p.op if p is not None else type(node).__name__
                return [make("non-differentiable-op",
                             f"{who} has a zero gradient: `{op}` at {_where(site)} has a zero "
                             f"derivative everywhere, so no signal reaches it; {_loss_phrase()}",
                             site)]
    return []


def explain_tensor(t, subject=None, read_site=None) -> list:
    """Findings for one tensor (empty when its gradient looks healthy)."""
    if not isinstance(t, Tensor):
        raise TypeError(f"explain() expects a Tensor, a Module or a list of tensors, not "
                        f"{type(t).__name__}")
    who = _name(t, subject)
    out = _explain(t, who, read_site)
    for f in out:
        f.subject = subject
    return out


def _explain(t, who, read_site) -> list:
    if t._grad_fn is not None:
        if t._retains_grad and t._grad is not None:
            return []
        if not t._retains_grad:
            return _non_leaf(t, who)
    if not t._requires_grad:
        p = pv.lookup(t)
        site = p.site if p is not None else None
        if t._data.dtype.kind not in "fc":
            made = _made_by(t, who)
            if made is not None and made.code == "integer-dtype":
                return [made]
            return [make("integer-dtype", f"{who} has integer dtype {t.dtype}, which cannot "
                         f"require grad (made at {_where(site)})", site)]
        made = _made_by(t, who)
        if made is not None:
            return [made]
        frozen = pv.state.frozen.get(id(t))
        if frozen is not None and frozen[0]() is t:
            return [make("requires-grad-false", f"{who} was frozen at {_where(frozen[1])} "
                         "(`requires_grad` set to False), so backward() never writes its "
                         "`.grad`", frozen[1])]
        return [make("requires-grad-false", f"{who} does not require grad: it was created at "
                     f"{_where(site)} without `requires_grad=True`, so backward() never "
                     "writes its `.grad`", site)]
    grad = t._grad
    if grad is not None:
        if np.any(grad._data):
            return []
        return _zero_path(t, who) if _reached(t) else _not_reached(t, who, read_site)
    if _reached(t):
        return []   # a backward wrote it; it was cleared since (zero_grad or assignment)
    return _not_reached(t, who, read_site)


def _not_reached(t, who, read_site) -> list:
    cut = _choose_cut(t)
    if cut is not None:
        return [cut_finding(cut, who)]
    if not pv.state.backwards:
        p = pv.lookup(t)
        return [make("no-backward", f"{who} has no gradient: no backward() ran since it was "
                     f"made{'' if read_site is None else f' (read at {_where(read_site)})'}",
                     p.site if p is not None else None)]
    rec = pv.state.backwards[-1]
    p = pv.lookup(t)
    made = f" (made at {_where(p.site)})" if p is not None and p.site is not None else ""
    return [make("not-used", f"{who}{made} is not in the graph of the loss: "
                 f"{_loss_phrase()} and never reached it", rec.site)]


def _items(obj):
    """(subject, tensor) pairs for a tensor, a module, or an iterable of tensors."""
    if isinstance(obj, Tensor):
        return [(None, obj)]
    named = getattr(obj, "named_parameters", None)
    if callable(named):
        return list(named())
    if isinstance(obj, dict):
        return list(obj.items())
    return [(None, t) for t in obj]


def explain(obj, *, file=None, quiet: bool = False) -> list:
    """Why ``obj``'s gradient is None or zero: a list of ``Finding`` (printed unless quiet).

    ``obj`` is a tensor, a module (each parameter) or a list of tensors. Turn diagnostics on
    first (``leafgrad.diagnostics.enable()``) to have each finding name its line.

    >>> import leafgrad as torch
    >>> w = torch.tensor([1.0, 2.0])
    >>> [f.code for f in torch.explain(w, quiet=True)]
    ['requires-grad-false']
    """
    findings = []
    for subject, t in _items(obj):
        findings.extend(explain_tensor(t, subject))
    if not quiet:
        print(format_findings(findings), file=file if file is not None else sys.stdout)
    return findings


def format_findings(findings) -> str:
    if not findings:
        return "explain: no problem found"
    return "\n".join(str(f) for f in findings)
