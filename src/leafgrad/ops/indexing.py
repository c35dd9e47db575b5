"""Reading by index: ``x[...]``, select/slice/narrow (index_select, gather, take,
masked_select and nonzero are in gather.py, imported at the end).

Note [How x[index] is recorded]
PyTorch turns ``x[i, 1:, None, idx]`` into a chain of view ops applied left to right (ints
``select``, slices ``slice``, ``None`` ``unsqueeze``; full slices ``:`` and ``...`` do nothing)
followed by one ``index`` for all tensor / list / bool indices; the result's ``grad_fn`` chain
shows exactly that (``IndexBackward0`` <- ``SliceBackward0`` <- ``SelectBackward0``). When a
tuple index changes nothing the result is an ``alias`` (AliasBackward0); a lone slice is always
a ``slice``. ``parse_index`` below does this walk once; ``__getitem__`` replays its steps and
``__setitem__`` (ops/scatter.py) reuses it to decide how an assignment is recorded.

>>> import leafgrad as torch
>>> x = torch.zeros(3, 4, requires_grad=True)
>>> x[0, 1:].grad_fn.name(), x[[0, 2]].grad_fn.name(), x[...].grad_fn.name()
('SliceBackward0', 'IndexBackward0', 'AliasBackward0')
"""
from __future__ import annotations

import warnings

import numpy as np

from .iter_layout import index_result
from .registry import Sample, bind_method, defop, export_function
from .shape import at_least, wrap_dim
from ..autograd.graph import sum_to
from ..tensor import Tensor, _wrap

FAMILY = "indexing"

__all__ = ["parse_index", "index_arrays", "narrow", "select_backward", "slice_backward",
           "index_put_impl", "zeros_of"]


def zeros_of(shape, np_dtype) -> Tensor:
    """A constant zero tensor (no history) for a backward formula to write into."""
    return _wrap(np.zeros(shape, np_dtype))


# -- select / slice / alias: the views basic indexing is made of ------------------------
def select_op(self, dim, index):
    """The slice at ``index`` along ``dim``, without that dim (a view)."""
    if self.ndim == 0:
        raise IndexError("select() cannot be applied to a 0-dim tensor.")
    d = wrap_dim(dim, self.ndim)
    n = self.shape[d]
    if not -n <= index < n:
        raise IndexError(f"select(): index {index} out of range for tensor of size "
                         f"[{', '.join(map(str, self.shape))}] at dimension {d}")
    return self[(slice(None),) * d + (index, Ellipsis)]   # Ellipsis: a 0-d view, not a copy


def select_self(grad, self_shape, dim, index):
    return select_backward(grad, self_shape, dim, index)


def _select_samples(make, shapes):
    s = at_least(shapes[0], 1)
    return [Sample((make(s), 0, -1)), Sample((make(s), -1, 0), call="select")]


_select = defop("select", select_op, derivatives={"self": select_self}, dtype="same",
                view=True, samples=_select_samples, family=FAMILY)


def select_backward_op(grad_output, input_sizes, dim, index):
    """Zeros of ``input_sizes`` with ``grad_output`` at ``index`` along ``dim``."""
    out = np.zeros(input_sizes, grad_output.dtype)
    out[(slice(None),) * wrap_dim(dim, len(input_sizes)) + (index,)] = grad_output
    return out


def select_backward_grad_output(grad, dim, index):
    return _select.public(grad, dim, index)


_select_backward = defop("select_backward", select_backward_op, inputs=("grad_output",),
                         derivatives={"grad_output": select_backward_grad_output},
                         dtype="same", methods=(), functions=(), family=FAMILY)
select_backward = _select_backward.public


def slice_op(self, dim=0, start=None, end=None, step=1):
    """``self[..., start:end:step]`` along ``dim`` (a view)."""
    d = wrap_dim(dim, self.ndim)
    return self[(slice(None),) * d + (slice(start, end, step),)]


def slice_self(grad, self_shape, dim, start, end, step):
    return slice_backward(grad, self_shape, dim, start, end, step)


_slice = defop("slice", slice_op, derivatives={"self": slice_self}, dtype="same", view=True,
               methods=(), functions=(), family=FAMILY)


def slice_backward_op(grad_output, input_sizes, dim, start, end, step):
    out = np.zeros(input_sizes, grad_output.dtype)
    out[(slice(None),) * wrap_dim(dim, len(input_sizes)) + (slice(start, end, step),)] = \
        grad_output
    return out


def slice_backward_grad_output(grad, dim, start, end, step):
    return _slice.public(grad, dim, start, end, step)


_slice_backward = defop("slice_backward", slice_backward_op, inputs=("grad_output",),
                        derivatives={"grad_output": slice_backward_grad_output},
                        dtype="same", methods=(), functions=(), family=FAMILY)
slice_backward = _slice_backward.public


def alias_op(self):
    """The same data, a new tensor (a view); what ``x[...]`` returns."""
    return self.view()


def alias_self(grad):
    return grad


_alias = defop("alias", alias_op, derivatives={"self": alias_self}, dtype="same", view=True,
               methods=(), functions=("alias",), family=FAMILY)


def _slice_of(t, dim, s, size):
    if s.step is not None and s.step <= 0:
        if s.step == 0:
            raise ValueError("slice step cannot be zero")
        raise ValueError("step must be greater than zero")
    start, stop, step = s.indices(size)
    stop = max(stop, start)
    # PyTorch skips a slice that keeps everything only when its start is written as 0 (or
    # left out): x[..., -1:] on a size-1 dim is still a SliceBackward0
    full = (s.start is None or s.start == 0) and stop == size and step == 1
    return _slice.public(t, dim, start, stop, step), full


def narrow(self, dim, start, length):
    """``length`` entries from ``start`` along ``dim`` (a view, SliceBackward0)."""
    data = self._data
    if data.ndim == 0:
        raise RuntimeError("narrow() cannot be applied to a 0-dim tensor.")
    d = wrap_dim(dim, data.ndim)
    n = data.shape[d]
    start = int(start)
    if not -n <= start <= n:
        raise IndexError(f"start out of range (expected to be in range of [{-n}, {n}], but "
                         f"got {start})")
    if start < 0:
        start += n
    if length < 0:
        raise RuntimeError("narrow(): length must be non-negative.")
    if start + length > n:
        raise RuntimeError(f"start ({start}) + length ({length}) exceeds dimension size "
                           f"({n}).")
    return _slice.public(self, d, start, start + length, 1)


bind_method("narrow", narrow)
export_function("narrow", narrow)


# -- index (advanced indexing) ------------------------------------------------------------
def index_op(self, indices):
    """Advanced indexing; ``indices`` holds, per leading dim, an int64 array or None (the
    result in PyTorch's layout: ``index_result``)."""
    return index_result(self[tuple(slice(None) if i is None else i for i in indices)], self,
                        indices)


def index_self(grad, self_shape, indices):
    return index_put_impl(zeros_of(self_shape, grad._data.dtype), indices, grad, True)


_index = defop("index", index_op, derivatives={"self": index_self}, dtype="same",
               methods=(), functions=(), family=FAMILY, saved_tensor_args=("indices",))


def index_put_op(self, indices, values, accumulate=False):
    """A copy of ``self`` with ``values`` written (or added) at ``indices``."""
    key = tuple(slice(None) if i is None else i for i in indices)
    out = self.copy()
    target = out[key].shape
    vshape = np.shape(values)
    try:
        # (the values must broadcast TO the target: (4, 0) does not fit (1, 0), seed 122)
        if len(vshape) > len(target) or np.broadcast_shapes(vshape, target) != target:
            raise ValueError
    except ValueError:
        raise RuntimeError(f"shape mismatch: value tensor of shape "
                           f"[{', '.join(map(str, vshape))}] cannot be broadcast to indexing "
                           f"result of shape [{', '.join(map(str, target))}]") from None
    if accumulate:
        np.add.at(out, key, values)
    else:
        out[key] = values
    return out


def index_put_self(grad, indices, accumulate):
    if accumulate:
        return grad
    return _index_put.public(grad, indices, zeros_of((), grad._data.dtype), False)


def index_put_values(grad, indices, values_shape):
    # explicit sum_to: values may broadcast yet have the output's shape by coincidence
    return sum_to(_index.public(grad, indices), values_shape)


_index_put = defop("index_put", index_put_op, inputs=("self", "values"),
                   derivatives={"self": index_put_self, "values": index_put_values},
                   dtype="same", methods=(), functions=(), family=FAMILY,
                   saved_tensor_args=("indices",))
_index_put_impl = defop("_index_put_impl", index_put_op, inputs=("self", "values"),
                        derivatives={"self": index_put_self, "values": index_put_values},
                        dtype="same", methods=(), functions=(),
                        grad_fn_name="IndexPutImplBackward0", family=FAMILY)
index_put_impl = _index_put_impl.public


def index_arrays(indices, shape, first_dim=0):
    """PyTorch-style ``indices`` (a sequence of index tensors / None) as int64 arrays.

    Bool masks become one array per masked dim (their ``nonzero``); every index is checked
    against its dim's size with PyTorch's messages. Returns a tuple aligned with dims.
    """
    out = []
    bounds = []   # (position in out, ordinal, size) of indices with one out of bounds
    dim = first_dim
    for idx in indices:
        if idx is None:
            out.append(None)
            dim += 1
            continue
        a = idx._data if isinstance(idx, Tensor) else np.asarray(idx)
        if a.dtype == np.uint8:
            warnings.warn("indexing with dtype torch.uint8 is now deprecated, please use a "
                          "dtype torch.bool instead.", UserWarning, stacklevel=3)
            a = a.astype(bool)
        if a.dtype == np.bool_:
            for j in range(a.ndim):
                if dim + j >= len(shape) or a.shape[j] != shape[dim + j]:
                    raise IndexError(
                        f"The shape of the mask [{', '.join(map(str, a.shape))}] at index {j} "
                        f"does not match the shape of the indexed tensor "
                        f"[{', '.join(map(str, shape))}] at index {dim + j}")
            out.extend(np.nonzero(a))
            dim += a.ndim
            continue
        if a.dtype.kind not in "iu":
            if a.size == 0 and a.dtype.kind == "f" and not isinstance(idx, Tensor):
                a = a.astype(np.int64)     # x[[]] is an empty long index
            else:
                raise IndexError("tensors used as indices must be long, int, byte or bool "
                                 "tensors")
        if a.dtype not in (np.int64, np.int32):
            raise IndexError("tensors used as indices must be long, int, byte or bool "
                             "tensors")
        n = shape[dim]
        if a.size and n == 0:
            raise IndexError("index is out of bounds for dimension with size 0")
        if a.size and ((a >= n) | (a < -n)).any():
            # PyTorch counts the dimension among the tensor-indexed ones only
            bounds.append((len(out), sum(1 for b in out if b is not None), n))
        out.append(a.astype(np.int64, copy=False))
        dim += 1
    present = [a for a in out if a is not None]
    try:
        broadcast = np.broadcast_shapes(*(a.shape for a in present))
    except ValueError:
        raise IndexError("shape mismatch: indexing tensors could not be broadcast together "
                         "with shapes " + ", ".join(
                             f"[{', '.join(map(str, a.shape))}]" for a in present)) from None
    if bounds:
        out = _out_of_bounds(out, bounds, broadcast, shape, first_dim)
    return tuple(out)


def _out_of_bounds(out, bounds, broadcast, shape, first_dim):
    """PyTorch's index kernel checks each index as it reads it: when the result (the
    broadcast indices with the dims not indexed) is empty nothing is read, so nothing is out
    of bounds (``zeros(0, 3)[:, [5]]`` is a (0, 1) tensor); the bad indices are then any
    valid ones for NumPy."""
    rest = [n for d, n in enumerate(shape) if d < first_dim]
    rest += [shape[first_dim + i] for i, a in enumerate(out) if a is None]
    rest += list(shape[first_dim + len(out):])
    if int(np.prod(broadcast)) and int(np.prod(rest)):
        k, ordinal, n = bounds[0]
        a = out[k]
        bad = a[(a >= n) | (a < -n)]
        raise IndexError(f"index {int(bad.flat[0])} is out of bounds for dimension {ordinal} "
                         f"with size {n}")
    out = list(out)
    for k, _, n in bounds:
        out[k] = np.where((out[k] >= n) | (out[k] < -n), 0, out[k])
    return out


def _seq_as_tuple(seq) -> bool:
    # NumPy's old rule, still followed by PyTorch (with a warning): a short list holding
    # slices, None, Ellipsis, tensors or sequences is a tuple of indices, not one index.
    if len(seq) >= 32:
        return False
    return any(isinstance(s, (Tensor, np.ndarray, list, tuple, slice)) or s is None
               or s is Ellipsis for s in seq)


_INDEX_TYPE_ERROR = ("only integers, slices (`:`), ellipsis (`...`), None and long or byte "
                     "Variables are valid indices (got {})")


def _dims_used(item) -> int:
    if item is None or item is Ellipsis or isinstance(item, bool):
        return 0
    if isinstance(item, Tensor):
        if item._data.dtype == np.bool_ or item._data.dtype == np.uint8:
            return item._data.ndim
        return 1
    if isinstance(item, np.ndarray):
        return item.ndim if item.dtype == np.bool_ else 1
    return 1


def _as_int(item):
    """An int index (Python int, NumPy integer, 0-d integer tensor) or None."""
    if isinstance(item, (bool, np.bool_)):
        return None
    if isinstance(item, (int, np.integer)):
        return int(item)
    if isinstance(item, Tensor) and item._data.ndim == 0 and item._data.dtype.kind in "iu" \
            and item._data.dtype != np.uint8:
        return int(item._data)
    return None


def parse_index(self: Tensor, index, validate=True):
    """Apply the basic part of ``index`` (Note above): ``(view, tensor_indices, changed)``.

    ``tensor_indices`` is None when there is no advanced index, else a tuple aligned with the
    view's dims (None for dims not indexed) ready for ``index``. ``changed`` tells whether a
    select/slice/unsqueeze was applied (False means the view is ``self`` itself).
    ``validate=False`` leaves the advanced indices unchecked (a list for ``index_arrays``):
    ``x[i] = v`` checks them after the in-place checks, in index_put_'s kernel, as PyTorch.
    """
    # a bare integer into a 0-d tensor has its own message; in a tuple, or as a tensor, the
    # index counts as one too many (as a bare slice, in getitem)
    bare_int = not isinstance(index, (tuple, list, Tensor)) and _as_int(index) is not None
    if self._data.ndim == 0 and isinstance(index, slice):
        raise IndexError("slice() cannot be applied to a 0-dim tensor.")
    if not isinstance(index, tuple):
        if isinstance(index, list) and _seq_as_tuple(index):
            warnings.warn(
                "Using a non-tuple sequence for multidimensional indexing is deprecated and "
                "will be changed in pytorch 2.9; use x[tuple(seq)] instead of x[seq]. In "
                "pytorch 2.9 this will be interpreted as tensor index, x[torch.tensor(seq)], "
                "which will result either in an error or a different result", UserWarning,
                stacklevel=3)
            index = tuple(index)
        else:
            index = (index,)
    if range in map(type, index):   # x[range(n), target] (a sequence, as a list would be)
        index = tuple(list(i) if type(i) is range else i for i in index)
    ndim = self._data.ndim
    used = sum(_dims_used(i) for i in index)
    if ndim == 0 and bare_int and _as_int(index[0]) != 0:
        raise IndexError(f"index {_as_int(index[0])} is out of bounds for dimension 0 with "
                         f"size 0")
    if ndim == 0 and bare_int:
        raise IndexError("invalid index of a 0-dim tensor. Use `tensor.item()` in Python or "
                         "`tensor.item<T>()` in C++ to convert a 0-dim tensor to a number")
    if used > ndim:
        raise IndexError(f"too many indices for tensor of dimension {ndim}")
    result = self
    dim = 0
    tensors = []         # (dim in result, index) in order
    changed = False
    seen_ellipsis = False
    for position, item in enumerate(index):
        i = _as_int(item)
        if i is not None:
            n = result._data.shape[dim]
            if not -n <= i < n:
                # PyTorch names the item's position in the index, not the tensor's dim
                raise IndexError(f"index {i} is out of bounds for dimension {position} with "
                                 f"size {n}")
            result = _select.public(result, dim, i)
            changed = True
        elif isinstance(item, slice):
            size = result._data.shape[dim]
            sliced, full = _slice_of(result, dim, item, size)
            if not full:
                result = sliced
                changed = True
            dim += 1
        elif item is None:
            result = result.unsqueeze(dim)
            changed = True
            dim += 1
        elif item is Ellipsis:
            if not seen_ellipsis:
                dim += ndim - used
                seen_ellipsis = True
        elif isinstance(item, (bool, np.bool_)) or (
                isinstance(item, Tensor) and item._data.ndim == 0
                and item._data.dtype == np.bool_):
            result = result.unsqueeze(dim)
            changed = True
            tensors.append((dim, np.array([bool(item)])))
            dim += 1
        elif isinstance(item, (Tensor, np.ndarray, list, tuple)):
            if isinstance(item, (list, tuple)):
                item = _list_index(item)
            tensors.append((dim, item))
            dim += _dims_used(item)
        else:
            if isinstance(item, str):
                raise TypeError("new(): invalid data type 'str'")
            raise IndexError(_INDEX_TYPE_ERROR.format(type(item).__name__))
    if not tensors:
        return result, None, changed
    aligned = []
    covered = 0
    for d, item in tensors:
        aligned.extend([None] * (d - covered))
        aligned.append(item)
        covered = d + _dims_used(item)
    if not validate:
        return result, aligned, changed
    return result, index_arrays(aligned, result._data.shape), changed


def _list_index(item):
    a = np.asarray(item)
    if a.dtype == object:
        raise IndexError(_INDEX_TYPE_ERROR.format(type(item).__name__))
    if a.size == 0:
        a = a.astype(np.int64)
    return a


def getitem(self, index):
    """``self[index]`` as PyTorch records it (Note [How x[index] is recorded])."""
    if type(index) is int:              # the common case, first
        n = self._data.shape[0] if self._data.ndim else 0
        if self._data.ndim and -n <= index < n:
            return _select.public(self, 0, index)
    elif index is Ellipsis:
        return _alias.public(self)
    elif isinstance(index, slice):
        if self._data.ndim == 0:
            raise IndexError("slice() cannot be applied to a 0-dim tensor.")
        return _slice_of(self, 0, index, self._data.shape[0])[0]
    result, arrays, changed = parse_index(self, index)
    if arrays is not None:
        return _index.public(result, arrays)
    return result if changed else _alias.public(self)


bind_method("__getitem__", getitem)


def _getitem_samples(make, shapes):
    s = at_least(shapes[0], 2)
    rng = np.random.default_rng(len(s))
    return [Sample((make(s), 0), call="__getitem__"),
            Sample((make(s), (slice(1, None), -1)), call="__getitem__"),
            Sample((make(s), (None, Ellipsis, 0)), call="__getitem__"),
            Sample((make(s), rng.integers(0, s[0], size=(2, 3))), call="__getitem__"),
            Sample((make(s), (slice(None), [0, -1])), call="__getitem__"),
            Sample((make(s), make(s[:2]) > 0), call="__getitem__")]


_index.samples = _getitem_samples


# index_select / gather / take / masked_select / nonzero (their own module, registered here)
from .gather import _broadcast_pair, bounds_check, gather_check  # noqa: E402,F401
