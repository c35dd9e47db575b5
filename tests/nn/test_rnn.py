"""nn.RNN / nn.LSTM / nn.GRU against PyTorch: same weights in both, then outputs, final
states, input/initial-state gradients and every parameter gradient compared in float64 and
float32; parameter names, state dicts both ways, default init, dropout, reprs and errors."""
from __future__ import annotations

import itertools
import math
import warnings

import numpy as np
import pytest
import torch
from nn_helpers import same_error
from seq_oracle import build_pair, compare_call

import leafgrad

DTYPES = ["float64", "float32"]
KINDS = ["RNN", "RNN_relu", "LSTM", "GRU"]


def make(lib, kind, *args, **kwargs):
    if kind == "RNN_relu":
        return lib.nn.RNN(*args, nonlinearity="relu", **kwargs)
    return getattr(lib.nn, kind)(*args, **kwargs)


def data(shape, dtype, seed=0):
    return np.random.default_rng(seed).standard_normal(shape).astype(dtype)


CONFIGS = list(itertools.product([1, 2], [True, False], [False, True], [False, True]))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("num_layers,bias,batch_first,bidirectional", CONFIGS)
def test_layer_matches_torch(kind, num_layers, bias, batch_first, bidirectional, dtype):
    mine, theirs = build_pair(lambda lib: make(lib, kind, 3, 4, num_layers, bias=bias,
                                               batch_first=batch_first,
                                               bidirectional=bidirectional), dtype)
    shape = (2, 5, 3) if batch_first else (5, 2, 3)
    compare_call(mine, theirs, [data(shape, dtype)], dtype=dtype)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("bidirectional", [False, True])
def test_initial_state_gets_gradients(kind, bidirectional, dtype):
    d = 2 if bidirectional else 1
    mine, theirs = build_pair(lambda lib: make(lib, kind, 3, 4, 2,
                                               bidirectional=bidirectional), dtype)
    x = data((6, 3, 3), dtype)
    h0 = data((2 * d, 3, 4), dtype, seed=1)
    hx = (h0, data((2 * d, 3, 4), dtype, seed=2)) if kind == "LSTM" else h0
    compare_call(mine, theirs, [x, hx], dtype=dtype)


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("batch_first", [False, True])
@pytest.mark.parametrize("with_state", [False, True])
def test_unbatched_input(kind, batch_first, with_state):
    mine, theirs = build_pair(lambda lib: make(lib, kind, 3, 4, 2, batch_first=batch_first,
                                               bidirectional=True), "float64")
    args = [data((5, 3), "float64")]
    if with_state:
        h0 = data((4, 4), "float64", seed=1)
        args.append((h0, data((4, 4), "float64", seed=2)) if kind == "LSTM" else h0)
    compare_call(mine, theirs, args)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("bidirectional", [False, True])
def test_lstm_projection(bidirectional, dtype):
    mine, theirs = build_pair(lambda lib: lib.nn.LSTM(3, 5, 2, proj_size=2,
                                                      bidirectional=bidirectional), dtype)
    d = 2 if bidirectional else 1
    x = data((4, 2, 3), dtype)
    compare_call(mine, theirs, [x], dtype=dtype)
    hx = (data((2 * d, 2, 2), dtype, 1), data((2 * d, 2, 5), dtype, 2))
    compare_call(mine, theirs, [x, hx], dtype=dtype)


def test_long_sequence_float32():
    mine, theirs = build_pair(lambda lib: lib.nn.LSTM(8, 16, 2, batch_first=True), "float32")
    compare_call(mine, theirs, [data((4, 50, 8), "float32")], dtype="float32", atol=1e-4)


@pytest.mark.parametrize("kind", KINDS)
def test_dropout_between_layers(kind):
    # p=1 in training zeroes the second layer's input: deterministic, so comparable.
    mine, theirs = build_pair(lambda lib: make(lib, kind, 3, 4, 2, dropout=1.0), "float64")
    compare_call(mine, theirs, [data((5, 2, 3), "float64")])
    # eval mode: no dropout whatever p says
    mine, theirs = build_pair(lambda lib: make(lib, kind, 3, 4, 3, dropout=0.5), "float64")
    mine.eval()
    theirs.eval()
    compare_call(mine, theirs, [data((5, 2, 3), "float64")])
    # training with 0 < p < 1: some of the inner activations are dropped
    mine.train()
    x = leafgrad.tensor(data((5, 2, 3), "float64"))
    out_train = mine(x)[0]
    out_eval = mine.eval()(x)[0]
    assert out_train.shape == out_eval.shape
    assert not np.allclose(out_train.detach().numpy(), out_eval.detach().numpy())


@pytest.mark.parametrize("kind", KINDS + ["LSTM_proj"])
@pytest.mark.parametrize("bias", [True, False])
def test_parameter_names_and_state_dict_both_ways(kind, bias):
    def build(lib):
        if kind == "LSTM_proj":
            return lib.nn.LSTM(3, 5, 2, bias=bias, proj_size=2, bidirectional=True)
        return make(lib, kind, 3, 4, 2, bias=bias, bidirectional=True)
    mine, theirs = build(leafgrad), build(torch)
    names_m = [(n, tuple(p.shape)) for n, p in mine.named_parameters()]
    names_t = [(n, tuple(p.shape)) for n, p in theirs.named_parameters()]
    assert names_m == names_t
    # leafgrad -> torch
    theirs.load_state_dict({k: torch.tensor(v.numpy()) for k, v in mine.state_dict().items()})
    for (n, p), (_, q) in zip(mine.named_parameters(), theirs.named_parameters()):
        np.testing.assert_array_equal(p.detach().numpy(), q.detach().numpy(), err_msg=n)
    assert [[p.shape for p in ws] for ws in mine.all_weights] == \
        [[p.shape for p in ws] for ws in theirs.all_weights]
    assert mine._flat_weights_names == theirs._flat_weights_names


@pytest.mark.parametrize("kind", KINDS + ["LSTMCell", "GRUCell", "RNNCell"])
def test_default_init_is_uniform_in_bound(kind):
    leafgrad.manual_seed(0)   # a fixed draw; the thresholds below hold for almost every draw
    hidden = 16
    mod = make(leafgrad, kind, 7, hidden) if "Cell" not in kind else \
        getattr(leafgrad.nn, kind)(7, hidden)
    ref = make(torch, kind, 7, hidden) if "Cell" not in kind else getattr(torch.nn, kind)(7,
                                                                                        hidden)
    bound = 1 / math.sqrt(hidden)
    for (name, p), (_, q) in zip(mod.named_parameters(), ref.named_parameters()):
        values = p.detach().numpy()
        assert values.dtype == np.float32 and p.dtype == leafgrad.float32
        assert values.shape == tuple(q.shape), name
        assert np.abs(values).max() <= bound
        # spread like torch's draw: the extremes come close to the bound (a bias has only 16
        # values: P(all below half the bound) = 2**-16)
        assert np.abs(values).max() > 0.5 * bound and values.std() > 0.35 * bound


REPRS = [
    lambda nn: nn.LSTM(3, 4), lambda nn: nn.LSTM(3, 4, proj_size=2, num_layers=2),
    lambda nn: nn.GRU(3, 4, 2, bias=False, batch_first=True, dropout=0.25,
                      bidirectional=True),
    lambda nn: nn.RNN(3, 4, nonlinearity="relu"), lambda nn: nn.RNNCell(3, 4),
    lambda nn: nn.RNNCell(3, 4, bias=False, nonlinearity="relu"), lambda nn: nn.LSTMCell(3, 4),
    lambda nn: nn.GRUCell(3, 4, bias=False),
]


@pytest.mark.parametrize("build", REPRS)
def test_repr(build):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert repr(build(leafgrad.nn)) == repr(build(torch.nn))


def test_dropout_single_layer_warns_like_torch():
    with warnings.catch_warnings(record=True) as got_t:
        warnings.simplefilter("always")
        torch.nn.LSTM(3, 4, dropout=0.5)
    with warnings.catch_warnings(record=True) as got_m:
        warnings.simplefilter("always")
        leafgrad.nn.LSTM(3, 4, dropout=0.5)
    assert [str(w.message) for w in got_m] == [str(w.message) for w in got_t]
    assert [w.category for w in got_m] == [w.category for w in got_t]


CTOR_ERRORS = [
    lambda nn: nn.LSTM(3, 4, dropout=1.5), lambda nn: nn.LSTM(3, 4, dropout=True),
    lambda nn: nn.GRU(3, 4, bias=1), lambda nn: nn.GRU(3, 4, batch_first=None),
    lambda nn: nn.RNN(3.0, 4), lambda nn: nn.RNN(0, 4), lambda nn: nn.RNN(3, 4.5),
    lambda nn: nn.RNN(3, 0), lambda nn: nn.RNN(3, 4, 0), lambda nn: nn.LSTM(3, 4, proj_size=-1),
    lambda nn: nn.LSTM(3, 4, proj_size=4), lambda nn: nn.GRU(3, 4, proj_size=2),
    lambda nn: nn.RNN(3, 4, proj_size=2), lambda nn: nn.RNN(3, 4, nonlinearity="sigmoid"),
    lambda nn: nn.RNN(3, 4, 1, "gelu"),
]


@pytest.mark.parametrize("build", CTOR_ERRORS)
def test_constructor_errors(build):
    same_error(lambda: build(leafgrad.nn), lambda: build(torch.nn))


def _forward_error(kind, x_shape, hx_shapes=None, x_dtype="float32", **kw):
    def run(lib):
        torch_like = lib
        mod = make(torch_like, kind, 3, 4, **kw)
        x = lib.tensor(np.zeros(x_shape, dtype=x_dtype))
        if hx_shapes is None:
            return mod(x)
        hx = tuple(lib.zeros(*s) for s in hx_shapes)
        return mod(x, hx if kind == "LSTM" else hx[0])
    return run


FORWARD_ERRORS = [
    ("RNN", (2, 3, 4, 3)), ("LSTM", (3,)), ("GRU", (2, 3, 3, 3)),
    ("RNN", (5, 2, 4)), ("LSTM", (5, 2, 5)),
    ("RNN", (5, 2, 3), [(1, 3, 4)]), ("GRU", (5, 2, 3), [(2, 2, 4)]),
    ("GRU", (5, 2, 3), [(2, 4)]), ("RNN", (5, 3), [(1, 2, 4)]),
    ("LSTM", (5, 2, 3), [(1, 3, 4), (1, 2, 4)]), ("LSTM", (5, 2, 3), [(1, 2, 4), (1, 2, 5)]),
    ("LSTM", (5, 2, 3), [(2, 4), (1, 2, 4)]), ("LSTM", (5, 3), [(1, 1, 4), (1, 4)]),
    ("LSTM", (5, 2, 3), None, "float64"),
]


@pytest.mark.parametrize("case", FORWARD_ERRORS)
def test_forward_errors(case):
    run = _forward_error(*case)
    same_error(lambda: run(leafgrad), lambda: run(torch))


# -- cells ------------------------------------------------------------------------------
CELLS = [("RNNCell", {}), ("RNNCell", {"nonlinearity": "relu"}), ("RNNCell", {"bias": False}),
         ("LSTMCell", {}), ("LSTMCell", {"bias": False}), ("GRUCell", {}),
         ("GRUCell", {"bias": False})]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name,kw", CELLS)
@pytest.mark.parametrize("batched", [True, False])
@pytest.mark.parametrize("with_state", [True, False])
def test_cells_match_torch(name, kw, batched, with_state, dtype):
    mine, theirs = build_pair(lambda lib: getattr(lib.nn, name)(3, 4, **kw), dtype)
    x = data((2, 3) if batched else (3,), dtype)
    args = [x]
    if with_state:
        shape = (2, 4) if batched else (4,)
        h = data(shape, dtype, 1)
        args.append((h, data(shape, dtype, 2)) if name == "LSTMCell" else h)
    compare_call(mine, theirs, args, dtype=dtype)


def test_cell_loop_matches_layer():
    # An LSTMCell unrolled by hand gives the LSTM layer's result with the same weights.
    cell = leafgrad.nn.LSTMCell(3, 4)
    layer = leafgrad.nn.LSTM(3, 4)
    layer.load_state_dict({f"{k}_l0": v for k, v in cell.state_dict().items()})
    x = leafgrad.tensor(data((6, 2, 3), "float32"))
    h = c = leafgrad.zeros(2, 4)
    outs = []
    for t in range(6):
        h, c = cell(x[t], (h, c))
        outs.append(h)
    out, (_, c_n) = layer(x)
    np.testing.assert_allclose(leafgrad.stack(outs).detach().numpy(), out.detach().numpy(),
                               atol=1e-6)
    np.testing.assert_allclose(c.detach().numpy(), c_n[0].detach().numpy(), atol=1e-6)


CELL_ERRORS = [
    ("RNNCell", (2, 5), None), ("RNNCell", (2, 3), [(3, 4)]), ("RNNCell", (2, 3), [(2, 5)]),
    ("LSTMCell", (2, 3), [(2, 4), (3, 4)]), ("LSTMCell", (2, 3), [(2, 4), (2, 5)]),
    ("GRUCell", (3,), [(2, 4)]), ("GRUCell", (2, 2, 3), None), ("RNNCell", (2, 3), [(1, 2, 4)]),
    ("LSTMCell", (2, 3), [(2, 4), (1, 2, 4)]), ("LSTMCell", (1, 2, 3), None),
    ("GRUCell", (2, 3), [(1, 2, 4)]),
]


@pytest.mark.parametrize("name,x_shape,hx_shapes", CELL_ERRORS)
def test_cell_errors(name, x_shape, hx_shapes):
    def run(lib):
        cell = getattr(lib.nn, name)(3, 4)
        x = lib.zeros(*x_shape)
        if hx_shapes is None:
            return cell(x)
        hx = tuple(lib.zeros(*s) for s in hx_shapes)
        return cell(x, hx if name == "LSTMCell" else hx[0])
    same_error(lambda: run(leafgrad), lambda: run(torch))


# -- Bilinear -----------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("bias", [True, False])
@pytest.mark.parametrize("batch", [(4,), (2, 3), ()])
def test_bilinear(bias, batch, dtype):
    mine, theirs = build_pair(lambda lib: lib.nn.Bilinear(3, 5, 2, bias=bias), dtype)
    compare_call(mine, theirs, [data(batch + (3,), dtype), data(batch + (5,), dtype, 1)],
                 dtype=dtype)


def test_bilinear_init_and_repr():
    mine, theirs = leafgrad.nn.Bilinear(9, 5, 4), torch.nn.Bilinear(9, 5, 4)
    assert repr(mine) == repr(theirs)
    assert repr(leafgrad.nn.Bilinear(2, 3, 4, bias=False)) == repr(torch.nn.Bilinear(2, 3, 4,
                                                                                     bias=False))
    bound = 1 / 3.0
    for (n, p), (_, q) in zip(mine.named_parameters(), theirs.named_parameters()):
        assert tuple(p.shape) == tuple(q.shape), n
        assert np.abs(p.detach().numpy()).max() <= bound
        assert np.abs(p.detach().numpy()).max() > 0.5 * bound


def _double_backward(mine, theirs, x):
    xt = torch.tensor(x, requires_grad=True)
    xm = leafgrad.tensor(x.copy(), requires_grad=True)
    gt, = torch.autograd.grad((theirs(xt)[0] ** 2).sum(), xt, create_graph=True)
    gm, = leafgrad.autograd.grad((mine(xm)[0] ** 2).sum(), xm, create_graph=True)
    (gt ** 2).sum().backward()
    (gm ** 2).sum().backward()
    np.testing.assert_allclose(xm.grad.numpy(), xt.grad.numpy(), atol=1e-12, rtol=1e-10)
    mine_params = dict(mine.named_parameters())
    for name, p in theirs.named_parameters():
        np.testing.assert_allclose(mine_params[name].grad.numpy(), p.grad.numpy(),
                                   atol=1e-12, rtol=1e-10, err_msg=name)


@pytest.mark.parametrize("kind", KINDS)
def test_double_backward(kind):
    mine, theirs = build_pair(lambda lib: make(lib, kind, 3, 4, 2, bidirectional=True),
                              "float64")
    _double_backward(mine, theirs, data((4, 2, 3), "float64"))
