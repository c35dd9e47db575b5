"""Activation and layer records (ops/nn_activations.py, ops/nn_layers.py) against PyTorch
2.13: in-place variants (``...Backward1`` names, saved outputs), extreme inputs in
float16/32/64, dtype errors, layer_norm/embedding/pad options and errors."""
from __future__ import annotations

import numpy as np
import pytest
import torch
from oracle import assert_same_error, assert_same_tensor
from test_nn_ops import TOL, check, tree

import leafgrad

EXTREME = np.array([-1e4, -30.0, -3.0, -1.0, 0.0, 0.5, 3.0, 30.0, 1e4])

ACTIVATIONS = [
    ("leaky_relu", {}), ("leaky_relu", {"negative_slope": 0.2}), ("elu", {"alpha": 0.7}),
    ("selu", {}), ("celu", {"alpha": 1.5}), ("hardtanh", {}), ("relu6", {}),
    ("logsigmoid", {}), ("hardsigmoid", {}), ("hardswish", {}), ("mish", {}),
    ("threshold", {"threshold": 0.2, "value": -1.0}), ("glu", {}),
]


def _call(lib, name, x, kwargs, inplace=False):
    f = getattr(lib.nn.functional, name)
    if name == "threshold":
        return f(x, kwargs["threshold"], kwargs["value"], inplace=inplace)
    if inplace:
        return f(x, inplace=True, **kwargs)
    return f(x, **kwargs)


@pytest.mark.parametrize("name,kwargs", ACTIVATIONS)
@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
def test_activations_at_extremes(name, kwargs, dtype):
    x = np.concatenate([EXTREME, -EXTREME[::-1]]).astype(dtype)
    # first order here (second order on ordinary values: the records' registry samples)
    check(lambda lib, x: _call(lib, name, x, kwargs), [x], tol=TOL[dtype], second=False)


INPLACE = [("leaky_relu", {}), ("leaky_relu", {"negative_slope": 0.3}), ("elu", {}),
           ("selu", {}), ("celu", {"alpha": 2.0}), ("hardtanh", {}), ("relu6", {}),
           ("threshold", {"threshold": 0.1, "value": 2.0}), ("hardsigmoid", {}),
           ("hardswish", {}), ("mish", {})]


@pytest.mark.parametrize("name,kwargs", INPLACE)
def test_inplace_variants(name, kwargs):
    x = np.random.default_rng(0).uniform(-3, 3, (3, 4))
    second = name != "hardsigmoid"
    # on a non-leaf (a clone), as in-place ops on leaves that require grad are refused
    check(lambda lib, x: _call(lib, name, x.clone(), kwargs, inplace=True), [x],
          second=second)
    for lib in (leafgrad, torch):
        y = lib.tensor(x).clone()
        out = _call(lib, name, y, kwargs, inplace=True)
        assert out is y


def test_inplace_leaf_and_negative_slope_errors():
    def leaf(lib):
        def go():
            x = lib.ones(3, requires_grad=True)
            lib.nn.functional.elu(x, inplace=True)
        return go
    assert_same_error(leaf(leafgrad), leaf(torch))

    def negative_slope(lib):
        def go():
            x = lib.ones(3, requires_grad=True).clone()
            lib.nn.functional.leaky_relu(x, -0.1, inplace=True).sum().backward()
        return go
    assert_same_error(negative_slope(leafgrad), negative_slope(torch))


def test_inplace_saved_output_is_checked():
    # LeakyReluBackward1 saves its output: changing it afterwards is caught
    for lib in (leafgrad, torch):
        x = lib.ones(3, requires_grad=True).clone()
        y = lib.nn.functional.leaky_relu(x, 0.1, inplace=True)
        y.mul_(2)
        with pytest.raises(RuntimeError, match="modified by an inplace operation"):
            y.sum().backward()


@pytest.mark.parametrize("call", [
    "F.leaky_relu(i)", "F.elu(i)", "F.selu(i)", "F.celu(i)", "F.logsigmoid(i)",
    "F.hardsigmoid(i)", "F.hardswish(i)", "F.mish(i)", "F.glu(i)", "F.glu(x, 0)",
    "F.glu(x.sum())", "F.celu(x, alpha=0.0)", "F.hardtanh(x, 2.0, 1.0)", "F.glu(x, 3)",
])
def test_activation_errors(call):
    def run(lib):
        def go():
            F = lib.nn.functional
            x = lib.ones(3, 2, requires_grad=True)
            i = lib.tensor([[1, -2], [3, 4]])
            eval(call, {"F": F, "x": x, "i": i})
        return go
    assert_same_error(run(leafgrad), run(torch))


def test_integer_hardtanh_and_threshold_follow_pytorch():
    for call in ("F.hardtanh(i, 0, 3)", "F.hardtanh(i, -0.5, 2.5)", "F.relu6(i * 3)",
                 "F.threshold(i, 1.5, 0)", "F.threshold(i, 1, 0.5)"):
        mine = eval(call, {"F": leafgrad.nn.functional, "i": leafgrad.tensor([[1, -2], [3, 4]])})
        theirs = eval(call, {"F": torch.nn.functional, "i": torch.tensor([[1, -2], [3, 4]])})
        assert_same_tensor(mine, theirs, what=call)


def _check_values(*args, **kwargs):
    return check(*args, grad_names=False, **kwargs)


# -- layer_norm ------------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
def test_layer_norm(dtype):
    rng = np.random.default_rng(1)
    x = (rng.standard_normal((2, 3, 4)) * 5 + 3).astype(dtype)
    w, b = rng.standard_normal((3, 4)).astype(dtype), rng.standard_normal((3, 4)).astype(dtype)
    second = dtype == "float64"
    tol = TOL[dtype] if dtype != "float16" else {"atol": 1e-2, "rtol": 1e-2}
    # _check_values: layer_norm's formulas are composites (Note [Layer norm formulas]), so
    # the gradients' nodes are not PyTorch's NativeLayerNormBackwardBackward0; values are
    _check_values(lambda lib, x, w, b: lib.nn.functional.layer_norm(x, (3, 4), w, b, eps=1e-3),
          [x, w, b], grad=(0, 1, 2), tol=tol, second=second)
    _check_values(lambda lib, x: lib.nn.functional.layer_norm(x, [4]), [x], tol=tol, second=second)
    _check_values(lambda lib, x, w: lib.layer_norm(x, [4], w[0]), [x, w], grad=(0, 1), tol=tol,
          second=second)


@pytest.mark.parametrize("call", [
    "F.layer_norm(x, (3,), torch_ones(2))",
    "F.layer_norm(x, (3,), torch_ones(3), torch_ones(2))",
    "F.layer_norm(x, (4,))", "F.layer_norm(x, [])",
    "F.layer_norm(x.long(), (3,))", "F.layer_norm(x, (3,), torch_ones(3).double())",
    "lib.layer_norm(x, (2, 3, 4))", "F.layer_norm(x, 3)",
])
def test_layer_norm_errors(call):
    def run(lib):
        def go():
            x = lib.ones(2, 3)
            eval(call, {"F": lib.nn.functional, "x": x, "lib": lib,
                        "torch_ones": lambda *s: lib.ones(*s)})
        return go
    assert_same_error(run(leafgrad), run(torch))


# -- embedding -------------------------------------------------------------------------------
@pytest.mark.parametrize("kwargs", [{}, {"padding_idx": 1}, {"padding_idx": -2},
                                    {"scale_grad_by_freq": True},
                                    {"scale_grad_by_freq": True, "padding_idx": 0}])
def test_embedding(kwargs):
    rng = np.random.default_rng(2)
    w = rng.standard_normal((5, 3))
    idx = np.array([[0, 1, 1], [3, 0, 4]])
    check(lambda lib, i, w: lib.nn.functional.embedding(i, w, **kwargs), [idx, w], grad=(1,))
    check(lambda lib, i, w: lib.nn.functional.embedding(i, w, **kwargs),
          [np.array(2), w], grad=(1,))


@pytest.mark.parametrize("norm_type", [2.0, 1.0])
def test_embedding_max_norm_renormalizes_weight_in_place(norm_type):
    w = np.random.default_rng(3).standard_normal((5, 3)) * 3
    idx = np.array([[0, 2], [2, 4]])
    outs = []
    for lib in (leafgrad, torch):
        weight = lib.tensor(w.copy(), requires_grad=True)
        version = weight._version
        out = lib.nn.functional.embedding(lib.tensor(idx), weight, max_norm=1.5,
                                          norm_type=norm_type)
        out.sum().backward()
        outs.append((out, weight, weight._version - version))
    (m, mw, mv), (t, tw, tv) = outs
    assert_same_tensor(m, t)
    assert_same_tensor(mw, tw)
    assert_same_tensor(mw.grad, tw.grad)
    assert mv == tv


@pytest.mark.parametrize("call", [
    "F.embedding(lib.tensor([5]), w)", "F.embedding(lib.tensor([-1]), w)",
    "F.embedding(lib.tensor([1.0]), w)", "F.embedding(lib.tensor([1]), w[0])",
    "F.embedding(lib.tensor([1]), w, padding_idx=7)", "lib.embedding(w[0], lib.tensor([1]))",
])
def test_embedding_errors(call):
    def run(lib):
        def go():
            w = lib.ones(5, 3, requires_grad=True)
            eval(call, {"F": lib.nn.functional, "lib": lib, "w": w})
        return go
    assert_same_error(run(leafgrad), run(torch))


# -- pad -------------------------------------------------------------------------------------
@pytest.mark.parametrize("pad,value", [((1, 2), 0.0), ((0, 0, 2, 1), -1.5), ((-1, 2, 1, -1), 3),
                                       ((1, 1, 1, 1, 1, 1), 0.0), ((-3, 3), 0.0), ((), 0.0)])
def test_constant_pad(pad, value):
    x = np.random.default_rng(4).standard_normal((2, 3, 3))
    check(lambda lib, x: lib.nn.functional.pad(x, pad, value=value), [x])
    check(lambda lib, x: lib.constant_pad_nd(x, list(pad), value), [x])
    for dtype in ("int64", "bool"):
        xi = (x * 3).astype(dtype)
        mine = leafgrad.constant_pad_nd(leafgrad.tensor(xi), list(pad), value)
        theirs = torch.constant_pad_nd(torch.tensor(xi), list(pad), value)
        assert_same_tensor(mine, theirs)


@pytest.mark.parametrize("call", [
    "lib.constant_pad_nd(x, [1, 2, 3])", "lib.constant_pad_nd(x, [1] * 6)",
    "lib.constant_pad_nd(x, [-2, -2])", "F.pad(x, [-3, -2])", "F.pad(x, [1, 2, 3])",
    "F.pad(x, [1] * 6)",
])
def test_pad_errors(call):
    def run(lib):
        def go():
            x = lib.ones(2, 3)
            eval(call, {"F": lib.nn.functional, "lib": lib, "x": x})
        return go
    assert_same_error(run(leafgrad), run(torch))


def test_layer_graph_names():
    x = np.random.default_rng(5).standard_normal((2, 4))
    for lib_call in ("F.layer_norm(x, (4,))", "F.pad(x, (1, 1))", "F.embedding(i, x)"):
        trees = []
        for lib in (leafgrad, torch):
            xt = lib.tensor(x, requires_grad=True)
            out = eval(lib_call, {"F": lib.nn.functional, "x": xt, "i": lib.tensor([1, 0])})
            trees.append(tree(out.grad_fn))
        assert trees[0] == trees[1], lib_call
