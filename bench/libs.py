"""Loading the libraries under test, and probing which leafgrad features exist yet.

leafgrad is taken from this checkout's ``src/`` (put first on ``sys.path``) so the suite times
the working tree, not an older installed copy; set ``LEAFGRAD_SRC`` to another ``src/`` folder
to time another version (e.g. one exported with ``git archive``, for before/after numbers).
torch is optional: without it the torch column reads "n/a".
"""
from __future__ import annotations

import os
import sys
from collections.abc import Callable
from typing import Any

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SRC = os.environ.get("LEAFGRAD_SRC") or os.path.join(ROOT, "src")

# torch would otherwise pick its own thread count; two threads match the two cores of the
# project's machines, and the count used is recorded with the results. Note: on a busy 2-core
# machine torch's OpenMP threads fight for the cores and ops that torch splits across threads
# even at 1,000 elements (tanh) get far slower; ``--torch-threads 1`` shows torch without that.
TORCH_THREADS = 2


def load_leafgrad():
    if os.path.isdir(SRC) and SRC not in sys.path:
        sys.path.insert(0, SRC)
    import leafgrad
    # a LEAFGRAD_SRC without a leafgrad package in it (an export's root instead of its src/)
    # would silently time an installed copy
    where = os.path.realpath(os.path.dirname(os.path.dirname(leafgrad.__file__)))
    if where != os.path.realpath(SRC):
        raise ImportError(f"leafgrad was imported from {where}, not from {SRC} "
                          "(LEAFGRAD_SRC must name the folder holding the leafgrad package)")
    return leafgrad


def load_torch(threads: int = TORCH_THREADS):
    """torch, with its intra-op thread count set, or None when it is not importable."""
    try:
        import torch
    except ImportError:
        return None
    torch.set_num_threads(threads)
    return torch


def works(fn: Callable[[], Any]) -> bool:
    """True when fn runs without raising: a probe of one feature on tiny inputs."""
    try:
        fn()
        return True
    except Exception:  # noqa: BLE001 - missing attribute, NotImplementedError, ...
        return False


def failure(fn: Callable[[], Any]) -> str | None:
    """None when fn runs; else "ExceptionType: message" (why a variant cannot run)."""
    try:
        fn()
        return None
    except Exception as exc:  # noqa: BLE001 - any failure means the variant cannot run
        text = f"{type(exc).__name__}: {exc}"
        return text if len(text) < 160 else text[:157] + "..."


def has_attr_path(obj: Any, path: str) -> bool:
    for part in path.split("."):
        if not hasattr(obj, part):
            return False
        obj = getattr(obj, part)
    return True


def missing_attrs(lib: Any, paths: list[str]) -> list[str]:
    """The dotted names in paths that lib lacks (e.g. ["nn.Conv2d"])."""
    return [p for p in paths if not has_attr_path(lib, p)]


def to_numpy(t: Any):
    """A tensor (leafgrad or torch) or ndarray as an ndarray copy."""
    import numpy as np
    if isinstance(t, np.ndarray) or np.isscalar(t):
        return np.array(t)
    return t.detach().numpy().copy()
