"""Margin and triplet losses, their modules and the *_with_indices spellings against PyTorch
2.13 (values, input gradients, grad_fn names, errors, reprs)."""
from __future__ import annotations

import numpy as np
import pytest
import torch

import leafgrad
from tests.nn.layer_oracle import check, same_error

RNG = np.random.default_rng(5)


def r(*shape):
    return RNG.standard_normal(shape)


T1 = np.array([1, 0, 3, 2])
ML = np.array([[3, 0, -1, 1, 2], [0, 1, 2, 4, 3], [1, -1, 0, 0, 2], [-1, 2, 3, 0, 0]])


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("fn,args,kw", [
    ("multi_margin_loss", (r(4, 5), T1), {}),
    ("multi_margin_loss", (r(4, 5), T1), {"p": 2, "margin": 0.5, "reduction": "sum"}),
    ("multi_margin_loss", (r(4, 5), T1), {"reduction": "none"}),
    ("multi_margin_loss", (r(5), np.array(2)), {"reduction": "none"}),
    ("multi_margin_loss", (r(5), np.array([2])), {}),
    ("multilabel_margin_loss", (r(4, 5), ML), {}),
    ("multilabel_margin_loss", (r(4, 5), ML), {"reduction": "none"}),
    ("multilabel_margin_loss", (r(4, 5), ML), {"reduction": "sum"}),
    ("multilabel_margin_loss", (r(5), ML[1]), {"reduction": "none"}),
    ("triplet_margin_loss", (r(3, 4), r(3, 4), r(3, 4)), {}),
    ("triplet_margin_loss", (r(3, 4), r(3, 4), r(3, 4)), {"swap": True, "p": 1,
                                                          "reduction": "none"}),
    ("triplet_margin_with_distance_loss", (r(3, 4), r(3, 4), r(3, 4)), {"margin": 2.0}),
    ("triplet_margin_with_distance_loss", (r(3, 4), r(3, 4), r(3, 4)),
     {"swap": True, "reduction": "sum"}),
], ids=lambda v: v if isinstance(v, str) else "")
def test_losses(fn, args, kw, dtype):
    check(fn, args, kw, dtype=dtype, second=False)


@pytest.mark.parametrize("p", [1, 2])
def test_multi_margin_weight(p):
    w, x = np.abs(r(5)), r(4, 5)
    out = []
    for lib in (leafgrad, torch):
        xt = lib.tensor(x, requires_grad=True)
        y = lib.nn.functional.multi_margin_loss(xt, lib.tensor(T1), p=p, weight=lib.tensor(w))
        y.backward()
        out.append((y.detach().numpy(), xt.grad.numpy()))
    for a, b in zip(*out):
        np.testing.assert_allclose(a, b, atol=1e-12)


@pytest.mark.parametrize("call", [
    lambda F, T: F.multi_margin_loss(T.ones(3, 4), T.tensor([1, 0, 4])),
    lambda F, T: F.multi_margin_loss(T.ones(3, 4), T.tensor([1, 0])),
    lambda F, T: F.multi_margin_loss(T.ones(3, 4), T.tensor([1, 0, 1]), p=3),
    lambda F, T: F.multi_margin_loss(T.ones(3, 4), T.tensor([1, 0, 1]), weight=T.ones(3)),
    lambda F, T: F.multi_margin_loss(T.ones(2, 3, 4), T.tensor([1])),
    lambda F, T: F.multilabel_margin_loss(T.ones(3, 4), T.tensor([[1, 0, 4, -1]] * 3)),
    lambda F, T: F.multilabel_margin_loss(T.ones(3, 4), T.tensor([[1, 0, -1]] * 3)),
    lambda F, T: F.triplet_margin_loss(T.ones(3, 4), T.ones(3, 4), T.ones(4)),
    lambda F, T: F.triplet_margin_loss(T.ones(3, 4), T.ones(3, 4), T.ones(3, 4), margin=0),
    lambda F, T: F.triplet_margin_with_distance_loss(T.ones(2), T.ones(2), T.ones(2),
                                                     reduction="avg"),
    lambda F, T: T.nn.TripletMarginLoss(margin=-1),
    lambda F, T: T.nn.MultiMarginLoss(p=3),
    lambda F, T: F.multi_margin_loss(T.ones(3, 4), T.tensor([1, 0, 2]),
                                     weight=T.ones(4, requires_grad=True)),
])
def test_errors(call):
    same_error(lambda: call(leafgrad.nn.functional, leafgrad),
               lambda: call(torch.nn.functional, torch))


@pytest.mark.parametrize("cls,kw,inputs", [
    ("MultiMarginLoss", {}, ((4, 5), T1)), ("MultiMarginLoss", {"p": 2, "margin": 0.3},
                                            ((4, 5), T1)),
    ("MultiLabelMarginLoss", {"reduction": "sum"}, ((4, 5), ML)),
    ("MultiLabelSoftMarginLoss", {}, ((4, 5), (RNG.random((4, 5)) > 0.5).astype(float))),
    ("GaussianNLLLoss", {"full": True}, ((4, 2), (4, 2), np.abs(r(4, 2)) + 0.1)),
    ("TripletMarginLoss", {"margin": 0.5, "swap": True}, ((3, 4), (3, 4), (3, 4))),
    ("TripletMarginWithDistanceLoss", {}, ((3, 4), (3, 4), (3, 4))),
])
def test_loss_modules(cls, kw, inputs):
    mine, theirs = getattr(leafgrad.nn, cls)(**kw), getattr(torch.nn, cls)(**kw)
    assert repr(mine) == repr(theirs)
    arrays = [r(*a) if isinstance(a, tuple) else a for a in inputs]
    am = [leafgrad.tensor(a, requires_grad=a.dtype.kind == "f" and i == 0)
          for i, a in enumerate(arrays)]
    at = [torch.tensor(a, requires_grad=a.dtype.kind == "f" and i == 0)
          for i, a in enumerate(arrays)]
    ym, yt = mine(*am), theirs(*at)
    assert type(ym.grad_fn).__name__ == type(yt.grad_fn).__name__
    np.testing.assert_allclose(ym.detach().numpy(), yt.detach().numpy(), atol=1e-12)
    ym.backward()
    yt.backward()
    np.testing.assert_allclose(am[0].grad.numpy(), at[0].grad.numpy(), atol=1e-12)


@pytest.mark.parametrize("fn,args", [
    ("max_pool1d_with_indices", ((2, 3, 6), 2)), ("max_pool2d_with_indices", ((1, 2, 4, 4), 2)),
    ("max_pool3d_with_indices", ((1, 1, 4, 4, 4), 2)),
    ("adaptive_max_pool1d_with_indices", ((2, 3, 7), 3)),
    ("adaptive_max_pool2d_with_indices", ((1, 2, 5, 5), 2)),
    ("adaptive_max_pool3d_with_indices", ((1, 1, 4, 4, 4), 2)),
])
def test_with_indices(fn, args):
    check(fn, (r(*args[0]),) + args[1:], second=False)


def test_nllloss2d_is_deprecated_alias():
    import warnings
    seen = []
    for lib in (leafgrad, torch):
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            m = lib.nn.NLLLoss2d(reduction="sum")
        x = lib.tensor(r(2, 3, 2, 2) if not seen else seen[0][3], requires_grad=True)
        y = m(x.log_softmax(1), lib.tensor(np.array([[[0, 1], [2, 0]], [[1, 1], [0, 2]]])))
        seen.append(([(type(i.message).__name__, str(i.message)) for i in w], repr(m),
                     float(y), x.detach().numpy()))
    assert seen[0][:2] == seen[1][:2]
    assert abs(seen[0][2] - seen[1][2]) < 1e-12
