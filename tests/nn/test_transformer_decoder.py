"""nn.TransformerDecoderLayer, nn.TransformerDecoder and nn.Transformer against PyTorch with the
same weights: outputs and the gradients of every input and parameter (float64, float32),
masks (bool, float, causal, key padding), norm_first, batch_first, activations, unbatched
input, the causal-mask helper, names, state dicts, reprs and errors."""
from __future__ import annotations

import warnings

import numpy as np
import pytest
import torch
from nn_helpers import assert_close, copy_weights
from seq_oracle import compare_call

import leafgrad

DTYPES = ["float64", "float32"]
E, H, FF = 8, 2, 16


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


def dec_layer(lib, batch_first=False, **kw):
    kw.setdefault("dim_feedforward", FF)
    kw.setdefault("dropout", 0.0)
    return lib.nn.TransformerDecoderLayer(E, H, batch_first=batch_first, **kw)


def seq(batch_first, N, S, dtype="float64", seed=0):
    return data((N, S, E) if batch_first else (S, N, E), dtype, seed)


def causal(T, dtype="float64"):
    return np.triu(np.full((T, T), -np.inf), 1).astype(dtype)


OPTIONS = [{}, {"norm_first": True}, {"activation": "gelu"}, {"bias": False},
           {"layer_norm_eps": 1e-3}, {"norm_first": True, "activation": "gelu"}]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("batch_first", [False, True])
@pytest.mark.parametrize("options", OPTIONS)
def test_decoder_layer_matches_torch(options, batch_first, dtype):
    mine, theirs = pair(lambda lib: dec_layer(lib, batch_first, **options), dtype)
    tgt, memory = seq(batch_first, 3, 4, dtype), seq(batch_first, 3, 6, dtype, seed=1)
    compare_call(mine, theirs, [tgt, memory], dtype=dtype)


def test_decoder_layer_callable_and_module_activations_train_mode():
    for act in (lambda lib: lib.nn.functional.silu, lambda lib: lib.nn.GELU("tanh")):
        mine, theirs = pair(lambda lib, act=act: dec_layer(lib, activation=act(lib)),
                            train=True)
        assert repr(mine) == repr(theirs)
        compare_call(mine, theirs, [seq(False, 2, 3), seq(False, 2, 5, seed=1)])


MASKS = ["tgt_causal", "tgt_bool", "memory_float", "tgt_kpm", "memory_kpm", "all"]


@pytest.mark.parametrize("batch_first", [False, True])
@pytest.mark.parametrize("masks", MASKS)
def test_decoder_layer_masks(masks, batch_first):
    mine, theirs = pair(lambda lib: dec_layer(lib, batch_first))
    N, T, S = 3, 4, 5
    tgt_kpm = np.zeros((N, T), dtype=bool)
    tgt_kpm[1, 3:] = True
    mem_kpm = np.zeros((N, S), dtype=bool)
    mem_kpm[2, 2:] = True
    tgt_bool = np.random.default_rng(1).random((T, T)) < 0.3
    np.fill_diagonal(tgt_bool, False)
    kw = {"tgt_causal": {"tgt_mask": causal(T), "tgt_is_causal": True},
          "tgt_bool": {"tgt_mask": tgt_bool},
          "memory_float": {"memory_mask": data((T, S), seed=2)},
          "tgt_kpm": {"tgt_key_padding_mask": tgt_kpm},
          "memory_kpm": {"memory_key_padding_mask": mem_kpm},
          "all": {"tgt_mask": causal(T), "memory_mask": data((T, S), seed=3) > 1.5,
                  "tgt_key_padding_mask": tgt_kpm, "memory_key_padding_mask": mem_kpm}}
    compare_call(mine, theirs, [seq(batch_first, N, T), seq(batch_first, N, S, seed=1)],
                 kw[masks])


def test_decoder_layer_unbatched():
    mine, theirs = pair(lambda lib: dec_layer(lib))
    compare_call(mine, theirs, [data((4, E)), data((6, E), seed=1)],
                 {"tgt_mask": causal(4)})


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("batch_first", [False, True])
@pytest.mark.parametrize("with_norm", [False, True])
def test_decoder_matches_torch(with_norm, batch_first, dtype):
    def build(lib):
        norm = lib.nn.LayerNorm(E) if with_norm else None
        return lib.nn.TransformerDecoder(dec_layer(lib, batch_first), 3, norm=norm)
    mine, theirs = pair(build, dtype)
    args = [seq(batch_first, 3, 4, dtype), seq(batch_first, 3, 5, dtype, seed=1)]
    compare_call(mine, theirs, args, dtype=dtype)
    # a causal tgt_mask is detected as causal (tgt_is_causal=None), as in PyTorch
    compare_call(mine, theirs, args, {"tgt_mask": causal(4, dtype)}, dtype=dtype)
    kpm = np.zeros((3, 5), dtype=bool)
    kpm[0, 3:] = True
    compare_call(mine, theirs, args, {"memory_key_padding_mask": kpm}, dtype=dtype)


def transformer(lib, batch_first=False, **kw):
    kw.setdefault("dim_feedforward", FF)
    kw.setdefault("dropout", 0.0)
    return lib.nn.Transformer(E, H, 2, 2, batch_first=batch_first, **kw)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("batch_first", [False, True])
@pytest.mark.parametrize("options", [{}, {"norm_first": True, "activation": "gelu"},
                                     {"bias": False}])
def test_transformer_matches_torch(options, batch_first, dtype):
    mine, theirs = pair(lambda lib: transformer(lib, batch_first, **options), dtype)
    N, S, T = 2, 5, 4
    src, tgt = seq(batch_first, N, S, dtype), seq(batch_first, N, T, dtype, seed=1)
    compare_call(mine, theirs, [src, tgt], dtype=dtype)
    src_kpm = np.zeros((N, S), dtype=bool)
    src_kpm[1, 3:] = True
    kw = {"tgt_mask": causal(T, dtype), "src_key_padding_mask": src_kpm,
          "memory_key_padding_mask": src_kpm}
    compare_call(mine, theirs, [src, tgt], kw, dtype=dtype)


def test_transformer_train_mode_without_dropout_and_unbatched():
    mine, theirs = pair(lambda lib: transformer(lib), train=True)
    compare_call(mine, theirs, [seq(False, 2, 5), seq(False, 2, 3, seed=1)],
                 {"tgt_mask": causal(3), "tgt_is_causal": True})
    mine.eval()
    theirs.eval()
    compare_call(mine, theirs, [data((5, E)), data((3, E), seed=1)])


def test_transformer_eval_inference_with_padding():
    # eval + no_grad: the encoder may take PyTorch's nested-tensor path (batch_first)
    mine, theirs = pair(lambda lib: transformer(lib, True))
    kpm = np.zeros((2, 5), dtype=bool)
    kpm[1, 3:] = True
    src, tgt = data((2, 5, E)), data((2, 4, E), seed=1)
    with torch.no_grad():
        out_t = theirs(torch.tensor(src), torch.tensor(tgt),
                       src_key_padding_mask=torch.tensor(kpm),
                       memory_key_padding_mask=torch.tensor(kpm))
    with leafgrad.no_grad():
        out_m = mine(leafgrad.tensor(src), leafgrad.tensor(tgt),
                     src_key_padding_mask=leafgrad.tensor(kpm),
                     memory_key_padding_mask=leafgrad.tensor(kpm))
    assert_close(out_m, out_t, atol=1e-10, rtol=1e-8)


@pytest.mark.parametrize("dtype", [None, "float64", "float32", "float16", "bool", "int64",
                                   "int32", "uint8"])
@pytest.mark.parametrize("size", [0, 1, 4])
def test_generate_square_subsequent_mask(size, dtype):
    def run(lib):
        kw = {} if dtype is None else {"dtype": getattr(lib, dtype)}
        try:
            return lib.nn.Transformer.generate_square_subsequent_mask(size, **kw)
        except RuntimeError as e:
            return str(e)
    mine, theirs = run(leafgrad), run(torch)
    if isinstance(theirs, str):
        assert mine == theirs
    else:
        assert_close(mine, theirs, atol=0, rtol=0)


DECODER_ERRORS = {
    "causal hint without mask": {"tgt_is_causal": True},
    "memory causal hint": {"memory_is_causal": True},
    "mask shape": {"tgt_mask": np.zeros((2, 2))},
    "padding shape": {"tgt_key_padding_mask": np.zeros((2, 4), dtype=bool)},
    "int mask": {"tgt_mask": np.zeros((3, 3), dtype=np.int64)},
}


@pytest.mark.parametrize("case", sorted(DECODER_ERRORS))
def test_decoder_layer_errors(case):
    got = []
    for lib in (leafgrad, torch):
        layer = dec_layer(lib)
        kw = {k: lib.tensor(v) for k, v in DECODER_ERRORS[case].items()
              if isinstance(v, np.ndarray)}
        kw.update({k: v for k, v in DECODER_ERRORS[case].items()
                   if not isinstance(v, np.ndarray)})
        try:
            layer(lib.zeros(3, 2, E), lib.zeros(4, 2, E), **kw)
            got.append(None)
        except (RuntimeError, AssertionError) as e:
            got.append((type(e).__name__, str(e)))
    assert got[0] == got[1] and got[1] is not None


def test_names_state_dict_repr_and_init():
    build = lambda lib: transformer(lib, activation=lib.nn.GELU())
    mine, theirs = quiet(lambda: build(leafgrad)), quiet(lambda: build(torch))
    assert [(n, tuple(p.shape)) for n, p in mine.named_parameters()] == \
        [(n, tuple(p.shape)) for n, p in theirs.named_parameters()]
    assert repr(mine) == repr(theirs)
    assert repr(dec_layer(leafgrad)) == repr(dec_layer(torch))
    decoder = lambda lib: lib.nn.TransformerDecoder(dec_layer(lib), 2)
    assert repr(decoder(leafgrad)) == repr(decoder(torch))
    theirs.load_state_dict({k: torch.tensor(v.numpy()) for k, v in mine.state_dict().items()})
    assert (mine.d_model, mine.nhead, mine.batch_first) == (theirs.d_model, theirs.nhead,
                                                            theirs.batch_first)
    # xavier_uniform_ on every matrix: within the bound, and not the layers' own init
    w = mine.encoder.layers[0].linear1.weight.detach().numpy()
    bound = np.sqrt(6.0 / (w.shape[0] + w.shape[1]))
    assert np.abs(w).max() <= bound and np.abs(w).max() > 0.5 * bound


def test_custom_encoder_and_decoder():
    def build(lib):
        enc = lib.nn.TransformerEncoder(lib.nn.TransformerEncoderLayer(E, H, FF, 0.0), 1)
        dec = lib.nn.TransformerDecoder(dec_layer(lib), 1)
        return lib.nn.Transformer(E, H, custom_encoder=enc, custom_decoder=dec)
    mine, theirs = pair(build)
    assert repr(mine) == repr(theirs)
    compare_call(mine, theirs, [seq(False, 2, 5), seq(False, 2, 3, seed=1)])


ERRORS = {
    "batch": (lambda lib: transformer(lib), (5, 2, E), (4, 3, E)),
    "batch_first batch": (lambda lib: transformer(lib, True), (2, 5, E), (3, 4, E)),
    "features": (lambda lib: transformer(lib), (5, 2, E), (4, 2, E + 1)),
}


@pytest.mark.parametrize("case", sorted(ERRORS))
def test_transformer_errors(case):
    build, src_shape, tgt_shape = ERRORS[case]
    got = []
    for lib in (leafgrad, torch):
        model = quiet(lambda lib=lib: build(lib))
        try:
            model(lib.zeros(*src_shape), lib.zeros(*tgt_shape))
            got.append(None)
        except RuntimeError as e:
            got.append(str(e))
    assert got[0] == got[1] and got[1] is not None


def test_bad_activation_error():
    got = []
    for lib in (leafgrad, torch):
        with pytest.raises(RuntimeError) as info:
            dec_layer(lib, activation="tanh")
        got.append(str(info.value))
    assert got[0] == got[1]


def test_construction_warnings_like_torch():
    def run(lib):
        with warnings.catch_warnings(record=True) as got:
            warnings.simplefilter("always")
            transformer(lib)
            transformer(lib, True)
        return [(w.category, str(w.message)) for w in got]
    assert run(leafgrad) == run(torch)
