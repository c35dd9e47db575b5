"""``embedding_bag`` as one record (``EmbeddingBagBackward0``): sums, means or maxima of bags
of embedding rows, bags given by ``offsets`` into a flat ``indices`` tensor.

Which entry belongs to which bag, and which entries count (not ``padding_idx``, not past the
last offset when ``include_last_offset``) is worked out once in NumPy (``_bags``); the forward
reduces with ``np.add.at`` / ``np.maximum.at``, and the formulas route the gradient back with
``index_select`` / ``index_add`` in leafgrad ops, so they are differentiable again (w.r.t. the
incoming gradient and ``per_sample_weights``).

>>> import leafgrad as torch
>>> w = torch.arange(6.).reshape(3, 2)
>>> torch.nn.functional.embedding_bag(torch.tensor([0, 2, 1]), w, torch.tensor([0, 2]))
tensor([[2., 3.],
        [2., 3.]])
"""
from __future__ import annotations

import numpy as np

from .. import dtypes as _dt
from ..tensor import _wrap
from ..grad_mode import no_grad, state as _mode
from .pointwise_common import not_implemented_formula
from .registry import Sample, defop
from .tensor_utils import get_num_threads as _num_threads

FAMILY = "nn_extra"

__all__ = ["EMBEDDING_BAG"]

_SUM, _MEAN, _MAX = 0, 1, 2


def _np(value):
    return getattr(value, "_data", value)


def _fast(weight, mode, padding_idx, per_sample_weights=None):
    """Whether PyTorch's CPU kernel takes its fast (FBGEMM) path: sums and means of float32 or
    float16 rows (unit column stride), no ``padding_idx``; maxima and doubles go the slow
    way. The two differ in which entries count with ``include_last_offset`` and in how a bad
    index is reported. Weighted sums also need unit-stride per-sample weights."""
    if per_sample_weights is not None and per_sample_weights.size and \
            per_sample_weights.strides[0] != per_sample_weights.itemsize:
        return False
    return (mode != _MAX and weight.dtype in (np.float32, np.float16)
            and (padding_idx is None or padding_idx < 0)
            and (weight.strides[1] == weight.itemsize   # (a size-1 column's stride too:
                 or not weight.size))   # seed 165) (an empty array's NumPy strides say nothing)


_I_CHECK = ("Expected i < index_size to be true, but got false.  (Could this error message be "
            "improved?  If so, please report an enhancement request to PyTorch.)")


def _check_indices(idx, offs, include_last_offset, n_bags, num_weights, fast):
    """Raise PyTorch's error for an index outside ``[0, num_weights)``. The slow path names
    the first bad index. The fast path runs bag chunks (one a thread), each walking its bags
    by their lengths; a chunk that fails (a bad index, or bags overrunning its entries) is
    re-walked to report it, with offsets that are absolute but an entry count that is the
    chunk's own. Several failing chunks race in PyTorch; here the first one reports."""
    bad = (idx < 0) | (idx >= num_weights)
    if not fast:
        if bad.any():
            raise RuntimeError(f"embedding_bag: Expected idx >= 0 && idx < num_embeddings "
                               f"but found idx to be {idx[bad][0]}")
        return
    bounds = offs if include_last_offset else np.append(offs, idx.size)
    if not bad.any() and (np.diff(bounds) >= 0).all():
        return                                  # the common case: nothing to report
    threads = _num_threads()
    tasks = min(threads, n_bags) if n_bags > 1 and threads > 1 else 1
    step = -(-n_bags // tasks) if n_bags else 1
    for start in range(0, max(n_bags, 1), step):
        end = min(n_bags, start + step)
        lo, hi = int(bounds[start]), int(bounds[end])
        if not _chunk_fails(bad, bounds, start, end, lo, hi - lo):
            continue
        size = hi - lo
        for m in range(start, end):
            for i in range(int(bounds[m]), int(bounds[m + 1])):
                if i >= size:
                    raise RuntimeError(_I_CHECK)
                v = idx[lo + i]
                if not 0 <= v < num_weights:
                    raise RuntimeError(f"Index {i} of input takes value {v} which is not in "
                                       f"the valid range [0, {num_weights})")
        if hi != size:
            raise RuntimeError("Your input appears to be incorrect: the last offset value "
                               "should be the size of the indices tensor, but it seems not "
                               "to be the case.")


def _chunk_fails(bad, bounds, start, end, lo, size):
    """Whether FBGEMM's lookup fails on bags ``start:end`` (entries ``lo:lo+size``)."""
    current = 0
    for m in range(start, end):
        length = int(bounds[m + 1] - bounds[m])
        if current + length > size:
            return True
        if length > 0:
            if bad[lo + current:lo + current + length].any():
                return True
            current += length
    return current != size


def _bags(indices, offsets, include_last_offset, padding_idx, num_weights, fast):
    """(number of bags, bag of each entry, mask of counted entries, entries per bag)."""
    idx = np.asarray(indices).reshape(-1)
    offs = np.asarray(offsets).reshape(-1).astype(np.int64)
    n_bags = len(offs) - 1 if include_last_offset else len(offs)
    bag = np.searchsorted(offs, np.arange(idx.size), side="right") - 1
    padded = padding_idx is not None and padding_idx >= 0
    # with include_last_offset PyTorch's slow path (see _fast) runs the last bag to the end
    # of ``indices``, the fast one sums up to the last offset but divides the mean by the
    # entries to the end; both backwards route gradients as the slow path
    slow = not fast
    if include_last_offset and slow and n_bags > 0:
        bag = np.minimum(bag, n_bags - 1)
    keep = (bag >= 0) & (bag < n_bags)
    if padded:
        keep &= idx != padding_idx
    counts = np.bincount(bag[keep], minlength=max(n_bags, 0))[:max(n_bags, 0)]
    if include_last_offset and not slow and n_bags > 0 and idx.size > offs[-1]:
        counts = counts.copy()
        counts[-1] += idx.size - offs[-1]
    return max(n_bags, 0), bag, keep, counts


def embedding_bag(weight, indices, offsets, scale_grad_by_freq=False, mode=0, sparse=False,
                  per_sample_weights=None, include_last_offset=False, padding_idx=None):
    """One row per bag: the sum (optionally weighted), mean or maximum of its rows of
    ``weight``; empty bags give zeros."""
    if weight.dtype.kind != "f":
        # PyTorch's checkScalarTypes names a legacy type, or CPUBoolType for bool
        name = "CPUBoolType" if weight.dtype == np.bool_ else \
            "torch." + _dt.from_numpy_dtype(weight.dtype).tensor_type
        raise RuntimeError("Expected tensor for argument #1 'weight' to have one of the "
                           "following scalar types: Half, BFloat16, Float, Double; but got "
                           f"{name} instead (while checking arguments for embedding_bag)")
    indices, offsets = _np(indices), _np(offsets)
    fast = _fast(weight, mode, padding_idx, per_sample_weights)
    n_bags, bag, keep, counts = _bags(indices, offsets, include_last_offset, padding_idx,
                                      weight.shape[0], fast)
    idx = np.asarray(indices).reshape(-1)
    if idx.size:
        _check_indices(idx, np.asarray(offsets).reshape(-1), include_last_offset, n_bags,
                       weight.shape[0], fast)
    rows = weight[idx[keep]]
    out = np.zeros((n_bags, weight.shape[1]), dtype=weight.dtype)
    if mode == _MAX:
        out[...] = -np.inf
        np.maximum.at(out, bag[keep], rows)
        out[counts == 0] = 0
        return out
    if per_sample_weights is not None:
        rows = rows * per_sample_weights.reshape(-1)[keep][:, None]
    np.add.at(out, bag[keep], rows)
    if mode == _MEAN:
        out /= np.maximum(counts, 1)[:, None].astype(weight.dtype)
    return out


def _max_sources(weight, idx, bag, keep, n_bags):
    """For each (bag, column) holding a maximum: the weight row it came from (the first)."""
    d = weight.shape[1]
    best = np.full((n_bags, d), -np.inf)
    src = np.full((n_bags, d), -1)
    for e in np.nonzero(keep)[0]:      # bags are short; first maximum wins ties
        row = weight[idx[e]]
        better = row > best[bag[e]]
        best[bag[e]][better] = row[better]
        src[bag[e]][better] = idx[e]
    return src


def embedding_bag_weight(grad, weight, indices, offsets, scale_grad_by_freq, mode,
                         per_sample_weights, include_last_offset, padding_idx):
    w = weight._data
    idx = np.asarray(_np(indices)).reshape(-1)
    n_bags, bag, keep, counts = _bags(idx, _np(offsets), include_last_offset, padding_idx,
                                      w.shape[0], False)
    num, d = w.shape
    if mode == _MAX:
        src = _max_sources(w, idx, bag, keep, n_bags)
        has = src >= 0
        flat = (src * d + np.arange(d))[has]
        picked = grad.reshape(-1).index_select(0, _wrap(np.nonzero(has.reshape(-1))[0]))
        return grad.new_zeros((num * d,)).index_add(0, _wrap(flat.astype(np.int64)),
                                                    picked).reshape(num, d)
    entries = np.nonzero(keep)[0]
    scale = np.ones(entries.size)
    if mode == _MEAN:
        scale = scale / counts[bag[entries]]
    if scale_grad_by_freq:
        freq = np.bincount(idx, minlength=num)
        scale = scale / freq[idx[entries]]
    g = grad.index_select(0, _wrap(bag[entries].astype(np.int64)))
    g = g * _wrap(scale.astype(w.dtype)).unsqueeze(1)
    if per_sample_weights is not None:
        g = g * per_sample_weights.reshape(-1).index_select(
            0, _wrap(entries.astype(np.int64))).unsqueeze(1)
    return grad.new_zeros((num, d)).index_add(0, _wrap(idx[entries].astype(np.int64)), g)


def embedding_bag_per_sample_weights(grad, weight, indices, offsets, scale_grad_by_freq,
                                     include_last_offset, padding_idx):
    idx = np.asarray(_np(indices)).reshape(-1)
    n_bags, bag, keep, _ = _bags(idx, _np(offsets), include_last_offset, padding_idx,
                                 weight.shape[0], False)
    rows = weight.index_select(0, _wrap(idx.astype(np.int64)))
    g = grad.index_select(0, _wrap(np.clip(bag, 0, max(n_bags - 1, 0)).astype(np.int64)))
    return (rows * g).sum(1) * _wrap(keep.astype(rows.dtype.np))


def _samples(make, shapes):
    # grad=False: PyTorch has no double backward here ("the derivative for
    # '_embedding_bag_backward' is not implemented"); tests/nn/test_nn_extra.py checks the first
    # derivatives
    call = "nn.functional.embedding_bag"
    idx = np.array([1, 2, 4, 4, 0, 3])
    offs = np.array([0, 2, 2, 5])
    kwargs = [{}, {"mode": "sum", "per_sample_weights": make((6,))}, {"mode": "max"},
              {"include_last_offset": True}, {"include_last_offset": True, "padding_idx": 1}]
    return [Sample((idx, make((5, 3)), offs), kw, call=call, grad=False) for kw in kwargs] + [
        Sample((idx.reshape(2, 3), make((5, 3))), {"mode": "sum", "padding_idx": 4}, call=call,
               grad=False)]


# -- the backward as PyTorch records it under create_graph: the weight's gradient is one
# EmbeddingBagBackwardBackward0 node over (grad, per_sample_weights), the per-sample weights'
# one NotImplemented node over (grad, weight); neither has a derivative -------------------------
def _no_second(grad):
    raise NotImplementedError("the derivative for '_embedding_bag_backward' is not implemented.")


def embedding_bag_backward(grad, per_sample_weights, weight, indices, offsets,
                           scale_grad_by_freq, mode, include_last_offset, padding_idx):
    with no_grad():
        psw = None if per_sample_weights is None else _wrap(per_sample_weights)
        return embedding_bag_weight(_wrap(grad), weight, indices, offsets, scale_grad_by_freq,
                                    mode, psw, include_last_offset, padding_idx)._data


def embedding_bag_psw_backward(grad, weight, indices, offsets, scale_grad_by_freq,
                               include_last_offset, padding_idx):
    with no_grad():
        return embedding_bag_per_sample_weights(_wrap(grad), _wrap(weight), indices, offsets,
                                                scale_grad_by_freq, include_last_offset,
                                                padding_idx)._data


EMBEDDING_BAG_BACKWARD = defop(
    "embedding_bag_backward", embedding_bag_backward, inputs=("grad", "per_sample_weights"),
    derivatives={"grad": _no_second, "per_sample_weights": _no_second}, dtype="same",
    grad_fn_name="EmbeddingBagBackwardBackward0", methods=(), functions=(), family=FAMILY)
EMBEDDING_BAG_PSW_BACKWARD = defop(
    "embedding_bag_per_sample_weights_backward", embedding_bag_psw_backward,
    inputs=("grad", "weight"),
    derivatives={"grad": not_implemented_formula("_embedding_bag_per_sample_weights_backward"),
                 "weight": not_implemented_formula("_embedding_bag_per_sample_weights_backward")},
    dtype="same", grad_fn_name="NotImplemented", methods=(), functions=(), family=FAMILY)


def _weight_formula(grad, weight, indices, offsets, scale_grad_by_freq, mode,
                    per_sample_weights, include_last_offset, padding_idx):
    if not _mode.grad_enabled:
        return embedding_bag_weight(grad, weight, indices, offsets, scale_grad_by_freq, mode,
                                    per_sample_weights, include_last_offset, padding_idx)
    return EMBEDDING_BAG_BACKWARD.public(grad, per_sample_weights, weight, indices, offsets,
                                         scale_grad_by_freq, mode, include_last_offset,
                                         padding_idx)


def _psw_formula(grad, weight, indices, offsets, scale_grad_by_freq, include_last_offset,
                 padding_idx):
    if not _mode.grad_enabled:
        return embedding_bag_per_sample_weights(grad, weight, indices, offsets,
                                                scale_grad_by_freq, include_last_offset,
                                                padding_idx)
    return EMBEDDING_BAG_PSW_BACKWARD.public(grad, weight, indices, offsets, scale_grad_by_freq,
                                             include_last_offset, padding_idx)


EMBEDDING_BAG = defop(
    "embedding_bag", embedding_bag, inputs=("weight", "per_sample_weights"),
    derivatives={"weight": _weight_formula, "per_sample_weights": _psw_formula},
    dtype="same", methods=(), functions=(), family=FAMILY, samples=_samples)
