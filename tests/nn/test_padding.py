"""F.pad modes 'reflect', 'replicate', 'circular' and the nn padding layers against PyTorch 2.13:
values, grad_fn names, first and second derivatives (float64 and float32), reprs, errors."""
from __future__ import annotations

import numpy as np
import pytest
import torch
from tests.nn.layer_oracle import check, same_error

import leafgrad

rng = np.random.default_rng(77)


def arr(*shape):
    return rng.standard_normal(shape)


CASES = [
    ((2, 3, 5), [2, 1]),
    ((3, 5), [0, 4]),
    ((3, 6), [-2, 3]),
    ((2, 3, 4, 5), [1, 2, 3, 0]),
    ((2, 4, 4), [-1, 2, 1, 3]),
    ((1, 2, 3, 4, 4), [1, 2, 2, 0, 1, 1]),
    ((2, 4, 3, 3), [2, -1, 1, 2, 2, 1]),
    ((2, 3, 4, 5), [1, 1, 1, 1, 1, 1]),   # a 4-d input padded in 3 dims: unbatched
]


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("mode", ["reflect", "replicate", "circular"])
@pytest.mark.parametrize("case", CASES, ids=[str(i) for i in range(len(CASES))])
def test_pad_modes(case, mode, dtype):
    shape, pads = case
    check("pad", (arr(*shape), pads), {"mode": mode}, dtype=dtype, second=dtype == "float64")


@pytest.mark.parametrize("mode", ["reflect", "replicate", "circular"])
def test_pad_modes_integer_input(mode):
    x = rng.integers(-5, 5, (2, 3, 4))
    mine = leafgrad.nn.functional.pad(leafgrad.tensor(x), [2, 1], mode=mode)
    theirs = torch.nn.functional.pad(torch.tensor(x), [2, 1], mode=mode)
    assert str(mine.dtype) == str(theirs.dtype)
    np.testing.assert_array_equal(mine.numpy(), theirs.numpy())


def test_circular_graph_is_slice_copies():
    x = leafgrad.ones(2, 3, requires_grad=True)
    xt = torch.ones(2, 3, requires_grad=True)
    y, yt = (F.pad(v, [1, 2], mode="circular") for F, v in
             ((leafgrad.nn.functional, x), (torch.nn.functional, xt)))
    names = [type(f).__name__ for f, _ in y.grad_fn.next_functions]
    assert names == [type(f).__name__ for f, _ in yt.grad_fn.next_functions]


PAD_ERRORS = [
    ((2, 3, 4, 5), [1, 1, 1], {"mode": "reflect"}),
    ((2, 3, 4, 5), [1] * 8, {"mode": "reflect"}),
    ((3, 4), [1, 1, 1, 1], {"mode": "replicate"}),
    ((4,), [1, 1], {"mode": "circular"}),
    ((2, 3, 4, 5), [1, 1], {"mode": "reflect"}),
    ((2, 3, 4, 5), [1, 1, 4, 1], {"mode": "reflect"}),
    ((2, 3, 4), [4, 1], {"mode": "reflect"}),
    ((3, 4), [1, 4], {"mode": "reflect"}),
    ((1, 2, 3, 4), [1, 1, 1, 1, 3, 1], {"mode": "reflect"}),
    ((1, 2, 3, 4), [1, 5, 1, 1, 1, 1], {"mode": "reflect"}),
    ((2, 3, 4), [-3, -2], {"mode": "reflect"}),
    ((2, 3, 4), [-3, -2], {"mode": "replicate"}),
    ((1, 2, 3, 4), [-3, -2, 0, 0], {"mode": "replicate"}),
    ((1, 2, 3, 4), [0, 0, -3, -2, 0, 0], {"mode": "replicate"}),
    ((2, 3, 4), [5, 1], {"mode": "circular"}),
    ((1, 2, 3, 4), [1, 1, 4, 1], {"mode": "circular"}),
    ((1, 2, 3, 4), [0, 0, -4, 0], {"mode": "circular"}),
    ((2, 0, 4), [1, 1], {"mode": "replicate"}),
    ((2, 3, 0), [1, 1], {"mode": "reflect"}),
    ((1, 2, 3, 0), [1, 1, 1, 1], {"mode": "reflect"}),
    ((2, 3), [1, 1], {"mode": "reflect", "value": 1.0}),
    ((2, 3), [1, 1], {"mode": "circular", "value": 2}),
    ((2, 3), [1, 1, 1], {"mode": "reflect", "value": 1.0}),
    ((2, 3), [1, 1], {"mode": "foo"}),
    ((2, 3), [1, 1, 1], {"mode": "foo"}),
]


@pytest.mark.parametrize("shape,pads,kw", PAD_ERRORS)
def test_pad_errors_match_torch(shape, pads, kw):
    same_error(lambda: leafgrad.nn.functional.pad(leafgrad.ones(shape), pads, **kw),
               lambda: torch.nn.functional.pad(torch.ones(shape), pads, **kw))


def test_pad_bool_errors_and_circular_bool():
    x = np.array([[True, False, True]])
    same_error(lambda: leafgrad.nn.functional.pad(leafgrad.tensor(x), [1, 1], mode="reflect"),
               lambda: torch.nn.functional.pad(torch.tensor(x), [1, 1], mode="reflect"))
    mine = leafgrad.nn.functional.pad(leafgrad.tensor(x), [1, 1], mode="circular")
    theirs = torch.nn.functional.pad(torch.tensor(x), [1, 1], mode="circular")
    np.testing.assert_array_equal(mine.numpy(), theirs.numpy())


def test_pad_value_zero_is_accepted():
    x = arr(2, 3)
    mine = leafgrad.nn.functional.pad(leafgrad.tensor(x), [1, 1], mode="reflect", value=0)
    theirs = torch.nn.functional.pad(torch.tensor(x), [1, 1], mode="reflect", value=0)
    np.testing.assert_array_equal(mine.numpy(), theirs.numpy())


LAYERS = [(kind + f"Pad{n}d", n) for kind in ("Reflection", "Replication", "Circular", "Zero",
                                               "Constant") for n in (1, 2, 3)]


@pytest.mark.parametrize("name,n", LAYERS, ids=[c for c, _ in LAYERS])
@pytest.mark.parametrize("padding", ["int", "tuple"])
def test_padding_layers(name, n, padding):
    pads = 2 if padding == "int" else tuple(range(1, 2 * n + 1))
    args = (pads, 1.5) if name.startswith("Constant") else (pads,)
    mine, theirs = getattr(leafgrad.nn, name)(*args), getattr(torch.nn, name)(*args)
    assert repr(mine) == repr(theirs)
    assert mine.padding == theirs.padding
    x = arr(*((2, 3) + (7,) * n))
    xm = leafgrad.tensor(x, requires_grad=True)
    xt = torch.tensor(x, requires_grad=True)
    out_m, out_t = mine(xm), theirs(xt)
    np.testing.assert_allclose(out_m.detach().numpy(), out_t.detach().numpy(), rtol=1e-12)
    assert type(out_m.grad_fn).__name__ == type(out_t.grad_fn).__name__
    cot = arr(*out_t.shape)
    out_m.backward(leafgrad.tensor(cot))
    out_t.backward(torch.tensor(cot))
    np.testing.assert_allclose(xm.grad.numpy(), xt.grad.numpy(), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("n", [1, 2, 3])
def test_circular_layer_dim_error(n):
    same_error(lambda: getattr(leafgrad.nn, f"CircularPad{n}d")(1)(leafgrad.ones(3)),
               lambda: getattr(torch.nn, f"CircularPad{n}d")(1)(torch.ones(3)))
