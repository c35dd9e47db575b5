"""Session 8 (gf8): the graphs first-order gradients record under ``create_graph=True``
(grad_fn names of the gradients and of every node below them) and the values of the second
derivatives through them, against PyTorch. PyTorch records some backwards as ops of their
own (``NativeLayerNormBackwardBackward0``...) whose derivatives give the second order."""
from __future__ import annotations

import numpy as np
import pytest
from oracle import grad_fn_names, same_on_both


def _data(L, shape, seed):
    rng = np.random.default_rng(seed)
    return L.tensor(rng.standard_normal(shape), dtype=L.float64, requires_grad=True)


def _walk(fn, depth):
    """The names of ``fn`` and its next functions down to ``depth`` levels."""
    if fn is None:
        return None
    if depth == 0:
        return type(fn).__name__
    return (type(fn).__name__, tuple(_walk(f, depth - 1) for f, _ in fn.next_functions))


def _graphs(L, op, shapes, seed=0, depth=None):
    """op's first-order gradients (create_graph) w.r.t. every input: their full graphs, which
    of them share a node, their values, and the second derivatives of a weighted sum of them w.r.t. the
    inputs and the seed."""
    ins = [_data(L, s, seed + i) for i, s in enumerate(shapes)]
    y = op(L, *ins)
    seed_t = _data(L, tuple(y.shape), seed + 10)
    grads = L.autograd.grad(y, ins, seed_t, create_graph=True, allow_unused=True)
    names = [None if g is None else grad_fn_names(g) if depth is None else _walk(g.grad_fn, depth)
             for g in grads]
    shared = [[a is not None and b is not None and a.grad_fn is b.grad_fn for b in grads]
              for a in grads]
    total = sum((g * _data(L, tuple(g.shape), seed + 20 + i)).sum()
                for i, g in enumerate(grads) if g is not None)
    second = L.autograd.grad(total, ins + [seed_t], allow_unused=True)
    # (a zero second derivative may be PyTorch's ZeroTensor, which has no numpy(): densify)
    second = [None if t is None else L.zeros(t.shape, dtype=t.dtype) + t for t in second]
    firsts = [None if g is None else g.detach() for g in grads]
    return names, shared, firsts, second


def _check(op, shapes, seed=0, depth=None):
    same_on_both(lambda L: _graphs(L, op, shapes, seed, depth))


def _F(L):
    return L.nn.functional


# -- layer_norm: one NativeLayerNormBackwardBackward0 for the three gradients ----------------
@pytest.mark.parametrize("shapes,norm,affine", [
    ([(3, 4), (4,), (4,)], (4,), "wb"), ([(2, 3, 4), (3, 4), (3, 4)], (3, 4), "wb"),
    ([(3, 4)], (4,), ""), ([(3, 4), (4,)], (4,), "w"), ([(2, 5), (5,)], (5,), "b"),
    ([(1, 1), (1,), (1,)], (1,), "wb")])
@pytest.mark.parametrize("seed", [0, 1])
def test_layer_norm_double_backward(shapes, norm, affine, seed):
    def op(L, x, *p):
        w = p[0] if "w" in affine else None
        b = p[-1] if "b" in affine else None
        return _F(L).layer_norm(x, norm, w, b, eps=1e-3)
    _check(op, shapes, seed)


# -- batch_norm: NativeBatchNormBackwardBackward0, training and eval --------------------------
@pytest.mark.parametrize("shape", [(4, 3), (4, 3, 5), (2, 3, 2, 2)])
@pytest.mark.parametrize("training", [True, False])
@pytest.mark.parametrize("affine", [True, False])
@pytest.mark.parametrize("stats", [True, False])
def test_batch_norm_double_backward(shape, training, affine, stats):
    if not training and not stats:
        return   # eval mode needs running statistics (an error on both: test_batchnorm.py)

    def op(L, x, *p):
        rm = L.tensor([0.1, -0.2, 0.3], dtype=L.float64) if stats else None
        rv = L.tensor([1.5, 0.7, 2.0], dtype=L.float64) if stats else None
        w, b = p if affine else (None, None)
        return _F(L).batch_norm(x, rm, rv, w, b, training=training, eps=0.01)
    _check(op, [shape] + ([(3,), (3,)] if affine else []))


# -- reductions: PyTorch's sum_backward / logsumexp_backward / var_backward / norm_backward
# unsqueeze each reduced dim (UnsqueezeBackward0), a full reduction's 0-d gradient expands or
# broadcasts as it is; std's masked_fill_ is recorded under create_graph -------------------------
_REDUCTIONS = ["sum(0)", "sum(-1)", "sum((0, -1))", "sum(dim=None)", "sum(dim=[])",
               "sum(0, keepdim=True)", "mean(0)", "mean((0, 1))", "nansum(0)", "logsumexp(0)",
               "logsumexp((0, -1))", "logsumexp(-1, True)", "var(0)", "var(-1)", "var()",
               "var((0, 1))", "var(0, keepdim=True)", "std(0)", "std()", "std(-1, True)",
               "norm(dim=0)", "norm()", "norm(dim=(0, -1))", "norm(p=3, dim=0)",
               "norm(p=1, dim=0)", "norm(p=1)", "norm(p=0.5, dim=-1)",
               "norm(p=float('inf'), dim=0)", "norm(p=-float('inf'))",
               "norm(p=1.5, dim=0, keepdim=True)"]


@pytest.mark.parametrize("shape", [(2, 3), (3,), ()])
@pytest.mark.parametrize("expr", _REDUCTIONS)
def test_reduction_gradient_graph(expr, shape):
    if not shape and ("(0, -1)" in expr or "(0, 1)" in expr):
        shape = (2, 2)
    if not shape and expr[:3] in ("var", "std"):
        shape = (4,)   # (a 0-d variance has no degrees of freedom: NaN, never equal)
    _check(lambda L, x: eval("x." + expr), [shape])


# -- group_norm: PyTorch's infinitely_differentiable_native_group_norm_backward graph ---------
@pytest.mark.parametrize("shape,groups", [((3, 4, 5), 2), ((2, 6, 3, 2), 3), ((2, 4), 4),
                                          ((2, 4), 1), ((1, 2, 1), 2)])
@pytest.mark.parametrize("affine", ["wb", "", "w", "b"])
def test_group_norm_gradient_graph(shape, groups, affine):
    c = shape[1]

    def op(L, x, *p):
        w = p[0] if "w" in affine else None
        b = p[-1] if "b" in affine else None
        return _F(L).group_norm(x, groups, w, b, eps=0.1)
    # (3 levels: below, PyTorch differentiates its forward's saved mean and rstd, leafgrad
    # the same statistics computed again from the input)
    _check(op, [shape] + [(c,)] * len(affine), depth=3)


# -- trace (ViewBackward0 of an index_fill_ of flat zeros), index_add / index_copy's source
# (index_select, expanded; a 0-d source's index squeezed) --------------------------------------
@pytest.mark.parametrize("shape", [(3, 3), (2, 4), (4, 2), (1, 1)])
def test_trace_gradient_graph(shape):
    _check(lambda L, x: (x * x).trace(), [shape])


@pytest.mark.parametrize("name", ["index_add", "index_copy"])
@pytest.mark.parametrize("case", [((2, 3), 0, [1, 0], (2, 3)), ((2, 3), 1, [2, 0], (2, 2)),
                                  ((2, 3), 1, [1], (2, 1)), ((), 0, [0], ()),
                                  ((3,), 0, [2, 0], (2,))])
def test_index_add_copy_gradient_graph(name, case):
    shape, dim, index, source = case

    def op(L, x, s):
        return getattr(x * 2, name)(dim, L.tensor(index), s * s)
    _check(op, [shape, source])
    if name == "index_add":
        _check(lambda L, x, s: (x * 2).index_add(dim, L.tensor(index), s * s, alpha=3),
               [shape, source])


# -- prelu: one PreluKernelBackwardBackward0 for both gradients (zeros, not None, for an unused
# one's second derivatives, as PyTorch's) -------------------------------------------------------
@pytest.mark.parametrize("xs,ws", [((2, 3, 4), (3,)), ((5,), (1,)), ((2, 3), ()),
                                   ((2, 4, 2, 2), (1,))])
@pytest.mark.parametrize("use", ["s", "w", "sw"])
def test_prelu_double_backward(xs, ws, use):
    def run(L):
        x = _data(L, xs, 0)
        w = _data(L, ws, 1)
        y = _F(L).prelu(x * 1, w * 1)
        g = _data(L, xs, 2)
        gs = L.autograd.grad(y, [x, w], g, create_graph=True)
        names = [grad_fn_names(t) for t in gs]
        total = sum((t * _data(L, tuple(t.shape), 3 + i)).sum()
                    for i, (t, u) in enumerate(zip(gs, "sw")) if u in use)
        second = L.autograd.grad(total, [x, w, g], allow_unused=True)
        second = [None if t is None else L.zeros(t.shape, dtype=t.dtype) + t for t in second]
        return names, [t.detach() for t in gs], second
    same_on_both(run)


# -- matmul's composite cases: the gradients' nodes of the mm / mv / bmm PyTorch runs (t() not
# mT on matrices, mm_mat1/mat2_backward's layouts, the squeezed 3-D operand, the views of the
# folded outer products) ----------------------------------------------------------------------
_A = [(3,), (2, 3), (1, 2, 3), (4, 2, 3), (2, 1, 2, 3), (1, 1)]
_B = [(3,), (3, 2), (1, 3, 2), (4, 3, 2), (2, 1, 3, 2), (3, 4, 3, 2), (1, 3)]


@pytest.mark.parametrize("a", _A)
@pytest.mark.parametrize("b", _B)
@pytest.mark.parametrize("needs", ["ab", "a", "b"])
def test_matmul_gradient_graph(a, b, needs):
    def run(L):
        x = _data(L, a, 0).requires_grad_("a" in needs)
        y = _data(L, b, 1).requires_grad_("b" in needs)
        z = x @ y
        g = _data(L, tuple(z.shape), 2)
        ins = [t for t in (x, y) if t.requires_grad]
        gs = L.autograd.grad(z, ins, g, create_graph=True)
        second = L.autograd.grad(sum((t * t).sum() for t in gs), ins + [g], allow_unused=True)
        return [grad_fn_names(t) for t in gs], [t.detach() for t in gs], second
    same_on_both(run)


@pytest.mark.parametrize("shapes", [((1, 1), (1, 3)), ((1, 1), (1, 1)), ((3, 1), (1, 2)),
                                    ((1, 3), (3, 1))])
@pytest.mark.parametrize("transposed", [False, True])
def test_mm_unit_dims_gradient_graph(shapes, transposed):
    # a (1, 1) or (1, k)^T operand is column-major to PyTorch's mm_mat1/mat2_backward
    def op(L, x, y):
        return (x.t().t() if transposed else x).mm(y)
    _check(op, list(shapes))


# -- prod: PyTorch's prod_backward (the gradient unsqueezed, no expand) and, with zeros, its
# prod_safe_zeros_backward (exclusive cumprods from both ends) -----------------------------------
@pytest.mark.parametrize("data", [[[1.0, 2, 3], [4, 5, 6]], [[1.0, 0, 3], [4, 5, 6]],
                                  [[0.0, 0, 3], [4, 5, 6]], [[0.0, 0], [0, 1]], [2.0], [0.0],
                                  3.0])
@pytest.mark.parametrize("expr", ["prod(0)", "prod(-1)", "prod(0, keepdim=True)", "prod()",
                                  "t().prod()"])
def test_prod_gradient_graph(data, expr):
    def run(L):
        x = L.tensor(data, dtype=L.float64, requires_grad=True)
        try:
            y = eval("x." + expr)
        except Exception as exc:  # noqa: BLE001 (t() of a 0-d/1-d: compared as errors)
            return type(exc).__name__
        g = L.tensor(np.linspace(0.5, 1.5, y.numel()).reshape(tuple(y.shape)),
                     dtype=L.float64, requires_grad=True)
        (gx,) = L.autograd.grad(y, [x], g, create_graph=True)
        second = L.autograd.grad((gx * gx).sum(), [x, g], allow_unused=True)
        return grad_fn_names(gx), gx.detach(), second
    same_on_both(run)


# -- masked_scatter's source gradient is one recorded masked_scatter_backward
# (MaskedScatterBackwardBackward0), self's a masked_fill; narrow_copy's is slice_backward -------
@pytest.mark.parametrize("mask", [[[True, False, True], [False, True, True]], [True, False, True],
                                  [[False], [True]]])
@pytest.mark.parametrize("n_source", [4, 7])
def test_masked_scatter_gradient_graph(mask, n_source):
    def op(L, x, s):
        return x.masked_scatter(L.tensor(mask), s)
    _check(op, [(2, 3), (n_source,)])


@pytest.mark.parametrize("args", [(1, 1, 2), (0, -1, 1), (-1, 0, 0), (0, 0, 2), (1, -2, 2),
                                  (1, -3, 2), (1, -2, 1)])
def test_narrow_copy_gradient_graph(args):
    # (PyTorch slices its gradient back at the start as given: a negative start whose slice
    # crosses the end writes nothing, or fails when the gradient does not fit)
    _check(lambda L, x: x.narrow_copy(*args), [(2, 3)])


# -- renorm: PyTorch's renorm_backward (through vector_norm's backward; p=inf too) -------------
@pytest.mark.parametrize("args", [(2, 0, 1.0), (1, 1, 1.5), (float("inf"), 0, 1.0), (3, 1, 0.5),
                                  (2, -1, 100.0)])
@pytest.mark.parametrize("shape", [(2, 3), (2, 3, 2)])
def test_renorm_gradient_graph(args, shape):
    _check(lambda L, x: x.renorm(*args), [shape])


# -- block_diag: PyTorch's block_diag_backward (two slices, squeezed at -1 for 1-d / 0-d blocks;
# an empty vector gets zeros without taking its row, so the blocks after it read from there) --
@pytest.mark.parametrize("shapes", [[(2, 3), (3,), ()], [(0, 2), (2, 1)], [(2, 0), (1, 1)],
                                    [(0,), (2,)], [(2,), (0,), (1,)], [(0, 0), (1,)],
                                    [(1, 0), (0, 3), (2, 2)], [(1,), (1, 1)]])
def test_block_diag_gradient_graph(shapes):
    _check(lambda L, *ts: L.block_diag(*ts), shapes)
