"""More fuzz entries (issue 8, widened): linear algebra, special functions, triangular and
diagonal ops, unique/search/count, scans, scatter/index families, splits and rearrangements,
padding, pooling, convolution, interpolation, embeddings, more losses and distances.

Same contract as ``ops_table``: ``fn(L, r, *xs)`` makes every choice through ``r`` and only
from tensor metadata (shape, dtype), so leafgrad and torch make the same call. Inputs are
shaped into what an op wants (a square matrix, a batch of channels, an index tensor), and now
and then left as they are or given a bad argument so that error types and texts are compared.
Registered into ``ops_table.OPS`` on import (``ops_table`` imports this module at its end).
"""
from __future__ import annotations

from .ops_table import _call, op

__all__: list = []


# -- helpers ------------------------------------------------------------------------------------
def _numel(x):
    n = 1
    for s in x.shape:
        n *= s
    return n


def _square(L, r, x):
    """A (batch of) square matrices cut from ``x``; rarely ``x`` itself (maybe not square)."""
    if r.flip(0.05):
        return x
    if x.dim() == 0:
        return x.reshape(1, 1)
    if x.dim() == 1:
        return x.diag_embed() if r.flip() else x[:1].unsqueeze(-1)
    k = min(x.shape[-1], x.shape[-2])
    return x[..., :k, :k]


def _well(L, r, a):
    """``a`` made comfortably invertible: ``a + k * I`` (k = the matrix side + 1)."""
    if a.dim() < 2 or a.shape[-1] != a.shape[-2]:
        return a
    n = a.shape[-1]
    return a + (n + 1) * L.eye(n, dtype=a.dtype)


def _spd(L, r, a):
    """A symmetric positive definite matrix from ``a`` (``a a^T + I``)."""
    if a.dim() < 2 or a.shape[-1] != a.shape[-2]:
        return a
    return a @ a.mT + L.eye(a.shape[-1], dtype=a.dtype)


def _sym(L, r, a):
    if a.dim() < 2 or a.shape[-1] != a.shape[-2]:
        return a
    return a + a.mT


def _bad_dtype(L, r, x, p=0.04):
    """Rarely ``x`` as int64 or float16, so the kernels' dtype checks are compared."""
    if r.flip(p):
        return x.to(getattr(L, r.pick(["int64", "float16", "bool"])))
    return x


def _flat_to(L, x, n):
    """``n`` values taken cyclically from ``x`` (1-D); ``x`` must not be empty."""
    flat = x.reshape(-1)
    m = flat.shape[0]
    reps = -(-n // m)
    return (flat.repeat(reps) if reps > 1 else flat)[:n]


def _long(L, values):
    return L.tensor(values, dtype=L.long)


def _ill_conditioned(a):
    """Whether ``a`` (finite float matrices) is so ill-conditioned that partial pivoting's
    choice is decided by rounding: NumPy's getrf order (leafgrad) and MKL's (PyTorch) then
    pick different rows among candidates equal up to rounding (seed 75: 404 of 422 pivot
    differences over random rank-deficient matrices were at a rounding-level pivot, the rest
    exact ties of rounded entries), so the factors differ while both are right. Decided by
    NumPy from the input's values: the same answer on both sides."""
    import numpy as np
    if a.dim() < 2 or str(a.dtype).split(".")[-1] not in ("float32", "float64") or not a.numel():
        return False
    arr = a.detach().numpy()
    if not np.isfinite(arr).all():
        return False
    with np.errstate(all="ignore"):
        cond = np.linalg.cond(arr.astype(np.float64))
    return bool((~(cond < (1e4 if arr.dtype == np.float32 else 1e10))).any())


def _repeated(w):
    """Whether eigenvalues ``w`` (ascending, per matrix) hold two so close that their
    eigenvectors, whose rounding error is about ``eps ||A|| / gap``, are not settled to the
    comparison's tolerance (a gap under 1e-3 max|w| in float32, 1e-8 in float64), repeated
    ones included. Decided by NumPy from either side's values (they agree far closer)."""
    import numpy as np
    if w.dim() < 1 or w.shape[-1] < 2 or not w.dtype.is_floating_point:
        return False
    arr = w.detach().numpy().astype(np.float64)
    if not np.isfinite(arr).all():
        return False
    rel = 1e-3 if str(w.dtype).endswith("float32") else 1e-8
    tol = rel * np.abs(arr).max(axis=-1, keepdims=True)
    return bool((np.diff(arr, axis=-1) <= tol).any())


def _ill_conditioned_mask(a):
    """Per matrix of the batch ``a`` (as ``_ill_conditioned``): a NumPy bool array."""
    import numpy as np
    arr = a.detach().numpy().astype(np.float64)
    with np.errstate(all="ignore"):
        cond = np.linalg.cond(arr)
    return ~(cond < (1e4 if str(a.dtype).endswith("float32") else 1e10))


def _noise_to_zero(L, w):
    """Eigen- or singular values at rounding level, ``|w| <= 8 n eps max|w|`` (per matrix), made
    exactly 0 on both sides: a backward-stable solver's error is about ``n eps ||A||``, so
    their sign and size are noise that LAPACK builds choose differently (seed 108: a rank-2
    symmetric float32 matrix's third eigenvalue is 5.8e-8 in leafgrad, -3.7e-7 in PyTorch,
    and a later histc counted it in different bins). The values above it and the graph (a
    multiplication by the kept mask, only where one is dropped) are compared as before."""
    if not w.numel() or not w.dtype.is_floating_point:
        return w
    with L.no_grad():
        if not bool(L.isfinite(w).all()):
            return w
        tol = 8 * w.shape[-1] * L.finfo(w.dtype).eps
        keep = w.abs() > tol * w.abs().amax(-1, keepdim=True)
        if bool(keep.all()):   # (nothing at noise level: the op's own node stays observed)
            return w
    return w * keep


def _pinv_unsettled(a):
    """Whether ``pinv(a)`` is decided by rounding: a singular value near the cutoff
    (``max(m, n) eps sigma_max``, PyTorch's default rtol), so the last bit decides whether it
    is inverted, or the kept ones so ill-conditioned (sigma_max / sigma_min over 1e2 in
    float32, 1e4 in float64) that the result's error, up to about cond^2 eps, exceeds the
    comparison's tolerance (both seen in fuzz campaigns: 4 of 3000 random rank-deficient
    float32 matrices differed, all such). Decided by NumPy in float64 from the input's values,
    the same answer on both sides."""
    import numpy as np
    if a.dim() < 2 or str(a.dtype).split(".")[-1] not in ("float32", "float64") or not a.numel():
        return False
    arr = a.detach().numpy()
    if not np.isfinite(arr).all():
        return False
    s = np.linalg.svd(arr.astype(np.float64), compute_uv=False)
    top = s[..., :1]
    cut = max(arr.shape[-2:]) * np.finfo(arr.dtype).eps * top
    with np.errstate(all="ignore"):
        near = ((s > cut / 16) & (s < cut * 16)).any()
        kept_min = np.where(s > cut, s, np.inf).min(-1, keepdims=True)
        ill = (top / kept_min > (1e2 if arr.dtype == np.float32 else 1e4)).any()
    return bool(near or ill)


def _pinv_invariants(L, a, x):
    """What any pseudo-inverse of an unsettled ``a`` satisfies to within its conditioning:
    Penrose's first condition ``A X A = A`` (to 1e-3 of max|A| in float32, 1e-8 in float64; a
    real error, such as a dropped large singular value, breaks it), with X's shape and dtype.
    No graph: the gradient goes through the same unsettled inverse."""
    with L.no_grad():
        a64, x64 = a.double(), x.double()
        err = (a64 @ x64 @ a64 - a64).abs().amax() if a.numel() else a64.sum()
        tol = (1e-3 if a.dtype == L.float32 else 1e-8) * max(float(a64.abs().amax()), 1.0)
        return bool(err <= tol), x.shape, x.dtype


def _lu_invariants(L, a, p, lo, up):
    """What any LU with partial pivoting of ``a`` has: ``P L U = A`` (up to rounding) and
    ``|L| <= 1``, with the factors' shapes and dtypes (no graph: the gradient goes through
    U^-1, which ill-conditioning amplifies differently too)."""
    with L.no_grad():
        return (p @ lo @ up).detach(), bool((lo.abs() <= 1).all()), up.shape, up.dtype


# -- linear algebra: one square matrix ----------------------------------------------------------
@op("linalg_square", weight=3)
def _linalg_square(L, r, x):
    x = _bad_dtype(L, r, x)
    a = _square(L, r, x)
    name = r.pick(["inv", "inverse", "det", "slogdet", "logdet", "matrix_exp", "matrix_power",
                   "pinv", "svdvals", "eigvalsh", "eigh", "cholesky", "cholesky_ex", "qr", "svd",
                   "lu", "lu_factor", "inv_ex", "trace", "matrix_norm", "cond", "det_raw",
                   "cholesky_inverse", "solve_triangular", "matrix_rank", "eigvalsh_raw"])
    la = L.linalg
    if name == "inv":
        return la.inv(_well(L, r, a))
    if name == "inverse":
        return _well(L, r, a).inverse() if r.flip() else L.inverse(_well(L, r, a))
    if name == "inv_ex":
        return tuple(la.inv_ex(_well(L, r, a)))
    if name == "det":
        return _call(L, r, a, "det") if r.flip() else la.det(a)
    if name == "det_raw":
        return la.det(x)
    if name == "slogdet":
        out = tuple(la.slogdet(a) if r.flip() else L.slogdet(a))
        if _ill_conditioned(a):
            # numerically singular: whether elimination meets an exactly zero pivot (sign 0,
            # log -inf) or a rounding-sized one (log -27) is rounding's choice (seed 111, a
            # rank-1 float32 matrix); what both give is the determinant, about 0. No graph.
            # The determinant of a numerically singular matrix is itself rounding noise
            # (seed 168: 4.9e-31 vs 3.6e-31, then a log of it -69.8 vs -70.1): exactly 0 there
            with L.no_grad():
                det = out[0] * out[1].exp()
                det = det.masked_fill(L.tensor(_ill_conditioned_mask(a)), 0.0)
                return det, out[0].dtype, out[1].dtype
        return out
    if name == "logdet":
        return _call(L, r, _spd(L, r, a), "logdet")
    if name == "matrix_exp":
        return la.matrix_exp(a * 0.5) if r.flip() else (a * 0.5).matrix_exp()
    if name == "matrix_power":
        k = r.pick([0, 1, 2, 3, -1, -2])
        b = _well(L, r, a) if k < 0 else a
        return la.matrix_power(b, k) if r.flip() else b.matrix_power(k)
    if name == "pinv":
        x = la.pinv(a, hermitian=False) if r.flip(0.8) else L.pinverse(a)
        return _pinv_invariants(L, a, x) if _pinv_unsettled(a) else x
    if name == "svdvals":
        return _noise_to_zero(L, la.svdvals(a))
    if name == "eigvalsh":
        return _noise_to_zero(L, la.eigvalsh(_sym(L, r, a), UPLO=r.pick(["L", "U"])))
    if name == "eigvalsh_raw":
        return _noise_to_zero(L, la.eigvalsh(a))
    if name == "eigh":
        w, v = la.eigh(_sym(L, r, a))
        if _repeated(w):
            # a repeated eigenvalue's eigenvectors are any orthonormal basis of its space
            # (LAPACK's choice: NumPy's and MKL's differ, seed 158: a rank-1 3x3), and so is
            # a gradient through w or v; the eigenvalues alone, without a graph
            with L.no_grad():
                return _noise_to_zero(L, w)
        # eigenvectors are defined up to sign: compare w and a sign-free |v| or v * v (not
        # v v^T: the identity plus rounding noise, which later steps amplify, fuzz seed 76)
        return _noise_to_zero(L, w), v.abs() if r.flip() else (v * v)
    if name == "cholesky":
        s = _spd(L, r, a)
        return la.cholesky(s, upper=r.flip()) if r.flip() else L.cholesky(s)
    if name == "cholesky_ex":
        return tuple(la.cholesky_ex(_spd(L, r, a) if r.flip(0.8) else a))
    if name == "cholesky_inverse":
        c = la.cholesky(_spd(L, r, a))
        return L.cholesky_inverse(c)
    if name == "qr":
        # of a rank-deficient matrix Q's trailing columns are any orthonormal completion
        # (rounding noise picks them: LAPACK builds differ), so the matrix is made full rank
        q, rr = la.qr(_well(L, r, a), mode=r.pick(["reduced", "complete", "r"]))
        return (q.abs() if q.numel() else q), rr.abs()
    if name == "svd":
        u, s, vh = la.svd(a, full_matrices=r.flip())
        s = _noise_to_zero(L, s)
        k = s.shape[-1]
        # singular vectors are defined up to sign: compare s and u diag(s) vh
        return s, (u[..., :k] * s.unsqueeze(-2)) @ vh[..., :k, :]
    if name == "lu":
        p, lo, up = la.lu(a)
        return _lu_invariants(L, a, p, lo, up) if _ill_conditioned(a) else (p, lo, up)
    if name == "lu_factor":
        if _ill_conditioned(a):   # (whether a pivot is exactly zero, lu_factor's error, too)
            lu, piv, _ = la.lu_factor_ex(a)
            return _lu_invariants(L, a, *L.lu_unpack(lu, piv))
        lu, piv = la.lu_factor(a)
        return lu, piv
    if name == "trace":
        return a.trace() if a.dim() == 2 or r.flip(0.1) else a.diagonal(0, -2, -1).sum(-1)
    if name == "matrix_norm":
        ord_ = r.pick(["fro", "nuc", 1, -1, float("inf"), 2, -2])
        if ord_ == "nuc":
            # the nuclear norm's gradient U Vh of a rank-deficient matrix is rounding's
            # choice (see _polar_unsettled; seed 164: a rank-1 3x3 float64): its forward only
            from .ops_table_more import _polar_unsettled
            if _polar_unsettled(a):
                a = a.detach()
        return la.matrix_norm(a, ord=ord_, keepdim=r.flip())
    if name == "cond":
        return la.cond(_well(L, r, a), p=r.pick([None, "fro", 1, float("inf")]))
    if name == "solve_triangular":
        t = _well(L, r, a).triu()
        return la.solve_triangular(t, t.mT + 0.5, upper=True, left=r.flip())
    return la.matrix_rank(a).to(L.float64) if r.flip(0.1) else la.matrix_rank(a)


# -- linear algebra: two operands ---------------------------------------------------------------
@op("linalg_solve", arity=2, weight=1.5)
def _linalg_solve(L, r, x, y):
    a = _well(L, r, _square(L, r, x))
    n = a.shape[-1] if a.dim() else 1
    how = r.pick(["solve", "solve_vec", "solve_ex", "lstsq", "lu_solve", "cholesky_solve",
                  "triangular_solve", "solve_left"])
    b = y
    if b.dim() >= 1 and b.shape[-1] != n and r.flip(0.9):
        b = _flat_to(L, y, n) if y.numel() else y.new_ones(n)
        b = b.unsqueeze(-1) if how != "solve_vec" else b
    elif b.dim() == 0 and r.flip(0.9):
        b = b.expand(n).unsqueeze(-1)
    if how == "solve":
        return L.linalg.solve(a, b) if r.flip(0.7) else L.linalg.solve(a, b, left=True)
    if how == "solve_left":
        return L.linalg.solve(a, b.mT if b.dim() >= 2 else b, left=False)
    if how == "solve_vec":
        return L.linalg.solve(a, b)
    if how == "solve_ex":
        return tuple(L.linalg.solve_ex(a, b))
    if how == "lstsq":
        # MKL's gelsy (the default driver) reads memory it did not set on a matrix with an
        # infinite entry: PyTorch's own rank and solution then vary from call to call, so
        # such a matrix is clamped to finite values first (NaN stays: a deterministic error)
        if bool(a.isinf().any()):
            a = a.clamp(-1e30, 1e30)
        return L.linalg.lstsq(a, b).solution
    if how == "lu_solve":
        lu, piv = L.linalg.lu_factor(a)
        return L.linalg.lu_solve(lu, piv, b)
    if how == "cholesky_solve":
        c = L.linalg.cholesky(_spd(L, r, a))
        return L.cholesky_solve(b, c, upper=False)
    return tuple(L.triangular_solve(b, a.triu(), upper=True))


@op("linalg_products", arity=3, weight=2)
def _linalg_products(L, r, x, y, z):
    x, y = _bad_dtype(L, r, x), _bad_dtype(L, r, y, 0.02)
    how = r.pick(["addmv", "addr", "baddbmm", "addbmm", "addmm", "kron", "tensordot", "cdist",
                  "dist", "vdot", "inner", "outer", "cross", "vecdot", "multi_dot",
                  "chain_matmul", "ger"])
    alpha = r.pick([1, 1, 0.5, -2, 0])
    beta = r.pick([1, 1, 0.5, 0])
    m2 = x if x.dim() == 2 else x.reshape(x.shape[0] if x.dim() else 1, -1)
    if how == "addmv":
        if r.flip(0.9):
            vec = _flat_to(L, y, m2.shape[1]) if y.numel() else y.reshape(-1)
            inp = _flat_to(L, z, m2.shape[0]) if z.numel() and r.flip(0.7) else z.reshape(-1)[:1]
        else:
            vec, inp = y, z
        return _call(L, r, inp, "addmv", m2, vec, beta=beta, alpha=alpha)
    if how in ("addr", "ger", "outer"):
        u = x.reshape(-1)
        v = y.reshape(-1) if r.flip(0.9) else y
        if how == "addr":
            inp = z if r.flip(0.3) else z.reshape(-1)[:1]
            return _call(L, r, inp, "addr", u, v, beta=beta, alpha=alpha)
        return _call(L, r, u, how, v)
    if how in ("baddbmm", "addbmm", "addmm"):
        b1 = x if x.dim() == 3 else m2.unsqueeze(0)
        k = b1.shape[-1]
        if y.numel() and r.flip(0.9):
            b2 = _flat_to(L, y, b1.shape[0] * k * 2).reshape(b1.shape[0], k, 2)
        else:
            b2 = y
        if how == "addmm":
            mat1, mat2 = b1[0], b2[0] if b2.dim() == 3 else b2
            return _call(L, r, z, "addmm", mat1, mat2, beta=beta, alpha=alpha)
        inp = z if r.flip(0.6) else z.reshape(-1)[:1]
        return _call(L, r, inp, how, b1, b2, beta=beta, alpha=alpha)
    if how == "kron":
        return L.kron(x, y)
    if how == "tensordot":
        d = r.int(0, min(x.dim(), y.dim(), 2))
        if r.flip(0.8) and d:
            yy = y
            # contract the last d dims of x with the first d of y: make y fit when it can
            need = tuple(x.shape[x.dim() - d:])
            if x.numel() and y.numel():
                n = 1
                for s in need:
                    n *= s
                yy = _flat_to(L, y, n * 2).reshape(*need, 2)
            return L.tensordot(x, yy, dims=d)
        return L.tensordot(x, y, dims=([0], [0]) if r.flip() else d)
    if how == "cdist":
        a = x if x.dim() >= 2 else x.reshape(1, -1)
        m = a.shape[-1]
        b = _flat_to(L, y, 3 * m).reshape(3, m) if y.numel() and m and r.flip(0.9) else y
        return L.cdist(a, b, p=r.pick([2.0, 1.0, 0.5, float("inf"), 0.0, 3.0]))
    if how == "dist":
        return L.dist(x, y, p=r.pick([2, 1, 0, float("inf"), 3]))
    if how == "vdot":
        u = x.reshape(-1)
        return L.vdot(u, _flat_to(L, y, u.shape[0]) if u.numel() and y.numel() else y)
    if how == "inner":
        return L.inner(x, y)
    if how == "cross":
        a = x if x.dim() and x.shape[-1] == 3 else _flat_to(L, x, 6).reshape(2, 3) \
            if x.numel() else x
        b = _flat_to(L, y, 3) if y.numel() and r.flip(0.9) else y
        return L.linalg.cross(a, b) if r.flip() else L.cross(a, b.expand_as(a) if
                                                            b.shape == (3,) and a.dim() else b,
                                                            dim=-1)
    if how == "vecdot":
        return L.linalg.vecdot(x, y, dim=r.dim(x))
    a = m2
    b = _flat_to(L, y, a.shape[1] * 2).reshape(a.shape[1], 2) if y.numel() else y
    c = _flat_to(L, z, 2 * 3).reshape(2, 3) if z.numel() and r.flip(0.8) else z
    if how == "multi_dot":
        return L.linalg.multi_dot([a, b, c])
    return L.chain_matmul(a, b, c)


# -- special functions and extra pointwise ------------------------------------------------------
_SPECIAL = ["digamma", "erfinv", "gammaln", "i0", "sinc", "expit", "logit", "psi", "erf",
            "erfc", "exp2", "expm1", "log1p", "round"]


@op("special", weight=2)
def _special(L, r, x):
    x = _bad_dtype(L, r, x, 0.1)
    how = r.pick(_SPECIAL + ["lgamma", "digamma_t", "erfinv_t", "polygamma", "mvlgamma",
                             "multigammaln", "i0_t", "sinc_t", "xlogy", "logit_eps",
                             "softmax", "log_softmax", "logsumexp"])
    S = L.special
    if how in _SPECIAL:
        if how == "erfinv":
            x = x.tanh() if x.dtype.is_floating_point else x
        return getattr(S, how)(x)
    if how in ("lgamma", "digamma_t", "erfinv_t", "i0_t", "sinc_t"):
        name = how.replace("_t", "")
        if name == "erfinv" and x.dtype.is_floating_point:
            x = x.tanh()
        return _call(L, r, x, name)
    if how == "polygamma":
        n = r.pick([0, 1, 2, 3, -1])
        return L.polygamma(n, x) if r.flip() else x.polygamma(n)
    if how in ("mvlgamma", "multigammaln"):
        p = r.pick([1, 2, 3])
        y = x.abs() + (p - 1) / 2 + 0.1 if r.flip(0.9) else x
        return S.multigammaln(y, p) if how == "multigammaln" else y.mvlgamma(p)
    if how == "xlogy":
        return S.xlogy(x, x.abs()) if r.flip() else S.xlogy(r.pick([0, 2.0]), x.abs())
    if how == "logit_eps":
        return S.logit(x.sigmoid() if x.dtype.is_floating_point else x,
                       eps=r.pick([None, 1e-6, 0.25]))
    if how == "logsumexp":
        return S.logsumexp(x, dim=r.dim(x), keepdim=r.flip())
    return getattr(S, how)(x, dim=r.dim(x))


@op("pointwise_extra", arity=2, want=None, weight=2)
def _pointwise_extra(L, r, x, y):
    how = r.pick(["fmod", "remainder", "hypot", "atan2", "copysign", "nextafter", "logaddexp",
                  "logaddexp2", "xlogy", "float_power", "fmod_s", "remainder_s",
                  "copysign_s", "float_power_s", "xlogy_s", "clamp_min", "clamp_max",
                  "clamp_min_t", "clamp_max_t", "heaviside", "ldexp"])
    if how.endswith("_s"):
        return _call(L, r, x, how[:-2], r.scalar())
    if how in ("clamp_min", "clamp_max"):
        return _call(L, r, x, how, r.pick([0.0, -0.5, 1, True]))
    if how in ("clamp_min_t", "clamp_max_t"):
        return _call(L, r, x, how[:-2], y)
    return _call(L, r, x, how, y)


@op("addcmul", arity=3, weight=1)
def _addcmul(L, r, x, y, z):
    name = r.pick(["addcmul", "addcdiv"])
    value = r.pick([1, 0.5, -2, 0])
    if name == "addcdiv" and r.flip(0.8):
        z = z.abs() + 0.5 if z.dtype.is_floating_point else z
    return _call(L, r, x, name, y, z, value=value)


@op("isclose", arity=2, want=None, weight=0.5)
def _isclose(L, r, x, y):
    how = r.pick(["isclose", "allclose", "equal", "isclose_self"])
    kw = {"rtol": r.pick([1e-5, 0.1, 0.0]), "atol": r.pick([1e-8, 0.5, 0.0]),
          "equal_nan": r.flip()}
    if how == "equal":
        return _call(L, r, x, "equal", y)
    if how == "isclose_self":
        return _call(L, r, x, "isclose", x + 1e-9 if x.dtype.is_floating_point else x, **kw)
    return _call(L, r, x, how, y, **kw)


# -- triangular / diagonal ----------------------------------------------------------------------
@op("triangular", want=None, weight=1.5)
def _triangular(L, r, x):
    how = r.pick(["tril", "triu", "diag", "diagonal", "trace", "diag_embed", "diagflat",
                  "diagonal_scatter", "tril_", "triu_"])
    k = r.pick([0, 0, 1, -1, 2, -3])
    if how in ("tril", "triu"):
        return _call(L, r, x, how, k)
    if how in ("tril_", "triu_"):
        y = x * 1 if x.dtype.is_floating_point else x.clone()
        return getattr(y, how)(k)
    if how == "diag":
        return _call(L, r, x, "diag", k)
    if how == "diagonal":
        d1, d2 = r.dim(x), r.dim(x)
        return _call(L, r, x, "diagonal", offset=k, dim1=d1, dim2=d2)
    if how == "trace":
        return _call(L, r, x, "trace")
    if how == "diag_embed":
        return _call(L, r, x, "diag_embed", offset=k, dim1=r.pick([-2, 0, -1]),
                     dim2=r.pick([-1, 1]))
    if how == "diagflat":
        return _call(L, r, x, "diagflat", k)
    d = x.diagonal(k) if x.dim() >= 2 and r.flip(0.9) else x
    return L.diagonal_scatter(x, d * 2, k)


# -- unique / search / counts / quantiles -------------------------------------------------------
@op("unique_search", want=None, weight=1.5)
def _unique_search(L, r, x):
    how = r.pick(["unique", "unique_dim", "unique_consecutive", "searchsorted", "bucketize",
                  "bincount", "histc", "quantile", "nanquantile", "kthvalue", "mode",
                  "nanmedian", "aminmax", "count_nonzero"])
    if how == "unique":
        out = _call(L, r, x, "unique", sorted=True, return_inverse=r.flip(),
                    return_counts=r.flip())
        return out
    if how == "unique_dim":
        return L.unique(x, dim=r.dim(x), return_inverse=r.flip(), return_counts=r.flip())
    if how == "unique_consecutive":
        kw = {"return_inverse": r.flip(), "return_counts": r.flip()}
        if r.flip(0.3):
            kw["dim"] = r.dim(x)
        return _call(L, r, x, "unique_consecutive", **kw)
    if how in ("searchsorted", "bucketize"):
        if x.dim() == 0:
            bounds = x.reshape(1)
        else:
            bounds = x.reshape(-1).sort().values if r.flip(0.9) else x
        values = x if r.flip() else L.tensor(r.pick([0.0, 0.5, -1.0]))
        right = r.flip()
        if how == "bucketize":
            return L.bucketize(values, bounds.reshape(-1), right=right,
                               out_int32=r.flip(0.2))
        side = r.pick([None, "left", "right"])
        if side is not None:
            return L.searchsorted(bounds, values, side=side)
        return L.searchsorted(bounds, values, right=right)
    if how == "bincount":
        v = x.reshape(-1)
        v = (v.abs() * 2).long() if r.flip(0.9) else v
        w = x.reshape(-1).abs() if r.flip(0.3) and x.dtype.is_floating_point else None
        return L.bincount(v, weights=w, minlength=r.pick([0, 3, 10]))
    if how == "histc":
        return L.histc(x, bins=r.pick([1, 4, 10]), min=r.pick([0, -1]), max=r.pick([0, 1]))
    if how in ("quantile", "nanquantile"):
        q = r.pick([0.5, 0.0, 1.0, 0.25, 1.5, "t"])
        if q == "t":
            q = L.tensor([0.1, 0.9], dtype=x.dtype if x.dtype.is_floating_point else L.float32)
        kw = {"interpolation": r.pick(["linear", "lower", "higher", "midpoint", "nearest"])}
        if r.flip(0.6):
            kw["dim"] = r.dim(x)
            kw["keepdim"] = r.flip()
        return _call(L, r, x, how, q, **kw)
    if how == "kthvalue":
        d = r.dim(x)
        n = x.shape[d] if x.dim() and -x.dim() <= d < x.dim() else 1
        return tuple(_call(L, r, x, "kthvalue", r.int(0, n + 1), d, keepdim=r.flip()))
    if how in ("mode", "nanmedian"):
        if r.flip(0.3) and how == "nanmedian":
            return x.nanmedian()
        if how == "nanmedian" and 0 in x.stride():
            # Note [median of an expanded input]: PyTorch 2.13's nanmedian(dim), like
            # median(dim) (ops_table.py), reads memory it did not set on a stride-0 (expanded)
            # input: values like 4.56e-41 or -5.7e7 come back, so there is no oracle; both
            # sides get a contiguous copy (seed 123, x5)
            x = x.contiguous()
        return tuple(_call(L, r, x, how, r.dim(x), keepdim=r.flip()))
    if how == "aminmax":
        kw = {"dim": r.dim(x)} if r.flip(0.7) else {}
        return tuple(_call(L, r, x, "aminmax", keepdim=r.flip(), **kw))
    return _call(L, r, x, "count_nonzero", r.dim(x) if r.flip() else None)


@op("scan_extra", weight=1)
def _scan_extra(L, r, x):
    how = r.pick(["cummax", "cummin", "logcumsumexp", "std_mean", "var_mean", "cumsum_dtype"])
    d = r.dim(x)
    if how in ("cummax", "cummin"):
        return tuple(_call(L, r, x, how, d))
    if how == "logcumsumexp":
        return _call(L, r, x, how, d)
    if how == "cumsum_dtype":
        return x.cumsum(d, dtype=getattr(L, r.pick(["float64", "float32"])))
    kw = {"keepdim": r.flip()}
    if r.flip(0.7):
        kw["dim"] = d
    if r.flip():
        kw["correction"] = r.pick([0, 1, 2])
    return tuple(getattr(L, how)(x, **kw))


# -- scatter / index families -------------------------------------------------------------------
def _index_like(L, r, shape, n):
    """A long tensor of ``shape`` with values in [0, n) (rarely out of range)."""
    count = 1
    for s in shape:
        count *= s
    vals = [r.index(n, bad=0.01) if n else 0 for _ in range(count)]
    return L.tensor(vals, dtype=L.long).reshape(shape)


@op("scatter_family", arity=2, weight=2)
def _scatter_family(L, r, x, y):
    how = r.pick(["scatter_reduce", "scatter_add", "index_add", "index_copy", "index_fill",
                  "masked_scatter", "put", "index_put", "select_scatter", "slice_scatter",
                  "scatter_value", "scatter_reduce_"])
    if x.dim() == 0:
        x = x.reshape(1) if r.flip(0.9) else x
    d = r.dim(x)
    n = x.shape[d] if x.dim() and -x.dim() <= d < x.dim() else 1
    src = y.expand_as(x) if y.dim() <= x.dim() and r.flip(0.7) and _broadcasts(y, x) else y
    if how in ("scatter_reduce", "scatter_reduce_", "scatter_add", "scatter_value"):
        shape = tuple(min(a, b) for a, b in zip(x.shape, src.shape)) \
            if src.dim() == x.dim() else tuple(x.shape)
        idx = _index_like(L, r, shape, n)
        if how == "scatter_add":
            return _call(L, r, x, "scatter_add", d, idx, src)
        if how == "scatter_value":
            return x.scatter(d, idx, r.pick([2.0, -1, 0.5]), reduce=r.pick([None, "add",
                                                                            "multiply"]))
        reduce = r.pick(["sum", "prod", "mean", "amax", "amin"])
        include = r.flip()
        if how == "scatter_reduce_":
            t = x * 1
            return t.scatter_reduce_(d, idx, src, reduce, include_self=include)
        return _call(L, r, x, "scatter_reduce", d, idx, src, reduce, include_self=include)
    if how in ("index_add", "index_copy"):
        k = r.int(0, 3)
        idx = _long(L, [r.index(n, bad=0.01) if n else 0 for _ in range(k)])
        if how == "index_copy":
            # duplicate indices make index_copy order-dependent: keep them distinct
            idx = _long(L, sorted(set(v % n for v in idx.tolist())) if n else [])
            k = idx.shape[0]
        shape = list(x.shape)
        if shape and -len(shape) <= d < len(shape):
            shape[d] = k
        s = _flat_to(L, y, _prod(shape)).reshape(shape) if y.numel() and _prod(shape) \
            else y.new_zeros(shape)
        if how == "index_add":
            return _call(L, r, x, "index_add", d, idx, s, alpha=r.pick([1, 2, -0.5]))
        return _call(L, r, x, "index_copy", d, idx, s)
    if how == "index_fill":
        k = r.int(0, 2)
        idx = _long(L, [r.index(n, bad=0.01) if n else 0 for _ in range(k)])
        value = r.pick([1.5, -2, 0]) if r.flip(0.7) else y.sum()
        return _call(L, r, x, "index_fill", d, idx, value)
    if how == "masked_scatter":
        mask = x > 0 if r.flip(0.8) else y > 0
        source = src if src.numel() >= x.numel() else _flat_to(L, y, x.numel() + 1) \
            if y.numel() else y
        return _call(L, r, x, "masked_scatter", mask, source)
    if how == "put":
        m = x.numel()
        k = r.int(0, 3)
        idx = _long(L, [r.index(m, bad=0.01) if m else 0 for _ in range(k)])
        vals = _flat_to(L, y, k) if y.numel() and k else y.reshape(-1)[:k]
        return _call(L, r, x, "put", idx, vals, accumulate=r.flip())
    if how == "index_put":
        n0 = x.shape[0] if x.dim() else 1
        k = r.int(1, 3)
        idx = _long(L, [r.index(n0, bad=0.01) for _ in range(k)])
        vals = y.reshape(-1)[:1].reshape(()) if y.numel() else y
        acc = r.flip()
        if r.flip(0.3):
            t = x * 1
            return t.index_put_((idx,), vals, accumulate=acc)
        return _call(L, r, x, "index_put", (idx,), vals, accumulate=acc)
    if how == "select_scatter":
        i = r.index(n)
        part = x.select(d, i) if x.dim() and -x.dim() <= d < x.dim() and -n <= i < n else x
        return L.select_scatter(x, part * y.mean() if y.dim() == 0 else part * 2, d, i)
    a, b = r.int(0, n), r.int(0, n)
    step = r.pick([1, 2])
    part = x.narrow(d, 0, len(range(a, b, step))) if x.dim() and -x.dim() <= d < x.dim() \
        and a <= b else x
    return L.slice_scatter(x, part * 3, d, a, b, step)


def _prod(shape):
    n = 1
    for s in shape:
        n *= s
    return n


def _broadcasts(y, x):
    ys, xs = list(y.shape), list(x.shape)
    for a, b in zip(reversed(ys), reversed(xs)):
        if a != b and a != 1:
            return False
    return len(ys) <= len(xs)


# -- splits and rearrangements ------------------------------------------------------------------
@op("split_extra", want=None, weight=1.5)
def _split_extra(L, r, x):
    how = r.pick(["tensor_split", "tensor_split_idx", "hsplit", "vsplit", "dsplit", "chunk",
                  "unbind", "movedim", "moveaxis", "flip", "fliplr", "flipud", "roll", "rot90",
                  "swapaxes", "narrow_copy", "repeat_interleave", "repeat_interleave_t",
                  "unfold", "atleast", "block_diag"])
    d = r.dim(x)
    if how == "tensor_split":
        return tuple(_call(L, r, x, "tensor_split", r.int(1, 4), d))
    if how == "tensor_split_idx":
        idx = sorted(r.int(-1, 4) for _ in range(r.int(0, 3)))
        return tuple(_call(L, r, x, "tensor_split", idx, dim=d))
    if how in ("hsplit", "vsplit", "dsplit"):
        arg = r.pick([1, 2, 3, [1], [0, 2]])
        return tuple(_call(L, r, x, how, arg))
    if how == "chunk":
        return tuple(L.chunk(x, r.int(1, 5), d))
    if how == "unbind":
        return tuple(L.unbind(x, d))
    if how in ("movedim", "moveaxis"):
        k = r.int(1, max(1, x.dim()))
        src = r.perm(max(x.dim(), 1))[:k]
        dst = r.perm(max(x.dim(), 1))[:k]
        return _call(L, r, x, how, src, dst)
    if how == "flip":
        return _call(L, r, x, "flip", sorted(set(r.dim(x) for _ in range(r.int(1, 2)))))
    if how in ("fliplr", "flipud"):
        return _call(L, r, x, how)
    if how == "roll":
        k = r.int(1, 2)
        return _call(L, r, x, "roll", tuple(r.int(-3, 3) for _ in range(k)),
                     tuple(r.dim(x) for _ in range(k)))
    if how == "rot90":
        return _call(L, r, x, "rot90", r.int(-2, 5), [r.dim(x), r.dim(x)])
    if how == "swapaxes":
        return _call(L, r, x, r.pick(["swapaxes", "swapdims"]), r.dim(x), r.dim(x))
    if how == "narrow_copy":
        n = x.shape[d] if x.dim() and -x.dim() <= d < x.dim() else 1
        start = r.int(0, n)
        return _call(L, r, x, "narrow_copy", d, start, r.int(0, n - start + 1))
    if how == "repeat_interleave":
        kw = {"dim": r.dim(x)} if r.flip(0.7) else {}
        return _call(L, r, x, "repeat_interleave", r.int(0, 3), **kw)
    if how == "repeat_interleave_t":
        n = x.shape[d] if x.dim() and -x.dim() <= d < x.dim() else 1
        reps = _long(L, [r.int(0, 2) for _ in range(n + (1 if r.flip(0.05) else 0))])
        return x.repeat_interleave(reps, dim=d)
    if how == "unfold":
        n = x.shape[d] if x.dim() and -x.dim() <= d < x.dim() else 1
        return x.unfold(d, r.int(0, n + 1), r.int(1, 3))
    if how == "atleast":
        return getattr(L, r.pick(["atleast_1d", "atleast_2d", "atleast_3d"]))(x)
    return L.block_diag(x if x.dim() <= 2 else x[0], x.reshape(-1)[:2] if r.flip() else x.sum())


@op("meshgrid", arity=2, want=None, weight=0.7)
def _meshgrid(L, r, x, y):
    how = r.pick(["meshgrid", "cartesian_prod", "stack_like"])
    a, b = x.reshape(-1), y.reshape(-1)
    if how == "meshgrid":
        return tuple(L.meshgrid(a, b, indexing=r.pick(["ij", "xy"])))
    if how == "cartesian_prod":
        return L.cartesian_prod(a, b if b.dtype == a.dtype else b.to(a.dtype))
    return getattr(L, r.pick(["hstack", "vstack", "dstack", "column_stack"]))([x, y])


# -- nn: padding, pooling, convolution, interpolation -------------------------------------------
def _batched(L, r, x, spatial):
    """``x`` as (N, C, *spatial dims) or (C, *spatial): unsqueeze up to the rank wanted."""
    want = spatial + r.pick([1, 2])
    while x.dim() < want:
        x = x.unsqueeze(0)
    return x


@op("pad", weight=1.2)
def _pad(L, r, x):
    F = L.nn.functional
    mode = r.pick(["constant", "reflect", "replicate", "circular"])
    k = r.int(1, 3)
    y = _batched(L, r, x, k) if mode != "constant" and r.flip(0.9) else x
    pads = [r.int(-1, 2) if mode == "constant" else r.int(0, 2) for _ in range(2 * k)]
    if mode == "constant":
        return F.pad(y, pads, mode="constant", value=r.pick([0.0, 1.5]))
    return F.pad(y, pads, mode=mode)


@op("pooling", weight=2)
def _pooling(L, r, x):
    F = L.nn.functional
    kind = r.pick(["max", "avg", "adaptive_max", "adaptive_avg", "lp"])
    k = r.pick([1, 1, 2, 2, 3])
    y = _batched(L, r, x, k)
    spatial = y.shape[y.dim() - k:] if y.dim() >= k else ()
    ks = r.int(1, max(1, min(spatial) if spatial else 1) + (1 if r.flip(0.05) else 0))
    name = f"{kind}_pool{k}d"
    if kind == "max":
        pad = r.int(0, ks // 2)
        return F.__dict__[name](y, ks, stride=r.pick([None, 1, 2]), padding=pad,
                                dilation=r.pick([1, 1, 2]) if k < 3 else 1,
                                ceil_mode=r.flip(), return_indices=r.flip())
    if kind == "avg":
        pad = r.int(0, ks // 2)
        kw = {"count_include_pad": r.flip(), "ceil_mode": r.flip()}
        if k > 1 and r.flip(0.3):
            kw["divisor_override"] = r.pick([1, 3])
        return getattr(F, name)(y, ks, stride=r.pick([None, 1, 2]), padding=pad, **kw)
    if kind == "lp":
        return getattr(F, name)(y.abs() + 0.1, r.pick([1, 2, 3.0]), ks,
                                stride=r.pick([None, 1]), ceil_mode=r.flip())
    out = tuple(r.int(1, 3) for _ in range(k))
    if kind == "adaptive_max":
        return getattr(F, name)(y, out if k > 1 else out[0], return_indices=r.flip())
    return getattr(F, name)(y, out if k > 1 else out[0])


@op("conv", arity=2, weight=1.5)
def _conv(L, r, x, y):
    F = L.nn.functional
    k = r.pick([1, 1, 2])
    inp = _batched(L, r, x, k)
    cin = inp.shape[-k - 1]
    groups = r.pick([1, 1, cin]) if cin else 1
    cout = r.pick([1, 2]) * groups
    ks = tuple(r.int(1, 2) for _ in range(k))
    wshape = (cout, cin // groups if groups else cin) + ks
    if y.numel() and r.flip(0.95):
        w = _flat_to(L, y, _prod(wshape)).reshape(wshape)
    else:
        w = y
    bias = None
    if r.flip(0.5):
        bias = _flat_to(L, y, cout) if y.numel() else None
    kw = {"stride": r.pick([1, 2]), "padding": r.pick([0, 1, "same", "valid"]),
          "dilation": r.pick([1, 1, 2]), "groups": groups}
    if kw["padding"] == "same":
        kw["stride"] = 1
    if r.flip(0.15):
        name = f"conv_transpose{k}d"
        wt = w.transpose(0, 1) if w.dim() >= 2 and groups == 1 else w
        return getattr(F, name)(inp, wt, bias if groups == 1 else None, stride=kw["stride"],
                                padding=r.pick([0, 1]), output_padding=0,
                                dilation=kw["dilation"])
    return getattr(F, f"conv{k}d")(inp, w, bias, **kw)


@op("interpolate", weight=1)
def _interpolate(L, r, x):
    F = L.nn.functional
    k = r.pick([1, 2, 2, 3])
    mode = r.pick({1: ["nearest", "linear", "nearest-exact", "area"],
                   2: ["nearest", "bilinear", "bicubic", "nearest-exact", "area"],
                   3: ["nearest", "trilinear", "nearest-exact", "area"]}[k])
    y = _batched(L, r, x, k)
    if r.flip(0.05):
        mode = r.pick(["linear", "bilinear", "trilinear"])
    kw = {}
    if mode in ("linear", "bilinear", "bicubic", "trilinear"):
        kw["align_corners"] = r.pick([None, True, False])
    if r.flip():
        kw["size"] = tuple(r.int(1, 5) for _ in range(k)) if r.flip(0.7) else r.int(1, 4)
    else:
        kw["scale_factor"] = r.pick([2, 0.5, 1.5, 3])
        if mode not in ("area",) and r.flip(0.3):
            kw["recompute_scale_factor"] = r.flip()
    return F.interpolate(y, mode=mode, **kw)


@op("embedding", arity=2, want=None, weight=1)
def _embedding(L, r, x, y):
    F = L.nn.functional
    weight = y if y.dim() == 2 else y.reshape(-1, 1) if y.dim() < 2 else y[0]
    if not weight.dtype.is_floating_point and r.flip(0.9):
        weight = weight.float()
    n = weight.shape[0]
    count = r.int(0, 5)
    idx = _long(L, [r.index(n, bad=0.02) if n else 0 for _ in range(count)])
    idx = idx.reshape(-1, count // 2) if count >= 2 and count % 2 == 0 and r.flip() else idx
    if r.flip(0.7):
        kw = {"padding_idx": r.pick([None, 0, -1])} if n else {}
        if r.flip(0.15):
            # max_norm renormalises weight rows in place (under no_grad)
            w2 = weight.detach().clone()
            return F.embedding(idx, w2, max_norm=r.pick([1.0, 0.5]), norm_type=2.0), w2
        return F.embedding(idx, weight, **kw)
    mode = r.pick(["sum", "mean", "max"])
    flat = idx.reshape(-1)
    offsets = _long(L, sorted({0} | {r.int(0, flat.shape[0]) for _ in range(r.int(0, 2))}))
    # torch 2.13 crashes (heap corruption) on include_last_offset=True with a single offset,
    # i.e. zero bags: never drawn
    kw = {"mode": mode, "include_last_offset": r.flip(0.2) and offsets.shape[0] > 1}
    if kw["include_last_offset"] and n and int(offsets[-1]) < flat.shape[0]:
        # the indices past the last offset are in no bag. torch 2.13's forward skips their
        # range check but its backward still scatters them: a bad one writes outside the
        # gradient (a crash, or garbage; seed 162), so keep them valid. Its fast path (sums
        # of float32/float16 rows) reads their gradient past the last bag (uninitialized
        # memory): there, no entries past the last offset
        last = int(offsets[-1])
        if mode == "sum" and weight.dtype in (L.float32, L.float16):
            flat = flat[:last]
        else:
            flat = L.cat([flat[:last], flat[last:].clamp(0, n - 1)])
    if mode == "sum" and r.flip(0.3) and weight.dtype.is_floating_point:
        kw["per_sample_weights"] = _flat_to(L, x.to(weight.dtype), flat.shape[0]) \
            if x.numel() and flat.shape[0] else None
    if r.flip(0.2) and n:
        kw["padding_idx"] = 0
    return F.embedding_bag(flat, weight, offsets, **kw)


# -- losses and distances -----------------------------------------------------------------------
@op("loss_extra", arity=3, weight=2)
def _loss_extra(L, r, x, y, z):
    F = L.nn.functional
    name = r.pick(["margin_ranking_loss", "triplet_margin_loss", "gaussian_nll_loss",
                   "kl_div", "huber_loss", "smooth_l1_loss", "poisson_nll_loss",
                   "cosine_embedding_loss", "hinge_embedding_loss", "soft_margin_loss",
                   "multilabel_soft_margin_loss", "binary_cross_entropy", "l1_loss"])
    reduction = r.pick(["mean", "sum", "none"])
    if x.shape != y.shape and _broadcasts(y, x) and r.flip(0.8):
        y = y.expand_as(x)
    if name == "margin_ranking_loss":
        target = (z > 0).to(x.dtype) * 2 - 1 if r.flip(0.9) else z
        return F.margin_ranking_loss(x, y, target, margin=r.pick([0.0, 0.5]),
                                     reduction=reduction)
    if name == "triplet_margin_loss":
        return F.triplet_margin_loss(x, y, z, margin=r.pick([1.0, 0.1]), p=r.pick([2, 1]),
                                     swap=r.flip(), reduction=reduction)
    if name == "gaussian_nll_loss":
        var = z.abs() + 0.1 if r.flip(0.9) else z
        return F.gaussian_nll_loss(x, y, var, full=r.flip(), eps=r.pick([1e-6, 0.1]),
                                   reduction=reduction)
    if name == "kl_div":
        target = y.log_softmax(-1) if y.dim() and r.flip(0.8) else y
        log_target = r.flip()
        if not log_target:
            target = target.exp()
        return F.kl_div(x.log_softmax(-1) if x.dim() else x, target,
                        reduction=r.pick(["mean", "sum", "none", "batchmean"]),
                        log_target=log_target)
    if name == "huber_loss":
        return F.huber_loss(x, y, reduction=reduction, delta=r.pick([1.0, 0.5, 2.0]))
    if name == "smooth_l1_loss":
        return F.smooth_l1_loss(x, y, reduction=reduction, beta=r.pick([1.0, 0.0, 0.5]))
    if name == "poisson_nll_loss":
        log_input = r.flip()
        inp = x if log_input else x.abs()
        return F.poisson_nll_loss(inp, y.abs(), log_input=log_input, full=r.flip(),
                                  reduction=reduction)
    if name == "cosine_embedding_loss":
        a = x if x.dim() in (1, 2) else x.reshape(x.shape[0] if x.dim() else 1, -1)
        b = y.reshape(a.shape) if y.numel() == a.numel() else y
        n = a.shape[0] if a.dim() == 2 else 1
        target = _long(L, [r.pick([1, -1]) for _ in range(n)])
        target = target if a.dim() == 2 else target.reshape(())
        return F.cosine_embedding_loss(a, b, target.to(a.dtype) if r.flip() else target,
                                       margin=r.pick([0.0, 0.3]), reduction=reduction)
    if name == "hinge_embedding_loss":
        target = (y > 0).to(x.dtype) * 2 - 1
        return F.hinge_embedding_loss(x, target, margin=r.pick([1.0, 0.5]),
                                      reduction=reduction)
    if name == "soft_margin_loss":
        return F.soft_margin_loss(x, (y > 0).to(x.dtype) * 2 - 1, reduction=reduction)
    if name == "multilabel_soft_margin_loss":
        return F.multilabel_soft_margin_loss(x, (y > 0).to(x.dtype), reduction=reduction)
    if name == "binary_cross_entropy":
        w = z.abs() if r.flip(0.3) and _broadcasts(z, x) else None
        return F.binary_cross_entropy(x.sigmoid(), y.sigmoid(), weight=w, reduction=reduction)
    return F.l1_loss(x, y, reduction=reduction)


@op("distance", arity=2, weight=1)
def _distance(L, r, x, y):
    F = L.nn.functional
    how = r.pick(["normalize", "cosine_similarity", "pairwise_distance", "pdist", "cdist"])
    if how == "normalize":
        return F.normalize(x, p=r.pick([2.0, 1.0, float("inf"), 0.5]), dim=r.dim(x),
                           eps=r.pick([1e-12, 0.5]))
    if how == "cosine_similarity":
        return F.cosine_similarity(x, y, dim=r.dim(x) if x.dim() else 0,
                                   eps=r.pick([1e-8, 0.5]))
    if how == "pairwise_distance":
        return F.pairwise_distance(x, y, p=r.pick([2.0, 1.0, 3.0]), eps=r.pick([1e-6, 0.0]),
                                   keepdim=r.flip())
    if how == "pdist":
        a = x if x.dim() == 2 else x.reshape(x.shape[0] if x.dim() else 1, -1)
        if a.shape[0] == 0 and a.shape[1]:
            # torch 2.13's pdist backward of zero rows divides by n * n (SIGFPE, the
            # process dies; seed 132): its forward only
            a = a.detach()
        return F.pdist(a, p=r.pick([2.0, 1.0, 0.0, float("inf"), 3.0]))
    a = x if x.dim() >= 2 else x.reshape(1, -1)
    b = y if y.dim() >= 2 else y.reshape(1, -1)
    if b.shape[-1] != a.shape[-1] and b.numel() and r.flip(0.9):
        b = _flat_to(L, b, 2 * a.shape[-1]).reshape(2, a.shape[-1])
    return L.cdist(a, b, p=r.pick([2.0, 1.0, float("inf")]),
                   compute_mode=r.pick(["use_mm_for_euclid_dist_if_necessary",
                                        "donot_use_mm_for_euclid_dist"]))


# the third table (ops_table_more.py) uses helpers of this one: registered after it
from . import ops_table_more  # noqa: E402,F401
