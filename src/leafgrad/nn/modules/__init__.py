"""The layers of ``torch.nn``, one file per kind; each file's ``__all__`` is re-exported."""
from __future__ import annotations

from . import (activation, container, dropout, flatten, linear, loss, module, normalization,
               sparse)
from . import attention, linear_extra, rnn, transformer

_FILES = (module, linear, container, activation, flatten, dropout, sparse, normalization, loss,
          linear_extra, rnn, attention, transformer)

__all__: list = []
for _file in _FILES:
    for _name in _file.__all__:
        globals()[_name] = getattr(_file, _name)
        __all__.append(_name)
del _file, _name
