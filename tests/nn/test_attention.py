"""F.scaled_dot_product_attention and nn.MultiheadAttention against PyTorch: outputs,
attention weights and the gradients of every input and parameter in float64 and float32,
with boolean, float, causal and padding masks; init, names, reprs, warnings and errors."""
from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
import torch
from nn_helpers import same_error
from seq_oracle import build_pair, compare_call

import leafgrad

DTYPES = ["float64", "float32"]


def data(shape, dtype="float64", seed=0):
    return np.random.default_rng(seed).standard_normal(shape).astype(dtype)


def bool_mask(shape, seed=0, p=0.4):
    return np.random.default_rng(seed).random(shape) < p


def sdpa_module(lib):
    class SDPA(lib.nn.Module):
        def forward(self, *args, **kwargs):
            return lib.nn.functional.scaled_dot_product_attention(*args, **kwargs)
    return SDPA()


def compare_sdpa(args, kwargs=None, dtype="float64", **tolerance):
    return compare_call(sdpa_module(leafgrad), sdpa_module(torch), args, kwargs, dtype=dtype,
                        **tolerance)


# -- scaled_dot_product_attention ---------------------------------------------------------
SHAPES = [((4, 5), (6, 5), (6, 3)), ((2, 4, 5), (2, 6, 5), (2, 6, 5)),
          ((2, 3, 4, 5), (2, 3, 6, 5), (2, 3, 6, 7)), ((1, 3, 4, 5), (2, 1, 6, 5), (2, 1, 6, 2))]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shapes", SHAPES)
@pytest.mark.parametrize("kind", ["none", "causal", "bool", "float", "scale", "neg_scale"])
def test_sdpa_matches_torch(shapes, kind, dtype):
    q, k, v = (data(s, dtype, i) for i, s in enumerate(shapes))
    L, S = shapes[0][-2], shapes[1][-2]
    kwargs = {
        "none": {}, "causal": {"is_causal": True}, "scale": {"scale": 0.7},
        "neg_scale": {"scale": -0.2},
        "bool": {"attn_mask": bool_mask((L, S), p=0.7)},
        "float": {"attn_mask": data((L, S), dtype, 5)},
    }[kind]
    compare_sdpa([q, k, v], kwargs, dtype)


@pytest.mark.parametrize("mask_shape", [(2, 1, 4, 6), (1, 3, 1, 6), (4, 6), (1, 6)])
def test_sdpa_broadcast_masks(mask_shape):
    q, k, v = data((2, 3, 4, 5)), data((2, 3, 6, 5), seed=1), data((2, 3, 6, 5), seed=2)
    compare_sdpa([q, k, v], {"attn_mask": bool_mask(mask_shape, p=0.7)})
    compare_sdpa([q, k, v], {"attn_mask": data(mask_shape, seed=3)})


def test_sdpa_fully_masked_rows_give_zeros_and_zero_grads():
    q, k, v = data((2, 4, 5)), data((2, 6, 5), seed=1), data((2, 6, 3), seed=2)
    mask = bool_mask((4, 6), p=0.5)
    mask[1] = False      # query 1 may attend to nothing
    out_m, _ = compare_sdpa([q, k, v], {"attn_mask": mask})
    assert np.all(out_m[0].detach().numpy()[:, 1] == 0)
    fmask = np.where(mask, 0.0, -np.inf)
    compare_sdpa([q, k, v], {"attn_mask": fmask})
    # causal with more queries than keys: the first row keeps key 0, nothing is dead
    compare_sdpa([data((7, 5)), data((3, 5), seed=1), data((3, 5), seed=2)],
                 {"is_causal": True})


def test_sdpa_float32_mask_with_float64_query():
    q, k, v = data((3, 5)), data((4, 5), seed=1), data((4, 5), seed=2)
    compare_sdpa([q, k, v], {"attn_mask": data((3, 4), "float32", 3)}, atol=1e-6, rtol=1e-6)


def test_sdpa_dropout():
    q, k, v = data((2, 4, 5)), data((2, 6, 5), seed=1), data((2, 6, 3), seed=2)
    compare_sdpa([q, k, v], {"dropout_p": 1.0})          # everything dropped: zeros
    compare_sdpa([q, k, v], {"dropout_p": 0.0})
    leafgrad.manual_seed(0)
    F = leafgrad.nn.functional
    qm, km = leafgrad.tensor(q), leafgrad.tensor(k)
    eye = leafgrad.eye(6, dtype=leafgrad.float64).expand(2, 6, 6)
    dropped = F.scaled_dot_product_attention(qm, km, eye, dropout_p=0.5)
    plain = F.scaled_dot_product_attention(qm, km, eye)
    # with v = I the output is the attention matrix: kept entries are scaled by 2
    d, p = dropped.numpy(), plain.numpy()
    assert d.shape == p.shape and (d == 0).any() and (d != 0).any()
    np.testing.assert_allclose(d[d != 0], 2 * p[d != 0], rtol=1e-12)


@pytest.mark.parametrize("groups", [2, 3])
def test_sdpa_gqa(groups):
    q = data((2, 2 * groups, 4, 5))
    k, v = data((2, 2, 6, 5), seed=1), data((2, 2, 6, 3), seed=2)
    compare_sdpa([q, k, v], {"enable_gqa": True})


SDPA_ERRORS = [
    lambda lib: (lib.zeros(3, 4, dtype=lib.float64), lib.zeros(3, 4), lib.zeros(3, 4)),
    lambda lib: (lib.zeros(4), lib.zeros(4), lib.zeros(4)),
    lambda lib: (lib.zeros(3, 4), lib.zeros(3, 4), lib.zeros(3, 4),
                 lib.zeros(3, 3, dtype=lib.int64)),
    lambda lib: (lib.zeros(3, 4, dtype=lib.float64),) * 3 + (lib.zeros(3, 3, dtype=lib.float16),),
    lambda lib: (lib.zeros(3, 4), lib.zeros(3, 4), lib.zeros(3, 4),
                 lib.ones(3, 3, dtype=lib.bool), 0.0, True),
]


@pytest.mark.parametrize("make_args", SDPA_ERRORS)
def test_sdpa_errors(make_args):
    same_error(
        lambda: leafgrad.nn.functional.scaled_dot_product_attention(*make_args(leafgrad)),
        lambda: torch.nn.functional.scaled_dot_product_attention(*make_args(torch)))


# -- MultiheadAttention -------------------------------------------------------------------
def self_attention(m, x, **kwargs):
    # the same tensor three times: the packed single-projection path
    return m(x, x, x, **kwargs)


def mha_shapes(batch_first, L=5, S=6, N=3, E=8):
    q = (N, L, E) if batch_first else (L, N, E)
    kv = (N, S, E) if batch_first else (S, N, E)
    return q, kv


NEED = [{"need_weights": True}, {"need_weights": False},
        {"need_weights": True, "average_attn_weights": False}]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("batch_first", [False, True])
@pytest.mark.parametrize("need", NEED)
@pytest.mark.parametrize("attention", ["self", "cross", "kv_same"])
def test_mha_matches_torch(attention, need, batch_first, dtype):
    mine, theirs = build_pair(lambda lib: lib.nn.MultiheadAttention(
        8, 2, batch_first=batch_first), dtype)
    q_shape, kv_shape = mha_shapes(batch_first)
    if attention == "self":
        compare_call(mine, theirs, [data(q_shape, dtype)], need, dtype=dtype,
                     call=self_attention)
    elif attention == "kv_same":
        compare_call(mine, theirs, [data(q_shape, dtype), data(kv_shape, dtype, 1)], need,
                     dtype=dtype, call=lambda m, q, kv, **kw: m(q, kv, kv, **kw))
    else:
        compare_call(mine, theirs, [data(q_shape, dtype), data(kv_shape, dtype, 1),
                                    data(kv_shape, dtype, 2)], need, dtype=dtype)


MASKS = ["kpm_bool", "kpm_float", "attn_bool", "attn_float", "attn_3d", "both_bool",
         "both_float", "causal"]


@pytest.mark.parametrize("masks", MASKS)
@pytest.mark.parametrize("need", NEED[:2])
@pytest.mark.parametrize("batch_first", [False, True])
def test_mha_masks(masks, need, batch_first):
    mine, theirs = build_pair(lambda lib: lib.nn.MultiheadAttention(
        8, 2, batch_first=batch_first), "float64")
    q_shape, _ = mha_shapes(batch_first, S=5)
    L = N = None
    L, N = (q_shape[1], q_shape[0]) if batch_first else (q_shape[0], q_shape[1])
    kpm = bool_mask((N, L), 1)
    kpm[:, 0] = False
    attn = bool_mask((L, L), 2)
    np.fill_diagonal(attn, False)
    causal = np.triu(np.full((L, L), -np.inf), 1)
    kw = {
        "kpm_bool": {"key_padding_mask": kpm},
        "kpm_float": {"key_padding_mask": np.where(kpm, -np.inf, 0.0)},
        "attn_bool": {"attn_mask": attn},
        "attn_float": {"attn_mask": data((L, L), seed=3)},
        "attn_3d": {"attn_mask": data((N * 2, L, L), seed=3)},
        "both_bool": {"attn_mask": attn, "key_padding_mask": kpm},
        "both_float": {"attn_mask": np.where(attn, -np.inf, 0.0),
                       "key_padding_mask": data((N, L), seed=4)},
        "causal": {"attn_mask": causal, "is_causal": True},
    }[masks]
    compare_call(mine, theirs, [data(q_shape)], dict(need, **kw), call=self_attention)


@pytest.mark.parametrize("need", NEED)
def test_mha_unbatched(need):
    mine, theirs = build_pair(lambda lib: lib.nn.MultiheadAttention(6, 3), "float64")
    kpm = np.array([False, True, False, False])
    compare_call(mine, theirs, [data((5, 6)), data((4, 6), seed=1), data((4, 6), seed=2)],
                 dict(need, key_padding_mask=kpm))
    compare_call(mine, theirs, [data((4, 6))], dict(need, attn_mask=data((3, 4, 4), seed=3)),
                 call=self_attention)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("options", [
    {"kdim": 3, "vdim": 5}, {"add_bias_kv": True}, {"add_zero_attn": True}, {"bias": False},
    {"kdim": 3, "vdim": 5, "add_bias_kv": True, "add_zero_attn": True, "bias": False}])
@pytest.mark.parametrize("need", NEED[:2])
def test_mha_options(options, need, dtype):
    mine, theirs = build_pair(lambda lib: lib.nn.MultiheadAttention(8, 4, **options), dtype)
    kdim, vdim = options.get("kdim", 8), options.get("vdim", 8)
    kpm = bool_mask((2, 6), 3)
    kpm[:, 0] = False
    compare_call(mine, theirs, [data((4, 2, 8), dtype), data((6, 2, kdim), dtype, 1),
                                data((6, 2, vdim), dtype, 2)],
                 dict(need, key_padding_mask=kpm, attn_mask=bool_mask((4, 6), 4, 0.2)),
                 dtype=dtype)


def test_mha_fully_masked_row_is_nan_with_weights_and_zero_without():
    # PyTorch's explicit path (need_weights=True) softmaxes an all -inf row into NaN; the
    # scaled_dot_product_attention path gives zeros. Both are reproduced.
    mine, theirs = build_pair(lambda lib: lib.nn.MultiheadAttention(4, 2), "float64")
    attn = np.zeros((3, 3), dtype=bool)
    attn[0] = True
    x = data((3, 2, 4))
    out_m, _ = compare_call(mine, theirs, [x], {"attn_mask": attn}, call=self_attention,
                            grad=False)
    assert np.isnan(out_m[0].detach().numpy()[0]).all()
    compare_call(mine, theirs, [x], {"attn_mask": attn, "need_weights": False},
                 call=self_attention)


@pytest.mark.parametrize("need", NEED[:2])
def test_mha_dropout(need):
    # p=1 in training drops every attention weight: deterministic, so comparable
    mine, theirs = build_pair(lambda lib: lib.nn.MultiheadAttention(8, 2, dropout=1.0),
                              "float64")
    compare_call(mine, theirs, [data((5, 3, 8))], need, call=self_attention)
    # eval mode ignores dropout
    mine, theirs = build_pair(lambda lib: lib.nn.MultiheadAttention(8, 2, dropout=0.5),
                              "float64")
    mine.eval()
    theirs.eval()
    compare_call(mine, theirs, [data((5, 3, 8))], need, call=self_attention)
    # training with p=0.5 changes the output, same shapes
    x = leafgrad.tensor(data((5, 3, 8)))
    out_eval = mine(x, x, x, **need)[0]
    out_train = mine.train()(x, x, x, **need)[0]
    assert out_train.shape == out_eval.shape
    assert not np.allclose(out_train.detach().numpy(), out_eval.detach().numpy())


@pytest.mark.parametrize("options", [{}, {"kdim": 3, "vdim": 5}, {"bias": False},
                                     {"add_bias_kv": True}])
def test_mha_parameters_init_and_state_dict(options):
    mine = leafgrad.nn.MultiheadAttention(8, 2, **options)
    theirs = torch.nn.MultiheadAttention(8, 2, **options)
    assert [(n, tuple(p.shape)) for n, p in mine.named_parameters()] == \
        [(n, tuple(p.shape)) for n, p in theirs.named_parameters()]
    assert list(mine.state_dict()) == list(theirs.state_dict())
    assert repr(mine) == repr(theirs)
    params = dict(mine.named_parameters())
    if "in_proj_bias" in params:
        assert not params["in_proj_bias"].detach().numpy().any()
        assert not params["out_proj.bias"].detach().numpy().any()
    if "in_proj_weight" in params:
        w = params["in_proj_weight"].detach().numpy()
        bound = math.sqrt(6.0 / (8 + 24))      # xavier_uniform_ on (3E, E)
        assert np.abs(w).max() <= bound and np.abs(w).max() > 0.8 * bound
    theirs.load_state_dict({k: torch.tensor(v.numpy()) for k, v in mine.state_dict().items()})
    for (n, p), (_, q) in zip(mine.named_parameters(), theirs.named_parameters()):
        np.testing.assert_array_equal(p.detach().numpy(), q.detach().numpy(), err_msg=n)


def test_mha_mismatched_mask_types_warn_like_torch():
    def run(lib):
        m = lib.nn.MultiheadAttention(4, 2)
        x = lib.zeros(3, 2, 4)
        with warnings.catch_warnings(record=True) as got:
            warnings.simplefilter("always")
            m(x, x, x, key_padding_mask=lib.zeros(2, 3, dtype=lib.bool),
              attn_mask=lib.zeros(3, 3))
        return [(w.category, str(w.message)) for w in got]
    assert run(leafgrad) == run(torch)


MHA_ERRORS = [
    lambda lib: lib.nn.MultiheadAttention(0, 2),
    lambda lib: lib.nn.MultiheadAttention(6, 4),
    lambda lib: lib.nn.MultiheadAttention(4, 2)(lib.zeros(3, 2, 4), lib.zeros(3, 2, 4),
                                               lib.zeros(3, 4)),
    lambda lib: lib.nn.MultiheadAttention(4, 2)(lib.zeros(3, 2, 4), lib.zeros(3, 2, 4),
                                               lib.zeros(3, 2, 4),
                                               key_padding_mask=lib.zeros(2, 3, dtype=lib.int64)),
    lambda lib: lib.nn.MultiheadAttention(4, 2)(lib.zeros(3, 2, 4), lib.zeros(3, 2, 4),
                                               lib.zeros(3, 2, 4), attn_mask=lib.zeros(2, 3)),
    lambda lib: lib.nn.MultiheadAttention(4, 2)(lib.zeros(3, 2, 4), lib.zeros(3, 2, 4),
                                               lib.zeros(3, 2, 4), attn_mask=lib.zeros(3, 3, 3)),
    lambda lib: lib.nn.MultiheadAttention(4, 2)(lib.zeros(3, 2, 4), lib.zeros(3, 2, 4),
                                               lib.zeros(3, 2, 4), is_causal=True),
    lambda lib: lib.nn.MultiheadAttention(4, 2)(lib.zeros(3, 2, 5), lib.zeros(3, 2, 5),
                                               lib.zeros(3, 2, 5)),
    lambda lib: lib.nn.MultiheadAttention(4, 2)(lib.zeros(3, 2, 4), lib.zeros(3, 2, 4),
                                               lib.zeros(3, 2, 4),
                                               key_padding_mask=lib.zeros(2, 4, dtype=lib.bool)),
    lambda lib: lib.nn.MultiheadAttention(4, 2)(lib.zeros(4), lib.zeros(4), lib.zeros(4)),
    lambda lib: lib.nn.MultiheadAttention(4, 2)(lib.zeros(3, 4), lib.zeros(3, 4),
                                               lib.zeros(3, 4), attn_mask=lib.zeros(3, 3, 3)),
]


@pytest.mark.parametrize("run", MHA_ERRORS)
def test_mha_errors(run):
    same_error(lambda: run(leafgrad), lambda: run(torch))


@pytest.mark.parametrize("need", NEED[:1])   # PyTorch's SDPA path has no double backward
def test_mha_double_backward(need):
    mine, theirs = build_pair(lambda lib: lib.nn.MultiheadAttention(8, 2), "float64")
    x = data((5, 3, 8))
    kpm = np.zeros((3, 5), dtype=bool)
    kpm[1, 3:] = True
    xt = torch.tensor(x, requires_grad=True)
    xm = leafgrad.tensor(x.copy(), requires_grad=True)
    out_t = theirs(xt, xt, xt, key_padding_mask=torch.tensor(kpm), **need)[0]
    out_m = mine(xm, xm, xm, key_padding_mask=leafgrad.tensor(kpm), **need)[0]
    gt, = torch.autograd.grad((out_t ** 2).sum(), xt, create_graph=True)
    gm, = leafgrad.autograd.grad((out_m ** 2).sum(), xm, create_graph=True)
    (gt ** 2).sum().backward()
    (gm ** 2).sum().backward()
    np.testing.assert_allclose(xm.grad.numpy(), xt.grad.numpy(), atol=1e-12, rtol=1e-9)
    mine_params = dict(mine.named_parameters())
    for name, p in theirs.named_parameters():
        np.testing.assert_allclose(mine_params[name].grad.numpy(), p.grad.numpy(),
                                   atol=1e-12, rtol=1e-9, err_msg=name)
