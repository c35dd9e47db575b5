"""``torch.distributions``: the distributions tutorials use (``Categorical`` for policy
gradients, ``Normal`` for reparameterised sampling, ``Bernoulli``, ``Uniform``) with
PyTorch's sampling streams, formulas, shapes, validation messages and ``repr``, and
``kl_divergence`` for their pairs.

>>> import leafgrad as torch
>>> from leafgrad.distributions import Categorical
>>> m = Categorical(torch.tensor([0.25, 0.75]))
>>> m.log_prob(torch.tensor(1))
tensor(-0.2877)

Other distributions (MultivariateNormal, Beta, Dirichlet, transforms, ...) are not
implemented yet: importing them raises ImportError.
"""
from __future__ import annotations

from . import constraints
from .continuous import Normal, Uniform
from .discrete import Bernoulli, Categorical
from .distribution import Distribution
from .kl import kl_divergence, register_kl

__all__ = ["Bernoulli", "Categorical", "Distribution", "Normal", "Uniform", "constraints",
           "kl_divergence", "register_kl"]
