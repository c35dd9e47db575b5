"""Session 10, helper gr10: the structure of create_graph gradients' graphs, against PyTorch.

- one backward node for several inputs (derivatives.yaml's "self, input2: f(...)"): their
  gradients share the nodes the formula made, so a second backward through the other one
  after retain_graph=False fails as in PyTorch;
- the grad_fn of a create_graph gradient and its next functions (PyTorch's names);
- an in-place op's saved old self is a clone (CloneBackward0 under the gradient's graph).
"""
from __future__ import annotations

import numpy as np
import pytest
from oracle import same_on_both


def _names(t, depth=3):
    """``t.grad_fn`` and its next functions down to ``depth``, depth-first."""
    if t is None:
        return None
    out, stack = [], [(t.grad_fn, 0)]
    while stack:
        fn, d = stack.pop()
        out.append(None if fn is None else fn.name())
        if fn is not None and d < depth:
            stack.extend((f, d + 1) for f, _ in reversed(fn.next_functions))
    return out


def _twice(L, make, first, second, depth=1):
    """Both inputs' gradients under create_graph (their graphs), then a backward through
    gradient ``first`` without retaining the graph, then one through ``second``: PyTorch's
    shared nodes make the second fail where the formula built one gradient on the other."""
    out, ins = make(L)
    gs = L.autograd.grad(out, ins, L.ones_like(out) if out.ndim else None, create_graph=True)
    obs = [[g, _names(g, depth)] for g in gs]
    try:
        obs.append(L.autograd.grad(gs[first].sum(), ins, allow_unused=True))
        obs.append(L.autograd.grad(gs[second].sum(), ins, allow_unused=True))
    except RuntimeError as e:
        obs.append(str(e))
    return obs


def _spd(rng, n, batch=()):
    a = rng.standard_normal(batch + (n, n))
    return a @ np.swapaxes(a, -1, -2) + n * np.eye(n)


# -- cholesky_solve: one CholeskySolveBackward0 for both ------------------------------------------
@pytest.mark.parametrize("upper", [False, True])
@pytest.mark.parametrize("batch", [(), (2,)])
@pytest.mark.parametrize("order", [(0, 1), (1, 0)])
def test_cholesky_solve_shares_its_backward(upper, batch, order):
    rng = np.random.default_rng(len(batch) + 2 * upper)
    factor = np.linalg.cholesky(_spd(rng, 3, batch))
    if upper:
        factor = np.swapaxes(factor, -1, -2).copy()
    b = rng.standard_normal(batch + (3, 2))

    def make(L):
        B = L.tensor(b, requires_grad=True)
        F = L.tensor(factor, requires_grad=True)
        return L.cholesky_solve(B, F, upper), (B, F)
    same_on_both(lambda L: _twice(L, make, *order))


@pytest.mark.parametrize("order", [(0, 1), (1, 0)])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_atan2_shares_its_reciprocal(order, dtype):
    rng = np.random.default_rng(1)
    a, b = rng.standard_normal((2, 3)), rng.standard_normal((3,))

    def make(L):
        x = L.tensor(a, dtype=getattr(L, dtype), requires_grad=True)
        y = L.tensor(b, dtype=getattr(L, dtype), requires_grad=True)
        return L.atan2(x, y), (x, y)
    same_on_both(lambda L: _twice(L, make, *order, depth=4))


@pytest.mark.parametrize("order", [(0, 1), (1, 0)])
@pytest.mark.parametrize("mode,padding,align,dims", [
    ("bilinear", "zeros", False, 2), ("bicubic", "border", True, 2),
    ("nearest", "reflection", False, 2), ("bilinear", "zeros", True, 3)])
def test_grid_sample_one_backward_node(order, mode, padding, align, dims):
    rng = np.random.default_rng(2)
    spatial = (3, 4) if dims == 2 else (2, 3, 2)
    inp = rng.standard_normal((2, 2) + spatial)
    grid = rng.uniform(-1.1, 1.1, (2,) + (2,) * dims + (dims,))

    def make(L):
        x = L.tensor(inp, requires_grad=True)
        g = L.tensor(grid, requires_grad=True)
        return L.nn.functional.grid_sample(x, g, mode=mode, padding_mode=padding,
                                           align_corners=align), (x, g)
    same_on_both(lambda L: _twice(L, make, *order, depth=2))


def _wellcond(rng, shape):
    return rng.standard_normal(shape) + 4 * np.eye(shape[-1])


_SOLVES = {
    "linalg.solve": lambda L, A, B: L.linalg.solve(A, B),
    "linalg.solve_vec": lambda L, A, B: L.linalg.solve(A, B[..., 0]),
    "linalg.solve_right": lambda L, A, B: L.linalg.solve(A, B.mT, left=False),
    "solve_triangular": lambda L, A, B: L.linalg.solve_triangular(A.triu(), B, upper=True),
    "solve_triangular_right": lambda L, A, B: L.linalg.solve_triangular(
        A.tril(), B.mT, upper=False, left=False, unitriangular=True),
    "triangular_solve": lambda L, A, B: L.triangular_solve(B, A.tril(), upper=False)[0],
    "triangular_solve_t": lambda L, A, B: L.triangular_solve(B, A, transpose=True)[0],
    "lstsq": lambda L, A, B: L.linalg.lstsq(A, B).solution,
}


@pytest.mark.parametrize("order", [(0, 1), (1, 0)])
@pytest.mark.parametrize("batch", [(), (2,)])
@pytest.mark.parametrize("name", sorted(_SOLVES))
def test_solves_share_their_backward(name, batch, order):
    rng = np.random.default_rng(4)
    a, b = _wellcond(rng, batch + (3, 3)), rng.standard_normal(batch + (3, 2))
    fn = _SOLVES[name]

    def make(L):
        A = L.tensor(a, requires_grad=True)
        B = L.tensor(b, requires_grad=True)
        return fn(L, A, B), (A, B)
    same_on_both(lambda L: _twice(L, make, *order, depth=1))


@pytest.mark.parametrize("pair", [(0, 1), (1, 0), (0, 2), (2, 1)])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_group_norm_shares_its_sums(pair, dtype):
    rng = np.random.default_rng(8)
    xv, wv, bv = rng.standard_normal((2, 4, 3)), rng.standard_normal(4), rng.standard_normal(4)

    def make(L):
        dt = getattr(L, dtype)
        x, w, b = (L.tensor(v, dtype=dt, requires_grad=True) for v in (xv, wv, bv))
        return L.nn.functional.group_norm(x, 2, w, b) * L.tensor(xv, dtype=dt), (x, w, b)
    same_on_both(lambda L: _twice(L, make, *pair, depth=2))


_CONVS = {
    "conv2d": lambda L, x, w, b: L.nn.functional.conv2d(x, w, b, padding=1),
    "conv2d_groups": lambda L, x, w, b: L.nn.functional.conv2d(x, w[:, :1], b, stride=2,
                                                               groups=2),
    "conv_transpose2d": lambda L, x, w, b: L.nn.functional.conv_transpose2d(
        x, w.transpose(0, 1), b[:2], stride=2),
    "conv1d": lambda L, x, w, b: L.nn.functional.conv1d(x[..., 0], w[..., 0], b),
}


@pytest.mark.parametrize("pair", [(0, 1), (1, 0), (2, 0), (1, 2)])
@pytest.mark.parametrize("name", sorted(_CONVS))
def test_convolution_one_backward_node(name, pair):
    rng = np.random.default_rng(10)
    xv, wv, bv = (rng.standard_normal((2, 2, 4, 4)), rng.standard_normal((2, 2, 3, 3)),
                  rng.standard_normal(2))

    def make(L):
        x, w, b = (L.tensor(v, requires_grad=True) for v in (xv, wv, bv))
        y = _CONVS[name](L, x, w, b)
        return (y * L.tensor(np.cos(np.arange(y.numel()))).reshape(y.shape)).sum(), (x, w, b)
    same_on_both(lambda L: _twice(L, make, *pair, depth=2))


@pytest.mark.parametrize("order", [(0, 1), (1, 0)])
@pytest.mark.parametrize("use", ["solution", "residuals", "both"])
@pytest.mark.parametrize("shapes", [((5, 3), (5, 2)), ((2, 5, 3), (2, 5, 2)), ((5, 3), (5,))])
def test_lstsq_residuals_share_the_residual(shapes, use, order):
    rng = np.random.default_rng(11)
    av, bv = rng.standard_normal(shapes[0]), rng.standard_normal(shapes[1])

    def make(L):
        A, B = L.tensor(av, requires_grad=True), L.tensor(bv, requires_grad=True)
        r = L.linalg.lstsq(A, B, driver="gelsd")
        out = (r.solution.sum() if use != "residuals" else 0) + \
            (r.residuals.sum() if use != "solution" else 0)
        return out, (A, B)
    same_on_both(lambda L: _twice(L, make, *order, depth=2))


# -- matmul's graph: PyTorch's composite node for node where a gradient is recorded ----------
_MM_SHAPES = [((3,), (2, 3, 2)), ((2, 3), (3, 2)), ((3,), (3, 2)), ((1, 2, 3), (4, 3, 2)),
              ((4, 2, 3), (3, 2)), ((4, 2, 3), (1, 3, 2)), ((2, 1, 2, 3), (3, 3, 2)),
              ((3, 1, 1, 2, 3), (1, 1, 3, 2)), ((2, 3), (4, 3, 2)), ((4, 2, 3), (3,)),
              ((2, 1, 2, 3), (3,)), ((3,), (2, 1, 3, 2)), ((4, 2, 3), (4, 3, 2))]


@pytest.mark.parametrize("transposed", [False, True])
@pytest.mark.parametrize("needs", [(True, False), (False, True), (True, True)])
@pytest.mark.parametrize("shapes", _MM_SHAPES)
def test_matmul_graph(shapes, needs, transposed):
    rng = np.random.default_rng(5)
    sa, sb = shapes
    av, bv = rng.standard_normal(sa), rng.standard_normal(sb)
    wv = rng.standard_normal(np.broadcast_shapes(sa[:-2], sb[:-2]) + sa[-2:-1] + sb[-1:]
                             if len(sb) > 1 else np.broadcast_shapes(sa[:-2], ()) + sa[-2:-1])

    def program(L):
        a = L.tensor(av, requires_grad=needs[0])
        if transposed and len(sa) > 1:   # a column-major operand
            a = L.tensor(np.swapaxes(av, -1, -2).copy(), requires_grad=needs[0]).mT
        b = L.tensor(bv, requires_grad=needs[1])
        y = a @ b
        ins = [t for t, n in ((a, needs[0]), (b, needs[1])) if n]
        gs = L.autograd.grad((y * L.tensor(wv.reshape(tuple(y.shape)))).sum(), ins,
                             create_graph=True)
        return [y, y._version, y.is_contiguous(), _names(y, 6),
                [[g, _names(g, 3)] for g in gs]]
    same_on_both(program)


# -- linalg formulas written as PyTorch's (the gradient's top nodes and their inputs) ------------
_DECOMPS = {
    "inv": lambda L, A: L.linalg.inv(A),
    "inverse": lambda L, A: A.inverse(),
    "svdvals": lambda L, A: L.linalg.svdvals(A),
    "eigvalsh": lambda L, A: L.linalg.eigvalsh(A + A.mT),
    "pinv": lambda L, A: L.linalg.pinv(A),
}


@pytest.mark.parametrize("name,shape", [
    (name, shape) for name in sorted(_DECOMPS) for shape in [(3, 3), (2, 3, 3), (4, 2), (2, 2, 3)]
    if shape[-1] == shape[-2] or name not in ("inv", "inverse", "eigvalsh")])
def test_decomposition_gradient_graphs(name, shape):
    rng = np.random.default_rng(6)
    a = rng.standard_normal(shape) + 3 * np.eye(*shape[-2:])

    def program(L):
        A = L.tensor(a, requires_grad=True)
        y = _DECOMPS[name](L, A)
        w = L.tensor(np.random.default_rng(7).standard_normal(tuple(y.shape)))
        g, = L.autograd.grad((y * w).sum(), A, create_graph=True)
        return [g, _names(g, 3)]
    same_on_both(program)


# -- softmax / log_softmax with a dtype: the input converted first (ToCopyBackward0) ----------
@pytest.mark.parametrize("target", ["float32", "float64", "float16", "int64"])
@pytest.mark.parametrize("source", ["float16", "float32"])
@pytest.mark.parametrize("fn", ["softmax", "log_softmax", "Tensor.softmax",
                                "nn.functional.log_softmax"])
def test_softmax_dtype_converts_first(fn, source, target):
    rng = np.random.default_rng(9)
    xv, wv = rng.standard_normal((3, 4)), rng.standard_normal((3, 4))

    def program(L):
        f = L
        for part in fn.split("."):
            f = getattr(f, part)
        x = L.tensor(xv, dtype=getattr(L, source), requires_grad=True)
        # (dim 0: float16 log_softmax over the last dim still rounds differently, a kernel
        # leafgrad does not reproduce bit for bit)
        y = f(x, 0 if "log" in fn and target == "float16" else 1, dtype=getattr(L, target))
        g, = L.autograd.grad((y * L.tensor(wv, dtype=y.dtype)).sum(), x, create_graph=True)
        return [y, _names(y, 3), g, _names(g, 4)]
    same_on_both(program)


# -- the LU family: PyTorch's formulas through lu_unpack (LuUnpackBackward0) ----------------
@pytest.mark.parametrize("which", ["L", "U", "LU", "factor"])
@pytest.mark.parametrize("shape", [(3, 3), (4, 3), (3, 4), (2, 4, 3), (2, 3, 4), (2, 3, 3)])
def test_lu_gradient_graphs(shape, which):
    a = np.random.default_rng(12).standard_normal(shape)

    def program(L):
        A = L.tensor(a, requires_grad=True)
        if which == "factor":
            LU, _ = L.linalg.lu_factor(A)
            total = (LU * L.tensor(np.cos(np.arange(LU.numel())).reshape(tuple(LU.shape)))).sum()
        else:
            _, lower, upper = L.linalg.lu(A)
            total = 0
            if "L" in which:
                total = total + (lower * L.tensor(np.cos(np.arange(lower.numel())).reshape(
                    tuple(lower.shape)))).sum()
            if "U" in which:
                total = total + (upper * upper).sum()
        g, = L.autograd.grad(total, A, create_graph=True)
        gg, = L.autograd.grad((g * g).sum(), A)
        return [g, _names(g, 4), gg]
    same_on_both(program)


@pytest.mark.parametrize("left,adjoint", [(True, False), (True, True), (False, False),
                                          (False, True)])
@pytest.mark.parametrize("batch", [(), (2,)])
def test_lu_solve_gradient_graphs(batch, left, adjoint):
    rng = np.random.default_rng(13)
    a = rng.standard_normal(batch + (3, 3)) + 3 * np.eye(3)
    b = rng.standard_normal(batch + ((3, 2) if left else (2, 3)))

    def program(L):
        A, B = L.tensor(a, requires_grad=True), L.tensor(b, requires_grad=True)
        LU, piv = L.linalg.lu_factor(A)
        X = L.linalg.lu_solve(LU, piv, B, left=left, adjoint=adjoint)
        w = L.tensor(np.cos(np.arange(X.numel())).reshape(tuple(X.shape)))
        gs = L.autograd.grad((X * w).sum(), (A, B, LU), create_graph=True)
        out = [X, _names(X)] + [[g, _names(g, 3)] for g in gs]
        out.append(L.autograd.grad((gs[0] * gs[0]).sum(), (A, B), allow_unused=True))
        return out
    same_on_both(program)


@pytest.mark.parametrize("flags", [(True, True), (True, False), (False, True), (False, False)])
@pytest.mark.parametrize("shape", [(3, 3), (4, 3), (2, 3, 4)])
def test_lu_unpack_node(shape, flags):
    a = np.random.default_rng(14).standard_normal(shape)

    def program(L):
        A = L.tensor(a, requires_grad=True)
        LU, piv = L.linalg.lu_factor(A)
        P, lower, upper = L.lu_unpack(LU, piv, *flags)
        out = [P, lower, upper, _names(lower), _names(upper), P.requires_grad]
        if flags[0]:
            g, = L.autograd.grad((lower * lower).sum() + upper.sum(), LU, create_graph=True)
            out += [g, _names(g)]
        return out
    same_on_both(program)


def test_cat_is_contiguous():
    def program(L):
        a = L.tensor(np.arange(6.0).reshape(2, 3)).t()
        b = L.tensor(np.arange(6.0, 12.0).reshape(2, 3)).t()
        return [(L.cat([a, b], 1).is_contiguous(), L.cat([a, b], 1).stride())
                for _ in range(1)] + [L.cat([a.unsqueeze(0), b.unsqueeze(0)], 0).stride()]
    same_on_both(program)


# -- renorm's gradient in the accumulate type, converted back (ToCopyBackward0) ---------------
@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
@pytest.mark.parametrize("p,dim,maxnorm", [(2, 0, 1.0), (1, 1, 1.5), (3, -1, 0.8)])
def test_renorm_gradient_in_accumulate_type(dtype, p, dim, maxnorm):
    xv = np.random.default_rng(15).standard_normal((3, 4)) * 2

    def program(L):
        x = L.tensor(xv, dtype=getattr(L, dtype), requires_grad=True)
        y = x.renorm(p, dim, maxnorm)
        w = L.tensor(np.cos(np.arange(12.0)).reshape(3, 4), dtype=getattr(L, dtype))
        g, = L.autograd.grad((y * w).sum(), x, create_graph=True)
        plain, = L.autograd.grad((x.renorm(p, dim, maxnorm) * w).sum(), x)
        return [y, g, _names(g, 3), plain]
    same_on_both(program)


# -- in-place ops save self.clone() ------------------------------------------------------------
_INPLACE = [("mul_", lambda L, x, w: (w,)), ("div_", lambda L, x, w: (w,)),
            ("sin_", lambda L, x, w: ()), ("pow_", lambda L, x, w: (2,)),
            ("clamp_", lambda L, x, w: (-0.5, 0.5)), ("atan2_", lambda L, x, w: (w,)),
            ("addcmul_", lambda L, x, w: (w, w))]


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
@pytest.mark.parametrize("op,args", _INPLACE)
def test_inplace_saved_self_is_a_clone(op, args, dtype):
    rng = np.random.default_rng(3)
    xv, wv = rng.standard_normal(4), rng.uniform(0.5, 2.0, 4)

    def program(L):
        dt = getattr(L, dtype)
        x = L.tensor(xv, dtype=dt, requires_grad=True)
        w = L.tensor(wv, dtype=dt, requires_grad=True)
        y = x * 1
        getattr(y, op)(*args(L, x, w))
        saved = getattr(y.grad_fn, "_saved_self", None)
        gs = L.autograd.grad(y.sum(), (x, w), create_graph=True, allow_unused=True)
        return [_names(y), None if saved is None else _names(saved),
                [[g, _names(g)] if g is not None else None for g in gs]]
    same_on_both(program)
