"""The rest of ``torch.linalg`` and its old ``torch.*`` names:
``linalg.vecdot``, ``vander``, ``tensorinv``, ``tensorsolve``, ``diagonal``,
``torch.nuclear_norm``, the functions PyTorch removed (``torch.solve``, ``torch.eig``, ...,
which raise PyTorch's messages), and clear ``NotImplementedError``s for what needs complex
numbers (``linalg.eig``, ``eigvals``) or is not written yet.

>>> import leafgrad as torch
>>> torch.linalg.vecdot(torch.tensor([1.0, 2.0]), torch.tensor([3.0, 4.0]))
tensor(11.)
"""
from __future__ import annotations


import numpy as np

from .registry import export_function, bind_method, FUNCTIONS
from .linalg_decomp import inv, solve
from .linalg_lu import lu_solve
from .linalg_pinv import matrix_norm
from ..tensor import _wrap

FAMILY = "linalg"


# -- small composites ----------------------------------------------------------------------------
def vecdot(x, y, *, dim=-1, out=None):
    """``torch.linalg.vecdot``: ``(x * y).sum(dim)`` (real inputs), with PyTorch's checks:
    a floating x, one dtype, then (1-D) dot's size message."""
    from ..dtypes import from_numpy_dtype
    a, b = x._data, y._data
    if a.dtype.kind not in "fc":
        raise RuntimeError(f"linalg.vecdot: Expected a floating point or complex tensor as "
                           f"input. Got {from_numpy_dtype(a.dtype).tensor_type[:-6]}")
    if a.dtype != b.dtype:
        raise RuntimeError(f"linalg.vecdot: Expected x and y to have the same dtype, but found "
                           f"x of type {from_numpy_dtype(a.dtype).tensor_type[:-6]} and y of "
                           f"type {from_numpy_dtype(b.dtype).tensor_type[:-6]} instead")
    if a.ndim == 1 and b.ndim == 1:
        if a.shape[0] != b.shape[0]:
            raise RuntimeError(f"inconsistent tensor size, expected tensor [{a.shape[0]}] and "
                               f"src [{b.shape[0]}] to have the same number of elements, but "
                               f"got {a.shape[0]} and {b.shape[0]} elements respectively")
        # PyTorch hands two 1-D inputs to vdot whatever `dim` says (VdotBackward0)
        return FUNCTIONS["vdot"](x, y)
    return (x * y).sum(dim)


def vander(x, *, N=None):
    """``torch.linalg.vander``: columns ``x**0, x**1, ..., x**(N-1)``."""
    if x._data.dtype in (np.float16, np.bool_):   # PyTorch's first check, even on a 0-d x
        from .linalg_common import type_name
        raise RuntimeError(f"linalg.vander supports floating point, complex, and integer "
                           f"tensors, but got {type_name(x._data)}")
    if x.ndim < 1:
        raise RuntimeError("linalg.vander: x must have at least one dimension.")
    n = x.shape[-1] if N is None else N
    if n <= 1:
        raise RuntimeError("N must be greater than 1.")
    ones = _wrap(np.ones(tuple(x.shape) + (1,), dtype=x._data.dtype))
    powers = x.unsqueeze(-1).expand(*x.shape, n - 1).cumprod(-1)
    return FUNCTIONS["cat"]([ones, powers], -1)


def tensorinv(A, ind=2, *, out=None):
    """``torch.linalg.tensorinv``: the inverse of ``A`` read as a matrix of its first ``ind``
    dims by the rest."""
    if ind <= 0:
        raise RuntimeError(f"Expected a strictly positive integer for 'ind', but got {ind}")
    rows = list(A.shape[:ind])
    cols = list(A.shape[ind:])
    m, n = int(np.prod(rows)), int(np.prod(cols))
    if m != n:
        raise RuntimeError(f"Expected self to satisfy the requirement prod(self.shape[ind:]) "
                           f"== prod(self.shape[:ind]), but got {n} != {m}")
    return inv(A.reshape(m, n)).reshape(cols + rows)


def tensorsolve(A, B, dims=None, *, out=None):
    """``torch.linalg.tensorsolve``: ``X`` with ``tensordot(A, X, X.ndim) = B``."""
    if dims is not None:
        dims = [d % A.ndim for d in dims]
        keep = [d for d in range(A.ndim) if d not in dims]
        A = A.permute(keep + dims)
    rest = list(A.shape[B.ndim:])
    m = int(np.prod(B.shape))
    n = int(np.prod(rest))
    if m != n:
        raise RuntimeError(f"Expected self to satisfy the requirement prod(self.shape[other.ndim:]) "
                           f"== prod(self.shape[:other.ndim]), but got {n} != {m}")
    return solve(A.reshape(m, n), B.reshape(m)).view(rest)


def diagonal(A, *, offset=0, dim1=-2, dim2=-1):
    """``torch.linalg.diagonal``: ``A.diagonal`` with matrix-first defaults."""
    return A.diagonal(offset, dim1, dim2)


def nuclear_norm(input, dim=None, keepdim=False, *, out=None):
    """``torch.nuclear_norm`` (deprecated): the sum of the singular values."""
    return matrix_norm(input, "nuc", (-2, -1) if dim is None else dim, keepdim)


# -- what is not there ---------------------------------------------------------------------------
def _not_implemented(what):
    def fn(*args, **kwargs):
        raise NotImplementedError(f"leafgrad does not implement {what}")
    fn.__name__ = what.split("(")[0].split(".")[-1]
    fn.__doc__ = f"Not implemented in leafgrad: {what}."
    return fn


eig = _not_implemented("torch.linalg.eig (complex eigenvectors need complex dtypes)")
eigvals = _not_implemented("torch.linalg.eigvals (complex eigenvalues need complex dtypes)")
householder_product = _not_implemented("torch.linalg.householder_product")
ldl_factor = _not_implemented("torch.linalg.ldl_factor")
ldl_factor_ex = _not_implemented("torch.linalg.ldl_factor_ex")
ldl_solve = _not_implemented("torch.linalg.ldl_solve")

_REMOVED = {
    "solve": "This function was deprecated since version 1.9 and is now removed. `torch.solve` "
             "is deprecated in favor of `torch.linalg.solve`. `torch.linalg.solve` has its "
             "arguments reversed and does not return the LU factorization.\n\nTo get the LU "
             "factorization see `torch.lu`, which can be used with `torch.lu_solve` or "
             "`torch.lu_unpack`.\nX = torch.solve(B, A).solution should be replaced with:\n"
             "X = torch.linalg.solve(A, B)",
    "eig": "This function was deprecated since version 1.9 and is now removed. "
           "`torch.linalg.eig` returns complex tensors of dtype `cfloat` or `cdouble` rather "
           "than real tensors mimicking complex tensors.\n\nL, _ = torch.eig(A) should be "
           "replaced with:\nL_complex = torch.linalg.eigvals(A)\n\nand\n\nL, V = torch.eig(A, "
           "eigenvectors=True) should be replaced with:\nL_complex, V_complex = "
           "torch.linalg.eig(A)",
    "symeig": "This function was deprecated since version 1.9 and is now removed. The default "
              "behavior has changed from using the upper triangular portion of the matrix by "
              "default to using the lower triangular portion.\n\nL, _ = torch.symeig(A, "
              "upper=upper) should be replaced with:\nL = torch.linalg.eigvalsh(A, UPLO='U' if "
              "upper else 'L')\n\nand\n\nL, V = torch.symeig(A, eigenvectors=True) should be "
              "replaced with:\nL, V = torch.linalg.eigh(A, UPLO='U' if upper else 'L')",
    "matrix_rank": "This function was deprecated since version 1.9 and is now removed.\nPlease "
                   "use the `torch.linalg.matrix_rank` function instead. The parameter "
                   "'symmetric' was renamed in `torch.linalg.matrix_rank()` to 'hermitian'.",
    "lstsq": "This function was deprecated since version 1.9 and is now removed. `torch.lstsq` "
             "is deprecated in favor of `torch.linalg.lstsq`.\n`torch.linalg.lstsq` has "
             "reversed arguments and does not return the QR decomposition in the returned "
             "tuple (although it returns other information about the problem).\n\nTo get the "
             "QR decomposition consider using `torch.linalg.qr`.\n\nThe returned solution in "
             "`torch.lstsq` stored the residuals of the solution in the last m - n columns of "
             "the returned value whenever m > n. In torch.linalg.lstsq, the residuals are in "
             "the field 'residuals' of the returned named tuple.\n\nThe unpacking of the "
             "solution, as in\nX, _ = torch.lstsq(B, A).solution[:A.size(1)]\nshould be "
             "replaced with:\nX = torch.linalg.lstsq(A, B).solution",
}


def _removed(name):
    def fn(*args, **kwargs):
        raise RuntimeError(_REMOVED[name])
    fn.__name__ = name
    fn.__doc__ = f"Removed from PyTorch 1.9+: raises PyTorch's message."
    return fn


for _name in _REMOVED:
    export_function(_name, _removed(_name))
    bind_method(_name, _removed(_name))
export_function("nuclear_norm", nuclear_norm)
bind_method("lu_solve", lambda self, LU_data, LU_pivots: lu_solve(LU_data, LU_pivots, self))
