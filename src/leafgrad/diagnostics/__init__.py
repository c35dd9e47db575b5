"""Diagnostics: why a gradient is None or zero, where each tensor came from, graph drawings.

Off by default and free when off (see Note [Diagnostics cost nothing when off] in
``install.py``). Turn on for a block or for good:

>>> import leafgrad as torch
>>> with torch.diagnostics.enable():
...     w = torch.tensor([1.0, 2.0], requires_grad=True)
...     h = (w * 2).detach()
...     b = torch.tensor(1.0, requires_grad=True)
...     (h * b).sum().backward()
...     [f.code for f in torch.explain(w, quiet=True)]
['detached']
>>> torch.diagnostics.is_enabled()
False
"""
from __future__ import annotations

from . import viz
from .codes import CODES, Finding
from .explain import explain, format_findings

__all__ = [
    "CODES",
    "Finding",
    "disable",
    "enable",
    "explain",
    "findings",
    "format_findings",
    "is_enabled",
    "reset",
    "viz",
]


class _Session:
    """Returned by ``enable()``: a context manager that turns diagnostics off on exit."""

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        disable()
        return False


def enable(reset_records: bool = True) -> _Session:
    """Record provenance from now on (installs the wrappers); usable as ``with enable():``."""
    from . import install, provenance
    if not install.installed():
        if reset_records:
            provenance.reset()
        install.install()
    return _Session()


def disable() -> None:
    """Remove every wrapper; recorded provenance stays readable until ``reset()``."""
    from . import install
    install.uninstall()


def is_enabled() -> bool:
    from . import install
    return install.installed()


def findings() -> list:
    """Findings noted so far while diagnostics were on (what ``leafgrad explain`` reports)."""
    from . import provenance
    return list(provenance.state.findings)


def reset() -> None:
    """Forget all provenance and findings."""
    from . import provenance
    provenance.reset()
