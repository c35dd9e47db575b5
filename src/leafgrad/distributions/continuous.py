"""``Normal`` and ``Uniform``: reparameterised samples (``rsample``) drawn with the same
kernels PyTorch uses (``normal_`` / ``torch.normal``, ``torch.rand``)."""
from __future__ import annotations

import math
from numbers import Number, Real

from . import constraints
from .distribution import Distribution
from .utils import broadcast_all

__all__ = ["Normal", "Uniform"]


def _standard_normal(shape, dtype):
    import leafgrad
    return leafgrad.empty(shape, dtype=dtype).normal_()


class Normal(Distribution):
    """The normal distribution N(``loc``, ``scale`` ** 2)."""

    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.real
    has_rsample = True
    _mean_carrier_measure = 0

    @property
    def mean(self):
        return self.loc

    @property
    def mode(self):
        return self.loc

    @property
    def stddev(self):
        return self.scale

    @property
    def variance(self):
        return self.stddev.pow(2)

    def __init__(self, loc, scale, validate_args=None):
        import leafgrad
        self.loc, self.scale = broadcast_all(loc, scale)
        if isinstance(loc, Number) and isinstance(scale, Number):
            batch_shape = leafgrad.Size()
        else:
            batch_shape = self.loc.size()
        super().__init__(batch_shape, validate_args=validate_args)

    def sample(self, sample_shape=()):
        import leafgrad
        shape = self._extended_shape(sample_shape)
        with leafgrad.no_grad():
            return leafgrad.normal(self.loc.expand(shape), self.scale.expand(shape))

    def rsample(self, sample_shape=()):
        shape = self._extended_shape(sample_shape)
        eps = _standard_normal(shape, dtype=self.loc.dtype)
        return self.loc + eps * self.scale

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        var = self.scale ** 2
        log_scale = math.log(self.scale) if isinstance(self.scale, Real) else self.scale.log()
        return -((value - self.loc) ** 2) / (2 * var) - log_scale - math.log(math.sqrt(2 * math.pi))

    def cdf(self, value):
        import leafgrad
        if self._validate_args:
            self._validate_sample(value)
        return 0.5 * (1 + leafgrad.erf((value - self.loc) * self.scale.reciprocal()
                                       / math.sqrt(2)))

    def icdf(self, value):
        import leafgrad
        return self.loc + self.scale * leafgrad.erfinv(2 * value - 1) * math.sqrt(2)

    def entropy(self):
        import leafgrad
        return 0.5 + 0.5 * math.log(2 * math.pi) + leafgrad.log(self.scale)


class Uniform(Distribution):
    """The uniform distribution on ``[low, high)``."""

    @property
    def arg_constraints(self):
        return {"low": constraints.less_than(self.high),
                "high": constraints.greater_than(self.low)}

    has_rsample = True

    @property
    def mean(self):
        return (self.high + self.low) / 2

    @property
    def mode(self):
        return math.nan * self.high

    @property
    def stddev(self):
        return (self.high - self.low) / 12 ** 0.5

    @property
    def variance(self):
        return (self.high - self.low).pow(2) / 12

    def __init__(self, low, high, validate_args=None):
        import leafgrad
        self.low, self.high = broadcast_all(low, high)
        if isinstance(low, Number) and isinstance(high, Number):
            batch_shape = leafgrad.Size()
        else:
            batch_shape = self.low.size()
        super().__init__(batch_shape, validate_args=validate_args)

    @constraints.dependent_property(is_discrete=False, event_dim=0)
    def support(self):
        return constraints.interval(self.low, self.high)

    def rsample(self, sample_shape=()):
        import leafgrad
        shape = self._extended_shape(sample_shape)
        rand = leafgrad.rand(shape, dtype=self.low.dtype)
        return self.low + rand * (self.high - self.low)

    def log_prob(self, value):
        import leafgrad
        if self._validate_args:
            self._validate_sample(value)
        lb = self.low.le(value).type_as(self.low)
        ub = self.high.gt(value).type_as(self.low)
        return leafgrad.log(lb.mul(ub)) - leafgrad.log(self.high - self.low)

    def cdf(self, value):
        if self._validate_args:
            self._validate_sample(value)
        result = (value - self.low) / (self.high - self.low)
        return result.clamp(min=0, max=1)

    def icdf(self, value):
        return value * (self.high - self.low) + self.low

    def entropy(self):
        import leafgrad
        return leafgrad.log(self.high - self.low)
