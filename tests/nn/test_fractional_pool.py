"""F.fractional_max_pool2d/3d and nn.FractionalMaxPool2d/3d against PyTorch 2.13: values,
indices, grad_fn names, first and second derivatives, windows drawn from the global generator
after manual_seed (leafgrad's stream is PyTorch's), given _random_samples, ties and NaNs,
module buffers and reprs, errors."""
from __future__ import annotations

import numpy as np
import pytest
import torch

import leafgrad
from tests.nn.layer_oracle import same_error

RNG = np.random.default_rng(21)


def _run(lib, n, x, kernel, seed=None, samples=None, second=True, **kw):
    if seed is not None:
        lib.manual_seed(seed)
    X = lib.tensor(x, requires_grad=True)
    extra = {} if samples is None else {"_random_samples": lib.tensor(samples)}
    fn = getattr(lib.nn.functional, f"fractional_max_pool{n}d")
    y, idx = fn(X, kernel, return_indices=True, **kw, **extra)
    w = lib.tensor(np.linspace(-1, 2, y.numel()).reshape(tuple(y.shape)).astype(x.dtype),
                   requires_grad=True)
    g, = lib.autograd.grad((y * w).sum(), X, create_graph=second)
    out = [y, idx, g, type(y.grad_fn).__name__]
    if second:
        out.append(type(g.grad_fn).__name__)
        out.extend(lib.autograd.grad((g * g).sum(), [w]))
    out.append(lib.rand(3))      # the generator moved on by the same draws
    return out


def _same(mine, theirs):
    for a, b in zip(mine, theirs):
        if isinstance(b, str):
            assert a == b
            continue
        assert str(a.dtype) == str(b.dtype)
        assert tuple(a.shape) == tuple(b.shape)
        np.testing.assert_array_equal(a.detach().numpy(), b.detach().numpy())


CASES_2D = [((2, 3, 7, 6), 2, {"output_size": (4, 3)}), ((3, 5, 5), (2, 1), {"output_size": 3}),
            ((1, 2, 9, 8), 3, {"output_ratio": (0.5, 0.6)}), ((2, 1, 6, 6), 2,
                                                              {"output_size": 5}),
            ((2, 2, 5, 4), 1, {"output_size": (5, 4)}), ((1, 1, 8, 8), (3, 2),
                                                         {"output_size": (1, 7)})]
CASES_3D = [((2, 2, 5, 6, 4), 2, {"output_size": (3, 2, 2)}),
            ((2, 5, 4, 6), (1, 2, 2), {"output_size": (3, 2, 4)}),
            ((1, 2, 8, 7, 9), 2, {"output_ratio": 0.5})]


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("n,shape,kernel,kw", [(2,) + c for c in CASES_2D] +
                         [(3,) + c for c in CASES_3D])
def test_seeded_windows_values_and_gradients(n, shape, kernel, kw, dtype):
    x = RNG.standard_normal(shape).astype(dtype)
    for seed in (0, 7, 12345):
        _same(_run(leafgrad, n, x, kernel, seed=seed, **kw),
              _run(torch, n, x, kernel, seed=seed, **kw))


@pytest.mark.parametrize("n,shape,kernel,kw", [(2,) + c for c in CASES_2D[:3]] +
                         [(3,) + c for c in CASES_3D[:2]])
def test_given_random_samples(n, shape, kernel, kw):
    x = RNG.standard_normal(shape)
    batch = shape[0] if len(shape) == n + 2 else 1
    for samples in (RNG.random((batch, shape[-n - 1], n)), np.zeros((batch, shape[-n - 1], n)),
                    np.full((batch + 1, shape[-n - 1], n), 0.999), RNG.random((batch, shape[-n - 1], n)) * 3):
        _same(_run(leafgrad, n, x, kernel, samples=samples, **kw),
              _run(torch, n, x, kernel, samples=samples, **kw))


@pytest.mark.parametrize("n", [2, 3])
def test_ties_nans_and_infinities(n):
    shape = (2, 3) + (6, 7, 5)[:n]
    x = np.round(RNG.standard_normal(shape))
    x.reshape(-1)[RNG.integers(0, x.size, 8)] = np.nan
    x.reshape(-1)[RNG.integers(0, x.size, 4)] = -np.inf
    size = (3, 4, 2)[:n]
    _same(_run(leafgrad, n, x, 2, seed=3, second=False, output_size=size),
          _run(torch, n, x, 2, seed=3, second=False, output_size=size))


def test_all_minus_infinity_window_picks_its_first_element():
    x = np.full((1, 1, 4, 4), -np.inf)
    _same(_run(leafgrad, 2, x, 2, seed=1, second=False, output_size=2),
          _run(torch, 2, x, 2, seed=1, second=False, output_size=2))


@pytest.mark.parametrize("cls,args,kw", [
    ("FractionalMaxPool2d", (3,), {"output_ratio": (0.5, 0.5)}),
    ("FractionalMaxPool2d", ((2, 3),), {"output_size": 4, "return_indices": True}),
    ("FractionalMaxPool3d", (2,), {"output_size": (3, 2, 3)}),
    ("FractionalMaxPool3d", (2,), {"output_ratio": 0.5, "return_indices": True})])
def test_modules(cls, args, kw):
    n = int(cls[-2])
    x = RNG.standard_normal((2, 3) + (9, 8, 7)[:n])
    outs = []
    for lib in (leafgrad, torch):
        lib.manual_seed(4)
        m = getattr(lib.nn, cls)(*args, **kw)
        out = m(lib.tensor(x))
        outs.append((repr(m), list(m.state_dict()), out if isinstance(out, tuple) else (out,),
                     m.kernel_size, m.output_size, m.output_ratio))
    assert outs[0][0] == outs[1][0]
    assert outs[0][1] == outs[1][1]
    assert outs[0][3:] == outs[1][3:]
    _same(outs[0][2], outs[1][2])


def test_module_with_fixed_samples_keeps_a_buffer():
    samples = RNG.random((2, 3, 2))
    x = RNG.standard_normal((2, 3, 8, 8))
    outs = []
    for lib in (leafgrad, torch):
        m = lib.nn.FractionalMaxPool2d(2, output_size=4, _random_samples=lib.tensor(samples))
        outs.append((list(m.state_dict()), m(lib.tensor(x)), m(lib.tensor(x))))
    assert outs[0][0] == outs[1][0] == ["_random_samples"]
    _same(outs[0][1:], outs[1][1:])


X4 = np.zeros((2, 3, 7, 6))
X5 = np.zeros((2, 3, 5, 6, 7))


def _call(n, x, kernel, samples=None, **kw):
    def call(lib):
        extra = {} if samples is None else {"_random_samples": lib.tensor(samples)}
        return lambda: getattr(lib.nn.functional, f"fractional_max_pool{n}d")(
            lib.tensor(x), kernel, **kw, **extra)
    return call(leafgrad), call(torch)


@pytest.mark.parametrize("n,x,kernel,samples,kw", [
    (2, X4, 2, None, {"output_ratio": 0.5}), (2, X4, 2, None, {}),
    (2, X4, (2, 2, 2), None, {"output_size": 3}), (2, X4, 2, None, {"output_size": (3, 3, 3)}),
    (2, X4, 2, None, {"output_ratio": (0.5, 0.5, 0.5)}), (2, X4[0, 0], 2, None,
                                                          {"output_size": 3}),
    (2, X4[:, :, :0], 2, None, {"output_size": 3}), (2, X4, 2, None, {"output_size": (7, 3)}),
    (2, X4, 2, None, {"output_size": (3, 6)}),
    (2, X4.astype(np.float32), 2, np.zeros((2, 3, 2)), {"output_size": 3}),
    (2, X4, 2, np.zeros((1, 3, 2)), {"output_size": 3}),
    (2, X4, 2, np.zeros((2, 3, 3)), {"output_size": 3}),
    (2, X4, 2, np.zeros((2, 2, 2)), {"output_size": 3}),
    (2, X4, 2, np.zeros((2, 3)), {"output_size": 3}),
    (2, X4.astype(np.int64), 2, np.zeros((2, 3, 2), np.int64), {"output_size": 3}),
    (2, X4[0, 0], 2, np.zeros((1, 7, 2)), {"output_size": 3}),
    (3, X5, 2, None, {}), (3, X5, (2, 2), None, {"output_size": 3}),
    (3, X5, 2, None, {"output_size": (3, 3)}), (3, X5[0, 0], 2, None, {"output_size": 3}),
    (3, X5, 2, None, {"output_size": (4, 3, 3)}), (3, X5, 2, None, {"output_size": (3, 5, 3)}),
    (3, X5, 2, None, {"output_size": (3, 3, 6)}),
    (3, X5[:, :, :0], 2, None, {"output_size": 3}),
    (3, X5, 2, np.zeros((2, 3, 2)), {"output_size": 3}),
    (3, X5, 2, np.zeros((1, 3, 3)), {"output_size": 3})])
def test_functional_errors(n, x, kernel, samples, kw):
    same_error(*_call(n, x, kernel, samples, **kw))


@pytest.mark.parametrize("cls,args,kw", [
    ("FractionalMaxPool2d", (2,), {}), ("FractionalMaxPool2d", (2,),
                                        {"output_size": 2, "output_ratio": 0.5}),
    ("FractionalMaxPool2d", (2,), {"output_ratio": 1.5}),
    ("FractionalMaxPool3d", (2,), {"output_ratio": (0.5, 0.5, 1)})])
def test_module_errors(cls, args, kw):
    same_error(lambda: getattr(leafgrad.nn, cls)(*args, **kw),
               lambda: getattr(torch.nn, cls)(*args, **kw))


def test_random_samples_cannot_require_grad():
    x = np.zeros((1, 2, 6, 6))
    same_error(lambda: leafgrad.nn.functional.fractional_max_pool2d(
        leafgrad.tensor(x), 2, output_size=3,
        _random_samples=leafgrad.rand(1, 2, 2, dtype=leafgrad.float64, requires_grad=True)),
        lambda: torch.nn.functional.fractional_max_pool2d(
        torch.tensor(x), 2, output_size=3,
        _random_samples=torch.rand(1, 2, 2, dtype=torch.float64, requires_grad=True)))
