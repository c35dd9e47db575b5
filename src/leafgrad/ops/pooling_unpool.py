"""Max unpooling: max_unpool2d / max_unpool3d (grad_fn ``MaxUnpool2DBackward0``...), the partial
inverse of max pooling: each input value written at its flat position (``indices``, as max
pooling returns them) in a zero output plane.

Its derivative gathers the gradient at the same positions (``gather_flat``, a leafgrad
composite ending in a view, as PyTorch's ``max_pool_double_backward``), so double backward
needs no record of its own.

>>> import leafgrad as torch
>>> import leafgrad.nn.functional as F
>>> values, indices = F.max_pool1d(torch.tensor([[[1., 3., 2., 0.]]]), 2, return_indices=True)
>>> F.max_unpool1d(values, indices, 2)
tensor([[[0., 3., 2., 0.]]])
"""
from __future__ import annotations

import math

import numpy as np

from .pooling import gather_flat
from .registry import Sample, defop

FAMILY = "pooling"

__all__ = ["MAX_UNPOOL"]

_TYPE_NAMES = {"int64": "Long", "int32": "Int", "int16": "Short", "int8": "Char",
               "uint8": "Byte", "bool": "Bool", "float32": "Float", "float64": "Double",
               "float16": "Half"}


def _shape(shape) -> str:
    return "[" + ", ".join(map(str, shape)) + "]"


def _check(self, indices, output_size, n: int) -> None:
    """PyTorch's checks of max_unpool2d/3d, in its order."""
    if indices.dtype != np.int64:
        tail = f" but got: {_TYPE_NAMES.get(indices.dtype.name, indices.dtype.name)}" \
            if n == 2 else ""
        raise RuntimeError(f"elements in indices should be type int64{tail}")
    if n == 2 and len(output_size) != 2:
        raise RuntimeError("There should be exactly two elements (height, width) in "
                           f"output_size, but got {len(output_size)} elements.")
    if self.ndim not in (n + 1, n + 2):
        raise RuntimeError(f"Input to max_unpooling{n}d should be a {n + 1}d or {n + 2}d Tensor, "
                           f"but got a tensor with {self.ndim} dimensions.")
    if indices.shape != self.shape:
        raise RuntimeError(f"Expected shape of indices to be same as that of the input tensor "
                           f"({_shape(self.shape)}) but got indices tensor with shape: "
                           f"{_shape(indices.shape)}")
    if self.dtype.kind != "f":
        raise NotImplementedError(f'"max_unpool{n}d" not implemented for '
                                  f"'{_TYPE_NAMES.get(self.dtype.name, self.dtype.name)}'")


def _forward(n):
    def max_unpool(self, indices, output_size):
        """Each value of ``self`` written at its flat position ``indices`` in a zero plane of
        size ``output_size``."""
        _check(self, indices, output_size, n)
        lead = self.shape[:-n]
        planes = math.prod(lead)
        size = math.prod(output_size)
        per = math.prod(self.shape[-n:])   # (not -1: no planes, as an empty batch, is fine)
        idx = indices.reshape(planes, per)
        bad = (idx < 0) | (idx >= size)
        if bad.any():   # PyTorch names the last invalid index it meets (on one thread)
            last = idx.reshape(-1)[np.flatnonzero(bad.reshape(-1))[-1]]
            raise RuntimeError(f"Found an invalid max index: {last} (output volumes are of size "
                               f"{'x'.join(map(str, output_size))})")
        out = np.zeros((planes, size), self.dtype)
        np.put_along_axis(out, idx, self.reshape(planes, per), axis=1)
        return out.reshape(lead + tuple(output_size))
    max_unpool.__name__ = f"max_unpool{n}d"
    return max_unpool


def _self_formula(n):
    def max_unpool_self(grad, indices):
        return gather_flat(grad, indices._data, n)
    return max_unpool_self


def _samples(n):
    call = f"nn.functional.max_unpool{n}d"

    def samples(make, shapes):
        rng = np.random.default_rng(n)
        shape = (2, 3, 2, 2) if n == 2 else (1, 2, 2, 2, 2)
        out = 2 * np.array(shape[-n:])
        planes, per = math.prod(shape[:-n]), math.prod(shape[-n:])
        idx = np.stack([rng.permutation(math.prod(out))[:per] for _ in range(planes)])
        return [Sample((make(shape), idx.reshape(shape), 2), call=call),
                Sample((make(shape), idx.reshape(shape), 2), {"stride": 2, "padding": 0},
                       call=call)]
    return samples


MAX_UNPOOL = {n: defop(
    f"max_unpool{n}d", _forward(n), inputs=("self", "indices"),
    derivatives={"self": _self_formula(n)}, dtype="same",
    grad_fn_name=f"MaxUnpool{n}DBackward0", methods=(), functions=(), family=FAMILY,
    samples=_samples(n)) for n in (2, 3)}
