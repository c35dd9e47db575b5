"""Version counters: an in-place change bumps a tensor's counter and remembers where it ran.

tensor.py re-exports these names (``from leafgrad.tensor import bump_version``).
"""
from __future__ import annotations

import os
import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .tensor import Tensor

__all__ = ["user_location", "bump_version", "where_changed"]


# Note [Where a value changed]
# A version counter is ``[version]``; an in-place change makes it ``[version, where]``, with
# ``where`` the user's (file, line, function) that made the change. When backward finds a saved
# value at the wrong version, the error gets a note naming that line (PEP 678), so the user
# learns which in-place op broke the graph without rerunning under anomaly mode.
_PACKAGE_DIR = os.path.dirname(sys._getframe().f_code.co_filename) + os.sep


def user_location(depth: int = 2):
    """(file, line, function) of the nearest caller outside leafgrad, or None."""
    f = sys._getframe(depth)
    while f is not None and f.f_code.co_filename.startswith(_PACKAGE_DIR):
        f = f.f_back
    if f is None:
        return None
    return (f.f_code.co_filename, f.f_lineno, f.f_code.co_name)


def bump_version(t: "Tensor") -> None:
    """Record an in-place change of ``t``'s storage: next version, and where it happened."""
    vc = t._vc
    vc[0] += 1
    where = user_location()
    if len(vc) == 1:
        vc.append(where)
    else:
        vc[1] = where


def where_changed(vc) -> str | None:
    """The note for a version-counter error (see Note [Where a value changed])."""
    if len(vc) < 2 or vc[1] is None:
        return None
    file, line, func = vc[1]
    return (f"leafgrad: the in-place operation that changed this tensor to version {vc[0]} "
            f"ran at {file}:{line}, in {func}().")
