"""The layers of ``torch.nn``, one file per kind; each file's ``__all__`` is re-exported."""
from __future__ import annotations

from . import (activation, attention, container, dropout, flatten, linear, linear_extra, loss,
               module, normalization, rnn, sparse, transformer)
from . import batchnorm, conv, padding, pooling
from . import upsampling, nn_extra, loss_extra, lazy  # H12
from . import ctc  # CTCLoss
from . import adaptive  # AdaptiveLogSoftmaxWithLoss
from . import pooling_fractional  # FractionalMaxPool2d/3d

_FILES = (module, linear, container, activation, flatten, dropout, sparse, normalization, loss,
          linear_extra, rnn, attention, transformer, conv, pooling, batchnorm, padding, upsampling, nn_extra,
          loss_extra, lazy, ctc, adaptive, pooling_fractional)

__all__: list = []
for _file in _FILES:
    for _name in _file.__all__:
        globals()[_name] = getattr(_file, _name)
        __all__.append(_name)
del _file, _name
