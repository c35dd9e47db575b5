"""nn.utils.rnn (PackedSequence, pack/pad/unpack helpers) and RNN/LSTM/GRU over packed input,
against PyTorch with the same weights: values, batch sizes, permutations, grad_fn names,
input/parameter/initial-state gradients (float64 and float32), and PyTorch's errors."""
from __future__ import annotations

import numpy as np
import pytest
import torch
import torch.nn.utils.rnn as t_rnn
from nn_helpers import assert_close, tol
from seq_oracle import build_pair, compare_call

import leafgrad
import leafgrad.nn.utils.rnn as l_rnn

DTYPES = ["float64", "float32"]


def rnn_of(lib):
    return l_rnn if lib is leafgrad else t_rnn


def data(shape, dtype="float64", seed=0):
    return np.random.default_rng(seed).standard_normal(shape).astype(dtype)


def both(fn):
    """``fn(lib, rnn_module)`` for both libraries -> (leafgrad result, torch result)."""
    return fn(leafgrad, l_rnn), fn(torch, t_rnn)


def compare_values(mine, theirs, t, where="value"):
    if isinstance(theirs, (tuple, list)):
        assert type(mine).__name__ == type(theirs).__name__, where
        assert len(mine) == len(theirs), where
        for i, (a, b) in enumerate(zip(mine, theirs)):
            compare_values(a, b, t, f"{where}[{i}]")
    elif theirs is None:
        assert mine is None, where
    else:
        assert_close(mine, theirs, what=where, **t)
        theirs_fn = type(theirs.grad_fn).__name__ if theirs.grad_fn is not None else None
        mine_fn = type(mine.grad_fn).__name__ if mine.grad_fn is not None else None
        assert mine_fn == theirs_fn, f"{where}: grad_fn {mine_fn} vs {theirs_fn}"


def same_error(fn):
    errors = []
    for lib, mod in ((leafgrad, l_rnn), (torch, t_rnn)):
        try:
            fn(lib, mod)
            errors.append(None)
        except Exception as e:  # noqa: BLE001  the error is what is compared
            errors.append((type(e).__name__, str(e)))
    assert errors[0] == errors[1]
    assert errors[1] is not None


# -- the helpers ------------------------------------------------------------------------------
LENGTHS = [[5, 3, 3, 1], [3, 5, 1, 3], [2, 2, 2, 2], [5, 5, 1, 4]]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("batch_first", [False, True])
@pytest.mark.parametrize("lengths", LENGTHS)
def test_pack_then_pad_round_trip_with_gradients(lengths, batch_first, dtype):
    shape = (4, 6, 2) if batch_first else (6, 4, 2)
    x = data(shape, dtype)
    cot = data(shape, dtype, seed=3)
    enforce = lengths == sorted(lengths, reverse=True)

    def run(lib, mod):
        xt = lib.tensor(x.copy(), requires_grad=True)
        packed = mod.pack_padded_sequence(xt, lib.tensor(lengths), batch_first=batch_first,
                                          enforce_sorted=enforce)
        padded, lens = mod.pad_packed_sequence(packed, batch_first=batch_first,
                                               padding_value=-2.0, total_length=6)
        (padded * lib.tensor(cot)).sum().backward()
        return packed, padded, lens, xt.grad

    compare_values(*both(run), tol(dtype))


@pytest.mark.parametrize("dtype", DTYPES)
def test_packed_data_double_backward(dtype):
    x = data((3, 2), dtype)

    def run(lib, mod):
        xt = lib.tensor(x.copy(), requires_grad=True)
        packed = mod.pack_padded_sequence(xt, [3, 1])
        (g,) = lib.autograd.grad((packed.data ** 3).sum(), xt, create_graph=True)
        g.sum().backward()
        return g.detach(), xt.grad

    compare_values(*both(run), tol(dtype))


@pytest.mark.parametrize("padding_side", ["right", "left"])
@pytest.mark.parametrize("batch_first", [False, True])
def test_pad_sequence_and_pack_sequence(batch_first, padding_side):
    seqs = [data((n, 3), seed=n) for n in (2, 4, 3)]

    def run(lib, mod):
        ts = [lib.tensor(s.copy(), requires_grad=True) for s in seqs]
        padded = mod.pad_sequence(ts, batch_first=batch_first, padding_value=0.5,
                                  padding_side=padding_side)
        (padded * padded).sum().backward()
        packed = mod.pack_sequence([t.detach() for t in ts], enforce_sorted=False)
        return padded, [t.grad for t in ts], packed, mod.unpack_sequence(packed)

    compare_values(*both(run), tol("float64"))


def test_unpad_sequence_and_invert_permutation():
    def run(lib, mod):
        padded = lib.tensor(data((5, 3, 2)), requires_grad=True) * 1
        lengths = lib.tensor([5, 2, 3])
        pieces = mod.unpad_sequence(padded, lengths)
        return pieces, tuple(padded.shape), mod.invert_permutation(lib.tensor([2, 0, 3, 1]))

    (m, m_shape, m_inv), (t, t_shape, t_inv) = both(run)
    compare_values(m, t, tol("float64"))
    assert m_shape == t_shape   # transposed in place, as in PyTorch
    compare_values(m_inv, t_inv, tol("float64"))


def test_packed_sequence_object():
    def run(lib, mod):
        packed = mod.pack_sequence([lib.ones(3), lib.ones(1)])
        return (repr(packed), packed.to(lib.float64).data.dtype, packed.float() is packed,
                packed.is_cuda, packed.is_pinned(), packed.sorted_indices,
                type(packed).__name__, packed._fields)

    mine, theirs = both(run)
    assert str(mine[1]) == str(theirs[1])
    assert mine[0] == theirs[0]
    assert mine[2:] == theirs[2:]


ERRORS = {
    "length count": lambda lib, mod: mod.pack_padded_sequence(lib.ones(4, 3, 2), [4, 2]),
    "zero length": lambda lib, mod: mod.pack_padded_sequence(lib.ones(4, 3, 2), [4, 2, 0]),
    "unsorted": lambda lib, mod: mod.pack_padded_sequence(lib.ones(4, 3, 2), [2, 4, 1]),
    "negative unsorted": lambda lib, mod: mod.pack_padded_sequence(
        lib.ones(4, 3, 2), [3, 3, -1], enforce_sorted=False),
    "2-D lengths": lambda lib, mod: mod.pack_padded_sequence(lib.ones(4, 3, 2),
                                                             lib.tensor([[4, 2, 1]])),
    "batch_first count": lambda lib, mod: mod.pack_padded_sequence(lib.ones(4, 3, 2), [3, 2, 1],
                                                                   batch_first=True),
    "empty list": lambda lib, mod: mod.pad_sequence([]),
    "padding side": lambda lib, mod: mod.pad_sequence([lib.ones(2)], padding_side="middle"),
    "total_length": lambda lib, mod: mod.pad_packed_sequence(
        mod.pack_padded_sequence(lib.ones(4, 3, 2), [4, 2, 1]), total_length=3),
}


@pytest.mark.parametrize("case", sorted(ERRORS))
def test_errors(case):
    same_error(ERRORS[case])


# -- recurrent layers over packed input ---------------------------------------------------------
def packed_call(lengths, enforce_sorted, batch_first=False):
    def call(module, x, *state):
        mod = t_rnn if isinstance(module, torch.nn.Module) else l_rnn
        packed = mod.pack_padded_sequence(x, lengths, batch_first=batch_first,
                                          enforce_sorted=enforce_sorted)
        if not state:
            return module(packed)
        return module(packed, state[0] if len(state) == 1 else tuple(state))
    return call


def make(lib, kind, *args, **kw):
    return getattr(lib.nn, kind)(*args, **kw)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("bidirectional", [False, True])
@pytest.mark.parametrize("num_layers", [1, 2])
@pytest.mark.parametrize("kind", ["RNN", "LSTM", "GRU"])
def test_layers_on_packed_input(kind, num_layers, bidirectional, dtype):
    mine, theirs = build_pair(lambda lib: make(lib, kind, 3, 4, num_layers,
                                               bidirectional=bidirectional), dtype)
    x = data((5, 4, 3), dtype)
    compare_call(mine, theirs, [x], dtype=dtype, call=packed_call([5, 3, 3, 1], True))
    compare_call(mine, theirs, [x], dtype=dtype, call=packed_call([2, 5, 1, 4], False))


@pytest.mark.parametrize("kind", ["RNN", "LSTM", "GRU"])
@pytest.mark.parametrize("bidirectional", [False, True])
def test_initial_state_is_permuted_and_gets_gradients(kind, bidirectional):
    mine, theirs = build_pair(lambda lib: make(lib, kind, 3, 4, 2, batch_first=True,
                                               bidirectional=bidirectional), "float64")
    x = data((4, 5, 3))
    layers = 2 * (2 if bidirectional else 1)
    state = [data((layers, 4, 4), seed=s) for s in (7, 8)][:2 if kind == "LSTM" else 1]
    compare_call(mine, theirs, [x, *state],
                 call=packed_call([2, 5, 1, 4], False, batch_first=True))


def test_lstm_projection_and_nonlinearity_relu_packed():
    mine, theirs = build_pair(lambda lib: lib.nn.LSTM(3, 5, 2, proj_size=2,
                                                      bidirectional=True), "float64")
    compare_call(mine, theirs, [data((4, 3, 3))], call=packed_call([4, 4, 2], True))
    mine, theirs = build_pair(lambda lib: lib.nn.RNN(3, 4, nonlinearity="relu"), "float64")
    compare_call(mine, theirs, [data((4, 3, 3))], call=packed_call([1, 4, 2], False))


def test_packed_round_trip_through_lstm_matches_padded_outputs_and_grad_fns():
    def run(lib, mod):
        lstm = lib.nn.LSTM(2, 3).double()
        lstm.load_state_dict({k: lib.tensor(data(tuple(v.shape), seed=i))
                              for i, (k, v) in enumerate(lstm.state_dict().items())})
        x = lib.tensor(data((4, 3, 2)), requires_grad=True)
        out, (h, c) = lstm(mod.pack_padded_sequence(x, [2, 4, 1], enforce_sorted=False))
        padded, lengths = mod.pad_packed_sequence(out, batch_first=True)
        return out, padded, lengths, h, c

    compare_values(*both(run), tol("float64"))


def test_packed_hidden_size_error():
    def run(lib, mod):
        packed = mod.pack_padded_sequence(lib.ones(4, 3, 2), [4, 2, 1])
        lib.nn.GRU(2, 3)(packed, lib.zeros(1, 2, 3))
    same_error(run)

    def run2(lib, mod):
        packed = mod.pack_padded_sequence(lib.ones(4, 3, 2), [4, 2, 1])
        lib.nn.RNN(3, 3)(packed)
    same_error(run2)


@pytest.mark.parametrize("kind", ["RNN", "LSTM", "GRU"])
def test_packed_without_bias_in_train_mode_and_batch_first_flag(kind):
    # batch_first only concerns padded tensors: packed data is the same either way
    mine, theirs = build_pair(lambda lib: make(lib, kind, 3, 4, 2, bias=False,
                                               batch_first=True, dropout=0.0), "float64")
    mine.train()
    theirs.train()
    compare_call(mine, theirs, [data((3, 5, 3))],
                 call=packed_call([4, 5, 2], False, batch_first=True))


def test_packed_dropout_between_layers_is_random_in_training():
    lstm = leafgrad.nn.LSTM(3, 4, 2, dropout=0.5).double()
    packed = l_rnn.pack_padded_sequence(leafgrad.tensor(data((5, 2, 3))), [5, 3])
    out_a = lstm(packed)[0].data
    out_b = lstm(packed)[0].data
    lstm.eval()
    out_c = lstm(packed)[0].data
    out_d = lstm(packed)[0].data
    assert not np.allclose(out_a.detach().numpy(), out_b.detach().numpy())
    np.testing.assert_array_equal(out_c.detach().numpy(), out_d.detach().numpy())


def test_full_backward_hook_on_lstm_with_packed_input():
    # a module whose output is (PackedSequence, (h, c)): no tensor at the top level, so
    # PyTorch attaches no output hook and the full backward hook never fires
    def run(lib, mod):
        lstm = lib.nn.LSTM(2, 3)
        calls = []
        lstm.register_full_backward_hook(lambda m, gi, go: calls.append(len(gi)))
        x = lib.ones(3, 2, 2, requires_grad=True)
        out, _ = lstm(mod.pack_padded_sequence(x, [3, 1]))
        out.data.sum().backward()
        return calls
    mine, theirs = both(run)
    assert mine == theirs
