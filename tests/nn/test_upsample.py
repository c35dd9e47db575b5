"""F.interpolate / nn.Upsample against PyTorch 2.13: values, grad_fn names, first and second
derivatives (layer_oracle.check), errors, warnings and reprs."""
from __future__ import annotations

import warnings

import numpy as np
import pytest
import torch

import leafgrad
from tests.nn.layer_oracle import check
from tests.oracle import assert_same_error

RNG = np.random.default_rng(12)

CASES = [
    ("nearest", (5,), {"scale_factor": 2}), ("nearest", (3, 4), {"scale_factor": 1.7}),
    ("nearest", (2, 3, 4), {"size": (3, 5, 2)}), ("nearest-exact", (3, 5), {"size": 7}),
    ("nearest-exact", (4,), {"scale_factor": 0.6}),
    ("linear", (5,), {"scale_factor": 2.5}), ("linear", (5,), {"size": 3, "align_corners": True}),
    ("bilinear", (3, 4), {"scale_factor": 2}), ("bilinear", (3, 4), {"size": (5, 7),
                                                                      "align_corners": True}),
    ("bilinear", (4, 6), {"size": (3, 2)}), ("bicubic", (3, 4), {"scale_factor": 1.5}),
    ("bicubic", (3, 4), {"size": (6, 5), "align_corners": True}),
    ("trilinear", (2, 3, 2), {"scale_factor": 2}),
    ("trilinear", (2, 3, 2), {"size": (3, 4, 5), "align_corners": True}),
    ("area", (4, 6), {"size": (3, 4)}), ("area", (6,), {"scale_factor": 0.5}),
]


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("mode,spatial,kw", CASES)
def test_interpolate(mode, spatial, kw, dtype):
    x = RNG.standard_normal((2, 3) + spatial)
    check("interpolate", (x,), dict(kw, mode=mode), dtype=dtype, second=dtype == "float64")


def test_interpolate_recompute_scale_factor():
    x = RNG.standard_normal((1, 2, 5, 3))
    check("interpolate", (x,), {"scale_factor": 1.3, "mode": "bilinear",
                                "recompute_scale_factor": True})


@pytest.mark.parametrize("args,kw", [
    ((), {"size": 4, "scale_factor": 2}), ((), {}), ((), {"size": (2, 3, 4)}),
    ((), {"scale_factor": (2, 2, 2)}), ((), {"size": 3, "mode": "nearest", "align_corners": True}),
    ((), {"size": 3, "mode": "linear"}), ((), {"size": 3, "mode": "trilinear"}),
    ((), {"size": 3, "mode": "cubic"}), ((), {"size": 0}), ((), {"size": (2.0, 3)}),
    ((), {"size": 4, "recompute_scale_factor": True})])
def test_interpolate_errors(args, kw):
    a = RNG.standard_normal((1, 2, 3, 4))
    assert_same_error(lambda: leafgrad.nn.functional.interpolate(leafgrad.tensor(a), *args,
                                                                 **kw),
                      lambda: torch.nn.functional.interpolate(torch.tensor(a), *args, **kw))


def test_antialias_is_not_implemented():
    with pytest.raises(NotImplementedError, match="antialias"):
        leafgrad.nn.functional.interpolate(leafgrad.ones(1, 1, 4, 4), size=2, mode="bilinear",
                                           antialias=True)


@pytest.mark.parametrize("name", ["upsample", "upsample_nearest", "upsample_bilinear"])
def test_deprecated_upsample_warns(name):
    a = RNG.standard_normal((1, 1, 2, 3))
    with warnings.catch_warnings(record=True) as mine:
        warnings.simplefilter("always")
        out = getattr(leafgrad.nn.functional, name)(leafgrad.tensor(a), scale_factor=2)
    with warnings.catch_warnings(record=True) as theirs:
        warnings.simplefilter("always")
        ref = getattr(torch.nn.functional, name)(torch.tensor(a), scale_factor=2)
    assert [str(w.message) for w in mine] == [str(w.message) for w in theirs]
    np.testing.assert_allclose(out.numpy(), ref.numpy())


@pytest.mark.parametrize("cls,kw", [
    ("Upsample", {"scale_factor": 2}), ("Upsample", {"size": (3, 5), "mode": "bilinear"}),
    ("Upsample", {"scale_factor": (2, 1.5), "mode": "bicubic", "align_corners": False}),
    ("UpsamplingNearest2d", {"scale_factor": 2}), ("UpsamplingBilinear2d", {"size": 5})])
def test_upsample_modules(cls, kw):
    a = RNG.standard_normal((2, 3, 3, 4))
    mine, theirs = getattr(leafgrad.nn, cls)(**kw), getattr(torch.nn, cls)(**kw)
    assert repr(mine) == repr(theirs)
    xm, xt = leafgrad.tensor(a, requires_grad=True), torch.tensor(a, requires_grad=True)
    ym, yt = mine(xm), theirs(xt)
    assert type(ym.grad_fn).__name__ == type(yt.grad_fn).__name__
    np.testing.assert_allclose(ym.detach().numpy(), yt.detach().numpy(), atol=1e-12)
    ym.sum().backward()
    yt.sum().backward()
    np.testing.assert_allclose(xm.grad.numpy(), xt.grad.numpy(), atol=1e-12)
