"""Helpers shared by the distributions: broadcasting parameters, probs <-> logits, and
``lazy_property`` (computed on first use and then stored on the instance, so it shows in
the distribution's ``repr`` from then on, as in PyTorch)."""
from __future__ import annotations

from numbers import Number

from ..tensor import Tensor

__all__ = ["broadcast_all", "clamp_probs", "lazy_property", "logits_to_probs",
           "probs_to_logits"]


def broadcast_all(*values):
    """Numbers become tensors (of the first tensor argument's dtype, else the default one);
    then all are broadcast to one shape."""
    import leafgrad
    if not all(isinstance(v, (Tensor, Number)) for v in values):
        raise ValueError("Input arguments must all be instances of numbers.Number, "
                         "torch.Tensor or objects implementing __torch_function__.")
    if not all(isinstance(v, Tensor) for v in values):
        options = dict(dtype=leafgrad.get_default_dtype())
        for value in values:
            if isinstance(value, Tensor):
                options = dict(dtype=value.dtype)
                break
        values = [v if isinstance(v, Tensor) else leafgrad.tensor(v, **options)
                  for v in values]
    return leafgrad.broadcast_tensors(*values)


def clamp_probs(probs):
    import leafgrad
    eps = leafgrad.finfo(probs.dtype).eps
    return probs.clamp(min=eps, max=1 - eps)


def probs_to_logits(probs, is_binary=False):
    import leafgrad
    ps_clamped = clamp_probs(probs)
    if is_binary:
        return leafgrad.log(ps_clamped) - leafgrad.log1p(-ps_clamped)
    return leafgrad.log(ps_clamped)


def logits_to_probs(logits, is_binary=False):
    import leafgrad
    if is_binary:
        return leafgrad.sigmoid(logits)
    return leafgrad.nn.functional.softmax(logits, dim=-1)


class lazy_property:
    """A property computed once per instance (with grad enabled, as PyTorch does) and then
    stored in the instance's ``__dict__``."""

    def __init__(self, wrapped):
        self.wrapped = wrapped
        self.__doc__ = wrapped.__doc__

    def __get__(self, instance, obj_type=None):
        if instance is None:
            return self
        import leafgrad
        with leafgrad.enable_grad():
            value = self.wrapped(instance)
        setattr(instance, self.wrapped.__name__, value)
        return value
