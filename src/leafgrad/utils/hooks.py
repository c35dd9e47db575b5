"""``RemovableHandle``: what ``register_*_hook`` returns; ``handle.remove()`` unregisters.

>>> from collections import OrderedDict
>>> hooks = OrderedDict()
>>> handle = RemovableHandle(hooks)
>>> hooks[handle.id] = print
>>> handle.remove()
>>> len(hooks)
0
"""
from __future__ import annotations

import weakref

__all__ = ["RemovableHandle"]


class RemovableHandle:
    """A handle to one registered hook, removable from every dict it was added to."""

    next_id: int = 0

    def __init__(self, hooks_dict, *, extra_dict=None) -> None:
        # Weak references: a handle must not keep a dead module's hook tables alive.
        self.hooks_dict_ref = weakref.ref(hooks_dict)
        self.id = RemovableHandle.next_id
        RemovableHandle.next_id += 1
        self.extra_dict_ref: tuple = ()
        if isinstance(extra_dict, dict):
            self.extra_dict_ref = (weakref.ref(extra_dict),)
        elif isinstance(extra_dict, list):
            self.extra_dict_ref = tuple(weakref.ref(d) for d in extra_dict)

    def remove(self) -> None:
        for ref in (self.hooks_dict_ref,) + self.extra_dict_ref:
            d = ref()
            if d is not None and self.id in d:
                del d[self.id]

    def __enter__(self) -> "RemovableHandle":
        return self

    def __exit__(self, *exc) -> None:
        self.remove()
