"""nn.AdaptiveLogSoftmaxWithLoss against PyTorch 2.13: parameter names and shapes (state
dicts load both ways), forward's (output, loss) named tuple with grad_fn names, gradients of
every parameter and the input at float64 and float32, log_prob, predict, unbatched input,
reprs and errors."""
from __future__ import annotations

import numpy as np
import pytest
import torch

import leafgrad
from tests.nn.layer_oracle import copy_state, same_error

RNG = np.random.default_rng(11)


def _pair(*args, dtype="float64", **kw):
    theirs = torch.nn.AdaptiveLogSoftmaxWithLoss(*args, **kw).to(getattr(torch, dtype))
    mine = leafgrad.nn.AdaptiveLogSoftmaxWithLoss(*args, **kw).to(getattr(leafgrad, dtype))
    copy_state(mine, theirs)
    return mine, theirs


def _close(a, b, dtype, what):
    tol = dict(atol=1e-12, rtol=1e-10) if dtype == "float64" else dict(atol=1e-5, rtol=1e-4)
    assert str(a.dtype) == str(b.dtype), what
    assert tuple(a.shape) == tuple(b.shape), what
    np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), err_msg=what, **tol)


def test_parameters_and_repr():
    mine, theirs = _pair(16, 40, [5, 12, 30], div_value=2.0, head_bias=True)
    assert [(n, tuple(p.shape)) for n, p in mine.named_parameters()] == \
        [(n, tuple(p.shape)) for n, p in theirs.named_parameters()]
    assert list(mine.state_dict()) == list(theirs.state_dict())
    assert repr(mine) == repr(theirs)
    for name in ("in_features", "n_classes", "cutoffs", "div_value", "head_bias",
                 "shortlist_size", "n_clusters", "head_size"):
        assert getattr(mine, name) == getattr(theirs, name), name
    # and back: a leafgrad state dict loads into torch
    theirs.load_state_dict({k: torch.tensor(v.numpy()) for k, v in mine.state_dict().items()})


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("cutoffs,targets", [
    ([4], [0, 5, 9, 3, 7]), ([3, 6, 8], [0, 4, 7, 9, 1, 8, 5]), ([2, 5], [0, 1, 1]),
    ([2, 5], [6, 9, 7]), ([5], [7])])
def test_forward_and_gradients(cutoffs, targets, dtype):
    mine, theirs = _pair(8, 10, cutoffs, dtype=dtype)
    x = RNG.standard_normal((len(targets), 8)).astype(dtype)
    xm = leafgrad.tensor(x, requires_grad=True)
    xt = torch.tensor(x, requires_grad=True)
    om = mine(xm, leafgrad.tensor(targets))
    ot = theirs(xt, torch.tensor(targets))
    assert type(om).__name__ == type(ot).__name__ == "_ASMoutput"
    assert om._fields == ot._fields
    for a, b, what in ((om.output, ot.output, "output"), (om.loss, ot.loss, "loss")):
        _close(a, b, dtype, what)
        assert type(a.grad_fn).__name__ == type(b.grad_fn).__name__, what
    (om.loss + om.output.sum()).backward()
    (ot.loss + ot.output.sum()).backward()
    _close(xm.grad, xt.grad, dtype, "input grad")
    for (n, p), (_, q) in zip(mine.named_parameters(), theirs.named_parameters()):
        assert (p.grad is None) == (q.grad is None), n      # clusters no target reached
        if q.grad is not None:
            _close(p.grad, q.grad, dtype, f"grad of {n}")


def test_unbatched_forward():
    mine, theirs = _pair(6, 9, [3, 6])
    x = RNG.standard_normal(6)
    for target in (1, 4, 8):
        om = mine(leafgrad.tensor(x), leafgrad.tensor(target))
        ot = theirs(torch.tensor(x), torch.tensor(target))
        _close(om.output, ot.output, "float64", "output")
        _close(om.loss, ot.loss, "float64", "loss")


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_log_prob_and_predict(dtype):
    mine, theirs = _pair(8, 12, [3, 7], dtype=dtype)
    x = RNG.standard_normal((20, 8)).astype(dtype) * 3
    xm = leafgrad.tensor(x, requires_grad=True)
    xt = torch.tensor(x, requires_grad=True)
    lm, lt = mine.log_prob(xm), theirs.log_prob(xt)
    _close(lm, lt, dtype, "log_prob")
    assert type(lm.grad_fn).__name__ == type(lt.grad_fn).__name__
    w = RNG.standard_normal(lm.shape).astype(dtype)
    (lm * leafgrad.tensor(w)).sum().backward()
    (lt * torch.tensor(w)).sum().backward()
    _close(xm.grad, xt.grad, dtype, "log_prob input grad")
    pm, pt = mine.predict(xm.detach()), theirs.predict(xt.detach())
    np.testing.assert_array_equal(pm.numpy(), pt.numpy())
    assert str(pm.dtype) == str(pt.dtype)
    # every branch of predict: all in the shortlist, none, some
    for rows in (slice(0, 1), slice(None)):
        np.testing.assert_array_equal(mine.predict(xm.detach()[rows]).numpy(),
                                      theirs.predict(xt.detach()[rows]).numpy())


def test_predict_branches():
    mine, theirs = _pair(4, 8, [2])
    with torch.no_grad():
        theirs.head.weight.copy_(torch.tensor([[5., 0, 0, 0], [0, 0, 0, 0], [0, 5., 0, 0]]))
    copy_state(mine, theirs)
    for x in ([[1., 0, 0, 0], [2., 0, 0, 0]], [[0, 1., 0, 0], [0, 2., 0, 0]],
              [[1., 0, 0, 0], [0, 3., 0, 0]]):
        x = np.array(x)
        np.testing.assert_array_equal(mine.predict(leafgrad.tensor(x)).numpy(),
                                      theirs.predict(torch.tensor(x)).numpy())


@pytest.mark.parametrize("args", [
    (8, 10, []), (8, 10, [5, 3]), (8, 10, [0, 4]), (8, 10, [4, 10]), (8, 10, [4, 4]),
    (8, 10, [2.5])])
def test_constructor_errors(args):
    same_error(lambda: leafgrad.nn.AdaptiveLogSoftmaxWithLoss(*args),
               lambda: torch.nn.AdaptiveLogSoftmaxWithLoss(*args))


@pytest.mark.parametrize("x_shape,target", [
    ((3, 8), [1, 2]), ((3, 8, 1), [1, 2, 3]), ((3, 8), 1), ((8,), [[1]]),
    ((2, 8), [1, 10]), ((2, 8), [-1, 3])])
def test_forward_errors(x_shape, target):
    mine, theirs = _pair(8, 10, [4])
    x = np.zeros(x_shape)
    same_error(lambda: mine(leafgrad.tensor(x), leafgrad.tensor(target)),
               lambda: theirs(torch.tensor(x), torch.tensor(target)))
