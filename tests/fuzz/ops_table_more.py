"""More fuzzer steps (session 7): public calls the first two tables did not name.

Same contract as :mod:`ops_table`: every choice goes through ``r`` and depends only on tensor
metadata, so leafgrad and torch make the same call; inputs an op does not accept must raise the
same error on both.
"""
from __future__ import annotations

from .ops_table import _call, op
from .ops_table_extra import _bad_dtype, _flat_to


# -- sorting and index-producing calls ---------------------------------------------------------
@op("sort_index", want=None, weight=1)
def _sort_index(L, r, x):
    how = r.pick(["argsort", "argsort_stable", "msort", "argwhere", "nonzero", "nonzero_tuple",
                  "take_along_dim", "take_along_dim_flat"])
    if how == "argsort":
        return _call(L, r, x, "argsort", dim=r.dim(x), descending=r.flip())
    if how == "argsort_stable":
        return _call(L, r, x, "argsort", stable=True, dim=r.dim(x), descending=r.flip())
    if how == "msort":
        return _call(L, r, x, "msort")
    if how == "argwhere":
        return _call(L, r, x, "argwhere")
    if how == "nonzero":
        return _call(L, r, x, "nonzero")
    if how == "nonzero_tuple":
        return x.nonzero(as_tuple=True)
    if how == "take_along_dim":
        d = r.dim(x)
        idx = x.argsort(dim=d) if x.dim() else x.argsort()
        return L.take_along_dim(x, idx, dim=d)
    return L.take_along_dim(x, x.reshape(-1).argsort() if x.numel() else
                            L.zeros(0, dtype=L.long))


# -- differences, integrals, polynomials ---------------------------------------------------------
@op("diff_trapz", arity=2, weight=1)
def _diff_trapz(L, r, x, y):
    how = r.pick(["diff", "diff_n", "diff_prepend", "trapezoid", "trapezoid_dx", "trapezoid_x",
                  "cumulative_trapezoid", "trapz", "vander"])
    if how == "diff":
        return _call(L, r, x, "diff", dim=r.dim(x))
    if how == "diff_n":
        return _call(L, r, x, "diff", n=r.pick([0, 2, 3]), dim=r.dim(x))
    if how == "diff_prepend":
        return L.diff(x, dim=r.dim(x), prepend=y if r.flip(0.6) else None,
                      append=y if r.flip(0.6) else None)
    if how in ("trapezoid", "trapz"):
        return getattr(L, how)(x, dim=r.dim(x))
    if how == "trapezoid_dx":
        return L.trapezoid(x, dx=r.pick([0.5, 2, -1.0]), dim=r.dim(x))
    if how == "trapezoid_x":
        d = r.dim(x)
        n = x.shape[d] if x.dim() else 0
        xs = _flat_to(L, y, n) if y.numel() and n and r.flip(0.8) else y
        return L.trapezoid(x, xs, dim=d)
    if how == "cumulative_trapezoid":
        return L.cumulative_trapezoid(x, dim=r.dim(x))
    v = x.reshape(-1)[:5] if r.flip(0.9) else x
    return L.vander(v, N=r.pick([None, 0, 1, 3]), increasing=r.flip())


# -- predicates and bit-level calls ----------------------------------------------------------------
@op("predicates", arity=2, want=None, weight=1)
def _predicates(L, r, x, y):
    how = r.pick(["signbit", "isfinite", "isinf", "isnan", "isneginf", "isposinf", "isreal",
                  "logical_not", "bitwise_not", "isin", "isin_invert", "isin_scalar", "frexp",
                  "gcd", "lcm", "shift_left", "shift_right", "nan_to_num"])
    if how in ("gcd", "lcm", "shift_left", "shift_right"):
        a = x.to(L.int64) if r.flip(0.85) and not x.is_complex() else x
        b = y.to(L.int64) if r.flip(0.85) and not y.is_complex() else y
        if how.startswith("shift"):
            b = b.abs() % 8 if b.dtype == L.int64 else b
            name = "bitwise_left_shift" if how == "shift_left" else "bitwise_right_shift"
            return _call(L, r, a, name, b)
        return _call(L, r, a, how, b)
    if how == "bitwise_not":
        return _call(L, r, x.to(L.int64) if r.flip(0.5) else x, "bitwise_not")
    if how == "isin":
        return L.isin(x, y, invert=False)
    if how == "isin_invert":
        return L.isin(x, y, assume_unique=r.flip(0.2), invert=True)
    if how == "isin_scalar":
        return L.isin(x, r.pick([0, 1.5, 2]))
    if how == "nan_to_num":
        return _call(L, r, x, "nan_to_num", nan=r.pick([None, 0.5]),
                     posinf=r.pick([None, 10.0]), neginf=r.pick([None, -10.0]))
    out = _call(L, r, x, how)
    if how == "signbit" and x.is_floating_point():
        # IEEE 754 does not interpret the sign of a NaN that arithmetic produces (only
        # neg/abs/copysign define it), and PyTorch's kernels differ among themselves (amax of
        # a -NaN gives +NaN, max() keeps -NaN; the x86 0/0 gives -NaN): a NaN's sign bit is
        # not compared (seed 110: std's NaN through amax). Every other element is.
        return out & ~x.isnan()
    return out


def _polar_unsettled(a):
    """Whether the gradient of ``a``'s nuclear norm, ``U Vh`` (the polar factor), is decided
    by rounding: with a singular value at noise level (a rank-deficient matrix) the null-space
    columns of U and V are any orthonormal bases, which LAPACK builds choose differently
    (seed 132: a rank-1 3x3 float64 matrix, NumPy's and MKL's gradients differ by O(1) while
    both are right); near it the factor's error grows as eps * sigma_max / sigma_min. Then
    its forward only (over 1e2 in float32, 1e6 in float64: past the comparison's tolerance).
    Decided by NumPy in float64 from the input's values, the same answer on both sides."""
    import numpy as np
    if a.dim() != 2 or str(a.dtype).split(".")[-1] not in ("float32", "float64") or \
            not a.numel() or not a.requires_grad:
        return False
    arr = a.detach().numpy()
    if not np.isfinite(arr).all():
        return False
    s = np.linalg.svd(arr.astype(np.float64), compute_uv=False)
    with np.errstate(all="ignore"):
        return bool(s[0] > (1e2 if arr.dtype == np.float32 else 1e6) * s[-1])


# -- statistics ----------------------------------------------------------------------------------
@op("statistics", arity=2, weight=1)
def _statistics(L, r, x, y):
    x = _bad_dtype(L, r, x, 0.05)
    how = r.pick(["nanmean", "nanmean_dim", "cov", "cov_weights", "corrcoef", "renorm",
                  "nuclear_norm", "var_mean", "std_mean"])
    if how == "nanmean":
        return _call(L, r, x, "nanmean")
    if how == "nanmean_dim":
        return _call(L, r, x, "nanmean", dim=r.dim(x), keepdim=r.flip())
    m = x if x.dim() <= 2 else x.reshape(x.shape[0], -1)
    if how == "cov":
        return L.cov(m, correction=r.pick([0, 1, 2]))
    if how == "cov_weights":
        n = m.shape[-1] if m.dim() else 1
        # not with one observation: there PyTorch 2.13's cov centres its input in place (the
        # caller's tensor becomes zeros; mm then sees mixed dtypes), which leafgrad does not copy
        w = (_flat_to(L, y, n).abs() + 0.5) if y.numel() and n > 1 else None
        return L.cov(m, correction=r.pick([0, 1]), aweights=w if r.flip() else None)
    if how == "corrcoef":
        return L.corrcoef(m)
    if how == "renorm":
        return _call(L, r, x, "renorm", r.pick([1, 2, 3.5]), r.dim(x), r.pick([0.5, 1.0, 5.0]))
    if how == "nuclear_norm":
        if _polar_unsettled(m):
            m = m.detach()
        return L.nuclear_norm(m, keepdim=r.flip()) if r.flip() else \
            L.norm(m, p="nuc") if m.dim() == 2 else L.nuclear_norm(m)
    name = how
    return getattr(L, name)(x, dim=r.dim(x), correction=r.pick([0, 1]), keepdim=r.flip())


# -- nn: shuffles, layer_norm, rrelu (eval), hardshrink ------------------------------------------
@op("nn_more", arity=2, weight=1.2)
def _nn_more(L, r, x, y):
    F = L.nn.functional
    how = r.pick(["layer_norm", "layer_norm_affine", "pixel_shuffle", "pixel_unshuffle",
                  "channel_shuffle", "rrelu_eval", "hardshrink", "softshrink", "tanhshrink",
                  "threshold"])
    if how in ("layer_norm", "layer_norm_affine"):
        k = r.int(1, max(min(x.dim(), 2), 1))
        shape = tuple(x.shape[x.dim() - k:]) if x.dim() else (1,)
        w = b = None
        if how == "layer_norm_affine" and y.numel():
            n = 1
            for s in shape:
                n *= s
            w = _flat_to(L, y, n).reshape(shape) if n else None
            b = _flat_to(L, y, n).reshape(shape) if n and r.flip() else None
        return F.layer_norm(x, shape, w, b, eps=r.pick([1e-5, 0.1]))
    if how in ("pixel_shuffle", "pixel_unshuffle", "channel_shuffle"):
        z = x
        while z.dim() < 3:
            z = z.unsqueeze(0)
        f = r.pick([1, 2])
        if how == "channel_shuffle":
            return F.channel_shuffle(z, f) if r.flip() else L.nn.ChannelShuffle(f)(z)
        return getattr(F, how)(z, f)
    if how == "rrelu_eval":
        return F.rrelu(x, lower=0.1, upper=0.3, training=False)
    if how == "threshold":
        return F.threshold(x, r.pick([0.0, 0.5, -1]), r.pick([0.0, 2.0]))
    return getattr(F, how)(x)


# -- in-place variants the first tables leave out -----------------------------------------------
@op("inplace_more", arity=2, inplace=True, want=None, weight=1)
def _inplace_more(L, r, x, y):
    how = r.pick(["xlogy_", "rsub", "trunc_", "frac_", "fix_", "deg2rad_", "rad2deg_",
                  "negative_", "reciprocal_", "logit_", "clip_", "threshold_"])
    if how == "xlogy_":
        return x.xlogy_(y.abs() if y.dtype.is_floating_point else y)
    if how == "rsub":
        return L.rsub(x, y, alpha=r.pick([1, 2])) if r.flip() else L.rsub(x, r.scalar())
    if how == "clip_":
        return x.clip_(r.pick([None, -0.5]), r.pick([0.5, None, 1]))
    if how == "threshold_":
        return L.nn.functional.threshold_(x, 0.1, 0.0)
    return getattr(x, how)()


# the fourth table (session 10) uses helpers of the second: registered last
from . import ops_table_wide  # noqa: E402,F401
