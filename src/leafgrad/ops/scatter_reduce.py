"""``scatter_reduce``: ``src`` reduced (sum, prod, mean, amax, amin) into ``self`` at the
places ``index`` names, with PyTorch's gradients: ``mean`` divides by the count, ``amax`` /
``amin`` share the gradient evenly among the elements equal to the result, ``prod`` divides
the result by each factor (a zero's gradient: the product of the others). The formulas are
PyTorch's, op for op, so that create_graph gradients have PyTorch's graph.

>>> import leafgrad as torch
>>> torch.zeros(2).scatter_reduce(0, torch.tensor([0, 0, 1]), torch.tensor([1., 2., 3.]), "sum")
tensor([3., 3.])
"""
from __future__ import annotations

import numpy as np

from ..autograd.graph import Node, next_seq
from ..grad_mode import state as _mode
from ..tensor import _wrap
from .registry import Sample, defop

__all__: list = []

FAMILY = "indexing"


# -- scatter_reduce --------------------------------------------------------------------------
_REDUCES = ("sum", "prod", "mean", "amax", "amin")




_BOOL_MEAN = '"scatter_gather_tensor_cpu_reduce_mean" not implemented for \'Bool\''


def scatter_reduce(self, dim, index, src, reduce, *, include_self=True):
    """``self`` with ``src``'s elements reduced (sum, prod, mean, amax, amin) into the
    places ``index`` names along ``dim``; ``include_self=False`` leaves ``self``'s old
    values out of those places."""
    from .scatter import _scatter_check, _scatter_key
    d = _scatter_check(self, dim, index, src)
    if reduce not in _REDUCES:
        raise RuntimeError("reduce argument must be either sum, prod, mean, amax or amin, got "
                           f"{reduce}")
    bool_mean = reduce == "mean" and self.dtype == np.bool_
    if bool_mean and include_self:   # the kernel's dtype dispatch, before it reads the indices
        raise NotImplementedError(_BOOL_MEAN)
    out, key, src = _scatter_key(self, d, index, src)
    if bool_mean:   # (include_self=False first scatters zeros: its index check comes first)
        raise NotImplementedError(_BOOL_MEAN)
    if not include_self:
        if reduce in ("sum", "mean"):
            start = 0
        elif reduce == "prod":
            start = 1
        elif out.dtype.kind == "f":
            start = -np.inf if reduce == "amax" else np.inf
        else:
            info = np.iinfo(out.dtype) if out.dtype.kind in "iu" else None
            start = (info.min if reduce == "amax" else info.max) if info else reduce == "amin"
        out[key] = start
    ufunc = {"sum": np.add, "mean": np.add, "prod": np.multiply, "amax": np.maximum,
             "amin": np.minimum}[reduce]
    ufunc.at(out, key, src)
    if reduce == "mean":
        counts = np.zeros(out.shape, np.int64)
        np.add.at(counts, key, 1)
        counts = counts + (1 if include_self else 0)
        counts = np.maximum(counts, 1)
        if out.dtype.kind == "f":
            out = out / counts.astype(out.dtype)
        else:
            out = np.floor_divide(out, counts).astype(out.dtype)
    return out.reshape(self.shape)


def scatter_reduce_self(grad, self, dim, index, src, reduce, include_self, result):
    # PyTorch's formula, op for op, so that a create_graph gradient has its graph
    if reduce == "sum":
        g = grad
    elif reduce == "prod":
        # self's zeros: the product of the others, from a result with those zeros made ones
        masked_self = self.masked_fill(self == 0, 1)
        masked_self_result = masked_self.scatter_reduce(dim, index, src, reduce,
                                                        include_self=include_self)
        g = grad * masked_self_result / masked_self
    elif reduce == "mean":
        g = grad / _mean_counts(grad, index, dim, src, include_self)
    else:   # amax, amin: shared evenly among the elements equal to the result
        g = (self == result) * (grad / _extreme_counts(self, dim, index, src, result))
    return g if include_self else g.scatter(dim, index, 0)


def scatter_reduce_src(grad, self, dim, index, src, reduce, include_self, result):
    # src larger than index: sum and mean give the gathered gradient, of index's shape (the
    # engine then refuses it); prod, amax and amin broadcast all of src against it, as PyTorch
    if reduce == "sum":
        return _fits(grad.gather(dim, index), src)
    if reduce == "mean":
        return _fits(grad.gather(dim, index) / _mean_counts(grad, index, dim, src,
                                                            include_self).gather(dim, index), src)
    if reduce == "prod":
        return _fits(_prod_src_grad(grad, self, dim, index, src, include_self, result), src)
    value = result.gather(dim, index)
    return _fits((src == value) * (grad / _extreme_counts(self, dim, index, src, result)).gather(
        dim, index), src)


def _fits(g, src):
    """``g`` summed to src's shape, or PyTorch's engine error (``fit_to``)."""
    from ..autograd.reduce_grad import fit_to
    return fit_to(g, src._data.shape, "ScatterReduceBackward0", 1)


def _mean_counts(grad, index, dim, src, include_self):
    """How many values each place of the result averages (at least 1)."""
    from .. import ones_like, zeros_like
    n = (ones_like(grad) if include_self else zeros_like(grad)).scatter_add(
        dim, index, ones_like(src))
    return n.masked_fill_(n == 0, 1)


def _extreme_counts(self, dim, index, src, result):
    """How many elements equal each result. As PyTorch's formula, self's element counts
    among the ties even where ``include_self=False`` left it out of the result (it then
    gets no gradient itself)."""
    value = result.gather(dim, index)
    dt = self.dtype
    return (self == result).to(dt).scatter_add(dim, index, (src == value).to(dt))


def _prod_src_grad(grad, self, dim, index, src, include_self, result):
    """src's gradient for prod: the result over src, except where src is the only zero
    reduced into its place (there: the product of the others, recomputed with that zero
    made one); two or more zeros in one place give zeros, and a graph that refuses a
    further backward (PyTorch's DelayedError)."""
    from .. import where, zeros_like
    src_zero = src == 0
    zero_count = zeros_like(self).scatter_add(dim, index, src_zero.to(self.dtype)).gather(
        dim, index)
    single_zero = src_zero & (zero_count == 1)
    masked_src_result = self.scatter_reduce(dim, index, src.masked_fill(single_zero, 1),
                                            "prod", include_self=include_self)
    g = where(single_zero, (grad * masked_src_result).gather(dim, index),
              (grad * result).gather(dim, index) / src.masked_fill(src_zero, 1))
    if _mode.grad_enabled and bool((zero_count._data > 1).any()):
        g = _delayed_error(g, "scatter_reduce(): Double backward is unsupported for src when "
                              ">1 zeros in src are scattered to the same position in self")
    return g


class _DelayedError(Node):
    """Stands behind a gradient whose own gradient PyTorch does not give: differentiating
    it raises (PyTorch's DelayedError node, named Error)."""

    __slots__ = ("_msg",)

    def apply(self, grads, create_graph):
        raise RuntimeError(self._msg)


_DelayedError.__name__ = _DelayedError.__qualname__ = "Error"


def _delayed_error(t, msg):
    """``t``'s values behind a ``_DelayedError`` node (``t`` itself if it needs no grad)."""
    if not t._requires_grad:
        return t
    node = _DelayedError.__new__(_DelayedError)
    node._seq = next_seq()
    node._edges = ((t._grad_fn, t._output_nr) if t._grad_fn is not None else (t, 0),)
    node._saved = ()
    node._versions = None
    node._args = None
    node._msg = msg
    return _wrap(t._data, node, t._vc)


def _scatter_reduce_samples(make, shapes):
    idx = np.asarray([[0, 2, 0], [1, 0, 0]], dtype=np.int64)
    out = []
    for reduce in _REDUCES:
        for include_self in (True, False):
            src = make.positive((2, 3)) if reduce == "prod" else make((2, 3))
            base = make.positive((3, 3)) if reduce == "prod" else make((3, 3))
            out.append(Sample((base, 0, idx, src, reduce),
                              {"include_self": include_self}, call="scatter_reduce"))
    out.append(Sample((make((3, 3)), 1, idx, make((2, 3)), "amax"),
                      call="Tensor.scatter_reduce"))
    out.append(Sample((make((3, 3)), 0, idx, make((2, 3)), "sum"),
                      call="Tensor.scatter_reduce_"))
    for include_self in (True, False):   # zeros: in self, and one src zero in a place
        base = make.positive((3, 3))
        base[1, 1] = 0
        src = make.positive((2, 3))
        src[0, 0] = 0
        out.append(Sample((base, 0, idx, src, "prod"), {"include_self": include_self},
                          call="scatter_reduce"))
    ties = np.round(make((3, 3)))
    out.append(Sample((ties, 0, idx, np.round(make((2, 3))), "amin"), call="scatter_reduce"))
    return out


defop("scatter_reduce", scatter_reduce, inputs=("self", "index", "src"),
      derivatives={"self": scatter_reduce_self, "src": scatter_reduce_src},
      dtype="same", inplace="scatter_reduce_", family=FAMILY, samples=_scatter_reduce_samples,
      grad_fn_name="ScatterReduceBackward0")
