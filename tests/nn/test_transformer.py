"""nn.TransformerEncoderLayer and nn.TransformerEncoder against PyTorch with the same
weights: eval-mode outputs and all gradients (float64, float32), masks, norm_first,
activations, the nested-tensor inference path, train-mode dropout, names, reprs, warnings."""
from __future__ import annotations

import warnings

import numpy as np
import pytest
import torch
from nn_helpers import assert_close, copy_weights, same_error
from seq_oracle import compare_call

import leafgrad

DTYPES = ["float64", "float32"]


def data(shape, dtype="float64", seed=0):
    return np.random.default_rng(seed).standard_normal(shape).astype(dtype)


def quiet(fn):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn()


def pair(build, dtype="float64", train=False):
    mine, theirs = quiet(lambda: build(leafgrad)), quiet(lambda: build(torch))
    if dtype == "float64":
        mine.double()
        theirs.double()
    copy_weights(mine, theirs)
    if not train:
        mine.eval()
        theirs.eval()
    return mine, theirs


def layer(lib, batch_first=False, **kw):
    kw.setdefault("dim_feedforward", 16)
    return lib.nn.TransformerEncoderLayer(8, 2, batch_first=batch_first, **kw)


def src_shape(batch_first, N=3, S=5):
    return (N, S, 8) if batch_first else (S, N, 8)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("batch_first", [False, True])
@pytest.mark.parametrize("options", [
    {}, {"norm_first": True}, {"activation": "gelu"}, {"activation": "relu"},
    {"bias": False}, {"layer_norm_eps": 1e-3}, {"norm_first": True, "activation": "gelu"}])
def test_encoder_layer_matches_torch(options, batch_first, dtype):
    mine, theirs = pair(lambda lib: layer(lib, batch_first, **options), dtype)
    compare_call(mine, theirs, [data(src_shape(batch_first), dtype)], dtype=dtype)


def test_encoder_layer_module_activation():
    mine, theirs = pair(lambda lib: layer(lib, activation=lib.nn.GELU(approximate="tanh")))
    assert [n for n, _ in mine.named_modules()] == [n for n, _ in theirs.named_modules()]
    compare_call(mine, theirs, [data(src_shape(False))])
    mine, theirs = pair(lambda lib: layer(lib, activation=lib.nn.functional.silu))
    compare_call(mine, theirs, [data(src_shape(False))])


MASKS = ["src_mask_bool", "src_mask_float", "kpm_bool", "both_bool", "causal"]


@pytest.mark.parametrize("batch_first", [False, True])
@pytest.mark.parametrize("masks", MASKS)
def test_encoder_layer_masks(masks, batch_first):
    mine, theirs = pair(lambda lib: layer(lib, batch_first))
    S, N = 5, 3
    kpm = np.zeros((N, S), dtype=bool)
    kpm[1, 3:] = True
    kpm[2, 0] = True
    attn = np.random.default_rng(1).random((S, S)) < 0.3
    np.fill_diagonal(attn, False)
    kw = {"src_mask_bool": {"src_mask": attn},
          "src_mask_float": {"src_mask": data((S, S), seed=2)},
          "kpm_bool": {"src_key_padding_mask": kpm},
          "both_bool": {"src_mask": attn, "src_key_padding_mask": kpm},
          "causal": {"src_mask": np.triu(np.full((S, S), -np.inf), 1), "is_causal": True}}
    compare_call(mine, theirs, [data(src_shape(batch_first, N, S))], kw[masks])


def test_encoder_layer_unbatched():
    mine, theirs = pair(lambda lib: layer(lib))
    compare_call(mine, theirs, [data((5, 8))])
    compare_call(mine, theirs, [data((5, 8))], {"src_key_padding_mask":
                                                np.array([False, False, True, False, True])})


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("batch_first", [False, True])
@pytest.mark.parametrize("with_norm", [False, True])
def test_encoder_matches_torch(with_norm, batch_first, dtype):
    def build(lib):
        norm = lib.nn.LayerNorm(8) if with_norm else None
        return lib.nn.TransformerEncoder(layer(lib, batch_first), 3, norm=norm)
    mine, theirs = pair(build, dtype)
    S = 5
    compare_call(mine, theirs, [data(src_shape(batch_first), dtype)], dtype=dtype)
    causal = np.triu(np.full((S, S), -np.inf), 1).astype(dtype)
    compare_call(mine, theirs, [data(src_shape(batch_first), dtype)], {"mask": causal},
                 dtype=dtype)
    kpm = np.zeros((3, S), dtype=bool)
    kpm[0, 4:] = True
    compare_call(mine, theirs, [data(src_shape(batch_first), dtype)],
                 {"src_key_padding_mask": kpm}, dtype=dtype)


@pytest.mark.parametrize("left_aligned", [True, False])
def test_encoder_inference_with_padding_like_torch_nested_path(left_aligned):
    # eval + no_grad + batch_first + key padding: PyTorch's nested-tensor path zeroes the
    # padded positions (when padding is only on the right); leafgrad reproduces it.
    def build(lib):
        return lib.nn.TransformerEncoder(layer(lib, True), 2, norm=lib.nn.LayerNorm(8))
    mine, theirs = pair(build)
    with torch.no_grad():
        theirs.norm.bias.add_(0.5)
    copy_weights(mine, theirs)
    kpm = np.zeros((3, 5), dtype=bool)
    kpm[1, 3:] = True
    if not left_aligned:
        kpm[2, 0] = True
    x = data((3, 5, 8))
    with torch.no_grad():
        out_t = quiet(lambda: theirs(torch.tensor(x), src_key_padding_mask=torch.tensor(kpm)))
    with leafgrad.no_grad():
        out_m = mine(leafgrad.tensor(x), src_key_padding_mask=leafgrad.tensor(kpm))
    assert_close(out_m, out_t, atol=1e-10, rtol=1e-8)


def test_train_mode_dropout():
    mine, theirs = pair(lambda lib: lib.nn.TransformerEncoder(layer(lib, dropout=0.5), 2),
                        train=True)
    x = leafgrad.tensor(data(src_shape(False)))
    leafgrad.manual_seed(0)
    out_train = mine(x)
    out_eval = mine.eval()(x)
    assert out_train.shape == out_eval.shape == (5, 3, 8)
    assert not np.allclose(out_train.detach().numpy(), out_eval.detach().numpy())
    # dropout=0 in training mode is deterministic: compare with torch
    mine, theirs = pair(lambda lib: lib.nn.TransformerEncoder(layer(lib, dropout=0.0), 2),
                        train=True)
    compare_call(mine, theirs, [data(src_shape(False))])


def test_names_state_dict_and_repr():
    build = (lambda lib: lib.nn.TransformerEncoder(layer(lib, activation=lib.nn.GELU()), 2,
                                                   norm=lib.nn.LayerNorm(8)))
    mine, theirs = quiet(lambda: build(leafgrad)), quiet(lambda: build(torch))
    assert [(n, tuple(p.shape)) for n, p in mine.named_parameters()] == \
        [(n, tuple(p.shape)) for n, p in theirs.named_parameters()]
    assert repr(mine) == repr(theirs)
    theirs.load_state_dict({k: torch.tensor(v.numpy()) for k, v in mine.state_dict().items()})
    # the clones are independent copies
    layers = mine.layers
    assert layers[0].linear1.weight is not layers[1].linear1.weight
    np.testing.assert_array_equal(layers[0].linear1.weight.detach().numpy(),
                                  layers[1].linear1.weight.detach().numpy())
    assert repr(layer(leafgrad)) == repr(layer(torch))


@pytest.mark.parametrize("build", [
    lambda lib: layer(lib),                                   # batch_first False
    lambda lib: layer(lib, True, norm_first=True),
    lambda lib: layer(lib, True, bias=False),
    lambda lib: layer(lib, True, activation=lib.nn.functional.silu),
    lambda lib: lib.nn.TransformerEncoderLayer(6, 3, batch_first=True),
    lambda lib: layer(lib, True),                             # no warning
])
def test_nested_tensor_warning_like_torch(build):
    def run(lib):
        enc_layer = build(lib)
        with warnings.catch_warnings(record=True) as got:
            warnings.simplefilter("always")
            lib.nn.TransformerEncoder(enc_layer, 1)
        return [(w.category, str(w.message)) for w in got]
    assert run(leafgrad) == run(torch)


def test_bad_activation_error():
    same_error(lambda: layer(leafgrad, activation="tanh"), lambda: layer(torch, activation="tanh"))
