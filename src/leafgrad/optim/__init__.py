"""``torch.optim``: optimizers that update parameters from their ``.grad``, and
``lr_scheduler``.

>>> import leafgrad as torch
>>> model = torch.nn.Linear(2, 1)
>>> opt = torch.optim.SGD(model.parameters(), lr=0.1)
>>> model(torch.ones(1, 2)).sum().backward()
>>> opt.step()
>>> opt.zero_grad()
>>> model.weight.grad is None
True
"""
from __future__ import annotations

from . import lr_scheduler, swa_utils
from .adadelta import Adadelta
from .adagrad import Adagrad
from .adam import Adam, AdamW
from .adamax import Adamax
from .asgd import ASGD
from .lbfgs import LBFGS
from .nadam import NAdam
from .radam import RAdam
from .rprop import Rprop
from .optimizer import Optimizer
from .rmsprop import RMSprop
from .sgd import SGD

__all__ = ["Optimizer", "SGD", "Adam", "AdamW", "RMSprop", "Adagrad", "Adadelta", "Adamax",
           "NAdam", "RAdam", "Rprop", "ASGD", "LBFGS", "lr_scheduler",
           "swa_utils"]
