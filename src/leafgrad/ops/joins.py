"""Joining and splitting: cat/stack (and h/v/dstack), split/chunk/unbind.

``split``, ``split_with_sizes`` and ``unbind`` return several views of their input; their node
has one output per piece, and a piece whose gradient never arrives counts as zeros (PyTorch
"materializes" it) before the pieces are joined back.

>>> import leafgrad as torch
>>> x = torch.arange(6.).requires_grad_()
>>> a, b = x.split(4)
>>> a.grad_fn.name(), b.shape
('SplitBackward0', torch.Size([2]))
"""
from __future__ import annotations

import numpy as np

from .iter_layout import (channels_last_like, channels_last_strides, contiguous_result,
                          elem_strides, view_strides, with_strides)
from .numpy_aliases import NA as _NA, dim_keepdim as _aliased
from .registry import Sample, bind_method, defop, export_function
from .shape import at_least, reshape, wrap_dim
from .indexing import narrow
from ..errors import shape_str
from ..tensor import Tensor, _wrap

FAMILY = "shape"

__all__ = ["variable_outputs", "materialize_zeros"]


def variable_outputs(rec):
    """Let ``rec``'s node have as many outputs as its forward returned.

    The registry's ``n_outputs`` is fixed per record (these records pass 2, meaning "several");
    split and unbind make a different number of pieces each call. The node already keeps one ``(shape, dtype)`` per output in
    ``_args``, so its output count is read from there.
    """
    rec.node_class.n_outputs = property(lambda node: len(node._args))
    return rec


def materialize_zeros(grads, metas):
    """Gradients of a multi-output node, with zeros for outputs nobody used."""
    return [g if g is not None else _wrap(np.zeros(shape, dtype))
            for g, (shape, dtype) in zip(grads, metas)]


def _tensor_list_check(name, tensors):
    if isinstance(tensors, Tensor) or not isinstance(tensors, (list, tuple)):
        raise TypeError(f"{name}(): argument 'tensors' (position 1) must be tuple of Tensors, "
                        f"not {type(tensors).__name__}")


# -- cat / stack -------------------------------------------------------------------------
def _legacy_empty(shape) -> bool:
    # PyTorch still skips 1-d empty tensors in cat, whatever the other tensors' shapes.
    return len(shape) == 1 and shape[0] == 0


def cat(tensors, dim=0):
    """Join tensors along an existing dim (dtypes promoted as PyTorch does)."""
    if len(tensors) == 0:
        raise ValueError("torch.cat(): expected a non-empty list of Tensors")
    for i, a in enumerate(tensors):
        if a.ndim == 0:
            raise RuntimeError(f"zero-dimensional tensor (at position {i}) cannot be "
                               "concatenated")
    kept = [a for a in tensors if not _legacy_empty(a.shape)]
    if not kept:
        return np.concatenate(tensors)
    ref = kept[0]
    d = wrap_dim(dim, ref.ndim)
    for i, a in enumerate(tensors):
        if _legacy_empty(a.shape):
            continue
        if a.ndim != ref.ndim:
            raise RuntimeError(f"Tensors must have same number of dimensions: got {ref.ndim} "
                               f"and {a.ndim}")
        for k in range(ref.ndim):
            if k != d and a.shape[k] != ref.shape[k]:
                raise RuntimeError(f"Sizes of tensors must match except in dimension {d}. "
                                   f"Expected size {ref.shape[k]} but got size {a.shape[k]} "
                                   f"for tensor number {i} in the list.")
    out = np.concatenate(kept, axis=d)
    # NumPy lays the result out as its inputs are; PyTorch's is contiguous but for 4-d / 5-d
    # channels-last inputs (their suggest_memory_format), which NumPy's order keeps
    if ref.ndim not in (4, 5) and not out.flags.c_contiguous:
        out = np.ascontiguousarray(out)
    return out


def cat_tensors(grad, tensors_shapes, dim):
    d = wrap_dim(dim, grad.ndim)
    out = []
    offset = 0
    for shape in tensors_shapes:
        if _legacy_empty(shape) and grad.ndim != 1:
            out.append(_wrap(np.zeros((0,), grad._data.dtype)))
            continue
        out.append(narrow(grad, d, offset, shape[d]))
        offset += shape[d]
    return out


def _cat_samples(make, shapes):
    s = at_least(shapes[0], 1)
    return [Sample(([make(s), make(s)],)),
            Sample(([make(s), make(s), make(s)], -1), call="concat"),
            Sample(([make(s), make((2,) + s[1:])], 0), call="concatenate"),
            Sample(([make(at_least(s, 2)), make(at_least(s, 2)[:1] + (1,) + at_least(s, 2)[2:],
                                                 dtype=np.int64)], 1), call="cat")]


def _cat_format(shapes_strides) -> int:
    """The memory format ``cat`` gives its output (PyTorch's
    ``cat_compute_output_memory_format``): the inputs' common suggested format, 4 or 5 for
    channels-last (2-d / 3-d), 0 (contiguous) where one input is contiguous or two differ;
    legacy empty (0,) inputs are skipped."""
    fmt = None
    for shape, strides in shapes_strides:
        if _legacy_empty(shape):
            continue
        f = len(shape) if channels_last_like(shape, strides) else 0
        if f == 0 or (fmt is not None and fmt != f):
            return 0
        fmt = f
    return fmt or 0


def _plain(out, arrays) -> bool:
    """C-contiguous inputs and output, no size-1 dims (so the strides are exact): the
    common case, PyTorch's layout already (such inputs never suggest channels-last)."""
    if not out.flags.c_contiguous or 1 in out.shape:
        return False
    for a in arrays:
        if not a.flags.c_contiguous or 1 in a.shape:
            return False
    return True


def _cat_layout(out, arrays, dim=0):
    """``cat``'s output layout (its ``layout=`` rule): contiguous, or channels-last where
    every input suggests it."""
    if _plain(out, arrays):
        return out
    if _cat_format([(a.shape, elem_strides(a)) for a in arrays]):
        return with_strides(out, channels_last_strides(out.shape))
    return contiguous_result(out)


_cat = defop("cat", cat, inputs=("tensors",), list_input=True,
             derivatives={"tensors": cat_tensors}, methods=(), samples=_cat_samples,
             family=FAMILY, layout=_cat_layout)


def _cat_public(tensors, dim=0, *, axis=_NA, out=None):
    if axis is not _NA:   # Note [NumPy aliases at no cost] (before out=: see with_out)
        dim = _aliased("cat", dim, 0, False, axis, _NA)[0]
    _tensor_list_check("cat", tensors)
    if len(tensors) == 0:
        raise ValueError("torch.cat(): expected a non-empty list of Tensors")
    return _cat.public(tensors, dim)


for _name in ("cat", "concat", "concatenate"):
    export_function(_name, _cat_public)


def stack(tensors, dim=0):
    """Join tensors along a new dim."""
    if len(tensors) == 0:
        raise RuntimeError("stack expects a non-empty TensorList")
    ref = tensors[0].shape
    axis = wrap_dim(dim, len(ref) + 1)   # PyTorch wraps dim before comparing the shapes
    for i, a in enumerate(tensors):
        if a.shape != ref:
            raise RuntimeError(f"stack expects each tensor to be equal size, but got "
                               f"{shape_str(ref)} at entry 0 and {shape_str(a.shape)} at "
                               f"entry {i}")
    return np.stack(tensors, axis=axis)


def stack_tensors(grad, tensors_shapes, dim):
    d = wrap_dim(dim, grad.ndim)
    return [grad.select(d, i) for i in range(len(tensors_shapes))]


def _stack_samples(make, shapes):
    s = shapes[0]
    return [Sample(([make(s), make(s)],)), Sample(([make(s), make(s), make(s)], -1)),
            Sample(([make(s), make(s, dtype=np.int64)], len(s)))]


def _stack_layout(out, arrays, dim=0):
    """``stack``'s output layout (its ``layout=`` rule): PyTorch's stack is ``cat`` along
    ``dim`` viewed to the new shape, or, stacking on a new last dim, ``cat`` of the inputs
    unsqueezed there."""
    if _plain(out, arrays):
        return out
    ref = arrays[0]
    axis = wrap_dim(dim, ref.ndim + 1)
    if axis < ref.ndim:
        cat_shape = ref.shape[:axis] + (ref.shape[axis] * len(arrays),) + ref.shape[axis + 1:]
        fmt = _cat_format([(a.shape, elem_strides(a)) for a in arrays])
    else:
        cat_shape = ref.shape + (len(arrays),)
        fmt = _cat_format([(a.shape + (1,), elem_strides(a) + (1,)) for a in arrays])
    if not fmt:
        return contiguous_result(out)
    strides = view_strides(cat_shape, channels_last_strides(cat_shape), out.shape)
    return with_strides(out, strides) if strides is not None else contiguous_result(out)


_stack = defop("stack", stack, inputs=("tensors",), list_input=True,
               derivatives={"tensors": stack_tensors}, methods=(), samples=_stack_samples,
               family=FAMILY, layout=_stack_layout)


def _stack_public(tensors, dim=0, *, axis=_NA, out=None):
    if axis is not _NA:   # Note [NumPy aliases at no cost] (before out=: see with_out)
        dim = _aliased("stack", dim, 0, False, axis, _NA)[0]
    _tensor_list_check("stack", tensors)
    if len(tensors) == 0:
        raise RuntimeError("stack expects a non-empty TensorList")
    return _stack.public(tensors, dim)


export_function("stack", _stack_public)


def atleast_1d(*tensors):
    """0-d tensors become 1-d (a reshape); others pass through."""
    return _each(tensors, lambda t: reshape(t, (1,)) if t.ndim == 0 else t)


def atleast_2d(*tensors):
    return _each(tensors, lambda t: t.unsqueeze(0) if t.ndim == 1 else
                 reshape(t, (1, 1)) if t.ndim == 0 else t)


def atleast_3d(*tensors):
    def lift(t):
        if t.ndim == 0:
            return reshape(t, (1, 1, 1))
        if t.ndim == 1:
            return t.unsqueeze(0).unsqueeze(-1)
        if t.ndim == 2:
            return t.unsqueeze(-1)
        return t
    return _each(tensors, lift)


def _each(tensors, fn):
    if len(tensors) == 1 and isinstance(tensors[0], Tensor):
        return fn(tensors[0])
    if len(tensors) == 1:
        tensors = tensors[0]
    return tuple(fn(t) for t in tensors)


def hstack(tensors, *, out=None):
    """Concatenate along dim 1 (dim 0 for 1-d tensors)."""
    _tensor_list_check("hstack", tensors)
    ts = atleast_1d(tuple(tensors))
    return _cat.public(list(ts), 0 if ts and ts[0].ndim == 1 else 1)


def vstack(tensors, *, out=None):
    """Concatenate along dim 0 after making every tensor at least 2-d."""
    _tensor_list_check("vstack", tensors)
    return _cat.public(list(atleast_2d(tuple(tensors))), 0)


def dstack(tensors, *, out=None):
    """Concatenate along dim 2 after making every tensor at least 3-d."""
    _tensor_list_check("dstack", tensors)
    return _cat.public(list(atleast_3d(tuple(tensors))), 2)


for _fn in (atleast_1d, atleast_2d, atleast_3d, hstack, vstack, dstack):
    export_function(_fn.__name__, _fn)
export_function("row_stack", vstack)


# -- split / chunk / unbind ---------------------------------------------------------------
def _pieces(a, sizes, d):
    out = []
    start = 0
    index = [slice(None)] * a.ndim
    for s in sizes:
        index[d] = slice(start, start + s)
        out.append(a[tuple(index)])
        start += s
    return out


def split_op(self, split_size, dim=0):
    """Pieces of ``split_size`` along ``dim`` (the last may be shorter); views."""
    if self.ndim == 0:
        raise RuntimeError("split expects at least a 1-dimensional tensor")
    d = wrap_dim(dim, self.ndim)
    n = self.shape[d]
    if split_size < 0:
        raise RuntimeError(f"split expects split_size be non-negative, but got "
                           f"split_size={split_size}")
    if split_size == 0 and n != 0:
        raise RuntimeError(f"split_size can only be 0 if dimension size is 0, but got "
                           f"dimension size of {n}")
    count = max((n + split_size - 1) // split_size, 1) if split_size else 1
    sizes = [split_size] * (count - 1) + [n - split_size * (count - 1)]
    return _pieces(self, sizes, d)


def split_self(grads, dim):
    return _cat.public(grads, dim)


_split = variable_outputs(defop(
    "split", split_op, derivatives={"self": split_self}, dtype="same", view=True,
    n_outputs=2, materialize=materialize_zeros, methods=(), functions=(), family=FAMILY,
    samples=lambda make, shapes: [Sample((make(at_least(shapes[0], 1)), 2), call="split"),
                                  Sample((make(at_least(shapes[0], 1)), 1, -1),
                                         call="Tensor.split")]))


def split_with_sizes_op(self, split_sizes, dim=0):
    """Pieces of the given sizes along ``dim``; views."""
    if self.ndim == 0:
        raise RuntimeError("split expects at least a 1-dimensional tensor")
    d = wrap_dim(dim, self.ndim)
    sizes = [int(s) for s in split_sizes]
    if any(s < 0 for s in sizes):
        raise RuntimeError(f"split_with_sizes expects split_sizes have only non-negative "
                           f"entries, but got split_sizes={shape_str(sizes)}")
    if sum(sizes) != self.shape[d]:
        raise RuntimeError(f"split_with_sizes expects split_sizes to sum exactly to "
                           f"{self.shape[d]} (input tensor's size at dimension {d}), but got "
                           f"split_sizes={shape_str(sizes)}")
    return _pieces(self, sizes, d)


def _split_sizes_samples(make, shapes):
    s = at_least(shapes[0], 1)
    return [Sample((make(s), [1, s[0] - 1]), call="Tensor.split"),
            Sample((make(s), [s[-1]], -1), call="split")]


_split_sizes = variable_outputs(defop(
    "split_with_sizes", split_with_sizes_op, derivatives={"self": split_self}, dtype="same",
    view=True, n_outputs=2, materialize=materialize_zeros, samples=_split_sizes_samples,
    family=FAMILY))


def split(self, split_size_or_sections, dim=0):
    """``split(2)``: pieces of 2; ``split([1, 3])``: pieces of those sizes."""
    if isinstance(split_size_or_sections, (list, tuple)):
        return _split_sizes.public(self, tuple(split_size_or_sections), dim)
    return _split.public(self, int(split_size_or_sections), dim)


def chunk(self, chunks, dim=0, *, axis=_NA):
    """At most ``chunks`` pieces of equal size (the last may be smaller)."""
    if axis is not _NA:   # Note [NumPy aliases at no cost]
        dim = _aliased("chunk", dim, 0, False, axis, _NA)[0]
    if self._data.ndim == 0:
        raise RuntimeError("chunk expects at least a 1-dimensional tensor")
    if chunks <= 0:
        raise RuntimeError(f"chunk expects `chunks` to be greater than 0, got: {chunks}")
    n = self._data.shape[wrap_dim(dim, self._data.ndim)]
    size = (n + chunks - 1) // chunks
    if size == 0 and n == 0:
        return _split_sizes.public(self, (0,) * chunks, dim)
    return _split.public(self, size, dim)


bind_method("split", split)
export_function("split", split)
bind_method("chunk", chunk)
export_function("chunk", chunk)


def unbind_op(self, dim=0):
    """The slices along ``dim``, each a view without that dim."""
    d = wrap_dim(dim, self.ndim)   # a 0-d tensor takes dims -1 and 0 before refusing
    if self.ndim == 0:
        raise IndexError("Dimension specified as 0 but tensor has no dimensions")
    index = [slice(None)] * self.ndim
    out = []
    for i in range(self.shape[d]):
        index[d] = i
        out.append(self[tuple(index) + (Ellipsis,)])   # a 0-d view, not a copy
    return out


def unbind_self(grads, dim):
    return _stack.public(grads, dim)


_unbind = variable_outputs(defop(
    "unbind", unbind_op, derivatives={"self": unbind_self}, dtype="same", view=True,
    n_outputs=2, materialize=materialize_zeros, methods=(), functions=(), family=FAMILY,
    samples=lambda make, shapes: [Sample((make(at_least(shapes[0], 1)),), call="unbind"),
                                  Sample((make(at_least(shapes[0], 1)), -1),
                                         call="Tensor.unbind")]))


def unbind(self, dim=0, *, axis=_NA):
    """The slices along ``dim`` as a tuple of views (empty for a size-0 dim)."""
    if axis is not _NA:   # Note [NumPy aliases at no cost]
        dim = _aliased("unbind", dim, 0, False, axis, _NA)[0]
    data = self._data
    if data.ndim and data.shape[wrap_dim(dim, data.ndim)] == 0:
        return ()
    return _unbind.public(self, dim)


bind_method("unbind", unbind)
export_function("unbind", unbind)
