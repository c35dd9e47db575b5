"""Loss records (ops/nll_loss.py, ops/losses.py, ops/xlogy.py) against PyTorch 2.13: graph
node names to second order, weighted and ignored targets, every rank of nll_loss, float16/32/64
at extreme logits, and errors. (Unweighted calls of each record are also in
tests/test_ops_registry.py, through the records' samples.)"""
from __future__ import annotations

import warnings

import numpy as np
import pytest
import torch
import torch.nn.functional as TF
from oracle import assert_same_error, assert_same_tensor

import leafgrad
import leafgrad.nn.functional as LF

DTYPES = ["float16", "float32", "float64"]
REDUCTIONS = ["mean", "sum", "none"]
TOL = {"float16": {"atol": 2e-3, "rtol": 2e-3}, "float32": {"atol": 1e-5, "rtol": 1e-5},
       "float64": {"atol": 1e-10, "rtol": 1e-9}}


def _name(fn):
    if fn is None:
        return None
    name = type(fn).__name__ if not hasattr(fn, "name") else fn.name()
    return name.replace("torch::autograd::", "")


def tree(fn, depth=3):
    """A node's name and its next functions' trees, ``depth`` levels down."""
    if fn is None:
        return None
    if depth == 0:
        return _name(fn)
    return (_name(fn), [tree(nxt, depth - 1) for nxt, _ in fn.next_functions])


def both(fn, arrays, grad=(0,)):
    """``fn(lib, *tensors)`` on each library; arrays in ``grad`` require grad there."""
    out = []
    for lib in (leafgrad, torch):
        tensors = [lib.tensor(a.copy(), requires_grad=i in grad) if isinstance(a, np.ndarray)
                   else a for i, a in enumerate(arrays)]
        out.append((fn(lib, *tensors), tensors))
    return out


def check(fn, arrays, grad=(0,), tol=None, second=True, seed=0, depth=3, grad_names=True):
    """Values, dtype, node trees, first and second derivatives of ``fn`` vs torch."""
    (mine, m_in), (theirs, t_in) = both(fn, arrays, grad)
    tol = tol or {"atol": 1e-6, "rtol": 1e-5}
    assert_same_tensor(mine, theirs, what="value", **tol)
    assert tree(mine.grad_fn, depth) == tree(theirs.grad_fn, depth)
    if not theirs.requires_grad:
        return
    rng = np.random.default_rng(seed)
    cot = rng.standard_normal(tuple(theirs.shape))
    m_x = [m_in[i] for i in grad]
    t_x = [t_in[i] for i in grad]
    m_g = leafgrad.autograd.grad(mine, m_x, leafgrad.tensor(cot, dtype=mine.dtype),
                                 create_graph=second)
    t_g = torch.autograd.grad(theirs, t_x, torch.tensor(cot, dtype=theirs.dtype),
                              create_graph=second)
    for a, b in zip(m_g, t_g):
        assert_same_tensor(a, b, what="grad", **tol)
    if not second:
        return
    for a, b in zip(m_g, t_g):
        # the gradients' own nodes: their names (deeper, the order in which the engine
        # accumulates fan-in may differ from PyTorch's)
        assert not grad_names or _name(a.grad_fn) == _name(b.grad_fn)
    vs = [rng.standard_normal(tuple(b.shape)) for b in t_g]
    m_tot = sum((a * leafgrad.tensor(v, dtype=a.dtype)).sum() for a, v in zip(m_g, vs))
    t_tot = sum((b * torch.tensor(v, dtype=b.dtype)).sum() for b, v in zip(t_g, vs))
    assert m_tot.requires_grad == t_tot.requires_grad
    if not t_tot.requires_grad:    # the gradient is constant in the inputs
        return
    m_gg = leafgrad.autograd.grad(m_tot, m_x, allow_unused=True)
    t_gg = torch.autograd.grad(t_tot, t_x, allow_unused=True)
    for a, b in zip(m_gg, t_gg):
        if b is None or a is None:
            other = a if b is None else b
            assert other is None or not np.any(other.detach().numpy()), "grad-grad"
            continue
        assert_same_tensor(a, b, what="grad-grad", **tol)


def log_probs(shape, axis=1, seed=0, dtype="float64"):
    x = np.random.default_rng(seed).standard_normal(shape)
    return (x - np.log(np.exp(x).sum(axis=axis, keepdims=True))).astype(dtype)


def targets(shape, n_classes, seed=1, ignore=()):
    t = np.random.default_rng(seed).integers(0, n_classes, shape)
    for pos in ignore:
        t[pos] = -100
    return t


# -- cross entropy: two records, one NumPy pass each -------------------------------------------
def test_cross_entropy_is_two_records_to_second_order():
    x = np.random.default_rng(0).standard_normal((6, 5))
    check(lambda lib, x, t: lib.nn.functional.cross_entropy(x, t), [x, targets(6, 5)])
    mine = LF.cross_entropy(leafgrad.tensor(x, requires_grad=True),
                            leafgrad.tensor(targets(6, 5)))
    assert tree(mine.grad_fn) == ("NllLossBackward0",
                                  [("LogSoftmaxBackward0", [("AccumulateGrad", [])])])


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("kwargs", [{}, {"label_smoothing": 0.2},
                                    {"ignore_index": 2}, {"label_smoothing": 0.1,
                                                          "ignore_index": 0}])
@pytest.mark.parametrize("weighted", [False, True])
def test_cross_entropy_variants(reduction, kwargs, weighted):
    x = np.random.default_rng(3).standard_normal((7, 4))
    t = targets(7, 4)
    t[1] = kwargs.get("ignore_index", -100)
    w = np.random.default_rng(4).uniform(0.5, 2.0, 4)

    def fn(lib, x, t, w):
        return lib.nn.functional.cross_entropy(x, t, weight=w if weighted else None,
                                               reduction=reduction, **kwargs)
    # leafgrad's MaskedFillBackward0 keeps an edge for the mask (PyTorch's has none): with
    # label smoothing and reduction='none' that node is at depth 3
    check(fn, [x, t, w], depth=2 if kwargs.get("label_smoothing") else 3)


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("smoothing", [0.0, 0.3])
def test_cross_entropy_probability_targets(reduction, smoothing):
    rng = np.random.default_rng(5)
    x, p = rng.standard_normal((3, 4, 2)), rng.dirichlet(np.ones(4), (3, 2)).transpose(0, 2, 1)
    w = rng.uniform(0.5, 2.0, 4)
    for weight in (None, w):
        def fn(lib, x, p, w, weight=weight):
            return lib.nn.functional.cross_entropy(
                x, p, weight=None if weight is None else w, reduction=reduction,
                label_smoothing=smoothing)
        check(fn, [x, np.ascontiguousarray(p), w], grad=(0, 1))


@pytest.mark.parametrize("shape", [(4, 3), (2, 3, 5), (2, 3, 2, 2), (2, 3, 2, 1, 2), (3,)])
@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_cross_entropy_ranks(shape, reduction):
    x = np.random.default_rng(6).standard_normal(shape)
    tshape = shape[:1] + shape[2:] if len(shape) > 1 else ()
    t = targets(tshape, shape[1] if len(shape) > 1 else shape[0])
    check(lambda lib, x, t: lib.nn.functional.cross_entropy(x, t, reduction=reduction), [x, t])


@pytest.mark.parametrize("dtype", DTYPES)
def test_extreme_logits_are_finite_and_match(dtype):
    x = np.array([[1e4, -1e4, 0.0], [-1e4, -1e4, -1e4], [1e4, 1e4, -1e4], [0.5, -2.0, 1e4]],
                 dtype=dtype)
    t = np.array([1, 0, 2, 0])
    for reduction in REDUCTIONS:
        (mine, m_in), (theirs, t_in) = both(
            lambda lib, x, t, r=reduction: lib.nn.functional.cross_entropy(x, t, reduction=r),
            [x, t])
        assert np.isfinite(mine.detach().numpy()).all()
        assert_same_tensor(mine, theirs, **TOL[dtype])
        mine.sum().backward()
        theirs.sum().backward()
        assert np.isfinite(m_in[0].grad.numpy()).all()
        assert_same_tensor(m_in[0].grad, t_in[0].grad, **TOL[dtype])
    p = np.array([[0.2, 0.3, 0.5]] * 4, dtype=dtype)
    for call in ("binary_cross_entropy_with_logits", "logsigmoid", "log_softmax"):
        def fn(lib, x, p, call=call):
            f = getattr(lib.nn.functional, call)
            if call == "logsigmoid":
                return f(x)
            return f(x, 1) if call == "log_softmax" else f(x, p, reduction="none")
        (mine, m_in), (theirs, t_in) = both(fn, [x, p])
        assert np.isfinite(mine.detach().numpy()).all(), call
        assert_same_tensor(mine, theirs, what=call, **TOL[dtype])
        mine.sum().backward()
        theirs.sum().backward()
        assert_same_tensor(m_in[0].grad, t_in[0].grad, what=call, **TOL[dtype])


# -- nll_loss --------------------------------------------------------------------------------------
@pytest.mark.parametrize("shape", [(5,), (4, 5), (3, 5, 2), (2, 5, 3, 2), (2, 5, 2, 1, 3)])
@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_nll_loss_weights_and_ignore_index(shape, reduction):
    x = log_probs(shape, axis=0 if len(shape) == 1 else 1)
    c = shape[0] if len(shape) == 1 else shape[1]
    tshape = () if len(shape) == 1 else shape[:1] + shape[2:]
    t = targets(tshape, c)
    if t.ndim:
        t.flat[0] = 3
    w = np.random.default_rng(2).uniform(0.5, 2.0, c)
    for weight in (False, True):
        for ignore in (-100, 3):
            def fn(lib, x, t, w, weight=weight, ignore=ignore):
                return lib.nn.functional.nll_loss(x, t, weight=w if weight else None,
                                                  ignore_index=ignore, reduction=reduction)
            check(fn, [x, t, w])


def test_nll_loss_all_ignored_and_empty():
    x = log_probs((3, 4))
    t = np.full(3, -100)
    for reduction in REDUCTIONS:
        check(lambda lib, x, t, r=reduction: lib.nn.functional.nll_loss(x, t, reduction=r),
              [x, t])
    for shape, tshape in (((0, 4), (0,)), ((2, 4, 0), (2, 0)), ((0, 4, 3), (0, 3))):
        for reduction in REDUCTIONS:
            check(lambda lib, x, t, r=reduction: lib.nn.functional.nll_loss(x, t, reduction=r),
                  [np.zeros(shape), np.zeros(tshape, np.int64)])


def test_nll_loss_uint8_targets_and_float16():
    x = log_probs((6, 4), dtype="float16")
    t = targets(6, 4).astype(np.uint8)
    check(lambda lib, x, t: lib.nn.functional.nll_loss(x, t), [x, t], tol=TOL["float16"],
          second=False)


@pytest.mark.parametrize("call", [
    "F.nll_loss(x, t, weight=w)",          # weight requires grad
    "F.nll_loss(x, t.float())",
    "F.nll_loss(x, t.int())",
    "F.nll_loss(x, t + 9)",
    "F.nll_loss(x, t - 5)",
    "F.nll_loss(x, t[:3])",
    "F.nll_loss(x, t.reshape(2, 2))",
    "F.nll_loss(x, t, weight=w.detach()[:2])",
    "F.nll_loss(x, t, weight=w.detach().float())",
    "F.nll_loss(x[0], t)",
    "F.nll_loss(x.reshape(2, 2, 5), t.reshape(2, 2)[:, :1])",
    "F.nll_loss(x.reshape(1, 4, 5, 1), t.reshape(1, 4))",
    "F.nll_loss(x.sum(), t)",
    "F.nll_loss(x, t, reduction='average')",
    "F.cross_entropy(x, t.float().reshape(4, 1).expand(4, 5).long())",
    "F.cross_entropy(x, x.detach(), ignore_index=1)",
    "F.cross_entropy(x, t, label_smoothing=1.5)",
    "F.cross_entropy(x, x.detach().softmax(1), weight=w.detach()[:3])",
])
def test_nll_and_cross_entropy_errors(call):
    def run(lib):
        def go():
            F = lib.nn.functional
            x = lib.tensor(log_probs((4, 5)), requires_grad=True)
            t = lib.tensor([0, 1, 4, 2])
            w = lib.ones(5, dtype=lib.float64, requires_grad=True)
            eval(call, {"F": F, "x": x, "t": t, "w": w})
        return go
    assert_same_error(run(leafgrad), run(torch))


def test_nll_loss_saved_and_in_place_errors():
    # the node saves its input: changing it in place before backward is an error
    for lib in (leafgrad, torch):
        x = lib.tensor(log_probs((3, 4)), requires_grad=True)
        y = x * 1
        loss = lib.nn.functional.nll_loss(y, lib.tensor([0, 1, 2]))
        y.add_(1)
        with pytest.raises(RuntimeError, match="modified by an inplace operation"):
            loss.backward()


# -- pointwise losses ------------------------------------------------------------------------------
PAIRS = [
    ("mse_loss", {}), ("l1_loss", {}), ("smooth_l1_loss", {"beta": 0.5}),
    ("smooth_l1_loss", {"beta": 0.0}), ("huber_loss", {"delta": 0.7}),
    ("kl_div", {"reduction_override": "batchmean"}), ("kl_div", {"log_target": True}),
    ("soft_margin_loss", {}),
]


@pytest.mark.parametrize("name,kwargs", PAIRS)
@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_pointwise_losses(name, kwargs, reduction):
    rng = np.random.default_rng(7)
    x, y = rng.standard_normal((3, 4)), rng.standard_normal((3, 4))
    kwargs = dict(kwargs)
    reduction = kwargs.pop("reduction_override", reduction)
    if name == "kl_div" and not kwargs.get("log_target"):
        y = np.abs(y)
    grad = (0,) if name == "soft_margin_loss" else (0, 1)

    def fn(lib, x, y):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return getattr(lib.nn.functional, name)(x, y, reduction=reduction, **kwargs)
    check(fn, [x, y], grad=grad)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", ["mse_loss", "smooth_l1_loss", "huber_loss", "l1_loss"])
def test_pointwise_losses_dtypes_and_broadcast(dtype, name):
    rng = np.random.default_rng(8)
    x, y = rng.standard_normal((3, 4)).astype(dtype), rng.standard_normal(4).astype(dtype)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check(lambda lib, x, y: getattr(lib.nn.functional, name)(x, y), [x, y], grad=(0, 1),
              tol=TOL[dtype], second=dtype == "float64")
    # mixed dtypes follow PyTorch (huber_loss keeps the input's dtype, the others promote)
    for other in ("float64", "int64"):
        y2 = rng.integers(-2, 2, (3, 4)).astype(other)
        (mine, _), (theirs, _) = both(lambda lib, x, y: getattr(lib.nn.functional, name)(x, y),
                                      [x, y2], grad=())
        assert_same_tensor(mine, theirs, **TOL[dtype])


@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_binary_cross_entropy_weights(reduction):
    rng = np.random.default_rng(9)
    x, t = rng.uniform(0.05, 0.95, (3, 4)), rng.uniform(0, 1, (3, 4))
    w = rng.uniform(0.5, 2.0, 4)
    check(lambda lib, x, t, w: lib.nn.functional.binary_cross_entropy(
        x, t, weight=w, reduction=reduction), [x, t, w], grad=(0, 1))
    logits = rng.standard_normal((3, 4)) * 3
    pw = rng.uniform(0.5, 3.0, 4)
    for kw in ({"weight": True}, {"pos_weight": True}, {"weight": True, "pos_weight": True}):
        def fn(lib, x, t, w, pw, kw=kw):
            return lib.nn.functional.binary_cross_entropy_with_logits(
                x, t, weight=w if kw.get("weight") else None,
                pos_weight=pw if kw.get("pos_weight") else None, reduction=reduction)
        check(fn, [logits, t, w, pw], grad=(0, 1))


def test_binary_cross_entropy_clamps_logs_at_the_ends():
    x = np.array([0.0, 1.0, 1e-30, 1 - 1e-12, 0.5])
    t = np.array([0.5, 0.5, 0.3, 0.2, 1.0])
    for dtype in DTYPES:
        (mine, m_in), (theirs, t_in) = both(
            lambda lib, x, t: lib.nn.functional.binary_cross_entropy(x, t, reduction="none"),
            [x.astype(dtype), t.astype(dtype)])
        assert_same_tensor(mine, theirs, **TOL[dtype])
        mine.sum().backward()
        theirs.sum().backward()
        assert_same_tensor(m_in[0].grad, t_in[0].grad, rtol=1e-3, atol=1e-3)


@pytest.mark.parametrize("call", [
    "F.binary_cross_entropy(p, q.double())",
    "F.binary_cross_entropy(p + 1, q)",
    "F.binary_cross_entropy(p * float('nan'), q)",
    "F.binary_cross_entropy(p, q, weight=w)",
    "F.binary_cross_entropy(p, q[0])",
    "F.binary_cross_entropy(p.long(), q.long())",
    "F.binary_cross_entropy_with_logits(p, q, pos_weight=w)",
    "F.binary_cross_entropy_with_logits(p, q.long())",
    "F.binary_cross_entropy_with_logits(p.long(), q)",
    "F.binary_cross_entropy_with_logits(p, q[0])",
    "F.mse_loss(p.long(), q.long())",
    "F.huber_loss(p.long(), q)",
    "F.smooth_l1_loss(p.long(), q.long())",
    "F.huber_loss(p, q, delta=0.0)",
    "F.smooth_l1_loss(p, q, beta=-1.0)",
])
def test_pointwise_loss_errors(call):
    def run(lib):
        def go():
            F = lib.nn.functional
            p = lib.tensor([[0.2, 0.7], [0.5, 0.9]], dtype=lib.float32, requires_grad=True)
            q = lib.tensor([[0.0, 1.0], [0.5, 0.25]], dtype=lib.float32)
            w = lib.ones(2, requires_grad=True)
            eval(call, {"F": F, "p": p, "q": q, "w": w})
        return go
    assert_same_error(run(leafgrad), run(torch))


def test_result_dtypes_follow_pytorch():
    rng = np.random.default_rng(10)
    a32, a64 = rng.uniform(0.1, 0.9, (2, 3)).astype("float32"), rng.uniform(0.1, 0.9, (2, 3))
    for call in ("F.binary_cross_entropy_with_logits(a, b)", "F.huber_loss(a, b)",
                 "F.mse_loss(a, b)", "F.smooth_l1_loss(a, b)"):
        for a, b in ((a32, a64), (a64, a32)):
            mine = eval(call, {"F": LF, "a": leafgrad.tensor(a), "b": leafgrad.tensor(b)})
            theirs = eval(call, {"F": TF, "a": torch.tensor(a), "b": torch.tensor(b)})
            assert str(mine.dtype) == str(theirs.dtype), call


def test_xlogy_overloads_and_edges():
    x = np.array([0.0, 1.0, 2.0, 0.0, -1.0])
    y = np.array([0.0, 0.0, 3.0, np.nan, 2.0])
    check(lambda lib, x, y: lib.xlogy(x, y), [x, y], grad=(0, 1), second=False)
    check(lambda lib, y: lib.xlogy(2.0, y), [np.abs(y) + 0.5])
    check(lambda lib, x: lib.xlogy(x, 3.0), [x])
    check(lambda lib, x: lib.xlogy(x, 0.0), [x], second=False)
    check(lambda lib, x, y: x.xlogy(y), [x, np.abs(y) + 0.5], grad=(0, 1))
    for lib in (leafgrad, torch):
        assert str(lib.xlogy(lib.tensor([1, 2]), lib.tensor([3, 4])).dtype).endswith("float32")
