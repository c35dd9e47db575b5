"""``Tensor.copy_(src)``: write ``src`` (broadcast, cast to ``self``'s dtype) into ``self``.

PyTorch records it as ``CopyBackwards``: the overwritten ``self`` gets a zero gradient, ``src``
the incoming gradient, reduced to its shape and cast back to its dtype (the engine's
``_conform`` does both). The autograd engine also uses it: a leaf's first ``.grad`` under
``backward(create_graph=True)`` is a copy of the incoming gradient, as PyTorch's
AccumulateGrad makes it (``new_empty_strided(...).copy_(grad)``).

>>> import leafgrad as torch
>>> x = torch.tensor([1.0, 2.0], requires_grad=True)
>>> torch.zeros(2, 2, dtype=torch.float64).copy_(x)
tensor([[1., 2.],
        [1., 2.]], dtype=torch.float64, grad_fn=<CopyBackwards>)
"""
from __future__ import annotations

import numpy as np

from .._zerotensor import check_mutable
from ..dtypes import cast_array
from ..errors import broadcast_error
from ..grad_mode import no_grad, state as _mode
from ..tensor import Tensor
from .iter_layout import OWN
from .pointwise_common import zeros_grad
from .registry import Sample, bind_method, defop

__all__: list = []

FAMILY = "pointwise"


def copy(self, src, non_blocking=False):
    """``src`` broadcast to ``self``'s shape in ``self``'s dtype (the value ``copy_`` writes)."""
    src = np.asarray(src)
    if src.shape != self.shape:
        try:
            shape = np.broadcast_shapes(self.shape, src.shape)
        except ValueError:
            raise broadcast_error([self.shape, src.shape]) from None
        if shape != self.shape:
            raise RuntimeError(
                f"output with shape [{', '.join(map(str, self.shape))}] doesn't match the "
                f"broadcast shape [{', '.join(map(str, shape))}]")
        src = np.broadcast_to(src, shape)
    return cast_array(src, self.dtype)


def copy_self(grad):
    return zeros_grad(grad)


def copy_src(grad):
    return grad


def _copy_samples(make, shapes):
    # called on a fresh non-leaf ``self`` (the test wraps in-place calls), so both get grads
    return [Sample((make(shapes[0]), make(shapes[0])), call="Tensor.copy_"),
            Sample((make(shapes[0]), make(shapes[0]).astype(np.float32)), call="Tensor.copy_",
                   atol=1e-5)]


COPY = defop("copy", copy, layout=OWN, inputs=("self", "src"),
             derivatives={"self": copy_self, "src": copy_src},
             dtype="same", grad_fn_name="CopyBackwards", methods=(), functions=(),
             inplace="copy_", samples=_copy_samples, family=FAMILY)


def _copy_masked(recorded):
    """``Tensor.copy_`` as PyTorch's hand-written autograd kernel: whether anything requires
    grad is decided by ``self``'s dtype too, so an integer or bool ``self`` records nothing
    (and is not checked as a view autograd forbids changing) even when ``src`` requires
    grad."""
    def copy_(self, src, non_blocking=False):
        if type(self._data) is not np.ndarray and not (self._requires_grad
                                                       and self._grad_fn is None):
            check_mutable(self, copy=True)   # a zero tensor: copy_'s own words
        if (self._data.dtype.kind not in "fc" and isinstance(src, Tensor)
                and src._requires_grad and _mode.grad_enabled):
            with no_grad():
                return recorded(self, src, non_blocking)
        return recorded(self, src, non_blocking)
    copy_.__name__ = copy_.__qualname__ = "copy_"
    copy_.__doc__ = recorded.__doc__
    return copy_


bind_method("copy_", _copy_masked(Tensor.copy_))
