"""Gradients brought back to an input's shape and dtype: ``sum_to`` (the inverse of
broadcasting) and ``_conform`` (what ``OpNode.apply`` runs on each input's gradient)."""
from __future__ import annotations

import numpy as np

from .. import dtypes as _dt
from .. import errors
from ..grad_mode import state as _mode
from ..tensor import _wrap

__all__ = ["sum_to", "fit_to", "note_reshaped", "check_reshaped"]


def _conform(g, meta, node=None, index=0):
    """Reduce a broadcast gradient to the input's shape and cast it to the input's dtype.
    A gradient that is no broadcast of the input's shape is PyTorch's engine error (scatter's
    src gradient when src is larger than index)."""
    if meta is None:
        return g
    shape, np_dtype = meta
    gshape = g._data.shape
    if ANY_RESHAPED and node is not None:   # the shape its node expects (Note [Reshaped ...])
        shape = reshaped_target(node._edges[index], shape)
    if gshape != shape:
        lead = len(gshape) - len(shape)   # (only leading dims added: a bias, without any())
        if lead < 0 or (gshape[lead:] != shape and any(
                s != t and s != 1 for s, t in zip(reversed(shape), reversed(gshape)))):
            calls = getattr(node, "_calls", None)
            if calls is not None:   # counted among next_functions (differentiable inputs)
                index = sum(1 for c in calls[:index] if c is not None)
            raise RuntimeError(
                f"Function {node.name() if node is not None else 'backward'} returned an "
                f"invalid gradient at index {index} - got {errors.shape_str(gshape)} but "
                f"expected shape compatible with {errors.shape_str(shape)}")
        g = sum_to(g, shape)
    if g._data.dtype != np_dtype:
        g = g.to(_dt.from_numpy_dtype(np_dtype))
    return g


def fit_to(g, shape, name, index):
    """``g`` summed to ``shape`` if ``shape`` broadcasts to g's; else PyTorch's engine error for
    node ``name``'s gradient at ``index``. For formulas whose result may miss the input's shape
    where the engine's own check is skipped (every input had the result's shape)."""
    gshape = g._data.shape
    if gshape == shape:
        return g
    if len(shape) > len(gshape) or any(
            s != t and s != 1 for s, t in zip(reversed(shape), reversed(gshape))):
        raise RuntimeError(
            f"Function {name} returned an invalid gradient at index {index} - got "
            f"{errors.shape_str(gshape)} but expected shape compatible with "
            f"{errors.shape_str(shape)}")
    return sum_to(g, shape)


# Note [Reshaped outputs]
# PyTorch's engine checks every gradient it hands to a node against the shape that node's
# output had when the node was made (its input_metadata): the root gradients (the error then
# has no "Function X returned an" prefix) and every node's results. leafgrad checks a node's
# results against its own inputs' shapes instead, the same thing unless a tensor changed its
# shape while keeping its grad_fn: an in-place view (squeeze_, unsqueeze_, t_, transpose_)
# under no_grad. Such a node notes it in its ``_reshaped_shapes``, {output_nr: shape when
# made}; the engine checks the gradients it delivers to them (sums a broadcast one down,
# raises otherwise).
# ``_conform`` sums a node's result for such an input to that shape at once, as PyTorch's
# engine does (a broadcast result is summed to the shape the receiving node expects, not to
# the shape the input had in the forward).
ANY_RESHAPED = False   # True once a node was noted (then the checks run)


def note_reshaped(tensor) -> None:
    """``tensor`` (a non-leaf) is about to change its shape but keep its grad_fn."""
    global ANY_RESHAPED
    node = tensor._grad_fn
    if node is not None:
        ANY_RESHAPED = True
        shapes = node.__dict__.setdefault("_reshaped_shapes", {})
        shapes.setdefault(tensor._output_nr, tensor._data.shape)


def reshaped_target(edge, shape):
    """The shape the node at ``edge`` (``(fn, nr)``) expects, if its output was reshaped
    (Note [Reshaped outputs]); else ``shape``."""
    shapes = getattr(edge[0], "_reshaped_shapes", None)
    if shapes is None:
        return shape
    return shapes.get(edge[1], shape)


def check_reshaped(node, nr, g, prefix, index):
    """``g`` for output ``nr`` of ``node`` checked as PyTorch's validate_outputs: summed down
    to the shape the output had, or its error (``prefix``: "Function X returned an ", or ""
    for a root gradient)."""
    shapes = getattr(node, "_reshaped_shapes", None)
    shape = None if shapes is None else shapes.get(nr)
    if shape is None or g is None:
        return g
    gshape = g._data.shape
    if gshape == shape:
        return g
    if len(shape) > len(gshape) or any(
            s != t and s != 1 for s, t in zip(reversed(shape), reversed(gshape))):
        msg = (f"invalid gradient at index {index} - got {errors.shape_str(gshape)} but "
               f"expected shape compatible with {errors.shape_str(shape)}")
        raise RuntimeError(prefix + msg if prefix else msg)
    return sum_to(g, shape)


def sum_to(g, shape):
    """Sum ``g`` down to ``shape`` (the inverse of broadcasting), with recorded ops."""
    gshape = g._data.shape
    lead = len(gshape) - len(shape)
    if lead > 0 and gshape[lead:] == shape:   # only leading dims to sum (a bias)
        dims = tuple(range(lead))
        if not _mode.grad_enabled and g._data.dtype.kind == "f":
            global _sum_like_torch
            if _sum_like_torch is None:
                from ..ops.cascade_sum import sum_like_torch as _sum_like_torch
            d = g._data
            out = _sum_like_torch(d, dims, False)
            return _wrap(np.sum(d, axis=dims) if out is None else out)
    else:
        dims = tuple(range(lead)) + tuple(
            lead + i for i, s in enumerate(shape) if s == 1 and gshape[lead + i] != 1)
    if not _mode.grad_enabled and g._data.dtype.kind == "f":
        # Without create_graph nothing is recorded: what the sum record's NumPy forward
        # (sum_dim) runs for these dims, already sorted and in range (PyTorch's summation
        # order, else NumPy's sum), and a reshape, without two trips through the dispatcher
        # (the bias gradient of every nn.Linear comes this way). Imported here: ops is a
        # layer above.
        if _sum_like_torch is None:
            from ..ops.cascade_sum import sum_like_torch as _sum_like_torch
        d = g._data
        if dims:
            out = _sum_like_torch(d, dims, True)
            d = np.sum(d, axis=dims, keepdims=True) if out is None else out
        elif not shape and type(d) is not np.ndarray:
            d = np.array(d)   # PyTorch sums to (): a zero tensor's sum is an ordinary tensor
        if lead or d.shape != shape:
            d = d.reshape(shape)
        return _wrap(d)
    if not shape:   # PyTorch sums down to a 0-d shape in one full sum (SumBackward0), always
        return g.sum()
    if dims:
        g = g.sum(dims, keepdim=True)
    if lead or g._data.shape != shape:
        g = g.reshape(shape)
    return g


_sum_like_torch = None
