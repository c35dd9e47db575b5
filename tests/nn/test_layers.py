"""Layers against PyTorch: the same weights in both, then outputs, input gradients and
parameter gradients compared in float64 and float32; containers; default initialisation."""
from __future__ import annotations

import math

import numpy as np
import pytest
import torch

import leafgrad
from nn_helpers import assert_close, compare_module, copy_weights, same_error

DTYPES = ["float64", "float32"]


def pair(build, dtype):
    mine, theirs = build(leafgrad), build(torch)
    if dtype == "float64":
        mine.double()
        theirs.double()
    copy_weights(mine, theirs)
    return mine, theirs


def data(shape, dtype, seed=0, scale=1.0):
    return (np.random.default_rng(seed).standard_normal(shape) * scale).astype(dtype)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(4, 3), (2, 5, 3), (3,)])
def test_linear(dtype, shape):
    for bias in (True, False):
        mine, theirs = pair(lambda lib: lib.nn.Linear(3, 2, bias=bias), dtype)
        compare_module(mine, theirs, data(shape, dtype), dtype)


@pytest.mark.parametrize("dtype", DTYPES)
def test_mlp_sequential(dtype):
    def build(lib):
        nn = lib.nn
        return nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 8), nn.Tanh(),
                             nn.Linear(8, 3), nn.LogSoftmax(dim=1))
    mine, theirs = pair(build, dtype)
    compare_module(mine, theirs, data((5, 4), dtype), dtype)


ACTIVATIONS = [
    lambda nn: nn.ReLU(), lambda nn: nn.LeakyReLU(0.1), lambda nn: nn.ELU(0.7),
    lambda nn: nn.GELU(), lambda nn: nn.GELU("tanh"), lambda nn: nn.SiLU(),
    lambda nn: nn.Tanh(), lambda nn: nn.Sigmoid(), lambda nn: nn.Softmax(dim=1),
    lambda nn: nn.LogSoftmax(dim=-1), lambda nn: nn.Softplus(), lambda nn: nn.Softplus(2.0, 1.0),
    lambda nn: nn.Hardtanh(-0.5, 0.5), lambda nn: nn.ReLU6(), lambda nn: nn.SELU(),
    lambda nn: nn.CELU(0.5), lambda nn: nn.Mish(), lambda nn: nn.LogSigmoid(),
    lambda nn: nn.Hardsigmoid(), lambda nn: nn.Hardswish(), lambda nn: nn.Softsign(),
    lambda nn: nn.Tanhshrink(), lambda nn: nn.Identity(), lambda nn: nn.Softmin(dim=0),
    lambda nn: nn.GLU(), lambda nn: nn.Threshold(0.1, -1.0),
]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("make", ACTIVATIONS)
def test_activation_modules(make, dtype):
    mine, theirs = make(leafgrad.nn), make(torch.nn)
    x = data((3, 4), dtype, scale=3.0)
    if type(theirs).__name__ in ("Hardsigmoid", "Hardswish"):
        # PyTorch's CPU backward of these uses the float32 constant 1/6 even for float64.
        dtype = "float32"
    compare_module(mine, theirs, x, dtype)


@pytest.mark.parametrize("make", [lambda nn: nn.Softplus(), lambda nn: nn.LogSigmoid(),
                                  lambda nn: nn.Sigmoid(), lambda nn: nn.LogSoftmax(dim=1),
                                  lambda nn: nn.Softmax(dim=1), lambda nn: nn.SiLU()])
def test_activations_stable_at_extremes(make):
    x = np.array([[-1000.0, -50.0, 0.0, 50.0, 1000.0]])
    mine, theirs = make(leafgrad.nn), make(torch.nn)
    out_m, _ = compare_module(mine, theirs, x, "float64")
    assert np.isfinite(out_m.detach().numpy()).all()


@pytest.mark.parametrize("dtype", DTYPES)
def test_layer_norm(dtype):
    for shape, args in [((4, 6), (6,)), ((2, 3, 4), ((3, 4),)), ((2, 5), (5,))]:
        for kwargs in ({}, {"elementwise_affine": False}, {"bias": False}, {"eps": 1e-3}):
            mine, theirs = pair(lambda lib: lib.nn.LayerNorm(*args, **kwargs), dtype)
            with torch.no_grad():
                for p in theirs.parameters():
                    p.uniform_(-1, 2)
            copy_weights(mine, theirs)
            compare_module(mine, theirs, data(shape, dtype), dtype)


def test_layer_norm_init_and_shape_error():
    ln = leafgrad.nn.LayerNorm(3)
    assert ln.weight.tolist() == [1.0] * 3 and ln.bias.tolist() == [0.0] * 3
    same_error(lambda: leafgrad.nn.LayerNorm(3)(leafgrad.ones(2, 4)),
               lambda: torch.nn.LayerNorm(3)(torch.ones(2, 4)))


@pytest.mark.parametrize("dtype", DTYPES)
def test_embedding_with_padding(dtype):
    mine, theirs = pair(lambda lib: lib.nn.Embedding(6, 3, padding_idx=1), dtype)
    idx = [[0, 1, 5], [1, 1, 2]]
    out_t = theirs(torch.tensor(idx))
    out_m = mine(leafgrad.tensor(idx))
    assert_close(out_m, out_t)
    cot = np.random.default_rng(0).standard_normal((2, 3, 3)).astype(dtype)
    out_t.backward(torch.tensor(cot))
    out_m.backward(leafgrad.tensor(cot))
    assert_close(mine.weight.grad, theirs.weight.grad)
    assert mine.weight.grad.numpy()[1].tolist() == [0.0, 0.0, 0.0]


def test_embedding_init_and_errors():
    emb = leafgrad.nn.Embedding(4, 2, padding_idx=-1)
    assert emb.padding_idx == 3 and emb.weight.tolist()[3] == [0.0, 0.0]
    same_error(lambda: leafgrad.nn.Embedding(3, 2)(leafgrad.tensor([3])),
               lambda: torch.nn.Embedding(3, 2)(torch.tensor([3])))
    same_error(lambda: leafgrad.nn.Embedding(3, 2, padding_idx=3),
               lambda: torch.nn.Embedding(3, 2, padding_idx=3))
    w = leafgrad.ones(2, 2)
    frozen = leafgrad.nn.Embedding.from_pretrained(w)
    assert not frozen.weight.requires_grad


def test_dropout_train_and_eval():
    x = leafgrad.ones(1000, requires_grad=True)
    drop = leafgrad.nn.Dropout(0.25)
    out = drop(x)
    kept = out.detach().numpy() != 0
    assert 0.6 < kept.mean() < 0.9
    np.testing.assert_allclose(out.detach().numpy()[kept], 1 / 0.75, rtol=1e-6)
    out.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), np.where(kept, 1 / 0.75, 0.0), rtol=1e-6)
    drop.eval()
    assert drop(x) is x
    assert leafgrad.nn.functional.dropout(x, 0.5, training=False) is x
    assert leafgrad.nn.Dropout(1.0)(x).detach().numpy().tolist() == [0.0] * 1000
    same_error(lambda: leafgrad.nn.Dropout(1.5), lambda: torch.nn.Dropout(1.5))


@pytest.mark.parametrize("dtype", DTYPES)
def test_flatten_unflatten(dtype):
    compare_module(leafgrad.nn.Flatten(), torch.nn.Flatten(), data((2, 3, 4), dtype), dtype)
    compare_module(leafgrad.nn.Flatten(0, 1), torch.nn.Flatten(0, 1), data((2, 3, 4), dtype),
                   dtype)
    compare_module(leafgrad.nn.Unflatten(1, (2, 3)), torch.nn.Unflatten(1, (2, 3)),
                   data((4, 6), dtype), dtype)


def test_containers_behave_like_torch():
    for lib in (leafgrad, torch):
        nn = lib.nn
        seq = nn.Sequential(nn.Linear(2, 2), nn.ReLU(), nn.Linear(2, 1))
        assert len(seq) == 3 and isinstance(seq[-1], nn.Linear)
        assert isinstance(seq[1:], nn.Sequential) and len(seq[1:]) == 2
        del seq[1]
        assert list(seq._modules) == ["0", "1"]
        seq.append(nn.Tanh())
        seq.insert(0, nn.Identity())
        assert [type(m).__name__ for m in seq] == ["Identity", "Linear", "Linear", "Tanh"]
        ml = nn.ModuleList([nn.Linear(1, 1) for _ in range(3)])
        ml.append(nn.ReLU())
        ml.extend([nn.Tanh()])
        ml.insert(1, nn.Sigmoid())
        assert [type(m).__name__ for m in ml] == \
            ["Linear", "Sigmoid", "Linear", "Linear", "ReLU", "Tanh"]
        assert len(list(ml.parameters())) == 6
        assert isinstance(ml[1:3], nn.ModuleList)
        md = nn.ModuleDict({"b": nn.ReLU(), "a": nn.Linear(1, 2)})
        md["c"] = nn.Tanh()
        assert list(md) == ["b", "a", "c"] and "a" in md
        assert [n for n, _ in md.named_parameters()] == ["a.weight", "a.bias"]
        pl = nn.ParameterList([nn.Parameter(lib.ones(1)), lib.zeros(2)])
        assert isinstance(pl[1], nn.Parameter) and len(pl) == 2
        assert [n for n, _ in pl.named_parameters()] == ["0", "1"]
        pd = nn.ParameterDict({"x": lib.ones(2)})
        pd["y"] = nn.Parameter(lib.zeros(1))
        assert list(pd.keys()) == ["x", "y"] and isinstance(pd["x"], nn.Parameter)
    same_error(lambda: leafgrad.nn.Sequential(leafgrad.nn.ReLU())[3],
               lambda: torch.nn.Sequential(torch.nn.ReLU())[3])
    same_error(lambda: leafgrad.nn.ParameterList()(1), lambda: torch.nn.ParameterList()(1))
    same_error(lambda: leafgrad.nn.ModuleList([leafgrad.nn.ReLU()])(1),
               lambda: torch.nn.ModuleList([torch.nn.ReLU()])(1))


def test_linear_default_init_distribution():
    leafgrad.manual_seed(0) if hasattr(leafgrad, "manual_seed") else None
    lin = leafgrad.nn.Linear(50, 400)
    bound = 1 / math.sqrt(50)
    w, b = lin.weight.detach().numpy(), lin.bias.detach().numpy()
    assert w.dtype == np.float32 and np.abs(w).max() <= bound and np.abs(b).max() <= bound
    # U(-bound, bound) has std bound/sqrt(3); 20000 draws pin it down to about 1%.
    assert abs(w.std() - bound / math.sqrt(3)) < 0.03 * bound
    assert abs(w.mean()) < 0.02 * bound
    assert lin.weight.requires_grad and lin.weight.is_leaf and lin.weight.grad_fn is None
    assert leafgrad.nn.Linear(2, 3, dtype=leafgrad.float64).weight.dtype == leafgrad.float64


def test_mission_program_linear_modes():
    model = leafgrad.nn.Linear(2, 1)
    model.eval()
    assert model(leafgrad.ones(1, 2)).requires_grad
    with leafgrad.no_grad():
        prediction = model(leafgrad.ones(1, 2))
    assert not prediction.requires_grad
