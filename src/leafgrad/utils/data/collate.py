"""``default_collate``: turn a list of samples into one batch (tensors stacked on a new
dim 0, numbers into tensors, tuples/dicts collated field by field).

>>> import leafgrad as torch
>>> from leafgrad.utils.data import default_collate
>>> default_collate([(1, 2.0), (3, 4.0)])
[tensor([1, 3]), tensor([2., 4.], dtype=torch.float64)]
"""
from __future__ import annotations

import collections.abc
import re

import numpy as np

from ...tensor import Tensor

__all__ = ["default_collate", "default_convert"]

_ERR = ("default_collate: batch must contain tensors, numpy arrays, numbers, dicts or lists; "
        "found {}")
_STRING_DTYPE = re.compile(r"[SaUO]")


def _torch():
    import leafgrad
    return leafgrad


def default_collate(batch):
    """Collate a list of samples into a batch, recursively by the first sample's type."""
    torch = _torch()
    elem = batch[0]
    if isinstance(elem, Tensor):
        return torch.stack(list(batch), 0)
    if isinstance(elem, np.ndarray):
        if _STRING_DTYPE.search(elem.dtype.str) is not None:
            raise TypeError(_ERR.format(elem.dtype))
        return default_collate([torch.as_tensor(b) for b in batch])
    if isinstance(elem, np.generic) and not isinstance(elem, (np.str_, np.bytes_)):
        return torch.as_tensor(np.asarray(batch))
    if isinstance(elem, float):
        return torch.tensor(batch, dtype=torch.float64)
    if isinstance(elem, int):
        return torch.tensor(batch)
    if isinstance(elem, (str, bytes)):
        return batch
    if isinstance(elem, collections.abc.Mapping):
        collated = {key: default_collate([d[key] for d in batch]) for key in elem}
        try:
            return type(elem)(collated)
        except TypeError:
            return collated
    if isinstance(elem, tuple) and hasattr(elem, "_fields"):
        return type(elem)(*(default_collate(s) for s in zip(*batch)))
    if isinstance(elem, collections.abc.Sequence):
        size = len(elem)
        if not all(len(e) == size for e in batch):
            raise RuntimeError("each element in list of batch should be of equal size")
        transposed = list(zip(*batch))
        if isinstance(elem, tuple):
            return [default_collate(s) for s in transposed]
        try:
            return type(elem)([default_collate(s) for s in transposed])
        except TypeError:
            return [default_collate(s) for s in transposed]
    raise TypeError(_ERR.format(type(elem)))


def default_convert(data):
    """Without batching: NumPy arrays become tensors, containers are converted inside."""
    torch = _torch()
    if isinstance(data, Tensor):
        return data
    if isinstance(data, np.ndarray):
        if _STRING_DTYPE.search(data.dtype.str) is not None:
            return data
        return torch.as_tensor(data)
    if isinstance(data, np.generic) and not isinstance(data, (np.str_, np.bytes_)):
        return torch.as_tensor(np.asarray(data))
    if isinstance(data, collections.abc.Mapping):
        return type(data)({k: default_convert(v) for k, v in data.items()})
    if isinstance(data, tuple) and hasattr(data, "_fields"):
        return type(data)(*(default_convert(d) for d in data))
    if isinstance(data, tuple):
        return [default_convert(d) for d in data]
    if isinstance(data, collections.abc.Sequence) and not isinstance(data, (str, bytes)):
        return [default_convert(d) for d in data]
    return data
