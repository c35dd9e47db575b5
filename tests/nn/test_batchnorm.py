"""Batch and group normalization against PyTorch 2.13: F.batch_norm (training / eval, running
statistics updated in place with momentum and unbiased variance), F.group_norm,
nn.BatchNorm1d/2d/3d (buffers, num_batches_tracked, momentum=None, eval, affine,
track_running_stats=False), nn.GroupNorm; values, grad_fn names, gradients and second
derivatives in float64 and float32, errors."""
from __future__ import annotations

import numpy as np
import pytest
import torch
from tests.nn.layer_oracle import TOL, both, check, copy_state, same_error

import leafgrad

rng = np.random.default_rng(7)


def arr(*shape):
    return rng.standard_normal(shape)


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("shape", [(5, 3), (4, 3, 6), (3, 2, 4, 5)])
@pytest.mark.parametrize("affine", [True, False])
def test_batch_norm_training(shape, affine, dtype):
    c = shape[1]
    w, b = (arr(c), arr(c)) if affine else (None, None)
    check("batch_norm", (arr(*shape), None, None, w, b), {"training": True, "eps": 1e-3},
          dtype=dtype, second=dtype == "float64")


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("training", [True, False])
def test_batch_norm_running_stats(training, dtype):
    x, w, b = arr(6, 3, 4), arr(3), arr(3)
    mean0, var0 = arr(3), np.abs(arr(3)) + 0.5
    (xm, xt), (wm, wt), (bm, bt) = both(x, dtype), both(w, dtype), both(b, dtype)
    rm_m, rm_t = both(mean0, dtype, requires_grad=False)
    rv_m, rv_t = both(var0, dtype, requires_grad=False)
    out_m = leafgrad.nn.functional.batch_norm(xm, rm_m, rv_m, wm, bm, training, 0.3, 1e-4)
    out_t = torch.nn.functional.batch_norm(xt, rm_t, rv_t, wt, bt, training, 0.3, 1e-4)
    tol = TOL[dtype]
    for m, t in ((out_m, out_t), (rm_m, rm_t), (rv_m, rv_t)):
        np.testing.assert_allclose(m.detach().numpy(), t.detach().numpy(), **tol)
    assert rm_m._version == rm_t._version and rv_m._version == rv_t._version
    assert type(out_m.grad_fn).__name__ == type(out_t.grad_fn).__name__
    cot = arr(*out_t.shape).astype(dtype)
    gm = leafgrad.autograd.grad(out_m, [xm, wm, bm], leafgrad.tensor(cot), create_graph=True)
    gt = torch.autograd.grad(out_t, [xt, wt, bt], torch.tensor(cot), create_graph=True)
    for m, t in zip(gm, gt):
        np.testing.assert_allclose(m.detach().numpy(), t.detach().numpy(), **tol)
    if dtype == "float64":   # second derivatives
        ggm = leafgrad.autograd.grad(sum((g * g).sum() for g in gm), [xm, wm], allow_unused=True)
        ggt = torch.autograd.grad(sum((g * g).sum() for g in gt), [xt, wt], allow_unused=True)
        for m, t in zip(ggm, ggt):
            np.testing.assert_allclose(m.numpy(), t.numpy(), **tol)


def test_batch_norm_eval_saved_stats_changed_in_place():
    def run(lib):
        x = lib.ones(4, 3, requires_grad=True)
        rm, rv = lib.zeros(3), lib.ones(3)
        y = lib.nn.functional.batch_norm(x, rm, rv, training=False)
        rm.add_(1)
        y.sum().backward()
    same_error(lambda: run(leafgrad), lambda: run(torch))


def test_two_training_forwards_then_backward():
    for lib in (leafgrad, torch):
        bn = lib.nn.BatchNorm1d(3)
        x = lib.tensor(arr(4, 3).astype("float32"), requires_grad=True)
        y1 = bn(x)
        bn(x)
        y1.sum().backward()   # running stats changed without a version bump: no error
        assert bn.running_mean._version == 1


MODULES = [
    ("BatchNorm1d", (3,), {}, (5, 3)),
    ("BatchNorm1d", (3,), {"momentum": None}, (4, 3, 6)),
    ("BatchNorm1d", (3,), {"affine": False, "eps": 1e-3}, (4, 3, 2)),
    ("BatchNorm2d", (4,), {}, (3, 4, 5, 5)),
    ("BatchNorm2d", (4,), {"track_running_stats": False}, (3, 4, 5, 5)),
    ("BatchNorm2d", (4,), {"momentum": 0.5, "bias": False}, (3, 4, 2, 3)),
    ("BatchNorm3d", (2,), {}, (3, 2, 2, 3, 2)),
    ("GroupNorm", (2, 4), {}, (3, 4, 5, 5)),
    ("GroupNorm", (3, 6), {"affine": False, "eps": 1e-3}, (2, 6, 7)),
    ("GroupNorm", (1, 4), {"bias": False}, (2, 4)),
]


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("spec", MODULES, ids=[f"{s[0]}-{i}" for i, s in enumerate(MODULES)])
def test_module_train_eval_matches_torch(spec, dtype):
    cls, args, kw, shape = spec
    mine, theirs = getattr(leafgrad.nn, cls)(*args, **kw), getattr(torch.nn, cls)(*args, **kw)
    assert repr(mine) == repr(theirs)
    assert list(mine.state_dict()) == list(theirs.state_dict())
    if dtype == "float64":
        mine, theirs = mine.double(), theirs.double()
    if theirs.weight is not None:   # non-trivial affine parameters
        with torch.no_grad():
            theirs.weight.copy_(torch.tensor(arr(*theirs.weight.shape)))
            if theirs.bias is not None:
                theirs.bias.copy_(torch.tensor(arr(*theirs.bias.shape)))
    copy_state(mine, theirs)
    tol = TOL[dtype]
    for step in range(4):
        if step == 3:
            mine.eval()
            theirs.eval()
        x = (arr(*shape) * 2 + 1).astype(dtype)
        xm = leafgrad.tensor(x.copy(), requires_grad=True)
        xt = torch.tensor(x.copy(), requires_grad=True)
        out_m, out_t = mine(xm), theirs(xt)
        np.testing.assert_allclose(out_m.detach().numpy(), out_t.detach().numpy(), **tol)
        assert type(out_m.grad_fn).__name__ == type(out_t.grad_fn).__name__
        cot = arr(*out_t.shape).astype(dtype)
        out_m.backward(leafgrad.tensor(cot))
        out_t.backward(torch.tensor(cot))
        np.testing.assert_allclose(xm.grad.numpy(), xt.grad.numpy(), **tol)
        for (n, p_m), (_, p_t) in zip(mine.named_parameters(), theirs.named_parameters()):
            np.testing.assert_allclose(p_m.grad.numpy(), p_t.grad.numpy(), err_msg=n, **tol)
        for (n, b_m), (_, b_t) in zip(mine.named_buffers(), theirs.named_buffers()):
            assert str(b_m.dtype) == str(b_t.dtype), n
            np.testing.assert_allclose(b_m.numpy(), b_t.numpy(), err_msg=n, **tol)


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("case", [((3, 4, 5), 2), ((2, 6, 3, 2), 3), ((2, 4), 4),
                                  ((2, 6, 3, 2), 1)])
@pytest.mark.parametrize("affine", [True, False])
def test_group_norm(case, affine, dtype):
    shape, groups = case
    c = shape[1]
    w, b = (arr(c), arr(c)) if affine else (None, None)
    check("group_norm", (arr(*shape), groups, w, b), {"eps": 1e-4}, dtype=dtype,
          second=dtype == "float64")


def test_reset_running_stats_and_parameters():
    mine, theirs = leafgrad.nn.BatchNorm1d(3), torch.nn.BatchNorm1d(3)
    for m in (mine, theirs):
        m(_ones(m, (4, 3)))
        m.reset_running_stats()
    for (n, b_m), (_, b_t) in zip(mine.named_buffers(), theirs.named_buffers()):
        np.testing.assert_array_equal(b_m.numpy(), b_t.numpy(), err_msg=n)
        assert b_m._version == b_t._version, n


def _ones(module, shape):
    lib = leafgrad if isinstance(module, leafgrad.nn.Module) else torch
    return lib.tensor(arr(*shape).astype("float32"))


@pytest.mark.parametrize("fn,args,kw", [
    ("batch_norm", ((1, 3), (3,), (3,)), {"training": True}),
    ("batch_norm", ((4, 3), (4,), (3,)), {"training": True}),
    ("batch_norm", ((4, 3), (3,), (3,), (4,)), {"training": True}),
    ("batch_norm", ((4,), (4,), (4,)), {"training": True}),
    ("batch_norm", ((4, 3), None, None), {"training": False}),
    ("group_norm", ((4,), 2), {}),
    ("group_norm", ((2, 4, 8, 8), 3), {}),
    ("group_norm", ((2, 4, 8, 8), 2, (3,)), {}),
    ("group_norm", ((1, 4), 4), {}),
])
def test_functional_errors(fn, args, kw):
    def call(lib):
        vals = [lib.ones(a) if isinstance(a, tuple) else a for a in args]
        return getattr(lib.nn.functional, fn)(*vals, **kw)
    same_error(lambda: call(leafgrad), lambda: call(torch))


@pytest.mark.parametrize("cls,args,shape", [("BatchNorm1d", (3,), (2, 3, 4, 4)),
                                            ("BatchNorm2d", (3,), (2, 3, 4)),
                                            ("BatchNorm3d", (3,), (2, 3, 4)),
                                            ("BatchNorm1d", (3,), (1, 3))])
def test_module_input_errors(cls, args, shape):
    same_error(lambda: getattr(leafgrad.nn, cls)(*args)(leafgrad.ones(shape)),
               lambda: getattr(torch.nn, cls)(*args)(torch.ones(shape)))


def test_group_norm_constructor_error():
    same_error(lambda: leafgrad.nn.GroupNorm(3, 4), lambda: torch.nn.GroupNorm(3, 4))
