"""Lazy modules against PyTorch 2.13: reprs before and after the first call, inferred sizes,
the class they become, seeded default initialisation, outputs."""
from __future__ import annotations

import numpy as np
import pytest
import torch

import leafgrad


@pytest.mark.parametrize("cls,args,kw,shape", [
    ("LazyLinear", (4,), {}, (2, 3)), ("LazyLinear", (2,), {"bias": False}, (5, 2, 3)),
    ("LazyConv1d", (4, 3), {}, (2, 3, 8)), ("LazyConv2d", (4, 3), {"padding": 1, "groups": 2},
                                            (2, 6, 5, 5)),
    ("LazyConv2d", (2, 3), {}, (3, 5, 5)), ("LazyConv3d", (2, 2), {}, (1, 2, 3, 3, 3)),
    ("LazyBatchNorm1d", (), {}, (4, 3)), ("LazyBatchNorm2d", (), {"affine": False},
                                          (2, 3, 2, 2)),
    ("LazyBatchNorm3d", (), {"track_running_stats": False}, (2, 2, 2, 2, 2)),
    ("LazyInstanceNorm1d", (), {}, (2, 3, 5)),
    ("LazyInstanceNorm2d", (), {"affine": False, "track_running_stats": False}, (2, 3, 2, 2)),
    ("LazyInstanceNorm3d", (), {"bias": False}, (2, 2, 2, 2, 2)),
])
def test_lazy(cls, args, kw, shape):
    rng = np.random.default_rng(0)
    x = rng.standard_normal(shape).astype(np.float32)
    seen = []
    for lib in (leafgrad, torch):
        lib.manual_seed(0)
        m = getattr(lib.nn, cls)(*args, **kw)
        before = repr(m)
        params = [repr(p) for p in m.parameters()]
        y = m(lib.tensor(x))
        seen.append((before, params, repr(m), type(m).__name__,
                     [(k, tuple(v.shape), v.detach().numpy()) for k, v in m.state_dict().items()],
                     y.detach().numpy()))
    (b1, p1, a1, c1, s1, y1), (b2, p2, a2, c2, s2, y2) = seen
    assert (b1, p1, a1, c1) == (b2, p2, a2, c2)
    assert [(k, s) for k, s, _ in s1] == [(k, s) for k, s, _ in s2]
    for (_, _, v1), (_, _, v2) in zip(s1, s2):
        np.testing.assert_allclose(v1, v2, rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(y1, y2, rtol=1e-5, atol=1e-5)


def test_uninitialized_parameter():
    p = leafgrad.nn.UninitializedParameter()
    assert repr(p) == repr(torch.nn.UninitializedParameter())
    p.materialize((2, 3))
    assert type(p) is leafgrad.nn.Parameter and tuple(p.shape) == (2, 3) and p.requires_grad
