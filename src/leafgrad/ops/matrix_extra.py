"""Matrix-shaped helpers: tril/triu (+ indices), diagonal (a view), diag_embed, diag, diagflat,
trace, rot90, fliplr/flipud, meshgrid, cartesian_prod.

``diagonal`` is a view record whose backward is its own op, ``diagonal_backward`` (PyTorch's
DiagonalBackwardBackward0 under double backward); ``diag_embed`` writes into zeros through the
same strided view. The others are records where PyTorch has a node of their name, and thin
composites (``fliplr``, ``meshgrid``, ``cartesian_prod``) where PyTorch itself composes.

>>> import leafgrad as torch
>>> torch.arange(9.).reshape(3, 3).diagonal(1)
tensor([1., 5.])
"""
from __future__ import annotations

import warnings

import numpy as np

from .. import dtypes as _dt
from ..grad_mode import state as _mode
from ..tensor import Tensor, _wrap
from .expanded_write import through_expanded, write_where
from .iter_layout import CONTIG, iter_strides, strided_empty
from .reduction import _wrap_dim
from .registry import Sample, bind_method, defop, export_function

__all__ = ["diagonal_view"]

FAMILY = "shape"


def _at_least_2d(shape):
    shape = tuple(shape)
    return shape if len(shape) >= 2 else (3,) * (2 - len(shape)) + shape


# -- tril / triu -----------------------------------------------------------------------------
def _check_2d(name, self):
    if self.ndim < 2:
        raise RuntimeError(f"{name}: input tensor must have at least 2 dimensions")


def tril(self, diagonal=0):
    """The lower triangle of the last two dims (from ``diagonal`` down); zeros above."""
    _check_2d("tril", self)
    return np.tril(self, diagonal)


def tril_self(grad, diagonal):
    return grad.tril(diagonal)


def triu(self, diagonal=0):
    """The upper triangle of the last two dims (from ``diagonal`` up); zeros below."""
    _check_2d("triu", self)
    return np.triu(self, diagonal)


def triu_self(grad, diagonal):
    return grad.triu(diagonal)


def _tri_samples(name):
    def samples(make, shapes):
        s = _at_least_2d(shapes[0])
        return [Sample((make(s),)), Sample((make(s), 1)), Sample((make(s), -1)),
                Sample((make(s), 1), call=f"Tensor.{name}_")]
    return samples


defop("tril", tril, layout=CONTIG, derivatives={"self": tril_self}, dtype="same", inplace="tril_",
      family=FAMILY, samples=_tri_samples("tril"))
defop("triu", triu, layout=CONTIG, derivatives={"self": triu_self}, dtype="same", inplace="triu_",
      family=FAMILY, samples=_tri_samples("triu"))


def _tri_write(lower):
    """tril_/triu_ through an expanded ``self``: zeros written where the triangle ends, the
    kept places untouched (Note [Expanded writes] in expanded_write.py)."""
    def write(self, diagonal=0):
        d = self._data
        _check_2d("tril" if lower else "triu", d)
        keep = np.ones(d.shape[-2:], bool)
        keep = np.tril(keep, diagonal) if lower else np.triu(keep, diagonal)
        write_where(self, np.zeros((), d.dtype), ~keep)
    return write


for _name, _lower in (("tril_", True), ("triu_", False)):
    bind_method(_name, through_expanded(_name, getattr(Tensor, _name), _tri_write(_lower)))


def _tri_indices(lower, row, col, offset, dtype):
    d = _dt.int64 if dtype is None else _dt.to_dtype(dtype)
    mask = np.tri(row, col, offset, dtype=bool)
    if not lower:
        mask = ~np.tri(row, col, offset - 1, dtype=bool)
    r, c = np.nonzero(mask)
    return _wrap(np.stack([r, c]).astype(d.np))


def tril_indices(row, col, offset=0, *, dtype=None, device=None, layout=None):
    """The (2, N) coordinates of the lower triangle of a ``row`` x ``col`` matrix."""
    return _tri_indices(True, row, col, offset, dtype)


def triu_indices(row, col, offset=0, *, dtype=None, device=None, layout=None):
    """The (2, N) coordinates of the upper triangle of a ``row`` x ``col`` matrix."""
    return _tri_indices(False, row, col, offset, dtype)


export_function("tril_indices", tril_indices)
export_function("triu_indices", triu_indices)


# -- diagonal (a view) and its backward ------------------------------------------------------
def diagonal_view(a: np.ndarray, offset: int, dim1: int, dim2: int) -> np.ndarray:
    """A writable strided view of ``a``'s diagonal (NumPy's own is read-only); the
    diagonal's dim goes last, as in PyTorch."""
    n = a.ndim
    d1, d2 = _wrap_dim(dim1, max(n, 1)), _wrap_dim(dim2, max(n, 1))   # 0-d: as 1-d, as PyTorch
    if d1 == d2:
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    s1, s2 = a.shape[d1], a.shape[d2]
    length = max(0, min(s1, s2 - offset) if offset >= 0 else min(s1 + offset, s2))
    # a slice starting at the diagonal's first element carries the right address
    start = [slice(None)] * n
    if length:
        if offset >= 0:
            start[d2] = slice(offset, None)
        else:
            start[d1] = slice(-offset, None)
    rest = [i for i in range(n) if i not in (d1, d2)]
    shape = tuple(a.shape[i] for i in rest) + (length,)
    strides = tuple(a.strides[i] for i in rest) + (a.strides[d1] + a.strides[d2],)
    return np.lib.stride_tricks.as_strided(a[tuple(start)], shape, strides,
                                           writeable=a.flags.writeable)


def diagonal(self, offset=0, dim1=0, dim2=1):
    """The diagonal of the (``dim1``, ``dim2``) planes, as a last dim (a view)."""
    return diagonal_view(self, offset, dim1, dim2)


def diagonal_self(grad, self_shape, offset, dim1, dim2):
    return _diag_back.public(grad, self_shape, offset, dim1, dim2)


def _diagonal_samples(make, shapes):
    s = _at_least_2d(shapes[0])
    return [Sample((make(s),)), Sample((make(s), 1)), Sample((make(s), -1, -1, 0)),
            Sample((make(s),), {"offset": 1, "dim1": -2, "dim2": -1}, call="diagonal")]


defop("diagonal", diagonal, derivatives={"self": diagonal_self}, dtype="same", view=True,
      family=FAMILY, samples=_diagonal_samples)


def diagonal_backward(grad_output, input_sizes, offset, dim1, dim2):
    """Zeros of ``input_sizes`` with ``grad_output`` on the diagonal."""
    out = np.zeros(tuple(input_sizes), grad_output.dtype)
    diagonal_view(out, offset, dim1, dim2)[...] = grad_output
    return out


def diagonal_backward_grad(grad, offset, dim1, dim2):
    return grad.diagonal(offset, dim1, dim2)


_diag_back = defop("diagonal_backward", diagonal_backward, inputs=("grad_output",),
                   derivatives={"grad_output": diagonal_backward_grad}, dtype="same",
                   methods=(), functions=(), family=FAMILY)


def diagonal_copy(self, offset=0, dim1=0, dim2=1):
    """``diagonal`` as a new tensor (what ``torch.diag`` of a matrix returns)."""
    return diagonal_view(self, offset, dim1, dim2).copy()


_diag_copy = defop("diagonal_copy", diagonal_copy, derivatives={"self": diagonal_self},
                   dtype="same", grad_fn_name="DiagonalBackward0_copy", methods=(),
                   family=FAMILY)


# -- diag_embed / diag / diagflat ------------------------------------------------------------
def diag_embed(self, offset=0, dim1=-2, dim2=-1):
    """A tensor whose (``dim1``, ``dim2``) diagonals hold the last dim of ``self``."""
    n = self.ndim + 1
    d1, d2 = _wrap_dim(dim1, n), _wrap_dim(dim2, n)
    if d1 == d2:
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    size = self.shape[-1] + abs(offset) if self.ndim else abs(offset) + 1
    rest = list(self.shape[:-1])
    shape = []
    for i in range(n):
        shape.append(size if i in (d1, d2) else rest.pop(0))
    out = np.zeros(shape, self.dtype)
    diagonal_view(out, offset, d1, d2)[...] = self
    return out


def diag_embed_self(grad, offset, dim1, dim2):
    return grad.diagonal(offset, dim1, dim2)


defop("diag_embed", diag_embed, derivatives={"self": diag_embed_self}, dtype="same",
      family=FAMILY, samples=lambda make, shapes: [
          Sample((make(shapes[1] or (2,)),)), Sample((make(shapes[1] or (2,)), 1)),
          Sample((make(shapes[1] or (2,)), -1, 0, -1))])


def diag(input, diagonal=0):
    """A 1-d tensor's diagonal matrix, or a matrix's diagonal (a copy)."""
    if input.ndim == 1:
        return input.diag_embed(diagonal, 0, 1)
    if input.ndim == 2:
        return _diag_copy.public(input, diagonal, 0, 1)
    raise RuntimeError(f"diag(): Supports 1D or 2D tensors. Got {input.ndim}D")


def diagflat(input, offset=0):
    """The flattened ``input`` on the ``offset`` diagonal of a square matrix."""
    return input.contiguous().view(-1).diag_embed(offset, 0, 1)


for _name, _fn in (("diag", diag), ("diagflat", diagflat)):
    export_function(_name, _fn)
    bind_method(_name, _fn)


# -- trace -----------------------------------------------------------------------------------
def trace(self):
    """The sum of a matrix's diagonal."""
    if self.dtype == np.bool_:   # the kernel's dtype dispatch comes before the dim check
        raise NotImplementedError("\"trace\" not implemented for 'Bool'")
    if self.ndim != 2:
        raise RuntimeError(f"trace: expected a matrix, but got tensor with dim {self.ndim}")
    out = np.trace(self)
    return np.asarray(out, dtype=np.int64 if self.dtype.kind in "biu" else self.dtype)


def trace_self(grad, self_shape):
    n, m = self_shape
    if _mode.grad_enabled:
        # PyTorch's trace_backward: the gradient index_fill_-ed on the diagonal of flat zeros,
        # viewed as the matrix (its nodes under create_graph: ViewBackward0, IndexFillBackward1)
        flat = _wrap(np.zeros(n * m, dtype=grad._data.dtype))
        diagonal = _wrap(np.arange(0, min(n, m) * (m + 1), m + 1, dtype=np.int64))
        return flat.index_fill_(0, diagonal, grad).view(n, m)
    eye = _wrap(np.eye(n, m, dtype=grad._data.dtype))
    return eye * grad


defop("trace", trace, derivatives={"self": trace_self}, dtype="same", family=FAMILY,
      samples=lambda make, shapes: [Sample((make(_at_least_2d(shapes[0])[-2:]),)),
                                    Sample((make((2, 3), 0, 5, np.int64),))])


# -- rot90 / fliplr / flipud -----------------------------------------------------------------
def rot90(self, k=1, dims=(0, 1)):
    """Rotate by 90 degrees ``k`` times in the plane ``dims`` (from the first toward the
    second)."""
    dims = tuple(dims)
    if len(dims) != 2:
        raise RuntimeError(f"expected total rotation dims == 2, but got dims = {len(dims)}")
    if self.ndim < 2:
        raise RuntimeError(f"expected total dims >= 2, but got total dims = {self.ndim}")
    d0, d1 = _wrap_dim(dims[0], self.ndim), _wrap_dim(dims[1], self.ndim)
    if d0 == d1:
        raise RuntimeError(f"expected rotation dims to be different, but got dim0 = {dims[0]} "
                           f"and dim1 = {dims[1]}")
    # always a copy, laid out as PyTorch's: flip (a copy in self's layout: ``iter_strides``
    # of one input), then a transpose of that copy for odd k; k % 4 == 0 clones contiguous
    k %= 4
    if k == 0:
        return np.array(self, order="C")
    flipped = np.flip(self, (d0, d1) if k == 2 else d1 if k == 1 else d0)
    out = strided_empty(self.shape, iter_strides(self.shape, [self]), self.dtype)
    out[...] = flipped
    return out if k == 2 else out.swapaxes(d0, d1)


def rot90_self(grad, k, dims):
    return grad.rot90(-k, dims)


defop("rot90", rot90, derivatives={"self": rot90_self}, dtype="same", family=FAMILY,
      samples=lambda make, shapes: [
          Sample((make(_at_least_2d(shapes[0])),)),
          Sample((make(_at_least_2d(shapes[0])), 2)),
          Sample((make(_at_least_2d(shapes[0])), -1, [-1, 0]))])


def fliplr(input):
    """Reverse the columns (dim 1)."""
    if input.ndim < 2:
        raise RuntimeError("Input must be >= 2-d.")
    return input.flip(1)


def flipud(input):
    """Reverse the rows (dim 0)."""
    if input.ndim < 1:
        raise RuntimeError("Input must be >= 1-d.")
    return input.flip(0)


for _name, _fn in (("fliplr", fliplr), ("flipud", flipud)):
    export_function(_name, _fn)
    bind_method(_name, _fn)


# -- meshgrid / cartesian_prod ---------------------------------------------------------------
def meshgrid(*tensors, indexing=None):
    """Coordinate grids from 1-d tensors: ``indexing='ij'`` (matrix) or ``'xy'`` (Cartesian:
    the first two grids' dims swapped)."""
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        tensors = tuple(tensors[0])
    if indexing is None:
        warnings.warn("torch.meshgrid: in an upcoming release, it will be required to pass "
                      "the indexing argument.", UserWarning, stacklevel=2)
        indexing = "ij"
    if indexing not in ("ij", "xy"):
        raise RuntimeError('torch.meshgrid: indexing must be one of "xy" or "ij", but '
                           f"received: {indexing}")
    if not tensors:
        raise RuntimeError("meshgrid expects a non-empty TensorList")
    if any(t.dtype != tensors[0].dtype for t in tensors):
        raise RuntimeError("meshgrid expects all tensors to have the same dtype")
    for t in tensors:
        if t.ndim > 1:
            raise RuntimeError("torch.meshgrid: Expected 0D or 1D tensor in the tensor list "
                               f"but got: {t}")
    # 'xy' puts the first tensor along dim 1 and the second along dim 0
    pos = list(range(len(tensors)))
    if indexing == "xy" and len(tensors) >= 2:
        pos[0], pos[1] = 1, 0
    sizes = [0] * len(tensors)
    for p, t in zip(pos, tensors):
        sizes[p] = t.numel()
    grids = []
    for p, t in zip(pos, tensors):
        shape = [1] * len(tensors)
        shape[p] = -1
        grids.append(t.view(shape).expand(sizes))
    return tuple(grids)


def cartesian_prod(*tensors):
    """Every combination of the 1-d tensors' elements, one per row."""
    if len(tensors) == 1:
        return tensors[0]
    grids = meshgrid(*tensors, indexing="ij")
    from .registry import FUNCTIONS
    return FUNCTIONS["stack"]([g.reshape(-1) for g in grids], 1)


export_function("meshgrid", meshgrid)
export_function("cartesian_prod", cartesian_prod)
