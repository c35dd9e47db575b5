"""Session 9, helper gf9: scatter_reduce's gradients with zeros (fuzz seeds 105, 106), and the
graphs of create_graph gradients (their top nodes, as PyTorch's)."""
from __future__ import annotations

import numpy as np
import pytest
from oracle import same_on_both


def _names(t, depth=3):
    """``t.grad_fn`` and its next functions down to ``depth``, depth-first."""
    out, stack = [], [(t.grad_fn, 0)]
    while stack:
        fn, d = stack.pop()
        out.append(None if fn is None else fn.name())
        if fn is not None and d < depth:
            stack.extend((f, d + 1) for f, _ in reversed(fn.next_functions))
    return out


def _first_and_second(L, outputs, inputs, seeds, weights):
    """First derivatives under create_graph (values, graphs), then the second derivatives of
    their weighted sums, one per first derivative (a refusal is an observation too)."""
    seeds = [L.tensor(s, requires_grad=True) for s in seeds]
    firsts = L.autograd.grad(outputs, inputs, seeds, create_graph=True, allow_unused=True)
    obs = [[g, _names(g)] if g is not None else None for g in firsts]
    for g, w in zip(firsts, weights):
        if g is None or not g.requires_grad:
            continue
        try:
            # (retain_graph: PyTorch's one formula for several inputs shares nodes between
            # their gradients' graphs, leafgrad's per-input formulas do not)
            obs.append(L.autograd.grad((g * L.tensor(w)).sum(), inputs, allow_unused=True,
                                       retain_graph=True))
        except RuntimeError as e:
            obs.append(str(e))
    return obs


# -- scatter_reduce(prod) with zeros in self or src: PyTorch's formula (self's zeros made ones
# in a recomputed product; a lone src zero in its place gets the product of the others; two
# zeros in a place give zeros, and a second derivative of src that refuses: DelayedError) ----
_VALUES = [-1.5, 0.0, 0.0, 2.0, 0.5, 3.0]


def _scatter_cases(n, seed):
    rng = np.random.default_rng(seed)
    for _ in range(n):
        nd = int(rng.integers(1, 3))
        shape = tuple(int(s) for s in rng.integers(1, 4, nd))
        dim = int(rng.integers(-nd, nd))
        ishape = [min(int(s), shape[i]) for i, s in enumerate(rng.integers(1, 4, nd))]
        ishape[dim] = int(rng.integers(1, 6))
        sshape = tuple(s + int(rng.random() < 0.15) for s in ishape)
        yield {"self": rng.choice(_VALUES, shape), "src": rng.choice(_VALUES, sshape),
               "index": rng.integers(0, shape[dim], ishape), "dim": dim,
               "reduce": str(rng.choice(["prod", "prod", "prod", "sum", "mean", "amax", "amin"])),
               "include_self": bool(rng.integers(0, 2)),
               "seeds": [rng.standard_normal(shape)],
               "weights": [rng.standard_normal(shape), rng.standard_normal(sshape)]}


@pytest.mark.parametrize("case", list(_scatter_cases(150, 9)))
def test_scatter_reduce_gradients_with_zeros(case):
    def run(L):
        s = L.tensor(case["self"], requires_grad=True)
        src = L.tensor(case["src"], requires_grad=True)
        r = s.scatter_reduce(case["dim"], L.tensor(case["index"]), src, case["reduce"],
                             include_self=case["include_self"])
        return r, _first_and_second(L, [r], [s, src], case["seeds"], case["weights"])
    same_on_both(run)


@pytest.mark.parametrize("self_value", [0.0, 2.0])
@pytest.mark.parametrize("src", [0.0, 3.0, [0.0], [3.0], [0.0, 0.0]])
@pytest.mark.parametrize("reduce", ["prod", "sum", "mean", "amax"])
@pytest.mark.parametrize("include_self", [True, False])
def test_scatter_reduce_zero_dim(self_value, src, reduce, include_self):
    # a 0-d src reached by a one-element index: its gradient is summed to its shape; a src
    # larger than the index: sum and mean give a gradient of the index's shape, refused
    def run(L):
        s = L.tensor(self_value, dtype=L.float64, requires_grad=True)
        t = L.tensor(src, dtype=L.float64, requires_grad=True)
        index = L.zeros((1,) if isinstance(src, list) and len(src) == 2 else (), dtype=L.long)
        r = s.scatter_reduce(0, index, t, reduce, include_self=include_self)
        return r, _first_and_second(L, [r], [s, t], [1.5], [2.0, 3.0])
    same_on_both(run)


def test_scatter_reduce_prod_without_create_graph():
    # no graph asked for: two zeros in a place give zeros, and nothing refuses
    def run(L):
        s = L.tensor([1.0, 2.0, 3.0], requires_grad=True)
        src = L.tensor([0.0, 0.0, 2.0, 0.0], requires_grad=True)
        r = s.scatter_reduce(0, L.tensor([0, 0, 1, 2]), src, "prod", include_self=False)
        r.backward(L.tensor([1.0, 2.0, 3.0]))
        return r, s.grad, src.grad
    same_on_both(run)


# -- aminmax: one output used, its part alone is the gradient (MulBackward0 on top); both used,
# their sum (AddBackward0). Each part is PyTorch's (grad / count) * (self == extreme), with
# grad reshaped to keep the reduced dims; a 0-d self reduced over dim 0 is summed back
# (fuzz seeds 27, 80) -------------------------------------------------------------------------
@pytest.mark.parametrize("shape", [(2, 3), (3,), ()])
@pytest.mark.parametrize("which", [0, 1, None])
@pytest.mark.parametrize("kwargs", [{}, {"dim": 0}, {"dim": -1, "keepdim": True},
                                    {"keepdim": True}])
def test_aminmax_create_graph(shape, which, kwargs):
    def run(L):
        x = L.tensor([[1.0, 3.0, 2.0], [4.0, 0.0, 4.0]], dtype=L.float64)
        x = (x if shape == (2, 3) else x[1] if shape == (3,) else x[0, 1]).clone()
        x.requires_grad_()
        r = L.aminmax(x, **kwargs)
        outs = list(r) if which is None else [r[which]]
        seeds = [np.full(tuple(o.shape), 2.0 + k) for k, o in enumerate(outs)]
        return _first_and_second(L, outs, [x], seeds, [np.ones(shape)])
    same_on_both(run)


# -- create_graph graphs of linear algebra gradients: PyTorch's backward formulas op for op
# (cholesky_backward: tril(L^T gL) symmetrized and two triangular solves; cholesky_inverse's
# and cholesky_solve's -(C + C^T) L; solve_triangular's triangle of -gB X^T) ------------------
def _spd(rng, shape):
    a = rng.standard_normal(shape)
    return a @ np.swapaxes(a, -1, -2) + 3 * np.eye(shape[-1])


def _linalg_cases():
    rng = np.random.default_rng(9)
    spd, spd_b = _spd(rng, (3, 3)), _spd(rng, (2, 3, 3))
    low = np.linalg.cholesky(spd)
    tri = np.tril(rng.standard_normal((3, 3))) + 3 * np.eye(3)
    b = rng.standard_normal((3, 2))
    return [
        ("linalg.cholesky", lambda L, A: L.linalg.cholesky(A), [spd]),
        ("linalg.cholesky upper", lambda L, A: L.linalg.cholesky(A, upper=True), [spd_b]),
        ("linalg.cholesky_ex", lambda L, A: L.linalg.cholesky_ex(A)[0], [spd]),
        ("cholesky", lambda L, A: L.cholesky(A, True), [spd]),
        ("cholesky_inverse", lambda L, A: L.cholesky_inverse(A), [low]),
        ("cholesky_inverse upper", lambda L, A: L.cholesky_inverse(A, True), [low.T.copy()]),
        ("cholesky_solve", lambda L, B, A: L.cholesky_solve(B, A), [b, low]),
        ("cholesky_solve upper", lambda L, B, A: L.cholesky_solve(B, A, True), [b, low.T.copy()]),
        ("solve_triangular", lambda L, A, B: L.linalg.solve_triangular(A, B, upper=False),
         [tri, b]),
        ("pinv square", lambda L, A: L.linalg.pinv(A), [tri]),
        ("pinv wide", lambda L, A: L.linalg.pinv(A), [b.T.copy()]),
        ("pinv tall", lambda L, A: L.linalg.pinv(A), [b]),
        ("pinverse", lambda L, A: L.pinverse(A), [b]),
        ("triangular_solve", lambda L, B, A: L.triangular_solve(B, A)[0], [b, tri.T.copy()]),
        ("triangular_solve lower unit transpose", lambda L, B, A: L.triangular_solve(
            B, A, False, True, True)[0], [b, tri]),
        ("solve_triangular right unit", lambda L, A, B: L.linalg.solve_triangular(
            A, B, upper=True, left=False, unitriangular=True), [tri.T.copy(), b.T.copy()]),
    ]


@pytest.mark.parametrize("case", _linalg_cases(), ids=lambda c: c[0])
def test_create_graph_linalg(case):
    _, fn, arrays = case

    def run(L):
        rng = np.random.default_rng(1)
        ins = [L.tensor(a, requires_grad=True) for a in arrays]
        out = fn(L, *ins)
        seed = rng.standard_normal(tuple(out.shape))
        return out, _first_and_second(L, [out], ins, [seed],
                                      [np.cos(np.asarray(a)) for a in arrays])
    same_on_both(run)


# -- lstsq: the solution's part through pinv_backward only if the solution's gradient came, the
# residuals' part (2 (gL r) X^T, -2 gL r) only if theirs is not empty --------------------------
@pytest.mark.parametrize("driver", [None, "gelsd", "gels"])
@pytest.mark.parametrize("which", [(0,), (1,), (0, 1)])
@pytest.mark.parametrize("vector", [False, True])
def test_create_graph_lstsq(driver, which, vector):
    rng = np.random.default_rng(3)
    A, B = rng.standard_normal((4, 3)), rng.standard_normal((4,) if vector else (4, 2))

    def run(L):
        ins = [L.tensor(A, requires_grad=True), L.tensor(B, requires_grad=True)]
        sol, res = L.linalg.lstsq(*ins, driver=driver)[:2]
        outs = [o for i, o in enumerate((sol, res)) if i in which and o.numel()]
        if not outs:
            return res.shape
        seeds = [np.linspace(-1, 1, o.numel()).reshape(tuple(o.shape)) for o in outs]
        return sol, _first_and_second(L, outs, ins, seeds, [np.cos(A), np.sin(B)])
    same_on_both(run)


# -- qr: PyTorch's linalg_qr_backward (an unused output's gradient left out; the diagonal
# halved in place by mul_(Scalar): CopySlices over the symmetrized triangle) -----------------
@pytest.mark.parametrize("shape", [(3, 3), (4, 2), (2, 4), (2, 3, 2)])
@pytest.mark.parametrize("mode", ["reduced", "complete"])
@pytest.mark.parametrize("which", [(0,), (1,), (0, 1)])
def test_create_graph_qr(shape, mode, which):
    A = np.random.default_rng(4).standard_normal(shape)

    def run(L):
        x = L.tensor(A, requires_grad=True)
        outs = [o for i, o in enumerate(L.linalg.qr(x, mode=mode)) if i in which]
        seeds = [np.cos(np.arange(o.numel())).reshape(tuple(o.shape)) for o in outs]
        firsts = _first_and_second(L, outs, [x], seeds, [np.sin(A)])
        return [[f[0], f[1][:4]] if isinstance(f, list) else f for f in firsts]   # (batched matmul's
    same_on_both(run)                                    # inner graph differs: top nodes only)


# -- 0-d dist and masked_select: the engine sums a gradient to the input's shape only where
# the shapes differ (no SumBackward0 on top of a 0-d gradient) --------------------------------
@pytest.mark.parametrize("p", [2, 1, 3, float("inf")])
@pytest.mark.parametrize("other_shape", [(), (3,)])
def test_create_graph_dist_zero_dim(p, other_shape):
    def run(L):
        x = L.tensor(1.5, dtype=L.float64, requires_grad=True)
        y = L.tensor(np.linspace(-1, 2, 3).reshape(other_shape) if other_shape else -0.5,
                     dtype=L.float64, requires_grad=True)
        return _first_and_second(L, [L.dist(x, y, p)], [x, y], [2.0], [1.0, np.ones(other_shape)])
    same_on_both(run)


@pytest.mark.parametrize("mask_shape", [(), (3,)])
def test_create_graph_masked_select_zero_dim(mask_shape):
    def run(L):
        x = L.tensor(1.5, dtype=L.float64, requires_grad=True)
        mask = L.tensor(np.array([True, False, True]).reshape(mask_shape) if mask_shape else True)
        out = x.masked_select(mask)
        return _first_and_second(L, [out], [x], [np.arange(1.0, 1.0 + out.numel())], [1.0])
    same_on_both(run)


# -- cumprod under create_graph with zeros in the input: PyTorch's O(n^2) formula (each slice
# k of a zero tensor copied from the products with x_k left out: CopySlices on top) -----------
@pytest.mark.parametrize("x,dim", [([1.0, 0.0, 2.0, 3.0], 0), ([0.0, 2.0, 0.0, 3.0], 0),
                                   ([[1.0, 0.0, 2.0], [2.0, 3.0, 0.0]], 1),
                                   ([[1.0, 0.0], [2.0, 3.0], [0.0, 0.0]], 0),
                                   ([1.5, 2.0, 3.0], 0), ([2.0, 0.0], -1)])
def test_create_graph_cumprod_zeros(x, dim):
    def run(L):
        t = L.tensor(x, dtype=L.float64, requires_grad=True)
        y = t.cumprod(dim)
        seed = np.cos(np.arange(y.numel())).reshape(tuple(y.shape))
        return _first_and_second(L, [y], [t], [seed], [np.sin(np.arange(y.numel())).reshape(
            tuple(y.shape))])
    same_on_both(run)


# -- affine_grid: PyTorch's base^T bmm grad (viewed (N, points, n)), transposed ---------------
@pytest.mark.parametrize("size,align", [((2, 3, 4, 5), False), ((1, 1, 3, 2), True),
                                        ((2, 1, 3, 2, 4), False), ((1, 1, 2, 3, 2), True)])
def test_create_graph_affine_grid(size, align):
    n = len(size) - 2
    theta = np.random.default_rng(6).standard_normal((size[0], n, n + 1))

    def run(L):
        t = L.tensor(theta, requires_grad=True)
        out = L.nn.functional.affine_grid(t, size, align_corners=align)
        seed = np.cos(np.arange(out.numel())).reshape(tuple(out.shape))
        return _first_and_second(L, [out], [t], [seed], [np.ones(theta.shape)])
    same_on_both(run)


# -- grid_sample: both first-order gradients come from one grid_sampler_{2,3}d_backward op
# (GridSampler2DBackwardBackward0 / 3D, edges to the incoming gradient, input and grid); its
# derivatives give PyTorch's second derivatives, None where PyTorch's are undefined (nearest)
def _grid_cases():
    rng = np.random.default_rng(7)
    x2, g2 = rng.standard_normal((1, 2, 3, 3)), rng.uniform(-1.2, 1.2, (1, 2, 2, 2))
    x3, g3 = rng.standard_normal((1, 1, 2, 3, 2)), rng.uniform(-1.2, 1.2, (1, 2, 1, 2, 3))
    for x, g, modes in [(x2, g2, ("bilinear", "nearest", "bicubic")),
                        (x3, g3, ("bilinear", "nearest"))]:
        for mode in modes:
            for pad, align in [("zeros", False), ("reflection", True), ("border", False)]:
                for which in [(0,), (1,), (0, 1)]:
                    for req in [(True, True), (False, True), (True, False)]:
                        yield x, g, mode, pad, align, which, req


@pytest.mark.parametrize("case", list(_grid_cases()))
def test_create_graph_grid_sample(case):
    x0, g0, mode, pad, align, which, req = case

    def run(L):
        x = L.tensor(x0, requires_grad=req[0])
        g = L.tensor(g0, requires_grad=req[1])
        y = L.nn.functional.grid_sample(x, g, mode=mode, padding_mode=pad, align_corners=align)
        ins = [t for t in (x, g) if t.requires_grad]
        seed = L.tensor(np.cos(np.arange(y.numel())).reshape(tuple(y.shape)), requires_grad=True)
        firsts = L.autograd.grad(y, ins, seed, create_graph=True)
        used = [f for i, f in enumerate(firsts) if i in which]
        if not used:
            return [_names(f, 1) for f in firsts]
        total = sum((f * L.tensor(np.sin(np.arange(f.numel())).reshape(tuple(f.shape)))).sum()
                    for f in used)
        return firsts, [_names(f, 1) for f in firsts], L.autograd.grad(
            total, (seed, *ins), allow_unused=True)
    same_on_both(run)
