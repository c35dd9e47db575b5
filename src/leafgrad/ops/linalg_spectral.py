"""Spectral decompositions: ``linalg.svd`` / ``torch.svd`` / ``linalg.svdvals``,
``linalg.eigh`` / ``eigvalsh``, ``linalg.qr`` / ``torch.qr`` (what is built on them: pinv,
lstsq, matrix_rank, matrix_norm, cond: linalg_pinv.py).

Note [Gauge of decompositions]
Singular and eigen vectors are defined up to sign (LAPACK picks one). The forwards are the same
LAPACK routines PyTorch calls (gesdd, syevd, geqrf), so they usually agree with PyTorch's
signs, but only gauge-invariant quantities (reconstructions, gradients of losses that do not
depend on the signs) are promised (NumPy's LAPACK and PyTorch's MKL pick differently for
wide SVDs and some eigh inputs).

Note [Saved factors]
As PyTorch's formulas, the derivatives read the saved outputs (U, S, Vh; the eigenvalues and
vectors; Q and R), never A: changing A in place after the forward is not an error, changing a
factor is. Under create_graph the saved outputs are this node's outputs again (OpNode's
``_output_slots``), so second derivatives flow back through the decomposition. They assume
distinct singular values / eigenvalues, as PyTorch's do.

>>> import leafgrad as torch
>>> torch.linalg.svdvals(torch.tensor([[3.0, 0.0], [0.0, 4.0]]))
tensor([4., 3.])
"""
from __future__ import annotations

import numpy as np

from .registry import defop, export_function, bind_method, Sample
from .joins import _cat
from .pointwise_common import scale
from .linalg import matmul
from .linalg_common import (check_float, check_matrix, check_kernel, np_svd,
                            lapack_layout, raise_for_info)
from .linalg_cholesky import solve_triangular
from ..grad_mode import state as _mode
from .householder import qr_nonfinite
from ..tensor import Tensor, _wrap
from .. import return_types as _rt

FAMILY = "linalg"

svd_type = _rt._make("svd", ("U", "S", "V"))
linalg_svd_type = _rt._make("linalg_svd", ("U", "S", "Vh"))
eigh_type = _rt._make("linalg_eigh", ("eigenvalues", "eigenvectors"))
qr_type = _rt._make("qr", ("Q", "R"))
linalg_qr_type = _rt._make("linalg_qr", ("Q", "R"))


def _checked(name, A, square=False):
    if not isinstance(A, Tensor):
        raise TypeError(f"{name}(): argument 'A' (position 1) must be Tensor, not "
                        f"{type(A).__name__}")
    check_matrix(name, A, square)
    check_float(name, A)


def _offdiag_inverse(values_sq):
    """``F[i, j] = 1 / (v_j - v_i)`` off the diagonal, 0 on it (leafgrad ops)."""
    k = values_sq._data.shape[-1]
    E = values_sq.unsqueeze(-2) - values_sq.unsqueeze(-1)
    eye = np.eye(k, dtype=values_sq._data.dtype)
    return _wrap(1 - eye) / (E + _wrap(eye))


def _diag_embed(v):
    """Square matrices with ``v`` on the diagonal (leafgrad ops)."""
    return v.unsqueeze(-1) * _wrap(np.eye(v._data.shape[-1], dtype=v._data.dtype))


# -- svd -----------------------------------------------------------------------------------------
def linalg_svd(A, full_matrices=True):
    """``(U, S, Vh)`` with ``A = U diag(S) Vh`` (LAPACK gesdd)."""
    U, S, Vh = np_svd(A, full_matrices=full_matrices)
    return [lapack_layout(U), S, lapack_layout(Vh)]


def _svd_grad(U, S, Vh, gU, gS, gVh):
    """Townsend's formula for the real SVD's adjoint (distinct singular values), from the
    saved factors as PyTorch's (under create_graph they are this node's outputs, so second
    derivatives flow through the decomposition again). Full factors are cut to the ``k``
    vectors the singular values pair with: the others are any orthonormal completion."""
    m, n = U._data.shape[-2], Vh._data.shape[-1]
    k = min(m, n)
    if U._data.shape[-1] != k:
        U = U[..., :k]
        gU = gU[..., :k] if gU is not None else None
    if Vh._data.shape[-2] != k:
        Vh = Vh[..., :k, :]
        gVh = gVh[..., :k, :] if gVh is not None else None
    if gU is None and gVh is None:
        if gS is None:
            return None
        # PyTorch's shortcut for the singular values alone: U diag(gS) Vh, as one product
        return matmul(U, gS.unsqueeze(-1) * Vh) if m >= n else matmul(U * gS.unsqueeze(-2), Vh)
    V = Vh.mT
    inner = _diag_embed(gS) if gS is not None else None
    sinv = (1 / S).unsqueeze(-2)
    out = None
    if gU is not None or gVh is not None:
        F = _offdiag_inverse(S * S)
        if gU is not None:
            UtgU = matmul(U.mT, gU)
            J = F * (UtgU - UtgU.mT) * S.unsqueeze(-2)
            inner = J if inner is None else inner + J
        if gVh is not None:
            gV = gVh.mT
            VtgV = matmul(V.mT, gV)
            K = S.unsqueeze(-1) * (F * (VtgV - VtgV.mT))
            inner = K if inner is None else inner + K
    if inner is not None:
        out = matmul(matmul(U, inner), Vh)
    if gU is not None and m > k:
        t = matmul(gU - matmul(U, matmul(U.mT, gU)), Vh * sinv.mT)
        out = t if out is None else out + t
    if gVh is not None and n > k:
        gV = gVh.mT
        t = matmul(U * sinv, (gV - matmul(V, matmul(V.mT, gV))).mT)
        out = t if out is None else out + t
    return out


def linalg_svd_A(grads, result, result1, result2, full_matrices):   # what PyTorch saves
    return _svd_grad(result, result1, result2, grads[0], grads[1], grads[2])


def _svd_samples(make, shapes):
    return [Sample((make((3, 3)),), call="linalg.svdvals"),
            Sample((make((4, 2)),), call="linalg.svdvals"),
            Sample((make((2, 2, 3)),), call="linalg.svdvals")]


def _defined_grads(grads, metas):
    """The outputs' gradients as they come, None for an unused output: as PyTorch's, the
    formula leaves an unused factor out (svdvals' gradient has no 1 / (s_j^2 - s_i^2) term,
    so repeated singular values are fine)."""
    return list(grads)


_svd = defop("linalg_svd", linalg_svd, inputs=("A",), derivatives={"A": linalg_svd_A},
             dtype="same", n_outputs=3, materialize=_defined_grads, methods=(),
             functions=(), family=FAMILY,
             saved_aliases={"result": "U", "result1": "S", "result2": "Vh"})
_svd.node_class.n_outputs = 3


def linalg_svdvals(A):
    return np_svd(A, compute_uv=False)


# Without the vectors: no gradient. Where one may be wanted, PyTorch's svdvals computes the
# whole SVD (``_linalg_svd(A, compute_uv=True)``): the values are S of a LinalgSvdBackward0
# that saves U, S and Vh (``_svd_values``)
_svdvals = defop("linalg_svdvals", linalg_svdvals, inputs=("A",), dtype="same", methods=(),
                 functions=(), family=FAMILY, samples=_svd_samples)


def _svd_values(A):
    """The singular values, as svd's S when a gradient may be wanted."""
    if A._requires_grad and _mode.grad_enabled:
        return _svd.public(A, False)[1]
    return _svdvals.public(A)


def svd(A, full_matrices=True, *, driver=None, out=None):
    """``torch.linalg.svd``: ``(U, S, Vh)``."""
    _checked("linalg.svd", A)
    check_kernel("linalg_svd_cpu", A)
    return linalg_svd_type(_svd.public(A, full_matrices))


def svdvals(A, *, driver=None, out=None):
    """``torch.linalg.svdvals``: the singular values, largest first."""
    _checked("linalg.svd", A)
    check_kernel("linalg_svd_cpu", A)
    return _svd_values(A)


def svd_torch(input, some=True, compute_uv=True, *, out=None):
    """``torch.svd``: ``(U, S, V)`` (V, not Vh; reduced unless ``some=False``)."""
    _checked("linalg.svd", input)
    check_kernel("linalg_svd_cpu", input)
    if not compute_uv:
        S = _svd_values(input)
        m, n = input.shape[-2:]
        z = np.zeros
        dt = input._data.dtype
        b = tuple(input.shape[:-2])
        # PyTorch returns zero-filled full-size U and V then, whatever ``some`` says
        return svd_type((_wrap(z(b + (m, m), dt)), S, _wrap(z(b + (n, n), dt))))
    U, S, Vh = _svd.public(input, not some)
    return svd_type((U, S, Vh.mT))


# -- eigh ----------------------------------------------------------------------------------------
def linalg_eigh(A, UPLO="L"):
    """``(eigenvalues ascending, eigenvectors)`` of a symmetric matrix (one triangle read)."""
    if A.size == 0:   # no kernel runs: any dtype, kept (NumPy would give float64)
        return [np.zeros(A.shape[:-1], A.dtype), lapack_layout(np.zeros(A.shape, A.dtype))]
    w, V = _lapack_eigh(np.linalg.eigh, A, UPLO, compute_v=True)
    return [w, lapack_layout(V)]


def _eigh_grad(L, V, gL, gV):
    """From the saved eigenvalues and eigenvectors, as PyTorch's ``linalg_eig_backward`` for
    a Hermitian matrix (distinct eigenvalues), op for op, so that the graph recorded under
    ``create_graph`` is PyTorch's: ``V diag(gL) V^T`` when only the values get a gradient;
    else ``V^T gV`` projected onto the skew-symmetric matrices, divided by the eigenvalue
    gaps (ones on the diagonal), its diagonal set to ``gL``, conjugated by ``V``."""
    if gV is None:
        return matmul(V * gL.unsqueeze(-2), V.mT)
    VhgV = matmul(V.mT, gV)
    VhgV = scale(VhgV - VhgV.mT, 0.5)
    gaps = L.unsqueeze(-2) - L.unsqueeze(-1)
    gaps.diagonal(0, -2, -1).fill_(1.0)
    inner = VhgV.div_(gaps)
    if gL is not None:
        inner.diagonal(0, -2, -1).copy_(gL)
    return matmul(V, matmul(inner, V.mT))


def linalg_eigh_A(grads, result, result1):   # the eigenvalues and vectors: what PyTorch saves
    return _eigh_grad(result, result1, grads[0], grads[1])


_eigh = defop("linalg_eigh", linalg_eigh, inputs=("A",), derivatives={"A": linalg_eigh_A},
              dtype="same", n_outputs=2, materialize=_defined_grads, methods=(),
              functions=(), family=FAMILY,
              saved_aliases={"result": "eigenvalues", "result1": "eigenvectors"})
_eigh.node_class.n_outputs = 2


def linalg_eigvalsh(A, UPLO="L"):
    if A.size == 0:
        return np.zeros(A.shape[:-1], A.dtype)
    return _lapack_eigh(np.linalg.eigvalsh, A, UPLO, compute_v=False)


def _lapack_eigh(fn, A, UPLO, compute_v):
    """``fn(A, UPLO)`` with PyTorch's error where LAPACK's syevd does not converge.

    NumPy and PyTorch run the same LAPACK routine, so they fail on the same matrices (3,000
    random matrices holding NaN/inf agreed), but NumPy's ``LinAlgError`` says neither which
    matrix of a batch failed nor LAPACK's ``info``: the batch is retried matrix by matrix to
    find the first, and ``info`` is the count that PyTorch's MKL reports for almost every such
    matrix (n - 1 with the vectors, n - 2 without; a few in a hundred report fewer)."""
    try:
        return fn(A, UPLO=UPLO)
    except np.linalg.LinAlgError:
        pass
    n = A.shape[-1]
    flat = A.reshape((-1, n, n))
    info = np.zeros(flat.shape[0], np.int32)
    for i, m in enumerate(flat):
        try:
            fn(m, UPLO=UPLO)
        except np.linalg.LinAlgError:
            info[i] = max(n - 1 if compute_v else n - 2, 1)
            break
    raise_for_info("linalg.eigh", info.reshape(A.shape[:-2]),
                   lambda code: "The algorithm failed to converge because the input matrix is "
                                "ill-conditioned or has too many repeated eigenvalues (error "
                                f"code: {code}).")


def _sym(make, shape):
    x = make(shape)
    return x + np.swapaxes(x, -1, -2)


# Without the vectors: no gradient. Where one may be wanted, PyTorch's eigvalsh computes them
# (``_linalg_eigh(A, UPLO, compute_v=True)``): the values are output 0 of a
# LinalgEighBackward0 that saves both (``eigvalsh``)
_eigvalsh = defop("linalg_eigvalsh", linalg_eigvalsh, inputs=("A",), dtype="same", methods=(),
                  functions=(), family=FAMILY,
                  samples=lambda make, shapes: [
                      Sample((_sym(make, (3, 3)),), call="linalg.eigvalsh"),
                      Sample((_sym(make, (2, 2, 2)),), {"UPLO": "U"}, call="linalg.eigvalsh")])


def _check_uplo(name, UPLO):
    if UPLO not in ("L", "U"):
        raise RuntimeError(f"Expected UPLO argument to be 'L' or 'U', but got {UPLO}")


def _checked_eigh(A):
    if not isinstance(A, Tensor):
        raise TypeError(f"linalg.eigh(): argument 'A' (position 1) must be Tensor, not "
                        f"{type(A).__name__}")
    check_matrix("linalg.eigh", A, square=True)
    check_kernel("linalg_eigh_cpu", A)   # no float check first: the kernel names the dtype


def eigh(A, UPLO="L", *, out=None):
    """``torch.linalg.eigh``: ``(eigenvalues, eigenvectors)``."""
    _checked_eigh(A)
    _check_uplo("linalg.eigh", UPLO)
    return eigh_type(_eigh.public(A, UPLO))


def eigvalsh(A, UPLO="L", *, out=None):
    """``torch.linalg.eigvalsh``: the eigenvalues, ascending."""
    _checked_eigh(A)   # PyTorch's eigvalsh runs eigh's checks (and names it)
    _check_uplo("linalg.eigvalsh", UPLO)
    if A._requires_grad and _mode.grad_enabled:
        return _eigh.public(A, UPLO)[0]
    return _eigvalsh.public(A, UPLO)


# -- qr ------------------------------------------------------------------------------------------
def linalg_qr(A, mode="reduced"):
    """``(Q, R)`` with ``A = Q R`` (LAPACK geqrf/orgqr)."""
    if mode == "r":
        R = np.linalg.qr(A, mode="r")
        Q = np.zeros((0,), A.dtype)
    else:
        Q, R = np.linalg.qr(A, mode=mode)
    if A.size and not np.isfinite(A).all():
        # NumPy's LAPACK spreads NaN/inf differently from PyTorch's (see householder.py)
        R = np.array(R, copy=True)
        Q = np.array(Q, copy=True)
        flat = A.reshape((-1,) + A.shape[-2:])
        for i in np.nonzero(~np.isfinite(flat).all(axis=(-2, -1)))[0]:
            q, r = qr_nonfinite(flat[i], mode)
            R.reshape((-1,) + R.shape[-2:])[i] = r
            if q is not None:
                Q.reshape((-1,) + Q.shape[-2:])[i] = q
    return [Q if mode == "r" else lapack_layout(Q), lapack_layout(R)]


def _halve_(t):
    """``t.mul_(0.5)`` as PyTorch's C++ formulas run it: mul_ by a Scalar (MulBackward1, one
    input), so a view's CopySlices has the base as its only next function."""
    from .inplace import commit_inplace
    from .registry import RECORDS
    rec = RECORDS["mul_scalar"]
    return commit_inplace(t, rec.public(t, 0.5), rec)


def linalg_qr_A(grads, result, result1, mode):   # Q and R: what PyTorch saves
    """PyTorch's linalg_qr_backward, op for op (its graph under create_graph); an unused
    output's gradient stays out: ``M = gR R^T - Q^T gQ``; for m >= n
    ``(Q (M' + M'^T, diagonal halved) + gQ) R^-T`` with ``M' = triu(M)``; for m < n
    ``[Q tril(M^T - M) R_1^-T | 0] + Q gR``."""
    if mode == "r":
        raise RuntimeError("The derivative of linalg.qr depends on Q, which is not computed "
                           "when mode='r'. Please use linalg.qr(A, mode='reduced') if you are "
                           "going to differentiate through linalg.qr.")
    Q, R = result, result1
    m, n = Q._data.shape[-2], R._data.shape[-1]
    if mode == "complete" and m > n:
        raise RuntimeError("The QR decomposition is not differentiable when mode='complete' "
                           "and nrows > ncols.")
    gQ, gR = grads
    if gQ is not None:
        gA = (matmul(gR, R.mT) - matmul(Q.mT, gQ)) if gR is not None else -matmul(Q.mT, gQ)
    else:
        gA = matmul(gR, R.mT)
    if m >= n:
        gA = gA.triu()
        gA = gA + gA.mT
        _halve_(gA.diagonal(0, -2, -1))
        gA = matmul(Q, gA)
        if gQ is not None:
            gA = gA + gQ
        return solve_triangular(R.mT, gA, upper=False, left=False)
    gA = -gA
    gA = matmul(Q, (gA - gA.mT).tril())
    gA = solve_triangular(R.narrow(-1, 0, m).mT, gA, upper=False, left=False)
    zeros = gA.new_zeros(R._data.shape[:-1] + (n - m,))
    gA = _cat.public([gA, zeros], -1)
    return gA + matmul(Q, gR) if gR is not None else gA


_qr = defop("linalg_qr", linalg_qr, inputs=("A",), derivatives={"A": linalg_qr_A},
            dtype="same", n_outputs=2, materialize=_defined_grads, methods=(),
            functions=(), family=FAMILY, saved_aliases={"result": "Q", "result1": "R"},
            samples=lambda make, shapes: [
                Sample((make((3, 3)),), call="linalg.qr"),
                Sample((make((4, 2)),), call="linalg.qr"),
                Sample((make((2, 4)),), call="linalg.qr"),
                Sample((make((2, 3, 2)),), call="Tensor.qr")])
_qr.node_class.n_outputs = 2


def qr(A, mode="reduced", *, out=None):
    """``torch.linalg.qr``."""
    _checked("linalg.qr", A)
    check_kernel("geqrf_cpu", A, empty_too=True)
    if mode not in ("reduced", "complete", "r"):
        raise RuntimeError(f"qr received unrecognized mode '{mode}' but expected one of "
                           f"'reduced' (default), 'r', or 'complete'")
    return linalg_qr_type(_qr.public(A, mode))


def qr_torch(input, some=True, *, out=None):
    """``torch.qr`` (deprecated): ``some`` picks the reduced factorization."""
    _checked("linalg.qr", input)
    check_kernel("geqrf_cpu", input, empty_too=True)
    return qr_type(_qr.public(input, "reduced" if some else "complete"))


for _name, _fn in (("svd", svd_torch), ("qr", qr_torch)):
    export_function(_name, _fn)
    bind_method(_name, _fn)
