"""Inverses, determinants and solves: ``linalg.inv`` / ``inv_ex`` / ``inverse``,
``linalg.det`` / ``det``, ``slogdet``, ``logdet``, ``linalg.solve`` / ``solve_ex``,
``matrix_power``, ``linalg.matrix_exp`` (Cholesky and triangular solves: linalg_cholesky.py).

Forwards are one LAPACK call through NumPy over the whole batch; derivative formulas are
written with these same records (``inv``, ``solve``), so second derivatives work. Batched
inputs (``..., n, n``) work everywhere PyTorch allows them.

>>> import leafgrad as torch
>>> torch.linalg.det(torch.tensor([[2.0, 0.0], [0.0, 3.0]]))
tensor(6.)
"""
from __future__ import annotations

import numpy as np

from .registry import defop, export_function, bind_method, Sample, FUNCTIONS
from .joins import materialize_zeros
from .linalg import matmul
from .linalg_common import (check_float, check_matrix, check_same_dtype, first_zero_pivot,
                            batch_info, raise_for_info, singular_message, eye_like,
                            getrs_adjoint, check_kernel, check_low_precision, lapack_layout)
from ..autograd.graph import sum_to
from .mexp_half import matrix_exp_half
from ..grad_mode import state as _mode
from ..tensor import Tensor, _wrap
from .. import return_types as _rt
from ..errors import broadcast_error

FAMILY = "linalg"

slogdet_type = _rt._make("slogdet", ("sign", "logabsdet"))
linalg_slogdet_type = _rt._make("linalg_slogdet", ("sign", "logabsdet"))
inv_ex_type = _rt._make("linalg_inv_ex", ("inverse", "info"))
solve_ex_type = _rt._make("linalg_solve_ex", ("result", "info"))


def _spd(make, shape):
    """A well-conditioned symmetric positive-definite array of ``shape`` (..., n, n)."""
    x = make(shape)
    return x @ np.swapaxes(x, -1, -2) + shape[-1] * np.eye(shape[-1])


def _wellcond(make, shape):
    return make(shape) + 3 * np.eye(shape[-1])


# -- inv -----------------------------------------------------------------------------------------
def linalg_inv_ex(A, *, check_errors=False):
    """``(inverse, info)``: LAPACK's getrf/getri result, ``info`` > 0 for singular inputs."""
    try:
        inverse = np.linalg.inv(A)
        info = np.zeros(A.shape[:-2], dtype=np.int32)
    except np.linalg.LinAlgError:
        info = batch_info(A, first_zero_pivot)
        if check_errors:
            raise_for_info("linalg.inv", info, singular_message)
        inverse = _getrf_getrs(A, np.broadcast_to(np.eye(A.shape[-1], dtype=A.dtype),
                                                  A.shape))
    if A.size:
        # PyTorch's LAPACK spreads a NaN of a matrix to its whole inverse (NumPy's may not)
        nan = np.isnan(A).any(axis=(-2, -1))
        if nan.any():
            inverse = np.where(nan[..., None, None], np.nan, inverse).astype(A.dtype, copy=False)
    return [lapack_layout(inverse), info]


def _getrf_getrs(A, B, adjoint=False):
    """``A X = B`` (``A^T X = B``) as PyTorch's LAPACK does it for singular A: the LU
    factorization, then triangular solves that divide by its zero pivots (infs and NaNs, no
    error)."""
    from .linalg_lu import getrs, lu_packed   # (linalg_lu imports this module)
    LU, pivots, _ = lu_packed(A)
    return getrs(LU, pivots, B, adjoint)


def linalg_inv_ex_A(grads, result):
    inv_t = result.mT   # PyTorch's -inverse^H (grad inverse^H)
    return -matmul(inv_t, matmul(grads[0], inv_t))


_inv = defop("linalg_inv_ex", linalg_inv_ex, inputs=("A",),
             derivatives={"A": linalg_inv_ex_A}, dtype="same", n_outputs=2,
             differentiable_outputs=(True, False), materialize=materialize_zeros,
             methods=(), functions=(), family=FAMILY,
             samples=lambda make, shapes: [
                 Sample((_wellcond(make, (3, 3)),), call="linalg.inv"),
                 Sample((_wellcond(make, (2, 2, 2)),), call="linalg.inv_ex"),
                 Sample((_wellcond(make, (3, 3)),), call="inverse"),
                 Sample((_wellcond(make, (1, 1)),), call="Tensor.inverse")])


def _checked(name, A, square=True):
    if not isinstance(A, Tensor):
        raise TypeError(f"{name}(): argument 'A' (position 1) must be Tensor, not "
                        f"{type(A).__name__}")
    check_matrix(name, A, square)
    check_float(name, A)


def inv_ex(A, *, check_errors=False, out=None):
    """``torch.linalg.inv_ex``: ``(inverse, info)``."""
    _checked("linalg.inv", A)
    check_low_precision("linalg.inv", A)
    return inv_ex_type(_inv.public(A, check_errors=check_errors))


def inv(A, *, out=None):
    """``torch.linalg.inv`` (and ``torch.inverse``)."""
    _checked("linalg.inv", A)
    check_low_precision("linalg.inv", A)
    return _inv.public(A, check_errors=True)[0]


def inverse(input, *, out=None):
    return inv(input)


# -- det, slogdet, logdet ------------------------------------------------------------------------
def linalg_det(A):
    """The determinant of each matrix."""
    if A.dtype == np.float16:   # (empty: the kernel refuses others) NumPy has no half linalg
        return linalg_det(A.astype(np.float32)).astype(np.float16)
    if not A.size:
        return np.asarray(np.linalg.det(A))
    if A.shape[-1] > 16:   # (small ones always, as slogdet: PyTorch's rounding, exact zeros)
        out = np.asarray(np.linalg.det(A))
        if np.isfinite(out).all() and out.all():
            return out
    diag, sign = _lu_diagonal(A)
    return np.asarray(diag.prod(-1) * sign)


def _lu_diagonal(A):
    """U's diagonal and the permutation's sign (+-1) of LAPACK's partially pivoted LU, which
    PyTorch's det and slogdet multiply out. NumPy's det comes from ``sign * exp(logdet)`` and
    its slogdet special-cases a zero pivot, so where a matrix is singular or holds inf/NaN
    (the signed zero of ``-0 * 1``, the NaN of ``0 * inf`` or of ``log 0 + log inf``) the
    determinant is recomputed from the factors."""
    from .linalg_lu import lu_packed   # (linalg_lu imports this module's family)
    # PyTorch factors A^T when A is contiguous (det(A^T) = det(A): LAPACK wants columns)
    lu, piv, _ = lu_packed(np.swapaxes(A, -1, -2) if A.flags.c_contiguous else A)
    diag = np.diagonal(lu, axis1=-2, axis2=-1)
    swaps = (piv != np.arange(1, piv.shape[-1] + 1)).sum(-1)
    return diag, np.where(swaps % 2, -1, 1).astype(A.dtype)


def _prod_safe_zeros_backward(grad, inp):
    """The gradient of ``prod`` over the last dim, exact with zeros: the products of the
    entries before and after each (PyTorch's prod_safe_zeros_backward)."""
    if not inp.numel():
        return grad.expand_as(inp)
    cat, n = FUNCTIONS["cat"], inp.shape[-1]
    ones = inp.new_ones(inp.shape[:-1] + (1,))
    before = cat([ones, inp.narrow(-1, 0, n - 1)], -1).cumprod(-1)
    after = cat([ones, inp.narrow(-1, 1, n - 1).flip(-1)], -1).cumprod(-1).flip(-1)
    return grad * (before * after)


def _det_grad_singular(grad, A):
    """Through the SVD: d det / dA = U diag(alpha d prod(S) / dS) Vh, alpha = det(U) det(Vh)
    (right at a singular A too)."""
    from .linalg_spectral import svd   # (linalg_spectral imports this module, via linalg_cholesky)
    U, S, Vh = svd(A)
    alpha = _det.public(U) * _det.public(Vh)
    D = _prod_safe_zeros_backward((grad * alpha).unsqueeze(-1), S)
    return matmul(U * D.unsqueeze(-2), Vh)


def _det_grad_graph(grad, A, result):
    """PyTorch's det backward under grad mode: ``solve(A^H, diag(grad det))`` where det is
    nonzero, the SVD formula where it is zero (both put into a zero tensor for a mixed
    batch)."""
    singular = result._data == 0
    n = A.shape[-1]

    def nonsingular(a, g, det):
        d = (det * g).unsqueeze(-1).expand(det.shape + (n,))
        return _solve.public(a.mT, FUNCTIONS["diag_embed"](d).mT, check_errors=True)[0]

    if not singular.any():
        return nonsingular(A, grad, result)
    if singular.all():
        return _det_grad_singular(grad, A)
    g = grad.expand(result.shape)
    mask = _wrap(singular)
    out = _wrap(np.zeros(A.shape, A._data.dtype))
    out = out.index_put((mask,), _det_grad_singular(g[mask], A[mask]))
    keep = _wrap(~singular)
    return out.index_put((keep,), nonsingular(A[keep], g[keep], result[keep]))


def linalg_det_A(grad, A, result):
    if A.shape[-1] == 1:
        # PyTorch's shortcut for 1x1 matrices: the gradient is the incoming one, reshaped (it
        # does not depend on A: no graph back to A under create_graph, 1 at a singular A)
        return grad.unsqueeze(-1).unsqueeze(-1).expand(A.shape)
    if _mode.grad_enabled:   # create_graph: PyTorch's twice-differentiable formulas
        return _det_grad_graph(grad, A, result)
    out, info = _inv.public(A, check_errors=False)
    g = grad.unsqueeze(-1).unsqueeze(-1) * result.unsqueeze(-1).unsqueeze(-1)
    bad = info._data != 0
    if bad.any():
        # PyTorch 2.13 gives a zero gradient at an exactly singular matrix (det = 0)
        out = FUNCTIONS["where"](_wrap(~bad[..., None, None]), out,
                                 _wrap(np.zeros((), out._data.dtype)))
    return g * out.mT


_det = defop("linalg_det", linalg_det, inputs=("A",), derivatives={"A": linalg_det_A},
             dtype="same", methods=(), functions=(), family=FAMILY,
             samples=lambda make, shapes: [
                 Sample((make((3, 3)),), call="linalg.det"),
                 Sample((make((2, 2, 2)),), call="det"),
                 Sample((make((1, 1)),), call="Tensor.det")])


def linalg_slogdet(A):
    """``(sign, log|det|)`` of each matrix."""
    with np.errstate(invalid="ignore"):
        sign, logabs = np.linalg.slogdet(A)
    if A.size and (A.shape[-1] <= 16 or not (np.isfinite(logabs).all()
                                            and np.isfinite(A).all())):
        # PyTorch's: the product of sgn(diag(U)) and the sum of log|diag(U)|. Small matrices
        # always: where rounding leaves OpenBLAS a tiny pivot, MKL's unblocked LU (ours)
        # finds the exact zero of a singular matrix (sign 0, -inf)
        diag, perm = _lu_diagonal(A)
        sgn = np.sign(np.nan_to_num(diag))   # (PyTorch's sgn(NaN) is 0)
        with np.errstate(divide="ignore", invalid="ignore"):
            return [np.asarray(sgn.prod(-1) * perm, A.dtype),
                    np.asarray(np.log(np.abs(diag)).sum(-1), A.dtype)]
    return [np.asarray(sign, dtype=A.dtype), np.asarray(logabs, dtype=A.dtype)]


def linalg_slogdet_A(grads, A, result):   # result (the sign): saved as PyTorch does
    g = grads[1]
    if g is None:   # the sign of a real matrix has no derivative: PyTorch's is undefined
        return None
    if _mode.grad_enabled:
        # PyTorch differentiates twice through linalg.solve(A^H, g I), which raises for a
        # singular A (first-order backward solves with the LU factors: infs and NaNs)
        eye = g.unsqueeze(-1).unsqueeze(-1) * eye_like(A)
        return _solve.public(A.mT, eye, check_errors=True)[0]
    a, gd = A._data, g._data
    out, info = linalg_inv_ex(a)
    out = np.swapaxes(out, -1, -2) * gd[..., None, None]
    if info.any():   # PyTorch solves with the LU factors: infs and NaNs, no error
        flat_a, flat_out = a.reshape((-1,) + a.shape[-2:]), out.reshape((-1,) + a.shape[-2:])
        flat_g = np.broadcast_to(gd, info.shape).reshape(-1)
        for i in np.nonzero(info.reshape(-1))[0]:
            d = np.eye(a.shape[-1], dtype=a.dtype) * flat_g[i]
            flat_out[i] = getrs_adjoint(flat_a[i], d)
        out = flat_out.reshape(a.shape)
    return _wrap(out)


def _slogdet_grads(grads, metas):
    """The logabsdet gradient may stay undefined (a sign's gradient alone gives none)."""
    return list(grads)


_slogdet = defop("linalg_slogdet", linalg_slogdet, inputs=("A",),
                 derivatives={"A": linalg_slogdet_A}, dtype="same", n_outputs=2,
                 materialize=_slogdet_grads, methods=(), functions=(), family=FAMILY,
                 samples=lambda make, shapes: [
                     Sample((make((3, 3)),), call="linalg.slogdet"),
                     Sample((make((2, 2, 2)),), call="slogdet"),
                     Sample((_spd(make, (3, 3)),), call="logdet"),
                     Sample((make((2, 2)),), call="Tensor.slogdet")])


def det(A, *, out=None):
    """``torch.linalg.det`` / ``torch.det``."""
    _checked("linalg.det", A)
    check_kernel("lu_cpu", A)
    return _det.public(A)


def slogdet(A, *, out=None):
    """``torch.linalg.slogdet``: ``(sign, logabsdet)``."""
    _checked("linalg.slogdet", A)
    check_low_precision("linalg.slogdet", A)
    return linalg_slogdet_type(_slogdet.public(A))


def slogdet_torch(input):
    _checked("linalg.slogdet", input)
    check_low_precision("linalg.slogdet", input)
    return slogdet_type(_slogdet.public(input))


def logdet(input):
    """``log(det(input))``: NaN for a negative determinant, -inf for a singular matrix."""
    _checked("logdet", input)
    check_low_precision("logdet", input)
    from .select import where
    sign, logabs = _slogdet.public(input)
    return where(sign == -1, _wrap(np.array(np.nan, dtype=logabs._data.dtype)), logabs)


# -- solve ---------------------------------------------------------------------------------------
def _vector_case(A_shape, B_shape):
    """PyTorch treats B as a (batch of) vector(s) if it is 1-D or A's shape less one dim."""
    return len(B_shape) == 1 or (len(B_shape) == len(A_shape) - 1
                                 and tuple(B_shape) == tuple(A_shape[:-1]))


def linalg_solve_ex(A, B, *, left=True, check_errors=False):
    """``(X, info)`` with ``A X = B``."""
    if A.dtype == np.float16:   # (empty: the kernel refuses others) NumPy has no half linalg
        X, info = linalg_solve_ex(A.astype(np.float32), B.astype(np.float32), left=left,
                                  check_errors=check_errors)
        return [X.astype(np.float16), info]
    if not left:    # X A = B  <=>  A^T X^T = B^T (singular: A's own LU, solved transposed)
        try:
            x = np.linalg.solve(np.swapaxes(A, -1, -2), np.swapaxes(B, -1, -2))
            # (X^T column-major: X row-major, as PyTorch's)
            return [np.ascontiguousarray(np.swapaxes(x, -1, -2)),
                    np.zeros(A.shape[:-2], dtype=np.int32)]
        except np.linalg.LinAlgError:
            info = batch_info(A, first_zero_pivot)
            if check_errors:
                raise_for_info("torch.linalg.solve", info, lambda i: "The solver failed "
                               "because the input matrix is singular.")
            x = _getrf_getrs(A, np.swapaxes(B, -1, -2), adjoint=True)
            return [np.ascontiguousarray(np.swapaxes(x, -1, -2)), info]
    vector = _vector_case(A.shape, B.shape)
    b = B[..., None] if vector else B
    try:
        x = np.linalg.solve(A, b)
        info = np.zeros(A.shape[:-2], dtype=np.int32)
    except np.linalg.LinAlgError:
        info = batch_info(A, first_zero_pivot)
        if check_errors:   # (A's own batch element, not the broadcast one)
            raise_for_info("torch.linalg.solve", info, lambda i: "The solver failed because "
                           "the input matrix is singular.")
        x = _getrf_getrs(A, b)
    # (a batch of vectors comes out as the columns of one column-major matrix, as PyTorch's)
    return [lapack_layout(x[..., 0] if vector else x), info]


# As PyTorch's: a vector right-hand side is made a one-column matrix (unsqueeze), solved
# with A^T and squeezed back; A's gradient is then a matrix product (the graphs under
# create_graph match)
def _solve_B_grad(grads, A, left, vector):
    g = grads[0].unsqueeze(-1) if vector else grads[0]
    if not left:      # X = B A^-1: gB = g A^-T, solved as PyTorch's: Y A^T = g
        return _solve.public(A.mT, g, left=False)[0]
    return _solve.public(A.mT, g)[0]


# PyTorch's one formula for both (Note [Joint formulas] in autograd/graph.py) saves A, result,
# left (and the LU factors, its own outputs) for both inputs, never B; A's gradient is built
# on B's
def linalg_solve_ex_backward(grads, A, result, left, A_shape, B_shape, output_mask):
    vector = _vector_case(A_shape, B_shape)
    gB = _solve_B_grad(grads, A, left, vector)
    gA = None
    if output_mask[0]:
        X = result.unsqueeze(-1) if vector else result
        gA = sum_to(-matmul(gB, X.mT) if left else -matmul(X.mT, gB), A_shape)
    if output_mask[1]:
        gB = sum_to(gB.squeeze(-1) if vector else gB, B_shape)
    else:
        gB = None
    return gA, gB


_solve = defop("linalg_solve_ex", linalg_solve_ex, inputs=("A", "B"),
               derivatives={("A", "B"): linalg_solve_ex_backward}, dtype="same",
               n_outputs=2, differentiable_outputs=(True, False), materialize=materialize_zeros,
               methods=(), functions=(), family=FAMILY,
               samples=lambda make, shapes: [
                   Sample((_wellcond(make, (3, 3)), make((3,))), call="linalg.solve"),
                   Sample((_wellcond(make, (3, 3)), make((3, 2))), call="linalg.solve"),
                   Sample((_wellcond(make, (2, 3, 3)), make((2, 3))), call="linalg.solve"),
                   Sample((_wellcond(make, (2, 3, 3)), make((3, 1))), call="linalg.solve_ex"),
                   Sample((_wellcond(make, (3, 3)), make((2, 3, 2))), call="linalg.solve"),
                   Sample((_wellcond(make, (3, 3)), make((2, 3))), {"left": False},
                          call="linalg.solve")])


def _solve_checks(A, B, left, fn="linalg_solve"):
    # PyTorch's order: the arguments' types, A's dtype, the dtypes' match, then the shapes
    for arg, pos, t in (("A", 1, A), ("B", 2, B)):
        if not isinstance(t, Tensor):
            raise TypeError(f"{fn}(): argument '{arg}' (position {pos}) must be Tensor, not "
                            f"{type(t).__name__}")
    check_float("linalg.solve", A)
    check_same_dtype("linalg.solve", A, B, stop="")
    check_matrix("linalg.solve", A)
    if B.ndim == 0:
        raise RuntimeError("linalg.solve: The input tensor B must have at least 2 dimensions.")
    vector = _vector_case(A.shape, B.shape)
    b_shape = (B.shape[-1], 1) if vector else tuple(B.shape)   # a vector B is a column
    if (b_shape[-2] if left else b_shape[-1]) != A.shape[-1]:
        raise RuntimeError(f"linalg.solve: Incompatible shapes of A and B for the equation "
                           f"{'AX = B' if left else 'XA = B'} ({A.shape[-2]}x{A.shape[-1]} and "
                           f"{b_shape[-2]}x{b_shape[-1]})")
    if vector and not left:
        raise RuntimeError("linalg.solve: Vector broadcasting of the left hand side is not "
                           "supported for left=False. In this case linalg.solve is equivalent "
                           "to B / A.squeeze(-1)")
    # the batch dims broadcast, B's named first (tensor a) as in PyTorch's message
    err = broadcast_error([tuple(B.shape[:-1] if vector else B.shape[:-2]), tuple(A.shape[:-2])])
    if err is not None:
        raise err
    check_kernel("lu_cpu", A)


def solve_ex(A, B, *, left=True, check_errors=False, out=None):
    """``torch.linalg.solve_ex``: ``(result, info)``."""
    _solve_checks(A, B, left, "linalg_solve_ex")
    return solve_ex_type(_solve.public(A, B, left=left, check_errors=check_errors))


def solve(A, B, *, left=True, out=None):
    """``torch.linalg.solve``: ``X`` with ``A @ X = B``."""
    _solve_checks(A, B, left)
    return _solve.public(A, B, left=left, check_errors=True)[0]


# -- matrix_power --------------------------------------------------------------------------------
def matrix_power(A, n, *, out=None):
    """``A`` multiplied by itself ``n`` times (``inv(A)`` for negative ``n``)."""
    check_matrix("linalg.matrix_power", A)
    if n == 0:
        eye = np.broadcast_to(np.eye(A.shape[-1], dtype=A._data.dtype), A.shape)
        return A.clone().copy_(_wrap(eye.copy()))
    if n < 0:
        A = inv(A)
        if n == -1:
            return A
        n = -n
    if n == 1:
        return A.clone()
    result, power = None, A
    while n:          # binary powering: O(log n) products
        if n & 1:
            result = power if result is None else matmul(result, power)
        n >>= 1
        if n:
            power = matmul(power, power)
    return result


# -- matrix_exp ----------------------------------------------------------------------------------
def linalg_matrix_exp(self):
    """``exp(A)`` by scaling and squaring a degree-18 Taylor polynomial."""
    if self.size == 0:   # (.., 0, 0) or an empty batch: an empty result, every dtype
        return np.empty(self.shape, self.dtype)
    if self.shape[-1] == 1:   # PyTorch: a 1x1 matrix is its entry's exp (inf, -inf too)
        return np.exp(self)
    if self.dtype == np.float32:   # in double, rounded once: as accurate as PyTorch's Pade
        return linalg_matrix_exp(self.astype(np.float64)).astype(np.float32)
    finite = np.isfinite(self).all(axis=(-2, -1))
    if self.dtype == np.float16:
        # PyTorch's half path, with its quirks (see mexp_half.py); a batch of several takes
        # the highest degree for all; a matrix with inf or NaN comes out NaN
        flat = self.reshape((-1,) + self.shape[-2:])
        ok = finite.reshape(-1)
        return np.array([matrix_exp_half(m, highest=len(flat) > 1) if good else
                         np.full(m.shape, np.nan, np.float16) for m, good in zip(flat, ok)],
                        np.float16).reshape(self.shape)
    if not finite.all():   # a matrix with an inf or NaN comes out all NaN, as PyTorch's
        out = linalg_matrix_exp(np.where(finite[..., None, None], self, 0))
        return np.where(finite[..., None, None], out, np.nan)
    norm = np.abs(self).sum(-2).max(-1, initial=0) if self.size else np.zeros(())
    bad = ~np.isfinite(norm)
    if bad.any():
        # PyTorch: NaN for a matrix holding inf or NaN (the others as usual)
        with np.errstate(invalid="ignore"):
            out = linalg_matrix_exp(np.where(bad[..., None, None], 0, self).astype(self.dtype))
        return np.where(bad[..., None, None], np.nan, out).astype(self.dtype, copy=False)
    s = int(max(0, np.ceil(np.log2(max(float(np.max(norm)), 1e-300))) + 1))
    X = self / (2.0 ** s)
    out = np.broadcast_to(np.eye(self.shape[-1], dtype=self.dtype), self.shape).copy()
    term = out.copy()
    for k in range(1, 19):
        term = term @ X / k
        out = out + term
    for _ in range(s):
        out = out @ out
    return out.astype(self.dtype, copy=False)


def linalg_matrix_exp_self(grad, self):
    # the adjoint is the upper-right block of exp([[A^T, G], [0, A^T]]), built as PyTorch's
    # backward_analytic_function_of_a_matrix: copies into narrowed views of a zero matrix
    # (CopySlices under create_graph), its result narrowed twice (SliceBackward0)
    n = self._data.shape[-1]
    At = self.mT
    big = _wrap(np.zeros(grad._data.shape[:-2] + (2 * n, 2 * n), grad._data.dtype))
    big.narrow(-2, 0, n).narrow(-1, 0, n).copy_(At)
    big.narrow(-2, n, n).narrow(-1, n, n).copy_(At)
    big.narrow(-2, 0, n).narrow(-1, n, n).copy_(grad)
    return _mexp.public(big).narrow(-2, 0, n).narrow(-1, n, n)


_mexp = defop("linalg_matrix_exp", linalg_matrix_exp,
              derivatives={"self": linalg_matrix_exp_self}, dtype="same", methods=(),
              functions=(), family=FAMILY,
              samples=lambda make, shapes: [
                  Sample((make((3, 3)),), call="linalg.matrix_exp"),
                  Sample((make((2, 2, 2)),), call="matrix_exp")])


def matrix_exp(A):
    check_matrix("linalg.matrix_exp", A)
    check_float("linalg.matrix_exp", A)
    return _mexp.public(A)


for _name, _fn in (("inverse", inverse), ("det", det), ("slogdet", slogdet_torch),
                   ("logdet", logdet), ("matrix_power", matrix_power),
                   ("matrix_exp", matrix_exp)):
    export_function(_name, _fn)
    bind_method(_name, _fn)

# the node classes' output count (the engine sizes its gradient buffers with it)
for _rec in (_inv, _slogdet, _solve):
    _rec.node_class.n_outputs = 2
