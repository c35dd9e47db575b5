"""What each op saves for backward, against PyTorch: for every record's samples, one input
(a non-leaf copy) is changed in place after the forward, then gradients are taken. PyTorch
raises its version-counter error exactly when it saved that input; otherwise its gradients
are those of the original values. leafgrad must agree on both: a gradient that differs
without an error would be a silently wrong gradient (einsum's was, fuzz seed 159), and an
error PyTorch does not raise (or a missing one) is a difference users see."""
from __future__ import annotations

import warnings

import numpy as np
import pytest
import torch

import leafgrad
from leafgrad.ops.registry import RECORDS
from oracle import to_both
from test_ops_registry import Maker, _as_list, _run

_NAMES = sorted(name for name, rec in RECORDS.items()
                if rec.samples is not None and rec.differentiable)
_SHAPES = [(3, 4), (3, 4), (3, 4), (3, 4)]


def _outcome(lib, call, sample, k):
    """Change the k-th float input after the forward; the error (kind, is it a version
    error) or the gradients."""
    side = 0 if lib is leafgrad else 1
    args = [to_both(a)[side] for a in sample.args]
    kwargs = {key: to_both(v)[side] for key, v in sample.kwargs.items()}
    tensor = (leafgrad.Tensor, torch.Tensor)
    leaves = [a for a in args if isinstance(a, tensor) and a.requires_grad]
    copies = []
    for i, a in enumerate(args):
        if isinstance(a, tensor) and a.requires_grad:
            args[i] = a * 1
            copies.append(args[i])
    if k >= len(copies):
        return None
    try:
        outs = [o for o in _as_list(_run(lib, call, tuple(args), kwargs))
                if isinstance(o, tensor) and o.requires_grad]
        if not outs:
            return None
        with lib.no_grad():
            copies[k].mul_(1.5).add_(0.25)
        total = sum((o.double() * (i + 1.0)).sum() for i, o in enumerate(outs))
        grads = lib.autograd.grad(total, leaves, allow_unused=True)
    except RuntimeError as exc:
        return ("error", "modified by an inplace operation" in str(exc))
    return ("grads", [None if g is None else g.detach().double().numpy() for g in grads])


def _assert_same_outcome(mine, theirs, what):
    """Both raised (a version error or not alike) or both gave the same gradients."""
    assert mine[0] == theirs[0], f"{what}: {mine} vs torch {theirs}"
    if mine[0] == "error":
        assert mine[1] == theirs[1], f"{what}: {mine} vs torch {theirs}"
        return
    for a, b in zip(mine[1], theirs[1]):
        assert (a is None) == (b is None), what
        if b is not None:
            np.testing.assert_allclose(a, b, atol=1e-6, rtol=1e-6, equal_nan=True, err_msg=what)


@pytest.mark.parametrize("name", _NAMES)
def test_changed_input_after_forward(name):
    rec = RECORDS[name]
    samples = rec.samples(Maker(np.random.default_rng(0)), _SHAPES)
    for sample in samples:
        call = sample.call or (rec.functions[0] if rec.functions else "Tensor." + rec.methods[0])
        if not sample.grad or call.endswith("_"):
            continue
        floats = [a for a in sample.args if isinstance(a, np.ndarray) and a.dtype.kind == "f"]
        for k in range(len(floats)):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                mine = _outcome(leafgrad, call, sample, k)
                theirs = _outcome(torch, call, sample, k)
            if theirs is None:
                continue
            assert mine is not None, f"{call} sample {sample.args[:1]} input {k}"
            _assert_same_outcome(mine, theirs, f"{call} input {k}")


# records without samples (their public calls written out): (call, input shapes)
_EXTRA = {
    "prod": (lambda L, a: a.prod(), [(3, 4)]),
    "prod_dim": (lambda L, a: a.prod(1), [(3, 4)]),
    "sum": (lambda L, a: a.sum(), [(3, 4)]),
    "mean": (lambda L, a: a.mean(0), [(3, 4)]),
    "nansum": (lambda L, a: a.nansum(1), [(3, 4)]),
    "norm_dim": (lambda L, a: a.norm(dim=1), [(3, 4)]),
    "norm_p3": (lambda L, a: a.norm(p=3, dim=0), [(3, 4)]),
    "eigh": (lambda L, a: L.linalg.eigh(a + a.mT)[0], [(3, 3)]),
    "eigh_vectors": (lambda L, a: L.linalg.eigh(a + a.mT)[1].abs(), [(3, 3)]),
    "svd": (lambda L, a: L.linalg.svd(a, full_matrices=False)[1], [(3, 4)]),
    "svd_u": (lambda L, a: L.linalg.svd(a, full_matrices=False)[0].abs(), [(3, 4)]),
    "lu_unpack": (lambda L, a: L.lu_unpack(*L.linalg.lu_factor(a))[1], [(3, 3)]),
    "scatter_reduce": (lambda L, a, b: a.scatter_reduce(1, L.tensor([[0, 1, 1, 0]] * 3), b,
                                                        "prod"), [(3, 4), (3, 4)]),
    "scatter_amax": (lambda L, a, b: a.scatter_reduce(1, L.tensor([[0, 1, 1, 0]] * 3), b,
                                                      "amax"), [(3, 4), (3, 4)]),
    "scatter_value": (lambda L, a: a.scatter(1, L.tensor([[0, 1]] * 3), 2.0), [(3, 4)]),
    "index_put": (lambda L, a, b: a.index_put((L.tensor([0, 2]),), b), [(3, 4), (2, 4)]),
    "index_put_acc": (lambda L, a, b: a.index_put((L.tensor([0, 0]),), b, accumulate=True),
                      [(3, 4), (2, 4)]),
    "index_fill": (lambda L, a, b: a.index_fill(1, L.tensor([0, 2]), b.sum()), [(3, 4), (2,)]),
    "setitem": (lambda L, a, b: _setitem(a, b), [(3, 4), (4,)]),
    "masked_scatter": (lambda L, a, b: a.masked_scatter(a > 0, b), [(3, 4), (3, 4)]),
    "unique_values": (lambda L, a: L.unique(a.round(), return_inverse=True)[0], [(3, 4)]),
    "xlogy_scalar": (lambda L, a: L.xlogy(2.0, a.abs() + 0.5), [(3, 4)]),
    "div_scalar": (lambda L, a: a / 3.0, [(3, 4)]),
    "mul_scalar": (lambda L, a: a * 3.0, [(3, 4)]),
    "clone": (lambda L, a: a.t().contiguous(), [(3, 4)]),
    "cumprod": (lambda L, a: a.cumprod(1), [(3, 4)]),
    "logcumsumexp": (lambda L, a: a.logcumsumexp(1), [(3, 4)]),
    "fractional_max_pool2d": (lambda L, a: L.nn.functional.fractional_max_pool2d(
        a, 2, output_size=2, _random_samples=L.full((1, 1, 2), 0.5, dtype=a.dtype)),
        [(1, 1, 4, 4)]),
    "elu_": (lambda L, a: L.nn.functional.elu(a * 1, inplace=True), [(3, 4)]),
    "leaky_relu_": (lambda L, a: L.nn.functional.leaky_relu(a * 1, 0.1, inplace=True),
                    [(3, 4)]),
    "threshold_": (lambda L, a: L.nn.functional.threshold(a * 1, 0.1, 0.0, inplace=True),
                   [(3, 4)]),
    "batch_norm": (lambda L, a, w: L.nn.functional.batch_norm(a, None, None, w, None, True),
                   [(4, 3), (3,)]),
    "layer_norm": (lambda L, a, w: L.nn.functional.layer_norm(a, (3,), w), [(4, 3), (3,)]),
    "group_norm": (lambda L, a, w: L.nn.functional.group_norm(a, 1, w), [(2, 3, 2), (3,)]),
    "conv2d": (lambda L, a, w: L.nn.functional.conv2d(a, w), [(1, 2, 4, 4), (3, 2, 2, 2)]),
    "max_pool2d": (lambda L, a: L.nn.functional.max_pool2d(a, 2), [(1, 1, 4, 4)]),
    "avg_pool2d": (lambda L, a: L.nn.functional.avg_pool2d(a, 2), [(1, 1, 4, 4)]),
    "interpolate": (lambda L, a: L.nn.functional.interpolate(a, scale_factor=2,
                                                             mode="bilinear"), [(1, 1, 2, 2)]),
    "grid_sample": (lambda L, a, g: L.nn.functional.grid_sample(a, g.tanh(),
                                                                align_corners=False),
                    [(1, 1, 3, 3), (1, 2, 2, 2)]),
    "embedding": (lambda L, w: L.nn.functional.embedding(L.tensor([0, 2, 2]), w), [(3, 4)]),
    "mse_loss": (lambda L, a, b: L.nn.functional.mse_loss(a, b), [(3, 4), (3, 4)]),
    "cross_entropy": (lambda L, a: L.nn.functional.cross_entropy(a, L.tensor([0, 2, 1])),
                      [(3, 4)]),
    "softmax": (lambda L, a: a.softmax(1), [(3, 4)]),
    "log_softmax": (lambda L, a: a.log_softmax(1), [(3, 4)]),
    "cdist": (lambda L, a, b: L.cdist(a, b), [(3, 4), (2, 4)]),
    "pdist": (lambda L, a: L.pdist(a), [(3, 4)]),
    "prelu": (lambda L, a, w: L.nn.functional.prelu(a, w), [(3, 4), (1,)]),
    "gelu_silu": (lambda L, a: L.nn.functional.gelu(a) * L.nn.functional.silu(a), [(3, 4)]),
}


def _setitem(a, b):
    a = a * 1
    a[1] = b
    return a


def _extra_outcome(lib, fn, shapes, k):
    rng = np.random.default_rng(3)
    leaves = [lib.tensor(rng.uniform(-2, 2, s), dtype=lib.float64, requires_grad=True)
              for s in shapes]
    copies = [t * 1 for t in leaves]
    if k >= len(copies):
        return None
    try:
        out = fn(lib, *copies)
        with lib.no_grad():
            copies[k].mul_(1.5).add_(0.25)
        grads = lib.autograd.grad((out * lib.arange(out.numel(), dtype=out.dtype)
                                   .reshape(out.shape)).sum(), leaves, allow_unused=True)
    except RuntimeError as exc:
        return ("error", "modified by an inplace operation" in str(exc))
    return ("grads", [None if g is None else g.numpy() for g in grads])


@pytest.mark.parametrize("case", sorted(_EXTRA))
def test_changed_input_after_forward_extra(case):
    fn, shapes = _EXTRA[case]
    for k in range(len(shapes)):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            mine = _extra_outcome(leafgrad, fn, shapes, k)
            theirs = _extra_outcome(torch, fn, shapes, k)
        _assert_same_outcome(mine, theirs, f"{case} input {k}")
