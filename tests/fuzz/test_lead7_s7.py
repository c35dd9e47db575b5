"""Findings of session 7 fixed by the lead: the graphs that first-order gradients record under
``create_graph=True`` (their grad_fn names and next functions, which double backward walks)."""
from __future__ import annotations

import pytest
from oracle import grad_fn_names, same_on_both


def _first_grad(L, op, shape, dtype="float64"):
    n = 1
    for s in shape:
        n *= s
    x = (L.arange(1, n + 1, dtype=getattr(L, dtype)) * 0.3 + 0.1).reshape(shape)
    x.requires_grad_()
    y = op(L, x)
    seed = L.ones(y.shape, dtype=y.dtype, requires_grad=True)
    (g,) = L.autograd.grad(y, [x], seed, create_graph=True)
    (gg,) = L.autograd.grad((g * g).sum(), [seed], allow_unused=True)
    return g, grad_fn_names(g), gg


SHAPES = [(), (1,), (3,), (2, 3), (2, 1)]


# -- cumsum's gradient is PyTorch's reversed_cumsum, flip().cumsum().flip() when recorded, and
# the gradient itself when the dim has one element (seed 25's SumBackward0 family) --------------
@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("dim", [0, -1])
@pytest.mark.parametrize("name", ["cumsum", "cumprod"])
def test_cumulative_gradient_graph(name, shape, dim):
    same_on_both(lambda L: _first_grad(L, lambda L, x: getattr(x, name)(dim), shape))


# -- amax/amin's gradient is (grad / count) * mask on the restored dims; a 0-d input with a dim
# restores to (1,), summed back to () by the engine (SumBackward0), as PyTorch's (seed 25) ------
@pytest.mark.parametrize("shape", SHAPES + [(2, 2)])
@pytest.mark.parametrize("dim", [0, -1, (), (0, -1)])
@pytest.mark.parametrize("keepdim", [False, True])
@pytest.mark.parametrize("name", ["amax", "amin"])
def test_amax_gradient_graph(name, shape, dim, keepdim):
    def op(L, x):
        return getattr(x, name)(dim, keepdim)
    same_on_both(lambda L: _first_grad(L, op, shape))


def test_amax_ties_rounding():
    # (grad / count) * mask rounds as PyTorch's: 0.7 / 3 is not 0.7 * (1 / 3) in float32
    def run(L):
        x = L.tensor([[1.0, 1.0, 1.0], [2.0, 0.5, 2.0]], requires_grad=True)
        y = x.amax(1)
        y.backward(L.tensor([0.7, 0.1]))
        return x.grad.numpy().tobytes()
    same_on_both(run)


# -- calls the widened fuzz table (ops_table_more.py) found wrong --------------------------------
_YS = {"0d": lambda L: L.tensor(1.5), "1d": lambda L: L.tensor([1.0, 3.0]),
       "2d": lambda L: L.tensor([[1.0, 2, 4], [3, 5, 7]]), "empty": lambda L: L.zeros(0, 3),
       "bool": lambda L: L.tensor([True, False]), "int": lambda L: L.tensor([1, 2, 3])}
_XS = {"none": None, "0d": lambda L: L.tensor(2.0), "1d": lambda L: L.tensor([2.0, 3]),
       "1d3": lambda L: L.tensor([1.0, 2, 5]), "2d": lambda L: L.tensor([[1.0, 2, 4]]),
       "3d": lambda L: L.tensor([[[1.0, 2, 4]]]), "bool": lambda L: L.tensor([True, False]),
       "dx": 0.5, "dx_int": 2, "dx_bool": True}


@pytest.mark.parametrize("name", ["trapezoid", "cumulative_trapezoid", "trapz"])
@pytest.mark.parametrize("y", sorted(_YS))
@pytest.mark.parametrize("x", sorted(_XS))
@pytest.mark.parametrize("dim", [-1, 0, 3])
def test_trapezoid_family(name, y, x, dim):
    # PyTorch's order: with sample points the dim is wrapped first and a 0-d y fails on its
    # size; with a spacing the dim is used as given (seed 70/71, widened table)
    def run(L):
        yy, xx = _YS[y](L), _XS[x]
        fn = getattr(L, name)
        if xx is None:
            return fn(yy, dim=dim)
        if not callable(xx):
            return fn(yy, dx=xx, dim=dim)
        return fn(yy, xx(L), dim=dim)
    same_on_both(run)


def test_trapezoid_gradient():
    def run(L):
        y = L.tensor([[1.0, 2, 4], [3, 5, 7]], requires_grad=True)
        x = L.tensor([1.0, 2, 5], requires_grad=True)
        out = L.trapezoid(y, x) + L.cumulative_trapezoid(y, x).sum() + L.trapz(y, dx=0.5).sum()
        out.sum().backward()
        return out, y.grad, x.grad, type(out.grad_fn).__name__
    same_on_both(run)


@pytest.mark.parametrize("dim", [0, -1, 2, None])
@pytest.mark.parametrize("index", ["0d", "1d"])
def test_take_along_dim_0d(dim, index):
    def run(L):
        idx = L.tensor(0) if index == "0d" else L.tensor([0])
        return L.take_along_dim(L.tensor(1.5), idx, dim=dim)
    same_on_both(run)


def test_repeat_interleave_names_the_dim_as_given():
    same_on_both(lambda L: L.repeat_interleave(L.ones(2, 1, 3), L.tensor([1, 2]), dim=-2))


@pytest.mark.parametrize("n", [None, 0, 1, 2, 3])
@pytest.mark.parametrize("increasing", [False, True])
def test_vander_versions(n, increasing):
    # PyTorch fills the first column, then copies x and its running products in: version 1
    # with one column, 3 with more
    def run(L):
        r = L.vander(L.tensor([1.0, 2, 3, 4]), N=n, increasing=increasing)
        return r, r._version
    same_on_both(run)


def test_nan_to_num_none_means_default():
    def run(L):
        x = L.tensor([float("nan"), float("inf"), -float("inf"), 1.5])
        return (L.nan_to_num(x, nan=None), x.nan_to_num(None, None, None),
                x.half().nan_to_num(None), L.nan_to_num(x, None, 3.0, None))
    same_on_both(run)


def test_cov_one_observation_leaves_input_alone():
    # PyTorch 2.13 centres the input of cov in place when there is one observation and one
    # weights tensor (the caller's tensor becomes zeros): a PyTorch bug leafgrad does not copy;
    # the fuzz table leaves that case out. leafgrad's result is PyTorch's.
    import leafgrad
    import torch
    for L in (leafgrad, torch):
        x = L.tensor([0.3])
        c = L.cov(x, correction=0, aweights=L.tensor([2.0]))
        assert float(c) == 0.0
    x = leafgrad.tensor([0.3])
    leafgrad.cov(x, correction=0, aweights=leafgrad.tensor([2.0]))
    assert x.tolist() == [0.30000001192092896] and x._version == 0


# -- Note [LAPACK layout]: PyTorch's LAPACK results are column-major per matrix; strides,
# is_contiguous, view errors and reshape's node follow (test_fuzz[136]: reshape of a cholesky
# factor is ReshapeAliasBackward0) --------------------------------------------------------------
def _spd(L, *shape):
    g = L.Generator().manual_seed(0)
    a = L.rand(*shape, generator=g, dtype=L.float64)
    return a @ a.mT + 3 * L.eye(shape[-1], dtype=L.float64)


_LAPACK = {
    "inv": lambda L, a, b: L.linalg.inv(a),
    "inv_ex": lambda L, a, b: L.linalg.inv_ex(a),
    "cholesky": lambda L, a, b: L.linalg.cholesky(a),
    "cholesky_upper": lambda L, a, b: L.linalg.cholesky(a, upper=True),
    "torch.cholesky": lambda L, a, b: L.cholesky(a),
    "qr": lambda L, a, b: L.linalg.qr(a),
    "qr_r": lambda L, a, b: L.linalg.qr(a, mode="r")[1],
    "qr_tall": lambda L, a, b: L.linalg.qr(b),
    "svd": lambda L, a, b: L.linalg.svd(a),
    "svd_tall": lambda L, a, b: L.linalg.svd(b, full_matrices=False),
    "torch.svd": lambda L, a, b: L.svd(a),
    "eigh": lambda L, a, b: L.linalg.eigh(a),
    "solve": lambda L, a, b: L.linalg.solve(a, b),
    "solve_left_false": lambda L, a, b: L.linalg.solve(a, b.mT, left=False),
    "lu_factor": lambda L, a, b: L.linalg.lu_factor(a),
    "lu": lambda L, a, b: L.linalg.lu(a),
    "lu_solve": lambda L, a, b: L.linalg.lu_solve(*L.linalg.lu_factor(a), b),
    "lu_solve_right": lambda L, a, b: L.linalg.lu_solve(*L.linalg.lu_factor(a), b.mT, left=False),
    "lu_solve_adjoint": lambda L, a, b: L.linalg.lu_solve(*L.linalg.lu_factor(a), b, adjoint=True),
    "lstsq": lambda L, a, b: L.linalg.lstsq(a, b)[0],
    "solve_triangular": lambda L, a, b: L.linalg.solve_triangular(L.linalg.cholesky(a), b,
                                                                  upper=False),
    "solve_triangular_right": lambda L, a, b: L.linalg.solve_triangular(
        L.linalg.cholesky(a), b.mT, upper=False, left=False),
    "triangular_solve": lambda L, a, b: L.triangular_solve(b, L.linalg.cholesky(a), upper=False),
    "cholesky_solve": lambda L, a, b: L.cholesky_solve(b, L.linalg.cholesky(a)),
    "cholesky_inverse": lambda L, a, b: L.cholesky_inverse(L.linalg.cholesky(a)),
    "inverse": lambda L, a, b: L.inverse(a),
    "matrix_exp": lambda L, a, b: L.linalg.matrix_exp(a),
    "pinv": lambda L, a, b: L.linalg.pinv(a),
}


@pytest.mark.parametrize("batched", [False, True])
@pytest.mark.parametrize("name", sorted(_LAPACK))
def test_lapack_layout(name, batched):
    def run(L):
        a = _spd(L, 2, 3, 3) if batched else _spd(L, 3, 3)
        b = L.arange(12 if batched else 6, dtype=L.float64).reshape(
            (2, 3, 2) if batched else (3, 2)) / 7
        a.requires_grad_()
        out = _LAPACK[name](L, a, b)
        outs = out if isinstance(out, tuple) else (out,)
        seen = []
        for o in outs:
            if o.dim() < 2:
                seen.append((tuple(o.shape), o.stride()))
                continue
            flat = o.reshape(-1)
            try:
                o.view(-1)
                viewed = "ok"
            except RuntimeError as exc:
                viewed = str(exc)
            seen.append((o.stride(), o.is_contiguous(), viewed,
                         type(flat.grad_fn).__name__ if flat.grad_fn is not None else None))
        return seen
    same_on_both(run)


# -- empty tensors: PyTorch gives contiguous strides, except to one made from a NumPy array
# (its zero strides); index_fill's restrided view names them (test_fuzz[12]) ------------------
_EMPTY = {"zeros": lambda L: L.zeros(1, 0, 2), "tensor_np": lambda L: L.tensor(_np_empty()),
          "from_numpy": lambda L: L.from_numpy(_np_empty()),
          "as_tensor": lambda L: L.as_tensor(_np_empty()), "op": lambda L: L.zeros(1, 0, 2) + 1,
          "np_op": lambda L: L.tensor(_np_empty()) + 1, "list": lambda L: L.tensor([]),
          "zeros_0_3": lambda L: L.zeros(0, 3)}


def _np_empty():
    import numpy as np
    return np.zeros((1, 0, 2), np.float32)


@pytest.mark.parametrize("how", sorted(_EMPTY))
def test_empty_strides_and_index_fill(how):
    def run(L):
        x = _EMPTY[how](L)
        try:
            x.index_fill(-2 if x.dim() > 1 else 0, L.tensor([0, 0]), 1.5)
            filled = "ok"
        except RuntimeError as exc:
            filled = str(exc)
        return x.stride(), x.is_contiguous(), filled
    same_on_both(run)


# -- seed 72 (widened table): diff, cov, isin, layer_norm's dtype check -------------------------
_DIFF = {"n0": dict(n=0), "n1": dict(n=1), "n2": dict(n=2), "n5": dict(n=5), "neg": dict(n=-1),
         "n0_prepend": dict(n=0, prepend="ones3"), "prepend_1d": dict(n=1, prepend="ones3"),
         "prepend": dict(n=1, prepend="ones21"), "both": dict(n=1, prepend="ones21",
                                                            append="zeros22"),
         "append_dim0": dict(n=1, dim=0, append="ones13"),
         "append_bad": dict(n=1, dim=0, append="ones12"),
         "n0_bad_dim": dict(n=0, dim=5), "bad_dim": dict(n=1, dim=5),
         "prepend_0d": dict(n=1, prepend="scalar")}


@pytest.mark.parametrize("case", sorted(_DIFF))
def test_diff_like_torch(case):
    # n == 0 is zeros_like(input).copy_(input) (CopyBackwards, version 1) without a dim check
    def run(L):
        made = {"ones3": L.ones(3), "ones21": L.ones(2, 1), "zeros22": L.zeros(2, 2),
                "ones13": L.ones(1, 3), "ones12": L.ones(1, 2), "scalar": L.tensor(1.0)}
        kw = {k: made.get(v, v) if isinstance(v, str) else v for k, v in _DIFF[case].items()}
        x = L.tensor([[1.0, 4, 9], [2, 3, 7]], requires_grad=True)
        r = x.diff(**kw)
        r.sum().backward()
        return r, r.grad_fn.name(), r._version, x.grad
    same_on_both(run)


_COV = {"bool": lambda L, x: L.cov(L.tensor([True, False])),
        "int": lambda L, x: L.cov(L.tensor([[1, 4, 9], [2, 3, 7]])),
        "plain": lambda L, x: L.cov(x), "correction0": lambda L, x: L.cov(x, correction=0),
        "fweights": lambda L, x: L.cov(x, fweights=L.tensor([1, 2, 3])),
        "aweights": lambda L, x: L.cov(x, aweights=L.tensor([0.5, 2, 1])),
        "both": lambda L, x: L.cov(x, fweights=L.tensor([1, 2, 3]),
                                   aweights=L.tensor([0.5, 2, 1]), correction=2),
        "fweights_bool": lambda L, x: L.cov(x, fweights=L.tensor([True, True, False])),
        "aweights_int": lambda L, x: L.cov(x, aweights=L.tensor([1, 1, 2])),
        "negative": lambda L, x: L.cov(x, fweights=L.tensor([-1, 2, 1])),
        "zero_sum": lambda L, x: L.cov(x, aweights=L.tensor([0.0, 0, 0])),
        "corrcoef": lambda L, x: L.corrcoef(x), "corrcoef_bool": lambda L, x: L.corrcoef(
            L.tensor([True, False]))}


@pytest.mark.parametrize("case", sorted(_COV))
def test_cov_like_torch(case):
    def run(L):
        x = L.tensor([[1.0, 4, 9], [2, 3, 7.5]], requires_grad=True)
        r = _COV[case](L, x)
        if r.requires_grad:
            r.sum().backward()
        return r, type(r.grad_fn).__name__, x.grad
    same_on_both(run)


@pytest.mark.parametrize("a", ["bool", "float", "int", "True", "one"])
@pytest.mark.parametrize("b", ["bool", "float", "int", "True", "one"])
def test_isin_bool(a, b):
    def run(L):
        made = {"bool": L.tensor([True, False]), "float": L.tensor([1.0, 0]),
                "int": L.tensor([1, 0]), "True": True, "one": 1}
        if not isinstance(made[a], L.Tensor) and not isinstance(made[b], L.Tensor):
            return None
        return L.isin(made[a], made[b])
    same_on_both(run)


_LN = {"0d_f64_weight": ("f32", (), [1], "f64", None), "f64_input": ("f64", (), [1], "f32", None),
       "shape_and_mixed": ("f32", (2, 3), [2], "f64", None),
       "bias_f64": ("f32", (2, 3), [3], "f32", "f64"), "half_float": ("f16", (2, 3), [3], "f32",
                                                                      None),
       "half_double": ("f16", (2, 3), [3], "f64", None), "half_bad_shape": ("f16", (2, 3), [4],
                                                                            "f32", None),
       "bias_only_f64": ("f32", (2, 3), [3], None, "f64")}


@pytest.mark.parametrize("case", sorted(_LN))
def test_layer_norm_mixed_dtype_first(case):
    def run(L):
        dt = {"f16": L.float16, "f32": L.float32, "f64": L.float64}
        xd, shape, ns, wd, bd = _LN[case]
        n = ns[0] if case != "shape_and_mixed" else 3
        w = L.ones(n, dtype=dt[wd]) if wd else None
        b = L.ones(n, dtype=dt[bd]) if bd else None
        x = L.ones(shape, dtype=dt[xd]) if shape else L.tensor(1.0, dtype=dt[xd])
        return L.nn.functional.layer_norm(x, ns, w, b)
    same_on_both(run)


@pytest.mark.parametrize("a", ["f32", "i64", "bool", "f16", "f64"])
@pytest.mark.parametrize("b", ["f32", "i64", "bool", "f64"])
@pytest.mark.parametrize("name", ["huber_loss", "smooth_l1_loss", "mse_loss", "l1_loss"])
def test_loss_dtype_checks(name, a, b):
    # huber's output is made like its input: the common dtype must cast into it first (a
    # bool input with an integer target: "result type Long can't be cast ..."; seed 72)
    def run(L):
        made = {"f32": L.tensor([1.0, 2]), "i64": L.tensor([1, 2]),
                "bool": L.tensor([True, False]), "f16": L.tensor([1.0, 2]).half(),
                "f64": L.tensor([1.0, 2]).double()}
        return getattr(L.nn.functional, name)(made[a], made[b])
    same_on_both(run)


# -- indexing a 0-d tensor: a bare slice cannot apply, a bare 0 is "invalid index", another
# bare integer is out of bounds of a size-0 dim, anything in a tuple or a tensor is one index
# too many (seed 73) ---------------------------------------------------------------------------
_ZERO_D_KEYS = {"slice": slice(None, 1), "full_slice": slice(None), "tuple_slice": (slice(None),),
                "none_slice": (None, slice(None)), "ellipsis_slice": (Ellipsis, slice(0, 1)),
                "zero": 0, "tuple_zero": (0,), "minus_one": -1, "five": 5, "tuple_minus": (-1,),
                "none_zero": (None, 0), "two": (0, 0), "true": True, "none": (None,),
                "ellipsis": (Ellipsis,)}


@pytest.mark.parametrize("key", sorted(_ZERO_D_KEYS))
@pytest.mark.parametrize("op", ["get", "set"])
def test_zero_d_index_messages(key, op):
    def run(L):
        x = L.tensor(1.0)
        k = _ZERO_D_KEYS[key]
        if op == "get":
            return x[k]
        y = x.clone()
        y[k] = 2.0
        return y
    same_on_both(run)


@pytest.mark.parametrize("key", ["tensor0", "tensor_list"])
def test_zero_d_tensor_index(key):
    def run(L):
        x = L.tensor(1.0)
        return x[L.tensor(0) if key == "tensor0" else L.tensor([0])]
    same_on_both(run)


@pytest.mark.parametrize("dtype", ["int64", "float32"])
@pytest.mark.parametrize("alpha", [-0.5, 0.7, 1.5, -1.5, 2, True, False])
def test_index_add_integer_alpha(dtype, alpha):
    # an integer self converts alpha to its type first (toward zero), seed 73
    def run(L):
        s = L.ones(2, 1, dtype=getattr(L, dtype))
        return s.index_add(0, L.tensor([0]), s[:1] * 0 + 1, alpha=alpha)
    same_on_both(run)


def test_trapezoid_empty_version_and_cov_nan_weights():
    def run(L):
        y = L.zeros(2, 0)
        versions = [L.trapz(y, dim=1)._version, L.trapezoid(y, dim=1)._version,
                    L.trapezoid(y, L.zeros(0), dim=1)._version]
        try:
            L.cov(L.tensor([1.0, 2, 3]), aweights=L.tensor([float("nan"), 1, 1]))
            nan = "ok"
        except RuntimeError as exc:
            nan = str(exc)
        return versions, nan
    same_on_both(run)


# -- a view whose base changed in place, given in a list (cat, stack): its history regrows
# before the op records (stack used the stale one: a silently wrong gradient); a no_grad view
# raises PyTorch's error, before the op's own errors, also where those are dim errors ----------
@pytest.mark.parametrize("op", ["cat", "stack", "cat_first", "hstack", "einsum"])
def test_list_input_regrows_stale_view(op):
    def run(L):
        x = L.tensor([1.0, 2], requires_grad=True)
        y = x * 1
        v = y[0:1]
        y.mul_(3)
        if op == "cat":
            z = L.cat([L.ones(1), v])
        elif op == "cat_first":
            z = L.cat([v, L.ones(1)])
        elif op == "stack":
            z = L.stack([v])
        elif op == "hstack":
            z = L.hstack([v, v])
        else:
            z = L.einsum("i,i->", v, v)
        z.sum().backward()
        return z, type(z.grad_fn).__name__, x.grad
    same_on_both(run)


_STALE_OPS = {"cat": lambda L, v: L.cat([v, v]), "stack": lambda L, v: L.stack([v]),
              "cat_bad": lambda L, v: L.cat([v, L.ones(3, 3)]),
              "softmax_bad_dim": lambda L, v: L.nn.functional.softmax(v, 3),
              "sum_bad_dim": lambda L, v: v.sum(4), "einsum": lambda L, v: L.einsum("i,i->", v, v),
              "exp": lambda L, v: v.exp(), "view_exp": lambda L, v: v.view(2).exp()}


@pytest.mark.parametrize("op", sorted(_STALE_OPS))
def test_stale_no_grad_view_first(op):
    def run(L):
        b = L.tensor([[1.0, 2], [3, 4]], requires_grad=True)
        c = b.clone()
        with L.no_grad():
            v = c[0]
        c.mul_(2)
        return _STALE_OPS[op](L, v)
    same_on_both(run)


# -- nonzero: PyTorch's kernel writes the (n, ndim) result column-major; as_tuple is its
# unbind(1): views sharing one version counter (seed 73: pow_ on one bumped the other) ---------
@pytest.mark.parametrize("shape", ["2x2", "1d", "0d", "column", "empty"])
def test_nonzero_layout_and_tuple_views(shape):
    def run(L):
        x = {"2x2": L.tensor([[1, 0], [1, 1]]), "1d": L.tensor([1, 0, 1]), "0d": L.tensor(3),
             "column": L.tensor([[1], [1], [1]]), "empty": L.zeros(2, 2)}[shape]
        full = x.nonzero()
        parts = x.nonzero(as_tuple=True)
        if parts[-1].numel():
            parts[-1].add_(1)
        return (full, full.stride() if full.numel() else None, full.is_contiguous(),
                parts, [p._version for p in parts], [p._base is None for p in parts])
    same_on_both(run)


@pytest.mark.parametrize("src", ["row", "column", "graph"])
@pytest.mark.parametrize("call", ["F.threshold_", "torch.threshold_"])
def test_threshold_inplace_through_expand(call, src):
    # PyTorch lets threshold_ write through an expanded view (no overlap check; seed 73)
    def run(L):
        base = {"row": L.tensor([-1.0, 0.5, 2.0]), "column": L.tensor([[-1.0], [0.5]]),
                "graph": L.tensor([-1.0, 0.5, 2.0], requires_grad=True)}[src]
        x = (base * 1 if src == "graph" else base).expand(2, 3)
        fn = L.nn.functional.threshold_ if call == "F.threshold_" else L.threshold_
        r = fn(x, 0.6, 9.0)
        if src == "graph":
            r.sum().backward()
        return x, x._version, type(r.grad_fn).__name__, base.grad
    same_on_both(run)


# -- the version error names a copy_'s node as PyTorch does, "torch::autograd::CopyBackwards"
# (seed 75, the session's final fresh campaign) ----------------------------------------------
SEED75_COPY = "Program(leaves=[Leaf(shape=(), dtype='float64', requires_grad=True, seed=186, scale=1.0)], steps=[Step(op='loss_extra', seed=43948, no_grad=False), Step(op='inplace_unary', seed=35529, no_grad=False), Step(op='special', seed=35529, no_grad=False), Step(op='inplace_binary', seed=126, no_grad=False), Step(op='loss_extra', seed=43948, no_grad=False), Step(op='special', seed=35529, no_grad=False)], ending=Ending(kind='grad', seed=271, retain_graph=True, create_graph=False, twice=True, allow_unused=None, give_gradient=False))"


def test_version_error_names_copy_backwards():
    from .programs import Ending, Leaf, Program, Step, difference  # noqa: F401 (eval)
    assert difference(eval(SEED75_COPY)) is None


_INT_DIV = {"remainder_bool_long": lambda L: L.zeros(2, 3, 1, 3, 2, dtype=L.bool).remainder(
                L.ones(1, 3, 4, dtype=L.long)),
            "mod_zero_mismatch": lambda L: L.zeros(2, dtype=L.long) % L.zeros(3, dtype=L.long),
            "mod_zero": lambda L: L.zeros(2, dtype=L.long) % L.zeros(2, dtype=L.long),
            "fmod_mismatch": lambda L: L.zeros(2, dtype=L.long).fmod(L.zeros(3, dtype=L.long)),
            "floordiv_mismatch": lambda L: L.zeros(2, dtype=L.long) // L.zeros(3, dtype=L.long),
            "bool_floordiv_mismatch": lambda L: L.zeros(2, dtype=L.bool) // L.zeros(
                3, dtype=L.bool),
            "trunc_mismatch": lambda L: L.zeros(2, dtype=L.long).div(
                L.zeros(3, dtype=L.long), rounding_mode="trunc")}


@pytest.mark.parametrize("case", sorted(_INT_DIV))
def test_integer_division_checks_shapes_first(case):
    # the operands broadcast before the kernel's zero check (seed 27 on the final code)
    same_on_both(_INT_DIV[case])
