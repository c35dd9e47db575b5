"""Writing by index: scatter/scatter_add, index_add, put, masked_scatter (``x[i] = v`` and
index_put are in setitem.py, imported at the end).

Each op is an out-of-place record (``scatter``); its in-place form (``scatter_``) checks that
autograd allows the change, computes the out-of-place result and writes it into ``self``'s
storage with a version bump (``registry.commit_inplace``), so the node moves over to ``self``.

>>> import leafgrad as torch
>>> torch.zeros(3).scatter(0, torch.tensor([2, 0]), torch.tensor([5., 6.]))
tensor([6., 0., 5.])
"""
from __future__ import annotations

import warnings

import numpy as np

from .iter_layout import SELF
from .pointwise_common import not_implemented_formula
from .registry import Sample, bind_method, commit_inplace, defop, export_function, \
    inplace_check
from .indexing import _broadcast_pair, bounds_check, zeros_of
from .select import checked_scalar
from .shape import at_least, expand_op, wrap_dim
from ..tensor import Tensor

FAMILY = "indexing"

__all__ = ["setitem", "index_put", "index_put_"]   # (from setitem.py)


def _inplace_variant(public, name):
    """``name_``: the in-place form of an out-of-place record's public function."""
    def inplace(self, *args, **kwargs):
        inplace_check(self, args, kwargs)
        return commit_inplace(self, public(self, *args, **kwargs))
    inplace.__name__ = inplace.__qualname__ = name
    inplace.__doc__ = f"In-place version of :meth:`{name[:-1]}`."
    bind_method(name, inplace)
    return inplace


def _mesh(index, d):
    """Full NumPy index tuple: ``index`` along ``d``, the position itself along other dims."""
    grid = list(np.indices(index.shape, sparse=True)) if index.ndim else []
    if not grid:
        return (index,)
    grid[d] = index
    return tuple(grid)


def _dtype_name(np_dtype):
    """PyTorch's scalar type name: Float, Double, Long, Bool ("FloatTensor" less "Tensor")."""
    from ..dtypes import from_numpy_dtype
    return from_numpy_dtype(np_dtype).tensor_type[:-len("Tensor")]


# -- scatter / scatter_add ---------------------------------------------------------------------
def _scatter_check(self, dim, index, src):
    """PyTorch's checks before a scatter kernel (scatter, scatter_add and scatter_reduce all
    name ``scatter()``): ``dim``, dtypes, then the shapes (not for an empty index). ``src`` is
    an ndarray or a number. Returns the wrapped dim."""
    d = wrap_dim(dim, self.ndim)
    if index.dtype != np.int64 and index.dtype != np.int32:   # PyTorch 2.13 takes both
        raise RuntimeError("scatter(): Expected dtype int32/int64 for index")
    if isinstance(src, np.ndarray) and src.dtype != self.dtype:
        raise RuntimeError("scatter(): Expected self.dtype to be equal to src.dtype")
    if index.size == 0:
        return d
    ndim = max(self.ndim, 1)   # a 0-d tensor counts as one of size 1 here
    if max(index.ndim, 1) != ndim:
        raise RuntimeError("Index tensor must have the same number of dimensions as self tensor")
    isize = index.shape or (1,)
    ssize = self.shape or (1,)
    wrong = any(k != d and isize[k] > ssize[k] for k in range(ndim))
    has_src = isinstance(src, np.ndarray)
    if not wrong and has_src:
        for k in range(ndim):
            if src.ndim and k >= src.ndim:   # PyTorch asks src.size(k)
                raise IndexError(f"Dimension out of range (expected to be in range of "
                                 f"[{-src.ndim}, {src.ndim - 1}], but got {k})")
            if isize[k] > (src.shape[k] if src.ndim else 1):
                wrong = True
                break
    if wrong:
        if has_src and max(src.ndim, 1) != ndim:   # PyTorch names src's rank first then
            raise RuntimeError("Index tensor must have the same number of dimensions as src "
                               "tensor")
        text = (f"Expected index [{', '.join(map(str, index.shape))}] to be no larger than "
                f"self [{', '.join(map(str, self.shape))}] apart from dimension {d}")
        if has_src:
            text += f" and to be no larger size than src [{', '.join(map(str, src.shape))}]"
        raise RuntimeError(text)
    return d


def _scatter_key(self, d, index, src):
    """The kernel's part: ``src``'s rank, the index bounds; then ``(out, key, src)``: a copy
    of ``self`` (1-D for a 0-d ``self``), the NumPy index it is written at, and the values
    (``src`` cut to the index's extent)."""
    out = self.copy()
    if index.size == 0:
        return out.reshape(out.shape or (1,)), (np.zeros(0, np.int64),) * max(self.ndim, 1), (
            np.zeros(0, self.dtype) if isinstance(src, np.ndarray) else src)
    if isinstance(src, np.ndarray) and max(src.ndim, 1) != max(index.ndim, 1):
        raise RuntimeError("Index tensor must have the same number of dimensions as src tensor")
    if self.ndim == 0:
        bounds_check(index, 1, 0)
        if isinstance(src, np.ndarray) and src.ndim:
            src = src.reshape(-1)[:index.size]
        return out.reshape(1), (index.reshape(-1) * 0,), src
    bounds_check(index, self.shape[d], d,
                 (self.shape, src.shape) if isinstance(src, np.ndarray) else (self.shape,))
    key = _mesh(index, d)
    if isinstance(src, np.ndarray) and src.ndim:
        src = src[tuple(slice(0, s) for s in index.shape)] if index.ndim else src.flat[0]
    return out, key, src


def _scatter_prepare(self, dim, index, src):
    return _scatter_key(self, _scatter_check(self, dim, index, src), index, src)


def scatter_op(self, dim, index, src):
    """A copy of ``self`` with ``src[i][j]`` written at ``[index[i][j]][j]`` (dim 0)."""
    d = _scatter_check(self, dim, index, src)
    if not isinstance(src, np.ndarray):   # a number: PyTorch's checked conversion
        checked_scalar(src, self.dtype)
    out, key, src = _scatter_key(self, d, index, src)
    out[key] = src
    return out.reshape(self.shape)


def scatter_self(grad, dim, index):
    return _scatter_value.public(grad, dim, index, 0.0)


def scatter_src(grad, dim, index):
    return grad.gather(dim, index)


def _scatter_samples(make, shapes):
    s = at_least(shapes[0], 1)
    idx = make(s, 0, s[0], np.int64)
    return [Sample((make(s), 0, idx, make(s)), call="Tensor.scatter"),
            Sample((make(s), -1, make(s, 0, s[-1], np.int64), 1.5), call="scatter"),
            Sample((make(s), 0, idx, make(s)), call="Tensor.scatter_")]


_scatter = defop("scatter", scatter_op, inputs=("self", "index", "src"),
                 derivatives={"self": scatter_self, "src": scatter_src}, dtype="same",
                 methods=(), functions=(), samples=_scatter_samples, family=FAMILY)
_scatter_value = defop("scatter_value", scatter_op, inputs=("self", "index"),
                       derivatives={"self": scatter_self}, dtype="same",
                       grad_fn_name="ScatterBackward1", methods=(), functions=(),
                       family=FAMILY)


def scatter_reduce_op(self, dim, index, src, reduce):
    """``scatter(..., reduce='add'|'multiply')``: ``src`` (a tensor or a number) added to or
    multiplied into ``self`` at the places ``index`` names. PyTorch cannot differentiate it."""
    d = _scatter_check(self, dim, index, src)
    if reduce != "add" and reduce != "multiply":
        raise RuntimeError("reduce argument must be either add or multiply.")
    out, key, src = _scatter_key(self, d, index, src)
    if not isinstance(src, np.ndarray):
        src = np.asarray(src).astype(self.dtype)   # the number in self's dtype (2.5 -> 2)
    (np.add if reduce == "add" else np.multiply).at(out, key, src)
    return out.reshape(self.shape)


def _reduce_records(name):
    """(src, value) records of ``name`` (scatter / scatter_) with a reduce: grad_fn
    NotImplemented, whose backward names the ATen op, as PyTorch's."""
    formula = not_implemented_formula(name)
    common = {"dtype": "same", "grad_fn_name": "NotImplemented", "methods": (),
              "functions": (), "family": FAMILY}
    return (defop(f"{name}_reduce_src", scatter_reduce_op, inputs=("self", "index", "src"),
                  derivatives={"self": formula, "src": formula}, **common),
            defop(f"{name}_reduce_value", scatter_reduce_op, inputs=("self", "index"),
                  derivatives={"self": formula}, **common))


_REDUCE = {False: _reduce_records("scatter"), True: _reduce_records("scatter_")}
_DEPRECATED_REDUCE = ("The reduce argument of torch.scatter with Tensor src is deprecated and "
                      "will be removed in a future PyTorch release. Use torch.scatter_reduce "
                      "instead for more reduction options.")
_warned: list = []
_NA = object()   # an argument not given (PyTorch refuses an explicit reduce=None)


def _bad_arguments(name, function, args, kwargs):
    """PyTorch's TypeError when no overload of scatter takes the arguments."""
    got = [type(a).__name__ for a in args]
    got += [f"{k}={type(v).__name__}" for k, v in kwargs.items() if v is not _NA]
    head = "Tensor input, " if function else ""
    tail = ", *, Tensor out = None" if function else ""
    tail_r = ", Tensor out = None" if function else ""
    lines = [f"({head}int dim, Tensor index, Tensor src{tail})",
             f"({head}int dim, Tensor index, Tensor src, *, str reduce{tail_r})",
             f"({head}int dim, Tensor index, Number value{tail})",
             f"({head}int dim, Tensor index, Number value, *, str reduce{tail_r})"]
    return TypeError(f"{name}() received an invalid combination of arguments - got "
                     f"({', '.join(got)}), but expected one of:\n"
                     + "".join(f" * {line}\n" for line in lines))


def _overload_check(self, dim, index, src, value, reduce, inplace, function=False):
    if (src is _NA) == (value is _NA) or src is None or value is None or reduce is None:
        args = ((self,) if function else ()) + (dim, index) + (() if src is _NA else (src,))
        raise _bad_arguments("scatter_" if inplace else "scatter", function, args,
                             {"value": value, "reduce": reduce})


def _scatter_any(self, dim, index, src, value, reduce, inplace, function=False):
    _overload_check(self, dim, index, src, value, reduce, inplace, function)
    if src is _NA:
        src = value
    is_tensor = isinstance(src, Tensor)
    if reduce is _NA:
        return (_scatter if is_tensor else _scatter_value).public(self, dim, index, src)
    if is_tensor and not _warned:   # PyTorch warns once per process (TORCH_WARN_ONCE)
        _warned.append(True)
        warnings.warn(_DEPRECATED_REDUCE, UserWarning, stacklevel=3)
    return _REDUCE[inplace][not is_tensor].public(self, dim, index, src, reduce)


def scatter(self, dim, index, src=_NA, *, value=_NA, reduce=_NA):
    """``self.scatter(dim, index, src)`` or ``self.scatter(dim, index, value)``;
    ``reduce='add'`` or ``'multiply'`` combines with ``self``'s values instead."""
    return _scatter_any(self, dim, index, src, value, reduce, False)


def scatter_function(input, dim, index, src=_NA, *, value=_NA, reduce=_NA):
    """``torch.scatter``: see :meth:`Tensor.scatter`."""
    return _scatter_any(input, dim, index, src, value, reduce, False, True)


def scatter_(self, dim, index, src=_NA, *, value=_NA, reduce=_NA):
    """In-place version of :meth:`scatter`."""
    _overload_check(self, dim, index, src, value, reduce, True)   # argument parsing first
    inplace_check(self, (dim, index, src), {"value": value})
    return commit_inplace(self, _scatter_any(self, dim, index, src, value, reduce, True))


bind_method("scatter", scatter)
export_function("scatter", scatter_function)
bind_method("scatter_", scatter_)


def scatter_add_op(self, dim, index, src):
    """A copy of ``self`` with ``src[i][j]`` added at ``[index[i][j]][j]`` (dim 0)."""
    out, key, src = _scatter_prepare(self, dim, index, src)
    np.add.at(out, key, src)
    return out.reshape(self.shape)


def scatter_add_self(grad):
    return grad


_scatter_add = defop("scatter_add", scatter_add_op, inputs=("self", "index", "src"),
                     derivatives={"self": scatter_add_self, "src": scatter_src},
                     dtype="same", family=FAMILY,
                     samples=lambda make, shapes: [Sample((
                         make(at_least(shapes[0], 1)), 0,
                         make(at_least(shapes[0], 1), 0, at_least(shapes[0], 1)[0], np.int64),
                         make(at_least(shapes[0], 1))))])
_inplace_variant(_scatter_add.public, "scatter_add_")


# -- index_add / put / masked_scatter ------------------------------------------------------------
def index_add_op(self, dim, index, source, *, alpha=1):
    """A copy of ``self`` with ``alpha * source`` slices added at ``index`` along ``dim``."""
    from ..dtypes import from_numpy_dtype
    d = wrap_dim(dim, self.ndim)
    n_index = index.size
    if self.dtype != source.dtype:
        raise RuntimeError(f"index_add_(): self ({from_numpy_dtype(self.dtype).tensor_type[:-6]})"
                           f" and source ({from_numpy_dtype(source.dtype).tensor_type[:-6]}) "
                           f"must have the same scalar type")
    if d != 0 and d >= source.ndim:
        raise RuntimeError(f"index_add_(): Indexing dim {d} is out of bounds of the source "
                           f"tensor with dim {source.ndim}")
    src_n = source.shape[d] if source.ndim else 1
    if n_index != src_n:
        if not source.ndim:   # PyTorch's message asks a 0-d source for its size
            raise IndexError(f"Dimension specified as {d} but tensor has no dimensions")
        raise RuntimeError(f"index_add_(): Number of indices ({n_index}) should be equal to "
                           f"source.size(dim): ({src_n}), for dim: {d}")
    if source.ndim != self.ndim or any(a != b for k, (a, b) in enumerate(
            zip(self.shape, source.shape)) if k != d):
        raise RuntimeError(f"source tensor shape must match self tensor shape, excluding the "
                           f"specified dimension. Got self.shape = "
                           f"[{', '.join(map(str, self.shape))}] source.shape = "
                           f"[{', '.join(map(str, source.shape))}]")
    n = self.shape[d] if self.ndim else 1
    if self.ndim > 1 and self.size == 0:   # PyTorch's kernel (and its bounds check) is skipped
        return self.copy()
    if self.ndim > 1 and (d == 0 or d == self.ndim - 1) and alpha == 1 \
            and not isinstance(alpha, bool):
        # PyTorch's kernel for the first or last dim with alpha 1 names the index; the others
        # (and a bool alpha, which is not the number 1 there) do not
        bounds_check(index, n, d)
    elif index.size and (index.max() >= n or index.min() < 0):
        raise IndexError("index out of range in self")
    out = self.copy()
    if self.dtype.kind in "iu" and not isinstance(alpha, bool):
        alpha = int(alpha)   # PyTorch converts alpha to self's integer type (toward zero)
    if self.ndim == 0:
        # (unsafe: bool + bool stays bool, as PyTorch's "or")
        np.add(out, alpha * source.reshape(()), out=out, casting="unsafe")
        return out
    key = (slice(None),) * d + (index.reshape(-1),)
    np.add.at(out, key, source if alpha == 1 else alpha * source)
    return out


def index_add_self(grad):
    return grad


def index_add_source(grad, dim, index, source, alpha):
    # PyTorch's maybe_multiply(source_dim > 0 ? grad.index_select(dim, index).expand_as(source)
    # : grad.index_select(dim, index.squeeze(0)), alpha): its nodes under create_graph. It
    # saves source itself (expand_as), so changing it in place before backward raises
    if source.dim():
        g = grad.index_select(dim, index.reshape(-1)).expand(source.shape)
    else:
        g = grad.index_select(dim, index.reshape(()))
    if alpha == 1:
        return g
    from .pointwise_common import scale
    return scale(g, alpha)


def _index_add_samples(make, shapes):
    s = at_least(shapes[0], 1)
    return [Sample((make(s), 0, make((4,), 0, s[0], np.int64), make((4,) + s[1:]))),
            Sample((make(s), -1, make((2,), 0, s[-1], np.int64), make(s[:-1] + (2,))),
                   {"alpha": 2.0}, call="Tensor.index_add_")]


_index_add = defop("index_add", index_add_op, inputs=("self", "index", "source"),
                   derivatives={"self": index_add_self, "source": index_add_source},
                   dtype="same", samples=_index_add_samples, family=FAMILY)
_inplace_variant(_index_add.public, "index_add_")


def put_op(self, index, source, accumulate=False):
    """A copy of ``self`` with ``source`` written (or added) at flat positions ``index``."""
    from ..dtypes import from_numpy_dtype
    n = self.size
    # PyTorch's order: index dtype, self/source dtypes, counts, an empty self, then bounds
    if index.dtype != np.int64:
        raise RuntimeError(f"put_(): Expected a long tensor for index, but got "
                           f"{from_numpy_dtype(index.dtype).tensor_type[:-6]}")
    if self.dtype != source.dtype:
        raise RuntimeError(f"put_(): self and source expected to have the same dtype, but got "
                           f"self.dtype = {from_numpy_dtype(self.dtype).tensor_type[:-6]} and "
                           f"source.dtype = {from_numpy_dtype(source.dtype).tensor_type[:-6]}")
    if index.size != source.size:
        raise IndexError(f"put_(): Expected source and index to have the same number of "
                         f"elements, but got source.numel() = {source.size}, index.numel() "
                         f"= {index.size}")
    if n == 0 and index.size:
        raise IndexError("put_(): Tried to put elements into an empty tensor")
    if index.size:
        bad = index[(index >= n) | (index < -n)]
        if bad.size:
            raise IndexError(f"out of range: tried to access index {int(bad.flat[0])} on a "
                             f"tensor of {n} elements.")
    out = self.copy()
    flat = out.reshape(-1)
    if accumulate:
        np.add.at(flat, index.reshape(-1), source.reshape(-1))
    else:
        flat[index.reshape(-1)] = source.reshape(-1)
    return flat.reshape(self.shape)


def put_self(grad, index, source, accumulate):
    if accumulate:
        return grad
    return _put.public(grad, index, zeros_of(source.shape, grad._data.dtype), False)


def put_source(grad, index, source_shape):
    return grad.take(index).reshape(source_shape)


_put = defop("put", put_op, layout=SELF, inputs=("self", "index", "source"),
             derivatives={"self": put_self, "source": put_source}, dtype="same",
             family=FAMILY,
             samples=lambda make, shapes: [Sample((
                 make(shapes[0]), make((2,), 0, max(1, int(np.prod(shapes[0]))), np.int64),
                 make((2,)), True))])
_inplace_variant(_put.public, "put_")


def _same_dtypes(self, source):
    if source.dtype != self.dtype:   # (sic: no space after "got")
        raise RuntimeError(f"masked_scatter: expected self and source to have same dtypes but "
                           f"got{_dtype_name(self.dtype)} and {_dtype_name(source.dtype)}")


def _masked_scatter_checks(self, mask, source):
    """masked_scatter_'s checks in PyTorch's order: self/source dtypes, the mask expanded to
    ``self``'s shape, the mask's dtype (uint8 gets a deprecation warning first), the count.
    The expanded mask."""
    _same_dtypes(self, source)
    m = expand_op(mask, self.shape)
    if mask.dtype == np.uint8:   # warned about, then refused
        warnings.warn("masked_scatter_ received a mask with dtype torch.uint8, this behavior "
                      "is now deprecated,please use a mask with dtype torch.bool instead.",
                      UserWarning, stacklevel=4)
    if mask.dtype != np.bool_:
        raise RuntimeError("masked_scatter_ only supports boolean masks, but got mask with "
                           f"dtype {_dtype_name(mask.dtype)}")
    if int(np.count_nonzero(m)) > source.size:
        raise RuntimeError("Number of elements of source < number of ones in mask")
    return m


def masked_scatter_op(self, mask, source):
    """A copy of ``self`` (broadcast with ``mask``) with ``source``'s first entries written
    where ``mask`` is True."""
    wide, m = _broadcast_pair(self, mask) if mask.shape != self.shape else (self, mask)
    m = _masked_scatter_checks(wide, m, source)
    out = wide.copy()
    out[m] = source.reshape(-1)[:int(np.count_nonzero(m))]
    return out


def masked_scatter_self(grad, mask):
    # PyTorch's grad.masked_fill(mask, 0) (MaskedFillBackward0 under create_graph)
    return grad.masked_fill(mask, 0)


def masked_scatter_backward_op(grad_output, mask, sizes):
    """PyTorch's masked_scatter_backward: the gradient's entries where ``mask`` is True, in
    order, zero-padded to ``sizes``' element count, shaped as ``sizes`` (the source's)."""
    m = np.broadcast_to(mask, grad_output.shape) if mask.shape != grad_output.shape else mask
    picked = grad_output[m]
    n = int(np.prod(sizes))
    out = np.zeros(n, grad_output.dtype)
    out[:min(n, picked.size)] = picked[:n]
    return out.reshape(sizes)


def masked_scatter_backward_grad_output(grad, grad_output, mask):
    # its derivative scatters the incoming gradient back where mask is True
    zeros = zeros_of(grad_output._data.shape, grad_output._data.dtype)
    return _masked_scatter.public(zeros, mask, grad)


_masked_scatter_backward = defop(
    "masked_scatter_backward", masked_scatter_backward_op, inputs=("grad_output", "mask"),
    derivatives={"grad_output": masked_scatter_backward_grad_output}, dtype="same",
    methods=(), functions=(), family=FAMILY)


def masked_scatter_source(grad, mask, source_shape):
    # one recorded masked_scatter_backward (MaskedScatterBackwardBackward0 under create_graph)
    return _masked_scatter_backward.public(grad, mask, tuple(source_shape))


_masked_scatter = defop("masked_scatter", masked_scatter_op, inputs=("self", "mask", "source"),
                        derivatives={"self": masked_scatter_self,
                                     "source": masked_scatter_source},
                        dtype="same", family=FAMILY,
                        samples=lambda make, shapes: [Sample((
                            make(np.broadcast_shapes(shapes[0], shapes[1])),
                            np.asarray(make(shapes[1]) > 0),
                            make((int(np.prod(np.broadcast_shapes(shapes[0], shapes[1]))) + 1,
                                  ))))])
def masked_scatter_(self, mask, source):
    """In-place version of :meth:`masked_scatter`: ``mask`` must expand to ``self``."""
    inplace_check(self, (mask, source))
    _same_dtypes(self._data, source._data)
    expand_op(mask._data, self._data.shape)
    return commit_inplace(self, _masked_scatter.public(self, mask, source))


bind_method("masked_scatter_", masked_scatter_)


# x[index] = value and index_put (their own module, registered with this one)
from .setitem import index_put, index_put_, setitem  # noqa: E402,F401
