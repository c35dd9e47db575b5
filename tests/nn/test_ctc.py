"""F.ctc_loss / nn.CTCLoss against PyTorch 2.13: losses and gradients w.r.t. log_probs at
float64 and float32 over random batches (padded and concatenated targets, lengths as tensors
or tuples, every reduction, zero_infinity, any blank, impossible alignments), grad_fn names,
the missing double backward, unbatched input, and argument errors."""
from __future__ import annotations

import itertools

import numpy as np
import pytest
import torch

import leafgrad
from tests.nn.layer_oracle import same_error


def _log_softmax(x):
    return x - np.log(np.exp(x).sum(-1, keepdims=True))


def _problem(seed):
    rng = np.random.default_rng(seed)
    T, N, C = int(rng.integers(1, 9)), int(rng.integers(1, 4)), int(rng.integers(2, 6))
    blank = int(rng.integers(0, C))
    labels = [c for c in range(C) if c != blank]
    tl = rng.integers(0, T // 2 + 2, N)
    il = rng.integers(0, T + 1, N)
    S = int(tl.max()) + int(rng.integers(0, 2))
    tg = np.array(labels)[rng.integers(0, len(labels), (N, S))]
    if rng.random() < 0.3 and S:
        tg[:, :] = tg[:, :1]                     # repeated labels need a blank between them
    if rng.random() < 0.4:                       # concatenated 1-D targets
        tg = np.concatenate([tg[n, :tl[n]] for n in range(N)]).astype(np.int64)
    return _log_softmax(rng.standard_normal((T, N, C)) * 2), tg, il, tl, blank, rng


def _run(lib, lp, tg, il, tl, dtype, **kw):
    LP = lib.tensor(lp.astype(dtype), requires_grad=True)

    def conv(v):
        return lib.tensor(v) if isinstance(v, np.ndarray) else v
    out = lib.nn.functional.ctc_loss(LP, conv(tg), conv(il), conv(tl), **kw)
    grad, = lib.autograd.grad(out.sum() if out.dim() else out, LP)
    return out, grad


def _same(mine, theirs, dtype):
    tol = dict(atol=1e-10, rtol=1e-9) if dtype == "float64" else dict(atol=1e-4, rtol=1e-4)
    for a, b in zip(mine, theirs):
        assert str(a.dtype) == str(b.dtype)
        assert tuple(a.shape) == tuple(b.shape)
        np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), equal_nan=True,
                                   **tol)
    assert type(mine[0].grad_fn).__name__ == type(theirs[0].grad_fn).__name__


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("seed", range(12))
@pytest.mark.parametrize("reduction,zero_infinity",
                         list(itertools.product(["none", "mean", "sum"], [False, True])))
def test_ctc_loss_random(seed, reduction, zero_infinity, dtype):
    lp, tg, il, tl, blank, rng = _problem(seed)
    if seed % 2:
        il, tl = tuple(il.tolist()), tuple(tl.tolist())
    kw = dict(blank=blank, reduction=reduction, zero_infinity=zero_infinity)
    _same(_run(leafgrad, lp, tg, il, tl, dtype, **kw), _run(torch, lp, tg, il, tl, dtype, **kw),
          dtype)


@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
@pytest.mark.parametrize("zero_infinity", [False, True])
@pytest.mark.parametrize("lengths", ["tensor", "int", "list"])
def test_ctc_loss_unbatched(reduction, zero_infinity, lengths):
    lp = _log_softmax(np.random.default_rng(1).standard_normal((6, 4)))
    tg = np.array([1, 2, 2])
    il, tl = {"tensor": (np.array(6), np.array(3)), "int": (np.array([6]), np.array([3])),
              "list": ([6], [3])}[lengths]
    kw = dict(reduction=reduction, zero_infinity=zero_infinity)
    _same(_run(leafgrad, lp, tg, il, tl, "float64", **kw),
          _run(torch, lp, tg, il, tl, "float64", **kw), "float64")


@pytest.mark.parametrize("shape", [(3, 1), (1, 3)])
def test_ctc_loss_lengths_of_any_shape(shape):
    """Length tensors are read as their values in order, whatever their shape."""
    il, tl = IL.reshape(shape), TL.reshape(shape)
    _same(_run(leafgrad, LP, TG, il, tl, "float64"), _run(torch, LP, TG, il, tl, "float64"),
          "float64")


def test_ctc_loss_long_sequence_is_stable():
    """Long inputs: probabilities far below float range, still finite in log space."""
    rng = np.random.default_rng(5)
    lp = _log_softmax(rng.standard_normal((200, 2, 30)) * 3)
    tg = rng.integers(1, 30, (2, 60))
    for dtype in ("float64", "float32"):
        _same(_run(leafgrad, lp, tg, np.array([200, 150]), np.array([60, 40]), dtype),
              _run(torch, lp, tg, np.array([200, 150]), np.array([60, 40]), dtype), dtype)


def test_ctc_module_and_log_softmax_chain():
    rng = np.random.default_rng(2)
    x = rng.standard_normal((7, 2, 5))
    results = []
    for lib in (leafgrad, torch):
        logits = lib.tensor(x, requires_grad=True)
        loss = lib.nn.CTCLoss(blank=4, zero_infinity=True)(
            logits.log_softmax(2), lib.tensor([[1, 2, 3], [0, 0, 1]]), lib.tensor([7, 6]),
            lib.tensor([3, 2]))
        loss.backward()
        results.append((loss.detach().numpy(), logits.grad.numpy(), repr(lib.nn.CTCLoss())))
    np.testing.assert_allclose(results[0][0], results[1][0], rtol=1e-12)
    np.testing.assert_allclose(results[0][1], results[1][1], atol=1e-12)
    assert results[0][2] == results[1][2]


def test_no_double_backward():
    lp = _log_softmax(np.random.default_rng(3).standard_normal((4, 2, 3)))
    errors, names = [], []
    for lib in (leafgrad, torch):
        LP = lib.tensor(lp, requires_grad=True)
        loss = lib.nn.functional.ctc_loss(LP, lib.tensor([[1, 2], [2, 2]]), (4, 4), (2, 2),
                                          reduction="sum")
        g, = lib.autograd.grad(loss, LP, create_graph=True)
        names.append([type(g.grad_fn).__name__] +
                     [type(f).__name__ for f, _ in g.grad_fn.next_functions])
        with pytest.raises(RuntimeError) as info:
            lib.autograd.grad(g.sum(), LP)
        errors.append(str(info.value))
    assert names[0] == names[1]
    assert errors[0] == errors[1]


LP = _log_softmax(np.random.default_rng(4).standard_normal((6, 3, 5)))
TG = np.array([[1, 2, 3], [2, 2, 1], [4, 1, 1]])
IL, TL = np.array([6, 5, 4]), np.array([3, 2, 1])


@pytest.mark.parametrize("lp,tg,il,tl,kw", [
    (LP, TG, IL, TL, {"reduction": "foo"}), (LP, TG, IL, TL, {"blank": 5}),
    (LP, TG, IL, TL, {"blank": -1}), (LP, TG, np.array([7, 5, 4]), TL, {}),
    (LP, TG, IL, np.array([4, 2, 1]), {}), (LP, TG, IL[:2], TL, {}), (LP, TG, IL, TL[:2], {}),
    (LP, TG, IL.astype(np.float32), TL, {}), (LP, TG, IL, TL.astype(np.float32), {}),
    (LP, TG, IL.astype(bool), TL, {}), (LP, np.array([1, 2, 3, 2, 2]), IL, TL, {}),
    (LP, TG[:2], IL, TL, {}), (LP, TG, np.array([6, -1, 4]), TL, {}),
    (LP, TG, IL, np.array([3, -1, 1]), {}), (LP, TG, np.array([7, 5, 4]), np.array([3, -1, 1]),
                                             {}),
    (LP, TG[:, :, None], IL, TL, {}), (LP[..., None], TG, IL, TL, {}),
    (LP.astype(np.int32), TG, IL, TL, {}), (LP.astype(np.float16), TG, IL, TL, {}),
    (LP[:, :0], TG[:0], IL[:0], TL[:0], {}),
    (LP[:0], TG, IL.astype(np.float32), TL, {})])
def test_ctc_loss_errors(lp, tg, il, tl, kw):
    def call(lib):
        return lambda: lib.nn.functional.ctc_loss(lib.tensor(lp), lib.tensor(tg), lib.tensor(il),
                                                  lib.tensor(tl), **kw)
    same_error(call(leafgrad), call(torch))
