"""``scatter_reduce``: ``src`` reduced (sum, prod, mean, amax, amin) into ``self`` at the
places ``index`` names, with PyTorch's gradients: ``mean`` divides by the count, ``amax`` /
``amin`` share the gradient evenly among the elements equal to the result, ``prod`` divides
the result by each factor (zeros there raise NotImplementedError).

>>> import leafgrad as torch
>>> torch.zeros(2).scatter_reduce(0, torch.tensor([0, 0, 1]), torch.tensor([1., 2., 3.]), "sum")
tensor([3., 3.])
"""
from __future__ import annotations

import numpy as np

from ..tensor import _wrap
from .reduction import _wrap_dim
from .registry import Sample, defop

__all__: list = []

FAMILY = "indexing"


# -- scatter_reduce --------------------------------------------------------------------------
_REDUCES = ("sum", "prod", "mean", "amax", "amin")




def _scattered(shape, dim, index):
    """(mask of the positions some src element goes to, how many go to each)."""
    from .scatter import _mesh
    counts = np.zeros(shape, np.int64)
    if len(shape) == 0:
        counts = counts.reshape(1)
        np.add.at(counts, (index.reshape(-1) * 0,), 1)
        counts = counts.reshape(())
    else:
        np.add.at(counts, _mesh(index, _wrap_dim(dim, len(shape))), 1)
    return counts > 0, counts


def scatter_reduce(self, dim, index, src, reduce, *, include_self=True):
    """``self`` with ``src``'s elements reduced (sum, prod, mean, amax, amin) into the
    places ``index`` names along ``dim``; ``include_self=False`` leaves ``self``'s old
    values out of those places."""
    from .scatter import _scatter_check, _scatter_key
    d = _scatter_check(self, dim, index, src)
    if reduce not in _REDUCES:
        raise RuntimeError("reduce argument must be either sum, prod, mean, amax or amin, got "
                           f"{reduce}")
    out, key, src = _scatter_key(self, d, index, src)
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


def _scatter_counts(self_shape, dim, index, include_self):
    mask, counts = _scattered(self_shape, dim, index._data)
    return mask, counts + (1 if include_self else 0)


def scatter_reduce_self(grad, self, dim, index, src, reduce, include_self, result):
    shape = grad._data.shape
    mask, counts = _scatter_counts(shape, dim, index, include_self)
    dt = grad._data.dtype
    if reduce == "sum":
        return grad if include_self else grad.masked_fill(_wrap(mask), 0)
    if reduce == "mean":
        g = grad / _wrap(np.maximum(counts, 1).astype(dt))
        return g if include_self else g.masked_fill(_wrap(mask), 0)
    if reduce == "prod":
        _no_zeros(self, src)
        g = grad * result / self
        return g if include_self else g.masked_fill(_wrap(mask), 0)
    n, self_hits = _extreme_ties(self, dim, index, src, include_self, result)
    return grad * _wrap((self_hits / np.maximum(n, 1)).astype(dt))


def scatter_reduce_src(grad, self, dim, index, src, reduce, include_self, result):
    dt = grad._data.dtype
    # sum and mean give the gathered gradient as it is, of index's shape: PyTorch's engine
    # refuses it when src is larger than index (prod, amax and amin broadcast, below)
    if reduce == "sum":
        return grad.gather(dim, index)
    if reduce == "mean":
        _, counts = _scatter_counts(grad._data.shape, dim, index, include_self)
        return (grad / _wrap(np.maximum(counts, 1).astype(dt))).gather(dim, index)
    if reduce == "prod":
        _no_zeros(self, src)
        # PyTorch divides by all of src: a src larger than index broadcasts against the
        # gathered gradient (the places index never reaches get values too), as its formula
        return (grad * result).gather(dim, index) / src
    n, _ = _extreme_ties(self, dim, index, src, include_self, result)
    from .scatter import _mesh
    idx = index._data
    if src._data.ndim and result._data.ndim:   # as prod: all of src against the gathered
        # result (broadcast)
        src_hits = src._data == result._data[_mesh(idx, _wrap_dim(dim, src._data.ndim))]
    else:
        src_hits = src._data == result._data
    share = (grad / _wrap(np.maximum(n, 1).astype(dt))).gather(dim, index)
    return share * _wrap(src_hits.astype(dt))


def _no_zeros(self, src):
    if (self._data == 0).any() or (src._data == 0).any():
        raise NotImplementedError("leafgrad: the gradient of scatter_reduce(reduce='prod') "
                                  "with zeros in self or src is not implemented")


def _extreme_ties(self, dim, index, src, include_self, result):
    """(how many elements equal each result, where self's own element is one of them).

    As PyTorch's formula, self's element counts among the ties even where
    ``include_self=False`` left it out of the result (it then gets no gradient itself)."""
    from .scatter import _mesh
    r = result._data
    mask, _ = _scattered(r.shape, dim, index._data)
    self_eq = self._data == r
    self_hits = self_eq if include_self else self_eq & ~mask
    n = self_eq.astype(np.int64)
    if r.ndim:
        d = _wrap_dim(dim, r.ndim)
        idx = index._data
        sub = src._data[tuple(slice(0, s) for s in idx.shape)]
        hits = sub == r[_mesh(idx, d)]
        np.add.at(n, _mesh(idx, d), hits.astype(np.int64))
    else:   # a 0-d result: the src elements the index reaches (a 0-d index is one)
        n = n + np.count_nonzero(src._data.reshape(-1)[:index._data.size] == r)
    return n, self_hits


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
    ties = np.round(make((3, 3)))
    out.append(Sample((ties, 0, idx, np.round(make((2, 3))), "amin"), call="scatter_reduce"))
    return out


defop("scatter_reduce", scatter_reduce, inputs=("self", "index", "src"),
      derivatives={"self": scatter_reduce_self, "src": scatter_reduce_src},
      dtype="same", inplace="scatter_reduce_", family=FAMILY, samples=_scatter_reduce_samples,
      grad_fn_name="ScatterReduceBackward0")
