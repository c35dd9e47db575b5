"""nn.functional against PyTorch: losses (every reduction, weights, ignore_index, label
smoothing, probabilities), activations at extreme values, pad, normalize, one_hot, errors
and warnings. Values and input gradients in float64 and float32."""
from __future__ import annotations

import warnings

import numpy as np
import pytest
import torch
import torch.nn.functional as TF

import leafgrad
import leafgrad.nn.functional as LF
from nn_helpers import assert_close, same_error, tol

DTYPES = ["float64", "float32"]
REDUCTIONS = ["mean", "sum", "none"]


def rand(shape, dtype, seed=0, low=None, high=None, scale=1.0):
    rng = np.random.default_rng(seed)
    if low is not None:
        return rng.uniform(low, high, shape).astype(dtype)
    return (rng.standard_normal(shape) * scale).astype(dtype)


def run_both(fn_name, inputs, kwargs, dtype, grad=(0,), extra=None):
    """Call F.<fn_name> on both libraries; compare output and grads of ``grad`` inputs."""
    mine_in, their_in = [], []
    for i, x in enumerate(inputs):
        if isinstance(x, np.ndarray):
            rg = i in grad and x.dtype.kind == "f"
            mine_in.append(leafgrad.tensor(x.copy(), requires_grad=rg))
            their_in.append(torch.tensor(x.copy(), requires_grad=rg))
        else:
            mine_in.append(x)
            their_in.append(x)
    kw_m = {k: (leafgrad.tensor(v) if isinstance(v, np.ndarray) else v)
            for k, v in kwargs.items()}
    kw_t = {k: (torch.tensor(v) if isinstance(v, np.ndarray) else v)
            for k, v in kwargs.items()}
    out_t = getattr(TF, fn_name)(*their_in, **kw_t)
    out_m = getattr(LF, fn_name)(*mine_in, **kw_m)
    t = tol(dtype) if extra is None else extra
    assert_close(out_m, out_t, what=f"{fn_name} output", **t)
    if out_t.requires_grad:
        cot = rand(tuple(out_t.shape), str(out_t.dtype).replace("torch.", ""), seed=7)
        out_t.backward(torch.tensor(cot))
        out_m.backward(leafgrad.tensor(cot))
        for i in grad:
            if their_in[i].requires_grad:
                assert_close(mine_in[i].grad, their_in[i].grad, what=f"{fn_name} grad {i}",
                             **t)
    return out_m, out_t


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_regression_losses(dtype, reduction):
    x, y = rand((4, 3), dtype), rand((4, 3), dtype, seed=1)
    run_both("mse_loss", [x, y], {"reduction": reduction}, dtype, grad=(0, 1))
    run_both("l1_loss", [x, y], {"reduction": reduction}, dtype, grad=(0, 1))
    for beta in (1.0, 0.5, 0.0):
        run_both("smooth_l1_loss", [x, y], {"reduction": reduction, "beta": beta}, dtype,
                 grad=(0, 1))
    for delta in (1.0, 0.3):
        run_both("huber_loss", [x, y], {"reduction": reduction, "delta": delta}, dtype,
                 grad=(0, 1))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_cross_entropy_class_indices(dtype, reduction):
    x = rand((5, 4), dtype, scale=2.0)
    target = np.array([0, 3, 1, 3, 2])
    weight = rand((4,), dtype, low=0.5, high=2.0)
    run_both("cross_entropy", [x, target], {"reduction": reduction}, dtype)
    run_both("cross_entropy", [x, target], {"reduction": reduction, "weight": weight}, dtype)
    ignored = np.array([0, -100, 1, 3, -100])
    run_both("cross_entropy", [x, ignored], {"reduction": reduction}, dtype)
    run_both("cross_entropy", [x, np.array([0, 2, 1, 2, 2])],
             {"reduction": reduction, "ignore_index": 2, "weight": weight}, dtype)
    for smoothing in (0.1, 0.5):
        run_both("cross_entropy", [x, target],
                 {"reduction": reduction, "label_smoothing": smoothing}, dtype)
        run_both("cross_entropy", [x, ignored],
                 {"reduction": reduction, "label_smoothing": smoothing, "weight": weight},
                 dtype)
        run_both("cross_entropy", [x, ignored],
                 {"reduction": reduction, "label_smoothing": smoothing}, dtype)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_cross_entropy_probabilities_and_shapes(dtype, reduction):
    x = rand((3, 4), dtype)
    probs = rand((3, 4), dtype, seed=2, low=0.0, high=1.0)
    probs = (probs / probs.sum(1, keepdims=True)).astype(dtype)
    weight = rand((4,), dtype, low=0.5, high=2.0)
    run_both("cross_entropy", [x, probs], {"reduction": reduction}, dtype, grad=(0, 1))
    run_both("cross_entropy", [x, probs], {"reduction": reduction, "weight": weight,
                                           "label_smoothing": 0.2}, dtype)
    # K-dimensional: (N, C, d) with targets (N, d); unbatched (C,) with a scalar target.
    x3 = rand((2, 4, 3), dtype)
    run_both("cross_entropy", [x3, np.array([[0, 1, 3], [2, 2, 0]])],
             {"reduction": reduction}, dtype)
    run_both("cross_entropy", [rand((4,), dtype), np.array(2)], {"reduction": reduction},
             dtype)


def test_cross_entropy_extreme_logits_are_finite():
    x = np.array([[1000.0, -1000.0, 0.0], [-1e4, 1e4, 3.0]])
    out, _ = run_both("cross_entropy", [x, np.array([1, 0])], {}, "float64")
    assert np.isfinite(out.item())
    run_both("cross_entropy", [x.astype("float32"), np.array([0, 1])], {"reduction": "none"},
             "float32")


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_nll_loss(dtype, reduction):
    logp = np.log(rand((4, 3), dtype, low=0.1, high=1.0)).astype(dtype)
    target = np.array([2, 0, 1, 1])
    weight = rand((3,), dtype, low=0.5, high=2.0)
    run_both("nll_loss", [logp, target], {"reduction": reduction}, dtype)
    run_both("nll_loss", [logp, target], {"reduction": reduction, "weight": weight,
                                         "ignore_index": 1}, dtype)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_binary_cross_entropy(dtype, reduction):
    p = rand((3, 4), dtype, low=0.01, high=0.99)
    y = rand((3, 4), dtype, seed=3, low=0.0, high=1.0)
    w = rand((3, 4), dtype, seed=4, low=0.5, high=1.5)
    run_both("binary_cross_entropy", [p, y], {"reduction": reduction}, dtype)
    run_both("binary_cross_entropy", [p, y], {"reduction": reduction, "weight": w}, dtype)
    logits = rand((3, 4), dtype, scale=3.0)
    pos = rand((4,), dtype, seed=5, low=0.5, high=3.0)
    run_both("binary_cross_entropy_with_logits", [logits, y], {"reduction": reduction}, dtype,
             grad=(0, 1))
    run_both("binary_cross_entropy_with_logits", [logits, y],
             {"reduction": reduction, "pos_weight": pos, "weight": w}, dtype, grad=(0, 1))


def test_bce_with_logits_extreme_values():
    x = np.array([-1000.0, -50.0, 0.0, 50.0, 1000.0])
    y = np.array([1.0, 0.0, 1.0, 1.0, 0.0])
    out, _ = run_both("binary_cross_entropy_with_logits", [x, y], {"reduction": "none"},
                      "float64")
    assert np.isfinite(out.detach().numpy()).all()
    run_both("binary_cross_entropy_with_logits", [x, y],
             {"reduction": "none", "pos_weight": np.array(3.0)}, "float64")


def test_bce_log_clamp_at_zero_and_one():
    p = np.array([0.0, 1.0, 0.5])
    y = np.array([1.0, 0.0, 1.0])
    out, _ = run_both("binary_cross_entropy", [p, y], {"reduction": "none"}, "float64",
                      grad=())
    assert out.tolist()[:2] == [100.0, 100.0]


@pytest.mark.parametrize("dtype", DTYPES)
def test_kl_div(dtype):
    logq = np.log(rand((3, 4), dtype, low=0.1, high=1.0)).astype(dtype)
    p = rand((3, 4), dtype, seed=1, low=0.0, high=1.0)
    p[0, 0] = 0.0
    for reduction in ("batchmean", "sum", "none"):
        run_both("kl_div", [logq, p], {"reduction": reduction}, dtype)
        run_both("kl_div", [logq, np.log(p + 0.1).astype(dtype)],
                 {"reduction": reduction, "log_target": True}, dtype, grad=(0, 1))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        run_both("kl_div", [logq, p], {}, dtype)
    assert len(caught) == 2 and str(caught[0].message) == str(caught[1].message)


@pytest.mark.parametrize("dtype", DTYPES)
def test_activation_functions(dtype):
    x = rand((3, 5), dtype, scale=3.0)
    for name, kw in [("relu", {}), ("leaky_relu", {"negative_slope": 0.2}), ("elu", {}),
                     ("gelu", {}), ("gelu", {"approximate": "tanh"}), ("silu", {}),
                     ("softplus", {"beta": 2.0}), ("sigmoid", {}), ("tanh", {}),
                     ("logsigmoid", {}), ("softmax", {"dim": 1}), ("log_softmax", {"dim": 0}),
                     ("relu6", {}), ("hardtanh", {"min_val": -2.0, "max_val": 0.5}),
                     ("selu", {}), ("celu", {"alpha": 2.0}), ("mish", {}), ("softsign", {}),
                     ("softmin", {"dim": 1}), ("tanhshrink", {})]:
        run_both(name, [x], kw, dtype)


@pytest.mark.parametrize("dtype", DTYPES)
def test_linear_pad_normalize_layer_norm(dtype):
    x, w, b = rand((4, 3), dtype), rand((2, 3), dtype, seed=1), rand((2,), dtype, seed=2)
    run_both("linear", [x, w, b], {}, dtype, grad=(0, 1, 2))
    run_both("linear", [x, w], {}, dtype, grad=(0, 1))
    run_both("linear", [rand((2, 5, 3), dtype), w, b], {}, dtype, grad=(0, 1, 2))
    img = rand((2, 3, 4), dtype)
    for pad in [(1, 1), (0, 2, 1, 0), (2, 1, 1, 1, 1, 0), (-1, 1), (1, -2, 0, 1)]:
        run_both("pad", [img, pad], {}, dtype)
        run_both("pad", [img, pad], {"value": 2.5}, dtype)
    for p, dim in [(2.0, 1), (1.0, 0), (3.0, -1)]:
        run_both("normalize", [img], {"p": p, "dim": dim}, dtype)
    run_both("normalize", [np.zeros((2, 3), dtype=dtype)], {}, dtype)
    weight, bias = rand((4,), dtype, seed=3), rand((4,), dtype, seed=4)
    run_both("layer_norm", [img, (4,), weight, bias], {}, dtype, grad=(0, 2, 3))
    run_both("layer_norm", [img, (3, 4)], {"eps": 1e-3}, dtype)


def test_one_hot_and_errors():
    assert LF.one_hot(leafgrad.tensor([0, 2, 1])).tolist() == \
        TF.one_hot(torch.tensor([0, 2, 1])).tolist()
    out = LF.one_hot(leafgrad.tensor([[1], [0]]), 3)
    assert out.dtype == leafgrad.int64 and out.shape == (2, 1, 3)
    same_error(lambda: LF.one_hot(leafgrad.tensor([1.0])), lambda: TF.one_hot(torch.tensor([1.0])))
    same_error(lambda: LF.one_hot(leafgrad.tensor([-1])), lambda: TF.one_hot(torch.tensor([-1])))
    same_error(lambda: LF.one_hot(leafgrad.tensor([3]), 2),
               lambda: TF.one_hot(torch.tensor([3]), 2))


def test_loss_errors_and_warnings():
    x, xt = leafgrad.zeros(2, 3), torch.zeros(2, 3)
    same_error(lambda: LF.mse_loss(x, x, reduction="foo"),
               lambda: TF.mse_loss(xt, xt, reduction="foo"))
    same_error(lambda: LF.nll_loss(x, leafgrad.tensor([0, 5])),
               lambda: TF.nll_loss(xt, torch.tensor([0, 5])))
    same_error(lambda: LF.nll_loss(x, leafgrad.tensor([0.0, 1.0])),
               lambda: TF.nll_loss(xt, torch.tensor([0.0, 1.0])))
    same_error(lambda: LF.nll_loss(x, leafgrad.tensor([0, 1, 1])),
               lambda: TF.nll_loss(xt, torch.tensor([0, 1, 1])))
    same_error(lambda: LF.cross_entropy(x, leafgrad.ones(2, 3), ignore_index=1),
               lambda: TF.cross_entropy(xt, torch.ones(2, 3), ignore_index=1))
    same_error(lambda: LF.binary_cross_entropy(leafgrad.ones(3) / 2, leafgrad.ones(2)),
               lambda: TF.binary_cross_entropy(torch.ones(3) / 2, torch.ones(2)))
    same_error(lambda: LF.binary_cross_entropy(leafgrad.tensor([2.0]), leafgrad.ones(1)),
               lambda: TF.binary_cross_entropy(torch.tensor([2.0]), torch.ones(1)))
    same_error(lambda: LF.binary_cross_entropy_with_logits(x, leafgrad.ones(3)),
               lambda: TF.binary_cross_entropy_with_logits(xt, torch.ones(3)))
    same_error(lambda: LF.dropout(x, 1.5), lambda: TF.dropout(xt, 1.5))
    for call_m, call_t in [
            (lambda: LF.softmax(x), lambda: TF.softmax(xt)),
            (lambda: LF.mse_loss(leafgrad.zeros(3), x), lambda: TF.mse_loss(torch.zeros(3), xt)),
            (lambda: LF.mse_loss(x, x, reduce=False), lambda: TF.mse_loss(xt, xt, reduce=False))]:
        with warnings.catch_warnings(record=True) as mine:
            warnings.simplefilter("always")
            call_m()
        with warnings.catch_warnings(record=True) as theirs:
            warnings.simplefilter("always")
            call_t()
        assert [str(w.message) for w in mine] == [str(w.message) for w in theirs]


@pytest.mark.parametrize("make", [
    lambda nn, lib: nn.MSELoss(reduction="sum"), lambda nn, lib: nn.L1Loss(),
    lambda nn, lib: nn.SmoothL1Loss(beta=0.5), lambda nn, lib: nn.HuberLoss(delta=0.5),
    lambda nn, lib: nn.BCEWithLogitsLoss(pos_weight=lib.tensor([2.0, 1.0, 0.5])),
    lambda nn, lib: nn.SoftMarginLoss()])
def test_loss_modules_regression(make):
    x, y = rand((4, 3), "float64"), rand((4, 3), "float64", seed=1, low=0.0, high=1.0)
    mine = make(leafgrad.nn, leafgrad).double()
    theirs = make(torch.nn, torch).double()
    xm, xt = leafgrad.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
    out_m, out_t = mine(xm, leafgrad.tensor(y)), theirs(xt, torch.tensor(y))
    assert_close(out_m, out_t, **tol("float64"))
    out_m.backward()
    out_t.backward()
    assert_close(xm.grad, xt.grad, **tol("float64"))


def test_loss_modules_classification():
    x = rand((4, 3), "float64")
    target = [0, 2, 1, -100]
    for make in (lambda nn, lib: nn.CrossEntropyLoss(label_smoothing=0.1),
                 lambda nn, lib: nn.CrossEntropyLoss(weight=lib.tensor([1.0, 2.0, 0.5],
                                                                       dtype=lib.float64)),
                 lambda nn, lib: nn.NLLLoss(reduction="sum")):
        mine, theirs = make(leafgrad.nn, leafgrad), make(torch.nn, torch)
        xm, xt = leafgrad.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
        out_m = mine(xm, leafgrad.tensor(target))
        out_t = theirs(xt, torch.tensor(target))
        assert_close(out_m, out_t, **tol("float64"))
        out_m.backward()
        out_t.backward()
        assert_close(xm.grad, xt.grad, **tol("float64"))
    assert list(leafgrad.nn.CrossEntropyLoss(weight=leafgrad.ones(3)).state_dict()) == \
        list(torch.nn.CrossEntropyLoss(weight=torch.ones(3)).state_dict())


@pytest.mark.parametrize("call", [
    "F.linear(x, w, b)", "F.linear(x.reshape(2, 2, 3), w, b)", "F.linear(x, w)",
    "F.gelu(x)", "F.silu(x)", "F.softplus(x)", "F.relu(x)", "F.softmax(x, 1)",
    "F.log_softmax(x, 1)", "F.dropout(x)", "F.sigmoid(x)", "F.tanh(x)",
])
def test_grad_fn_names_match_torch(call):
    # Functional ops backed by an op record carry PyTorch's grad_fn name (see
    # Note [Primitive or composite]); composites are covered by value/gradient tests only.
    names = []
    for lib, F in ((leafgrad, LF), (torch, TF)):
        x = lib.tensor(rand((4, 3), "float64"), requires_grad=True)
        w = lib.ones(2, 3, dtype=lib.float64)
        b = lib.ones(2, dtype=lib.float64)
        names.append(type(eval(call, {"F": F, "x": x, "w": w, "b": b}).grad_fn).__name__)
    assert names[0] == names[1]
