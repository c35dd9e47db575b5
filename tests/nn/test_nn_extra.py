"""H12's nn pieces against PyTorch 2.13: instance / RMS / local-response norm, prelu, pixel and
channel shuffles, unfold / fold, pdist, channel-wise and alpha dropout, gumbel_softmax, and
their modules (reprs, default init, outputs, gradients, errors)."""
from __future__ import annotations

import warnings

import numpy as np
import pytest
import torch

import leafgrad
from tests.nn.layer_oracle import check, same_error

RNG = np.random.default_rng(7)


def r(*shape):
    return RNG.standard_normal(shape)


FUNCTIONAL = [
    ("instance_norm", (r(2, 3, 5),), {}),
    ("instance_norm", (r(2, 3, 2, 3), None, None, r(3), r(3)), {"eps": 0.1}),
    ("rms_norm", (r(2, 3, 4), (4,), r(4)), {}),
    ("rms_norm", (r(2, 3, 4), (3, 4)), {"eps": 1e-3}),
    ("rms_norm", (r(5), [5]), {}),
    ("local_response_norm", (r(2, 5, 3), 3), {}),
    ("local_response_norm", (r(2, 4, 3, 2), 2), {"alpha": 0.1, "beta": 0.5, "k": 2.0}),
    ("local_response_norm", (r(1, 6, 2, 2, 2), 4), {}),
    ("prelu", (r(2, 3, 4), r(3)), {}), ("prelu", (r(2, 3, 4), r(1)), {}),
    ("prelu", (r(4), r(1)), {}), ("prelu", (r(2, 3), np.array(0.3)), {}),
    ("pixel_shuffle", (r(2, 8, 2, 3), 2), {}), ("pixel_unshuffle", (r(1, 2, 4, 6), 2), {}),
    ("channel_shuffle", (r(2, 6, 3), 3), {}),
    ("unfold", (r(2, 3, 4, 5), 2), {}),
    ("unfold", (r(1, 2, 5, 6), (2, 3)), {"dilation": (1, 2), "padding": 1, "stride": 2}),
    ("fold", (r(2, 12, 12), (4, 5), 2), {}),
    ("fold", (r(1, 6, 3), (4, 4), (2, 3)), {"dilation": (1, 2), "padding": 1, "stride": 2}),
]


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("fn,args,kw", FUNCTIONAL, ids=lambda v: v if isinstance(v, str) else "")
def test_functional(fn, args, kw, dtype):
    check(fn, args, kw, dtype=dtype, second=dtype == "float64")


@pytest.mark.parametrize("p", [2.0, 1.0, 3.0, 0.5, 0.0, float("inf")])
def test_pdist(p):
    check("pdist", (r(5, 3), p), second=False)


def test_instance_norm_running_stats():
    x = r(3, 2, 4)
    outs = []
    for lib in (leafgrad, torch):
        rm, rv = lib.zeros(2, dtype=lib.float64), lib.ones(2, dtype=lib.float64)
        xt = lib.tensor(x, requires_grad=True)
        y = lib.nn.functional.instance_norm(xt, rm, rv, use_input_stats=True, momentum=0.3)
        y2 = lib.nn.functional.instance_norm(xt, rm, rv, use_input_stats=False)
        outs.append([v.detach().numpy() for v in (y, y2, rm, rv)] + [rm._version])
    for a, b in zip(*outs):
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("call", [
    lambda F, T: F.instance_norm(T.ones(2, 3, 1)),
    lambda F, T: F.rms_norm(T.ones(2, 3), (2,)),
    lambda F, T: F.rms_norm(T.ones(2, 3), (3,), T.ones(2)),
    lambda F, T: F.local_response_norm(T.ones(2, 3), 2),
    lambda F, T: F.prelu(T.ones(2, 3), T.ones(2)),
    lambda F, T: F.prelu(T.ones(2, 3), T.ones(3, 1)),
    lambda F, T: F.pixel_shuffle(T.ones(1, 3, 2, 2), 2),
    lambda F, T: F.pixel_shuffle(T.ones(4, 2), 2),
    lambda F, T: F.pixel_shuffle(T.ones(1, 4, 2, 2), 0),
    lambda F, T: F.pixel_unshuffle(T.ones(1, 1, 3, 4), 2),
    lambda F, T: F.pixel_unshuffle(T.ones(1, 1, 4, 3), 2),
    lambda F, T: F.channel_shuffle(T.ones(1, 3, 2, 2), 2),
    lambda F, T: F.channel_shuffle(T.ones(1, 4, 2, 2), 0),
    lambda F, T: F.unfold(T.ones(1, 2, 3, 3), 4),
    lambda F, T: F.unfold(T.ones(1, 1, 2, 3, 3), 2),
    lambda F, T: F.fold(T.ones(1, 5, 4), (3, 3), 2),
    lambda F, T: F.fold(T.ones(1, 4, 3), (3, 3), 2),
    lambda F, T: F.fold(T.ones(1, 4, 4, 2), (3, 3), 2),
    lambda F, T: F.pdist(T.ones(3, 2, 1)),
    lambda F, T: F.pdist(T.ones(3, 2), -1),
    lambda F, T: F.dropout1d(T.ones(2, 3, 4, 5)),
    lambda F, T: F.dropout2d(T.ones(2, 3), 1.5),
    lambda F, T: T.nn.Softmax2d()(T.ones(2, 3)),
    lambda F, T: T.nn.InstanceNorm1d(3)(T.ones(2, 3, 4, 5)),
    lambda F, T: T.nn.InstanceNorm1d(4, affine=True)(T.ones(2, 3, 4)),
])
def test_errors(call):
    same_error(lambda: call(leafgrad.nn.functional, leafgrad),
               lambda: call(torch.nn.functional, torch))


MODULES = [
    ("InstanceNorm1d", (3,), {}, (2, 3, 5)), ("InstanceNorm1d", (3,), {}, (3, 5)),
    ("InstanceNorm2d", (3,), {"affine": True}, (2, 3, 4, 4)),
    ("InstanceNorm3d", (2,), {"track_running_stats": True, "affine": True, "bias": False},
     (2, 2, 3, 2, 2)),
    ("RMSNorm", (4,), {}, (2, 3, 4)), ("RMSNorm", ([3, 4],), {"eps": 1e-4,
                                                              "elementwise_affine": False},
                                       (2, 3, 4)),
    ("LocalResponseNorm", (2,), {}, (2, 4, 3, 3)), ("PReLU", (), {}, (2, 3)),
    ("PReLU", (3,), {"init": 0.1}, (2, 3, 4)), ("RReLU", (), {}, (2, 3)),
    ("RReLU", (0.1, 0.3), {"inplace": True}, None), ("Softshrink", (), {}, (2, 3)),
    ("Hardshrink", (0.3,), {}, (2, 3)), ("Softmax2d", (), {}, (2, 3, 2, 2)),
    ("PixelShuffle", (2,), {}, (1, 8, 2, 2)), ("PixelUnshuffle", (2,), {}, (1, 2, 4, 4)),
    ("ChannelShuffle", (2,), {}, (2, 4, 3)), ("Unfold", (2,), {"stride": 2}, (2, 3, 4, 4)),
    ("Fold", ((3, 3), 2), {}, (2, 8, 4)), ("Dropout1d", (), {}, None),
    ("Dropout2d", (0.2,), {"inplace": True}, None), ("Dropout3d", (), {}, None),
    ("AlphaDropout", (0.1,), {}, None), ("FeatureAlphaDropout", (), {}, None),
]


@pytest.mark.parametrize("cls,args,kw,shape", MODULES, ids=lambda v: v if isinstance(v, str)
                         else "")
def test_modules(cls, args, kw, shape):
    mine, theirs = getattr(leafgrad.nn, cls)(*args, **kw), getattr(torch.nn, cls)(*args, **kw)
    assert repr(mine) == repr(theirs)
    pm, pt = dict(mine.named_parameters()), dict(theirs.named_parameters())
    assert list(pm) == list(pt)
    for k in pt:
        np.testing.assert_array_equal(pm[k].detach().numpy(), pt[k].detach().numpy())
    assert list(dict(mine.named_buffers())) == list(dict(theirs.named_buffers()))
    if shape is None:
        return
    x = r(*shape)
    theirs.double()
    mine.double()
    mine.eval()
    theirs.eval()
    xm, xt = leafgrad.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
    ym, yt = mine(xm), theirs(xt)
    assert type(ym.grad_fn).__name__ == type(yt.grad_fn).__name__
    np.testing.assert_allclose(ym.detach().numpy(), yt.detach().numpy(), atol=1e-12)
    g = r(*yt.shape)
    ym.backward(leafgrad.tensor(g))
    yt.backward(torch.tensor(g))
    np.testing.assert_allclose(xm.grad.numpy(), xt.grad.numpy(), atol=1e-12)
    for k, p in dict(theirs.named_parameters()).items():
        np.testing.assert_allclose(dict(mine.named_parameters())[k].grad.numpy(),
                                   p.grad.numpy(), atol=1e-12)


@pytest.mark.parametrize("x1,x2,kw,cls", [
    ((3, 4), (3, 4), {}, "CosineSimilarity"), ((3, 4), (1, 4), {"dim": 1, "eps": 1e-3},
                                               "CosineSimilarity"),
    ((3, 4), (3, 4), {}, "PairwiseDistance"), ((3, 4), (3, 4), {"p": 1.0, "keepdim": True},
                                               "PairwiseDistance")])
def test_two_input_modules(x1, x2, kw, cls):
    mine, theirs = getattr(leafgrad.nn, cls)(**kw), getattr(torch.nn, cls)(**kw)
    assert repr(mine) == repr(theirs)
    a, b = r(*x1), r(*x2)
    ym = mine(leafgrad.tensor(a, requires_grad=True), leafgrad.tensor(b))
    yt = theirs(torch.tensor(a, requires_grad=True), torch.tensor(b))
    assert type(ym.grad_fn).__name__ == type(yt.grad_fn).__name__
    np.testing.assert_allclose(ym.detach().numpy(), yt.detach().numpy(), atol=1e-12)


@pytest.mark.parametrize("fn,shape,kw", [
    ("dropout1d", (2, 3, 4), {}), ("dropout1d", (3, 4), {"p": 0.3}),
    ("dropout2d", (2, 3, 2, 2), {}), ("dropout2d", (2, 3, 4), {}),
    ("dropout2d", (2, 3), {}), ("dropout3d", (2, 2, 2, 2, 2), {"p": 0.4}),
    ("dropout3d", (2, 2, 2, 2), {}), ("alpha_dropout", (4, 5), {"p": 0.3, "training": True}),
    ("feature_alpha_dropout", (2, 4, 3), {"p": 0.5, "training": True}),
    ("alpha_dropout", (4, 5), {"p": 1.0, "training": True}),
    ("dropout2d", (2, 3, 2, 2), {"training": False}),
])
def test_dropout_seeded(fn, shape, kw):
    """Same seed, same mask (the bernoulli_ stream is PyTorch's), same warnings, same graph."""
    x = r(*shape)
    results = []
    for lib in (leafgrad, torch):
        lib.manual_seed(3)
        xt = lib.tensor(x, requires_grad=True)
        with warnings.catch_warnings(record=True) as seen:
            warnings.simplefilter("always")
            y = getattr(lib.nn.functional, fn)(xt, **kw)
        y.sum().backward()
        results.append((y.detach().numpy(), xt.grad.numpy(),
                        None if y.grad_fn is None else type(y.grad_fn).__name__,
                        [str(w.message) for w in seen]))
    (ym, gm, nm, wm), (yt, gt, nt, wt) = results
    np.testing.assert_allclose(ym, yt, atol=1e-12)
    np.testing.assert_allclose(gm, gt, atol=1e-12)
    assert (nm, wm) == (nt, wt)


@pytest.mark.parametrize("hard", [False, True])
def test_gumbel_softmax_seeded(hard):
    x = r(3, 5)
    results = []
    for lib in (leafgrad, torch):
        lib.manual_seed(11)
        xt = lib.tensor(x, requires_grad=True)
        y = lib.nn.functional.gumbel_softmax(xt, tau=0.5, hard=hard)
        (y * lib.arange(5.0, dtype=lib.float64)).sum().backward()
        results.append((y.detach().numpy(), xt.grad.numpy(), type(y.grad_fn).__name__))
    np.testing.assert_allclose(results[0][0], results[1][0], atol=1e-12)
    np.testing.assert_allclose(results[0][1], results[1][1], atol=1e-10)
    assert results[0][2] == results[1][2]


@pytest.mark.parametrize("call", [
    lambda T: T.ones(3, 5).unfold(1, 6, 1), lambda T: T.ones(3, 5).unfold(1, 2, 0),
    lambda T: T.ones(3, 5).unfold(2, 2, 1), lambda T: T.tensor(2.0).unfold(0, 2, 1)])
def test_tensor_unfold_errors(call):
    same_error(lambda: call(leafgrad), lambda: call(torch))


def test_tensor_unfold_is_a_view():
    """Overlapping windows share storage with the input: writes show through, gradients of
    overlapping windows add up."""
    out = []
    for lib in (leafgrad, torch):
        base = lib.zeros(7, dtype=lib.float64)
        windows = base.unfold(0, 3, 2)
        base.add_(1)
        x = lib.tensor(r(2, 7), requires_grad=True)
        w = x.unfold(1, 3, 2)
        (w * lib.arange(9.0, dtype=lib.float64).reshape(3, 3)).sum().backward()
        out.append((windows.numpy().copy(), windows._version, x.grad.numpy(),
                    tuple(w.shape), type(w.grad_fn).__name__))
    (a, va, ga, sa, na), (b, vb, gb, sb, nb) = out
    np.testing.assert_array_equal(a, b)
    np.testing.assert_allclose(ga, gb)
    assert (va, sa, na) == (vb, sb, nb)


BAG_IDX = np.array([1, 2, 4, 4, 0, 3, 2])
BAG_OFFS = np.array([0, 2, 2, 5])


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("args,kw", [
    ((BAG_IDX, r(5, 3), BAG_OFFS), {}), ((BAG_IDX, r(5, 3), BAG_OFFS), {"mode": "sum"}),
    ((BAG_IDX, r(5, 3), BAG_OFFS), {"mode": "max"}),
    ((BAG_IDX, r(5, 3), BAG_OFFS), {"include_last_offset": True}),
    ((BAG_IDX, r(5, 3), BAG_OFFS), {"include_last_offset": True, "padding_idx": 0,
                                    "mode": "sum"}),
    ((BAG_IDX, r(5, 3), BAG_OFFS), {"padding_idx": 4}),
    ((BAG_IDX, r(5, 3), BAG_OFFS), {"mode": "sum", "padding_idx": -1,
                                    "per_sample_weights": None}),
    ((BAG_IDX[:6].reshape(2, 3), r(5, 3)), {"mode": "max", "padding_idx": 2}),
], ids=lambda v: "")
def test_embedding_bag(args, kw, dtype):
    check("embedding_bag", args, kw, dtype=dtype, second=False)


def test_embedding_bag_per_sample_weights():
    idx = BAG_IDX[:6].reshape(2, 3)
    check("embedding_bag", (idx, r(5, 3), None, None, 2, False, "sum", False, r(2, 3)),
          second=False)
    check("embedding_bag", (BAG_IDX, r(5, 3), BAG_OFFS, None, 2, False, "sum", False, r(7),
                            False, 1), second=False)


@pytest.mark.parametrize("call", [
    lambda F, T: F.embedding_bag(T.tensor([1, 2]), T.ones(3, 2)),
    lambda F, T: F.embedding_bag(T.tensor([1, 2]), T.ones(3, 2), T.tensor([0]), mode="avg"),
    lambda F, T: F.embedding_bag(T.tensor([1, 2]), T.ones(3, 2), T.tensor([0]), mode="max",
                                 per_sample_weights=T.ones(2)),
    lambda F, T: F.embedding_bag(T.tensor([1, 2]), T.ones(3, 2), T.tensor([0]),
                                 per_sample_weights=T.ones(3)),
    lambda F, T: F.embedding_bag(T.tensor([1, 2]), T.ones(3), T.tensor([0])),
])
def test_embedding_bag_errors(call):
    same_error(lambda: call(leafgrad.nn.functional, leafgrad),
               lambda: call(torch.nn.functional, torch))


def test_embedding_bag_scale_grad_by_freq_is_not_implemented():
    with pytest.raises(NotImplementedError, match="scale_grad_by_freq"):
        leafgrad.nn.functional.embedding_bag(leafgrad.tensor([[0, 1]]), leafgrad.ones(2, 2),
                                             scale_grad_by_freq=True)


@pytest.mark.parametrize("kw", [{}, {"mode": "max", "padding_idx": 0, "max_norm": 1.0},
                                {"mode": "sum", "norm_type": 1.0, "max_norm": 2.0}])
def test_embedding_bag_module(kw):
    leafgrad.manual_seed(0)
    torch.manual_seed(0)
    mine, theirs = leafgrad.nn.EmbeddingBag(6, 3, **kw), torch.nn.EmbeddingBag(6, 3, **kw)
    assert repr(mine) == repr(theirs)
    np.testing.assert_allclose(mine.weight.detach().numpy(), theirs.weight.detach().numpy())
    idx = np.array([[0, 2, 5], [1, 1, 4]])
    ym, yt = mine(leafgrad.tensor(idx)), theirs(torch.tensor(idx))
    np.testing.assert_allclose(ym.detach().numpy(), yt.detach().numpy(), rtol=1e-6)
    assert type(ym.grad_fn).__name__ == type(yt.grad_fn).__name__
    ym.sum().backward()
    yt.sum().backward()
    np.testing.assert_allclose(mine.weight.grad.numpy(), theirs.weight.grad.numpy(), rtol=1e-6)
