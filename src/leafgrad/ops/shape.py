"""Shape ops that are views in PyTorch: reshape/view, transpose/permute, (un)squeeze, expand.

Every record here has ``view=True`` where PyTorch's op is a view, so the result shares its
base's storage and version counter. Backward formulas are again views or reductions written
with leafgrad ops, so higher derivatives work.

Note [Which grad_fn a shape op records]
PyTorch's ``grad_fn`` tells how a result was made, and code (and tests) look at it. ``reshape``
is a ``view`` (ViewBackward0) when the strides allow one, else a contiguous ``clone``
(CloneBackward0) followed by ``_unsafe_view`` (UnsafeViewBackward0); ``flatten`` and
``contiguous`` return ``self`` itself when there is nothing to do; ``squeeze`` records
SqueezeBackward0/1/2 for no dim / one dim / a tuple of dims. The public wrappers below make
these choices and call one record each.

>>> import leafgrad as torch
>>> x = torch.zeros(2, 3, requires_grad=True)
>>> x.t().reshape(6).grad_fn.name()
'UnsafeViewBackward0'
"""
from __future__ import annotations

from operator import index as _index

import numpy as np

from .dispatch import stale_first
from .numpy_aliases import NA as _NA, dim_keepdim as _aliased
from .registry import Sample, bind_method, defop, export_function
from ..autograd.graph import sum_to
from ..errors import shape_str
from ..tensor import _wrap, _wrap_dim
from ..grad_mode import state as _mode

FAMILY = "shape"

__all__ = ["size_arg", "dims_arg", "wrap_dim", "at_least"]

wrap_dim = _wrap_dim


def size_arg(shape) -> tuple:
    """``f(2, 3)``, ``f((2, 3))`` and ``f([2, 3])`` all mean the sizes ``(2, 3)``."""
    if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
        shape = shape[0]
    try:
        # operator.index, not int: PyTorch refuses 2.0 and "2" as sizes (TypeError)
        return tuple(_index(s) for s in shape)
    except TypeError:
        raise TypeError(f"sizes must be a tuple of ints, not "
                        f"({', '.join(type(s).__name__ for s in shape)})") from None


def dims_arg(dims, ndim: int, what_repeats: str = "dim {} appears multiple times in the "
             "list of dims") -> tuple:
    """A list of dims, each wrapped, refusing repeats (PyTorch's message)."""
    out = []
    for d in dims:
        d = _wrap_dim(d, ndim)
        if d in out:
            raise RuntimeError(what_repeats.format(d))
        out.append(d)
    return tuple(out)


def at_least(shape, ndim: int) -> tuple:
    """A sample shape with at least ``ndim`` dims (Hypothesis may draw 0-d shapes)."""
    shape = tuple(shape)
    return (3,) * (ndim - len(shape)) + shape if len(shape) < ndim else shape


def _infer(shape, numel: int) -> tuple:
    """Resolve one ``-1`` in a target shape, with PyTorch's messages."""
    shape = [int(s) for s in shape]
    infer = None
    known = 1
    for i, s in enumerate(shape):
        if s == -1:
            if infer is not None:
                raise RuntimeError("only one dimension can be inferred")
            infer = i
        elif s < 0:
            raise RuntimeError(f"invalid shape dimension {s} at index {i} of shape "
                               f"{shape_str(shape)}")
        else:
            known *= s
    if infer is not None:
        if known == 0:
            raise RuntimeError(f"cannot reshape tensor of 0 elements into shape "
                               f"{shape_str(shape)} because the unspecified dimension size "
                               "-1 can be any value and is ambiguous")
        if numel % known == 0:
            shape[infer] = numel // known
            return tuple(shape)
    elif known == numel:
        return tuple(shape)
    raise RuntimeError(f"shape '{shape_str(shape)}' is invalid for input of size {numel}")


def _try_view(a: np.ndarray, shape: tuple):
    """``a`` with a new shape without copying, or None when the strides do not allow it."""
    out = a.view()
    try:
        out.shape = shape
    except AttributeError:
        return None
    return out


# -- view / reshape ----------------------------------------------------------------------
def view_op(self, size):
    """A view with a new shape; errors when the strides do not allow it (as PyTorch)."""
    out = _try_view(self, _infer(size, self.size))
    if out is None:
        raise RuntimeError("view size is not compatible with input tensor's size and stride "
                           "(at least one dimension spans across two contiguous subspaces). "
                           "Use .reshape(...) instead.")
    return out


def view_self(grad, self_shape):
    return grad.reshape(self_shape)


def _view_samples(make, shapes):
    s = shapes[0]
    n = int(np.prod(s))
    return [Sample((make(s), (n,)), call="Tensor.view"),
            Sample((make(s), (-1, 1)), call="Tensor.view"),
            Sample((make(s), (1, n)), call="reshape"),
            Sample((make(s), -1), call="Tensor.reshape")]


_view = defop("view", view_op, derivatives={"self": view_self}, dtype="same", view=True,
              methods=(), functions=(), samples=_view_samples, family=FAMILY)


# reshape of a non-contiguous tensor whose strides allow a view: PyTorch's _reshape_alias
_reshape_alias = defop("reshape_alias", view_op, derivatives={"self": view_self}, dtype="same",
                       view=True, methods=(), functions=(), grad_fn_name="ReshapeAliasBackward0",
                       family=FAMILY)   # tested in tests/autograd/test_views_double_backward.py


def unsafe_view_op(self, size):
    """The reshape of a fresh contiguous copy (what ``reshape`` does when it must copy)."""
    return self.reshape(size)


_unsafe_view = defop("_unsafe_view", unsafe_view_op, derivatives={"self": view_self},
                     dtype="same", methods=(), functions=(), family=FAMILY)


def clone_contiguous_op(self):
    """A C-contiguous copy (``clone(memory_format=torch.contiguous_format)``)."""
    return np.array(self, order="C")


def clone_self(grad):
    return grad


_clone_contiguous = defop("clone_contiguous", clone_contiguous_op,
                          derivatives={"self": clone_self}, dtype="same",
                          grad_fn_name="CloneBackward0", methods=(), functions=(),
                          family=FAMILY)


def view(self, *shape):
    """``self.view(*shape)``: a view with a new shape (same storage)."""
    if len(shape) == 1 and not isinstance(shape[0], (tuple, list, int)):
        from ..dtypes import to_dtype
        raise NotImplementedError(f"view(dtype) is not supported by leafgrad "
                                  f"({to_dtype(shape[0])})")
    return _view.public(self, size_arg(shape))


def reshape(self, *shape):
    """A view when the strides allow it, else a contiguous copy (see Note above)."""
    data = self._data
    try:
        target = _infer(size_arg(shape), data.size)
    except RuntimeError:
        stale_first(_view, (self,))   # PyTorch's view check comes first
        raise
    if _try_view(data, target) is not None:
        # PyTorch: a view of a contiguous tensor, else an alias with the computed strides
        return (_view if data.flags.c_contiguous else _reshape_alias).public(self, target)
    return _unsafe_view.public(_clone_contiguous.public(self), target)


def view_as(self, other):
    """``self.view(other.size())``."""
    return view(self, tuple(other.shape))


def reshape_as(self, other):
    """``self.reshape(other.size())``."""
    return reshape(self, tuple(other.shape))


def contiguous(self, memory_format=None):
    """``self`` if already C-contiguous, else a contiguous copy (CloneBackward0)."""
    if self._data.flags.c_contiguous:
        return self
    return _clone_contiguous.public(self)


def flatten(self, start_dim=0, end_dim=-1):
    """Merge dims ``start_dim..end_dim`` into one (``self`` itself when nothing merges)."""
    shape = self._data.shape
    if len(shape) == 0:
        _wrap_dim(start_dim, 1), _wrap_dim(end_dim, 1)   # dims -1 and 0 only
        return reshape(self, (1,))
    start, end = _wrap_dim(start_dim, len(shape)), _wrap_dim(end_dim, len(shape))
    if start > end:
        raise RuntimeError("flatten() has invalid args: start_dim cannot come after end_dim")
    if start == end:
        return self
    n = 1
    for s in shape[start:end + 1]:
        n *= s
    return reshape(self, shape[:start] + (n,) + shape[end + 1:])


def unflatten(self, dim, sizes):
    """Split dim ``dim`` into ``sizes`` (one may be -1)."""
    shape = self._data.shape
    sizes = [int(s) for s in sizes]
    if not sizes:
        raise RuntimeError("unflatten: sizes must be non-empty")
    d = _wrap_dim(dim, max(len(shape), 1))
    if not shape:   # PyTorch: the wrapped dim fails again, reported as a RuntimeError
        raise RuntimeError(f"unflatten got an unexpected error:\nDimension specified as "
                           f"{d} but tensor has no dimensions")
    # PyTorch's infer_size, its errors passed on as "unflatten got an unexpected error"
    unexpected = "unflatten got an unexpected error:\n"
    known, infer = 1, None
    for i, s in enumerate(sizes):
        if s == -1:
            if infer is not None:
                raise RuntimeError(unexpected + "only one dimension can be inferred")
            infer = i
        elif s >= 0:
            known *= s
        else:
            raise RuntimeError(unexpected + f"invalid shape dimension {s} at index {i} of "
                               f"shape {shape_str(sizes)}")
    if not (known == shape[d] or (infer is not None and known > 0 and shape[d] % known == 0)):
        raise RuntimeError(f"unflatten: Provided sizes {shape_str(sizes)} don't multiply up "
                           f"to the size of dim {dim} ({shape[d]}) in the input tensor")
    if infer is not None and known == 0:
        raise RuntimeError(unexpected + f"cannot reshape tensor of 0 elements into shape "
                           f"{shape_str(sizes)} because the unspecified dimension size -1 can "
                           f"be any value and is ambiguous")
    if -1 in sizes:
        sizes[sizes.index(-1)] = shape[d] // known
    return _view.public(self, shape[:d] + tuple(sizes) + shape[d + 1:])


def ravel(self):
    """A 1-d view of a contiguous ``self``, else of a contiguous copy."""
    return _view.public(contiguous(self), (self._data.size,))


for _name, _fn in (("view", view), ("reshape", reshape), ("contiguous", contiguous),
                   ("flatten", flatten), ("unflatten", unflatten), ("ravel", ravel),
                   ("view_as", view_as), ("reshape_as", reshape_as)):
    bind_method(_name, _fn)


def _reshape_fn(input, shape):
    return reshape(input, tuple(shape))


export_function("reshape", _reshape_fn)
export_function("flatten", flatten)
export_function("unflatten", unflatten)
export_function("ravel", ravel)


# -- transpose / permute -----------------------------------------------------------------
def transpose_op(self, dim0, dim1):
    """Swap two dims (a view)."""
    n = self.ndim
    dim0, dim1 = _wrap_dim(dim0, n), _wrap_dim(dim1, n)
    return np.swapaxes(self, dim0, dim1) if n else self.view()


def transpose_self(grad, dim0, dim1):
    return grad.transpose(dim0, dim1)


def _transpose_samples(make, shapes):
    s = at_least(shapes[0], 2)
    return [Sample((make(s), 0, -1)), Sample((make(s), 1, 0), call="Tensor.swapaxes"),
            Sample((make(s), -1, -2), call="swapdims")]


defop("transpose", transpose_op, derivatives={"self": transpose_self}, dtype="same", view=True,
      methods=("transpose", "swapaxes", "swapdims"),
      functions=("transpose", "swapaxes", "swapdims"), samples=_transpose_samples,
      family=FAMILY)


def t_op(self):
    """Transpose a matrix; 0-d and 1-d tensors come back unchanged (as views)."""
    if self.ndim > 2:
        raise RuntimeError(f"t() expects a tensor with <= 2 dimensions, but self is "
                           f"{self.ndim}D")
    return self.T


def t_self(grad):
    if not _mode.grad_enabled:
        # Note [Plain NumPy without create_graph] in ops/linalg.py: nn.Linear's weight.t()
        # runs this once per step; the transposed array, without a trip through the dispatcher
        return _wrap(grad._data.T)
    return grad.t()


defop("t", t_op, derivatives={"self": t_self}, dtype="same", view=True, family=FAMILY,
      samples=lambda make, shapes: [Sample((make(shapes[0][:2]),))])


def permute_op(self, dims):
    """Reorder dims (a view)."""
    n = self.ndim
    if len(dims) != n:
        raise RuntimeError("permute(sparse_coo): number of dimensions in the tensor input "
                           "does not match the length of the desired ordering of dimensions "
                           f"i.e. input.dim() = {n} is not equal to len(dims) = {len(dims)}")
    return np.transpose(self, dims_arg(dims, n, "permute(): duplicate dims are not allowed."))


def permute_self(grad, dims):
    n = len(dims)
    inverse = [0] * n
    for i, d in enumerate(dims):
        inverse[d % n] = i
    return grad.permute(inverse)


def _permute_samples(make, shapes):
    s = shapes[0]
    dims = tuple(range(len(s) - 1, -1, -1))
    s1 = at_least(s, 1)
    rolled = tuple(range(1, len(s1))) + (0,)
    return [Sample((make(s), dims)), Sample((make(s1),) + rolled, call="Tensor.permute")]


_permute = defop("permute", permute_op, derivatives={"self": permute_self}, dtype="same",
                 view=True, methods=(), samples=_permute_samples, family=FAMILY)


def permute(self, *dims):
    """``self.permute(2, 0, 1)`` or ``self.permute((2, 0, 1))``."""
    if not dims:
        raise TypeError('permute() missing 1 required positional arguments: "dims"')
    return _permute.public(self, size_arg(dims))


def movedim(self, source, destination):
    """Move dims ``source`` to positions ``destination`` (a permute)."""
    n = self._data.ndim
    src = [source] if isinstance(source, int) else list(source)
    dst = [destination] if isinstance(destination, int) else list(destination)
    if len(src) != len(dst):
        raise RuntimeError(f"movedim: Invalid source or destination dims: source "
                           f"({shape_str(src)} dims) should contain the same number of dims "
                           f"as destination ({shape_str(dst)} dims)")
    src_w = [_wrap_dim(d, n) for d in src]
    dst_w = [_wrap_dim(d, n) for d in dst]
    for name, given, wrapped in (("source", src, src_w), ("destination", dst, dst_w)):
        if len(set(wrapped)) != len(wrapped):
            raise RuntimeError(f"movedim: repeated dim in `{name}` ({shape_str(given)})")
    if n == 0:   # a 0-d tensor: nothing moves; PyTorch answers with an alias (AliasBackward0)
        from .indexing import _alias
        return _alias.public(self)
    order = [None] * n
    for s, d in zip(src_w, dst_w):
        order[d] = s
    rest = iter(d for d in range(n) if d not in src_w)
    order = [next(rest) if o is None else o for o in order]
    return _permute.public(self, tuple(order))


bind_method("permute", permute)
for _name in ("movedim", "moveaxis"):
    bind_method(_name, movedim)
    export_function(_name, movedim)


# -- unsqueeze / squeeze -----------------------------------------------------------------
def unsqueeze_op(self, dim):
    """A view with a new size-1 dim at ``dim``, whose stride is PyTorch's (the next dim's
    extent, 1 at the end): NumPy's can differ for a strided input."""
    d = _wrap_dim(dim, self.ndim + 1)
    out = np.expand_dims(self, d)
    if self.flags.c_contiguous:
        return out   # (NumPy's stride is PyTorch's)
    st = self.strides
    want = self.itemsize if d >= self.ndim else self.shape[d] * st[d]
    if out.strides[d] != want:
        out = np.lib.stride_tricks.as_strided(self, out.shape, st[:d] + (want,) + st[d:])
    return out


def unsqueeze_self(grad, dim):
    return grad.squeeze(dim)


defop("unsqueeze", unsqueeze_op, derivatives={"self": unsqueeze_self}, dtype="same",
      view=True, family=FAMILY,
      samples=lambda make, shapes: [Sample((make(shapes[0]), 0)),
                                    Sample((make(shapes[0]), -1))])


def squeeze_all_op(self):
    """Drop every size-1 dim (a view)."""
    return np.squeeze(self) if self.ndim else self.view()


def squeeze_dims_op(self, dim):
    """Drop the listed dims that have size 1 (a view)."""
    n = self.ndim
    dims = dims_arg(dim, n) if isinstance(dim, (tuple, list)) else (_wrap_dim(dim, n),)
    if not n:
        return self.view()
    return np.squeeze(self, tuple(d for d in dims if self.shape[d] == 1))


def squeeze_self(grad, self_shape):
    # PyTorch's unsqueeze_to(grad, sizes): one unsqueeze per size-1 dim (UnsqueezeBackward0
    # under create_graph; the gradient itself when none); a reshape when nothing records
    if not _mode.grad_enabled:
        return grad.reshape(self_shape)
    for d, n in enumerate(self_shape):
        if n == 1:
            grad = grad.unsqueeze(d)
    return grad


def squeeze_dims_self(grad, self_shape, dim):
    # PyTorch's unsqueeze_to(grad, dim, sizes): only the named dims of size 1
    if not _mode.grad_enabled:
        return grad.reshape(self_shape)
    n = len(self_shape)
    if not n:
        return grad
    dims = set(dims_arg(dim, n)) if isinstance(dim, (tuple, list)) else {_wrap_dim(dim, n)}
    for d in range(n):
        if d in dims and self_shape[d] == 1:
            grad = grad.unsqueeze(d)
    return grad


def _squeeze_samples(make, shapes):
    s = shapes[1]
    s2 = at_least(s, 2)
    return [Sample((make(s),), call="squeeze"), Sample((make(s), 0), call="squeeze"),
            Sample((make(s2), (0, -1)), call="Tensor.squeeze"),
            Sample((make(s), (0,)), call="Tensor.squeeze")]


_squeeze0 = defop("squeeze", squeeze_all_op, derivatives={"self": squeeze_self}, dtype="same",
                  view=True, methods=(), functions=(), samples=_squeeze_samples, family=FAMILY)
_squeeze1 = defop("squeeze_dim", squeeze_dims_op, derivatives={"self": squeeze_dims_self},
                  dtype="same", view=True, grad_fn_name="SqueezeBackward1", methods=(),
                  functions=(), family=FAMILY)
_squeeze2 = defop("squeeze_dims", squeeze_dims_op, derivatives={"self": squeeze_dims_self},
                  dtype="same", view=True, grad_fn_name="SqueezeBackward2", methods=(),
                  functions=(), family=FAMILY)


def squeeze(self, dim=None, *, axis=_NA):
    """Drop size-1 dims: all of them, one ``dim``, or a tuple of dims."""
    if axis is not _NA:   # Note [NumPy aliases at no cost]
        dim = _aliased("squeeze", dim, None, False, axis, _NA)[0]
    if dim is None:
        return _squeeze0.public(self)
    if isinstance(dim, (tuple, list)):
        return _squeeze2.public(self, tuple(dim))
    return _squeeze1.public(self, dim)


bind_method("squeeze", squeeze)
export_function("squeeze", squeeze)


# -- expand / broadcast --------------------------------------------------------------------
def _type_string(dtype):
    """PyTorch's name of a tensor type in messages: torch.FloatTensor, but CPUBoolType (bool
    has no legacy tensor class)."""
    if dtype == np.bool_:
        return "CPUBoolType"
    from ..dtypes import from_numpy_dtype
    return f"torch.{from_numpy_dtype(dtype).tensor_type}"


def expand_op(self, size):
    """Broadcast to ``size`` without copying (-1 keeps a dim); read-only like PyTorch's."""
    shape = self.shape
    nd = len(shape)
    if len(size) < nd:
        from ..dtypes import from_numpy_dtype
        raise RuntimeError(
            f"expand({_type_string(self.dtype)}{{{shape_str(shape)}}}, "
            f"size={shape_str(size)}): the number of sizes provided ({len(size)}) must be "
            f"greater or equal to the number of dimensions in the tensor ({nd})")
    lead = len(size) - nd
    target = [0] * len(size)
    for i in reversed(range(len(size))):     # PyTorch checks from the last dim
        s = size[i]
        if i < lead:
            if s < 0:
                raise RuntimeError(f"The expanded size of the tensor ({s}) isn't allowed in a "
                                   f"leading, non-existing dimension {i}")
        else:
            have = shape[i - lead]
            if s == -1:
                s = have
            elif have != 1 and have != s:
                raise RuntimeError(
                    f"The expanded size of the tensor ({s}) must match the existing size "
                    f"({have}) at non-singleton dimension {i}.  Target sizes: "
                    f"{shape_str(size)}.  Tensor sizes: {shape_str(shape)}")
        target[i] = s
    out = np.broadcast_to(self, tuple(target))
    if 1 in target and nd and out.size:
        # NumPy gives size-1 dims stride 0; PyTorch keeps the input's stride there and gives a
        # new leading size-1 dim the stride over the next dim (a 0-d input: all 0). The
        # overlap checks of a write compare these strides (``a[-1] = b`` for two
        # ``meshgrid`` grids of one 0-d tensor is refused; seed 120).
        strides = list(out.strides)
        for i in range(len(target) - 1, -1, -1):
            if target[i] == 1:
                strides[i] = (self.strides[i - lead] if i >= lead
                              else target[i + 1] * strides[i + 1] if i + 1 < len(target)
                              else self.itemsize)
        if tuple(strides) != out.strides:
            out = _restrided(self, out, tuple(strides))
    return out


def _restrided(arr, out, strides):
    """A read-only view of ``arr``'s memory with ``out``'s shape and ``strides``, made on the
    array owning that memory so that ``fill_`` can still write through it (``writable``);
    ``out`` where NumPy cannot make one."""
    owner = arr
    while isinstance(owner.base, np.ndarray):
        owner = owner.base
    try:
        view = np.ndarray(out.shape, arr.dtype, buffer=owner, strides=strides,
                          offset=arr.__array_interface__["data"][0]
                          - owner.__array_interface__["data"][0])
    except (TypeError, ValueError, BufferError):
        return out
    view.flags.writeable = False
    return view


def expand_self(grad, self_shape):
    return sum_to(grad, self_shape)


def _expand_samples(make, shapes):
    target = tuple(np.broadcast_shapes(shapes[1], shapes[0]))
    return [Sample((make(shapes[1]), target), call="Tensor.expand"),
            Sample((make(shapes[1]), (2,) + target), call="broadcast_to"),
            Sample((make(shapes[1]), make(target)), call="Tensor.expand_as")]


_expand = defop("expand", expand_op, derivatives={"self": expand_self}, dtype="same",
                view=True, methods=(), functions=(), samples=_expand_samples, family=FAMILY)


def expand(self, *size):
    """``self.expand(4, -1)``: broadcast without copying."""
    return _expand.public(self, size_arg(size))


def expand_as(self, other):
    return _expand.public(self, tuple(other._data.shape))


def broadcast_to(input, size):
    return _expand.public(input, tuple(size))


def broadcast_shapes(*shapes):
    """``torch.broadcast_shapes``: the shape all the given shapes broadcast to."""
    from ..tensor import Size
    result: list = []
    for k, s in enumerate(shapes):
        s = (s,) if isinstance(s, int) else tuple(s)
        if len(s) > len(result):
            result = [1] * (len(s) - len(result)) + result
        for i in range(1, len(s) + 1):
            have, want = result[-i], s[-i]
            if want != 1 and have != 1 and have != want:
                raise RuntimeError(f"Attempting to broadcast a dimension of length {want} at "
                                   f"-{i}! Mismatching argument at index {k} had {s}; but "
                                   f"expected shape should be broadcastable to "
                                   f"{shape_str(result)}")
            if want != 1:
                result[-i] = want
    return Size(result)


def broadcast_tensors(*tensors):
    """Expand every tensor to their common broadcast shape (``self`` where it has it)."""
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        tensors = tensors[0]
    shapes = [t._data.shape for t in tensors]
    ndim = max((len(s) for s in shapes), default=0)
    shape = [1] * ndim
    for s in shapes:
        for i in range(1, len(s) + 1):
            if s[-i] != 1:
                if shape[-i] != 1 and shape[-i] != s[-i]:
                    raise RuntimeError(f"The size of tensor a ({shape[-i]}) must match the "
                                       f"size of tensor b ({s[-i]}) at non-singleton "
                                       f"dimension {ndim - i}")
                shape[-i] = s[-i]
    shape = tuple(shape)
    return tuple(t if t._data.shape == shape else _expand.public(t, shape) for t in tensors)


bind_method("expand", expand)
bind_method("expand_as", expand_as)
bind_method("broadcast_to", broadcast_to)
export_function("broadcast_to", broadcast_to)
export_function("broadcast_tensors", broadcast_tensors)
export_function("broadcast_shapes", broadcast_shapes)
