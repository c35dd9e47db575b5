"""Findings of session 9 fixed by helper gf9b: fuzz seed 210 (matrix_exp of empty inputs,
var_mean's Welford mean of non-finite data) and create_graph gradient graphs of pointwise ops."""
from __future__ import annotations

import warnings

import numpy as np
import pytest
from oracle import grad_fn_names, run_both, same_on_both


def _show(x):
    """An inspectable, NaN-comparable view of a tensor."""
    return (str(x.dtype).split(".")[-1], tuple(x.shape), repr(x.detach().reshape(-1).tolist()))


# -- linalg.matrix_exp of an empty matrix or batch: an empty result (float16's path reshaped a
# size-0 array, seed 210) --------------------------------------------------------------------
@pytest.mark.parametrize("dtype", ["float16", "float32", "float64", "int64"])
@pytest.mark.parametrize("shape", [(0, 0), (2, 0, 0), (0, 3, 3)])
def test_matrix_exp_empty(dtype, shape):
    def run(L):
        x = L.zeros(shape, dtype=getattr(L, dtype))
        try:
            if x.is_floating_point():
                x.requires_grad_()
            r = L.linalg.matrix_exp(x)
            out = [_show(r), type(r.grad_fn).__name__, _show(L.matrix_exp(x.detach()))]
            if x.requires_grad:
                out.append(_show(L.autograd.grad(r.sum(), x)[0]))
            return out
        except Exception as exc:   # noqa: BLE001 - the error is the observation
            return (type(exc).__name__, str(exc))
    same_on_both(run)


# -- var_mean / std_mean: PyTorch's mean output is Welford's running mean: NaN once an infinite
# running mean meets a later element, so only a slice whose one non-finite value is an infinity
# in its last place has an infinite mean (seed 210) ------------------------------------------
INF, NAN = float("inf"), float("nan")


@pytest.mark.parametrize("fn", ["var_mean", "std_mean"])
@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
def test_var_mean_non_finite(fn, dtype):
    rows = [[2.25, INF, INF], [2.25, 2.25, INF], [INF, INF, INF], [INF, 1.0], [1.0, -INF],
            [INF], [NAN], [1.0, NAN], [INF, -INF], [1.0, 2.0]]

    def run(L):
        out = []
        f = getattr(L, fn)
        for v in rows:
            x = L.tensor(v, dtype=getattr(L, dtype))
            for r in (f(x), f(x, 0), f(x.reshape(1, -1), 1, keepdim=True),
                      f(x.reshape(-1, 1), 0, correction=0)):
                out.append([_show(t) for t in r])
        e = L.zeros((1, 0, 1), dtype=getattr(L, dtype))        # empty slices (seed 230)
        for r in (f(e, 1, keepdim=True), f(e, -2), f(e), f(e, (0, 2))):
            out.append([_show(t) for t in r])
        x = L.tensor([[1.0, INF], [2.0, 3.0]], dtype=getattr(L, dtype))
        for r in (f(x, 0), f(x.t(), 1), f(x.t()), f(x, (0, 1)), f(x.t().expand(2, 2, 2), (0, 1)),
                  f(x.t().expand(2, 2, 2), (0, 2))):
            out.append([_show(t) for t in r])
        return out
    same_on_both(run)


# -- var / std / var_mean / std_mean of 1- and 2-element inputs, every correction: values,
# gradients and (create_graph) the gradient's graph: var_mean / std_mean add the mean's part to a
# promoted variance part and cast the sum (ToCopyBackward0 over AddBackward0) ----------------
@pytest.mark.parametrize("fn", ["var", "std", "var_mean", "std_mean"])
@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
def test_var_small_inputs(fn, dtype):
    def run(L):
        warnings.simplefilter("ignore")
        out = []
        for v in ([1.5], [1.5, 1.5], [1.0, 2.0]):
            for shape in ((-1,), (1, -1)):
                for dim, keepdim in ((None, False), (0, False), (-1, True)):
                    for correction in (0, 1, 2):
                        x = L.tensor(v, dtype=getattr(L, dtype)).reshape(shape).requires_grad_()
                        kw = {"correction": correction}
                        if dim is not None:
                            kw.update(dim=dim, keepdim=keepdim)
                        r = getattr(L, fn)(x, **kw)
                        outs = r if isinstance(r, tuple) else (r,)
                        seeds = [L.ones_like(o, requires_grad=True) for o in outs]
                        g = L.autograd.grad(outs, x, seeds, create_graph=True)[0]
                        out.append(([_show(o) for o in outs], _show(g), grad_fn_names(g)))
        return out
    same_on_both(run)


# -- first-order gradients under create_graph: PyTorch's formulas multiply or add Python numbers
# as Scalars (MulBackward1 / AddBackward1), write ``1 - t`` as a filled tensor minus t
# (SubBackward0), and keep their own operand order (sinc's grad * (num / den) rounds as
# PyTorch's); the graph three levels deep must match, and the values ---------------------------
def _graph(fn, depth=3):
    if fn is None or depth == 0:
        return None if fn is None else type(fn).__name__
    return (type(fn).__name__, tuple(_graph(f, depth - 1) for f, _ in fn.next_functions))


POINTWISE = {
    "atanh": (lambda L, x, y: L.atanh(x * 0.9), 1),
    "erfc": (lambda L, x, y: L.erfc(x), 1),
    "rsqrt": (lambda L, x, y: L.rsqrt(x.abs() + 0.1), 1),
    "erfinv": (lambda L, x, y: L.erfinv(x * 0.9), 1),
    "sinc": (lambda L, x, y: L.sinc(x * 3), 1),
    "mvlgamma": (lambda L, x, y: L.mvlgamma(x.abs() + 2, 3), 1),
    "logaddexp": (lambda L, x, y: L.logaddexp(x, y), 2),
    "logaddexp2": (lambda L, x, y: L.logaddexp2(x, y), 2),
    "nextafter": (lambda L, x, y: L.nextafter(x, y), 2),
    "lerp": (lambda L, x, y: L.lerp(x, y, (y * 0.3).sigmoid()), 2),
    "xlogy": (lambda L, x, y: L.xlogy(x, y.abs() + 0.1), 2),
    "xlogy_number": (lambda L, x, y: L.xlogy(2.5, y.abs() + 0.1), 2),
    "asinh": (lambda L, x, y: L.asinh(x), 1),
    "acosh": (lambda L, x, y: L.acosh(x.abs() + 1.1), 1),
    "acos": (lambda L, x, y: L.acos(x * 0.3), 1),
    "logit": (lambda L, x, y: L.logit(x.sigmoid()), 1),
    "logit_eps": (lambda L, x, y: L.logit(x.sigmoid(), eps=0.2), 1),
    "mish": (lambda L, x, y: L.nn.functional.mish(x * 30), 1),
    "maximum": (lambda L, x, y: L.maximum(x, y), 2),
    "minimum": (lambda L, x, y: L.minimum(x, y), 2),
    "masked_fill": (lambda L, x, y: x.masked_fill(y > 0, (y * 2).sum()), 2),
}


@pytest.mark.parametrize("name", sorted(POINTWISE))
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_pointwise_create_graph(name, dtype):
    rng = np.random.default_rng(230)
    a, b, s = (rng.standard_normal((4, 5)) for _ in range(3))
    b[0, :2] = a[0, :2]          # nextafter: self == other
    fn, n_inputs = POINTWISE[name]

    def run(L):
        dt = getattr(L, dtype)
        x = L.tensor(a, dtype=dt, requires_grad=True)
        y = L.tensor(b, dtype=dt, requires_grad=True)
        r = fn(L, x, y)
        seed = L.tensor(s, dtype=dt, requires_grad=True)
        grads = L.autograd.grad(r, (x, y), seed, create_graph=True, allow_unused=True)
        return [None if g is None else (str(g.dtype), _graph(g.grad_fn),
                                        np.array(g.detach().tolist())) for g in grads]
    mine, theirs = run_both(run)
    assert [m and m[:2] for m in mine] == [t and t[:2] for t in theirs]
    for m, t in zip(mine, theirs):   # values: up to the forwards' own roundings
        if m is not None:
            np.testing.assert_allclose(m[2], t[2], rtol=1e-5 if dtype == "float32" else 1e-12,
                                       atol=1e-6 if dtype == "float32" else 1e-13)


# -- matrix_exp's gradient under create_graph: PyTorch's backward_analytic_function_of_a_matrix
# copies A^H, A^H and the gradient into narrowed views of a zero matrix (CopySlices) and narrows
# the exponential twice (SliceBackward0 over SliceBackward0) ----------------------------------
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("shape", [(3, 3), (2, 2, 2), (1, 1)])
def test_matrix_exp_create_graph(dtype, shape):
    rng = np.random.default_rng(231)
    a, s = rng.standard_normal(shape) * 0.5, rng.standard_normal(shape)

    def run(L):
        x = L.tensor(a, dtype=getattr(L, dtype), requires_grad=True)
        seed = L.tensor(s, dtype=getattr(L, dtype), requires_grad=True)
        g, = L.autograd.grad(L.linalg.matrix_exp(x), x, seed, create_graph=True)
        gg = L.autograd.grad(g.sum(), (x, seed))
        return [(str(t.dtype), _graph(t.grad_fn, 5) if t.requires_grad else None,
                 np.array(t.detach().tolist())) for t in (g,) + gg]
    mine, theirs = run_both(run)
    assert [m[:2] for m in mine] == [t[:2] for t in theirs]
    for m, t in zip(mine, theirs):
        np.testing.assert_allclose(m[2], t[2], rtol=1e-5 if dtype == "float32" else 1e-12,
                                   atol=1e-6 if dtype == "float32" else 1e-13)


# -- an in-place op computed in a wider dtype than self's (float16 self, float32 other): the
# other's gradient comes back in its own dtype (PyTorch's engine casts, ToCopyBackward0 under
# create_graph), however the shapes broadcast (seed 231) -------------------------------------
@pytest.mark.parametrize("op", ["add_", "sub_", "mul_", "div_"])
@pytest.mark.parametrize("shapes", [((), ()), ((2,), (2,)), ((2,), ()), ((2, 2), (1, 2))])
@pytest.mark.parametrize("self_grad", [False, True])
def test_inplace_wider_other_grad_dtype(op, shapes, self_grad):
    def run(L):
        a = L.full(shapes[1], 0.75, requires_grad=True)
        s = L.full(shapes[0], 1.5, dtype=L.float16, requires_grad=self_grad)
        b = s * 1 if self_grad else s
        getattr(b, op)(a)
        seed = L.full(shapes[0], 0.5, dtype=L.float16, requires_grad=True)
        inputs = (a, s) if self_grad else (a,)
        grads = L.autograd.grad(b, inputs, seed, create_graph=True)
        # (depth 1: mul_'s saved self is a clone in PyTorch, CloneBackward0 below: not done)
        return [(_show(g), _graph(g.grad_fn, 1)) for g in grads]
    same_on_both(run)
