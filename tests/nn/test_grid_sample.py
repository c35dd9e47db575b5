"""F.grid_sample / F.affine_grid against PyTorch 2.13: values, grad_fn names, gradients w.r.t.
input, grid and theta (first and second order at float64, first at float32), ties at pixel
centres and borders, errors and the align_corners warnings."""
from __future__ import annotations

import itertools
import warnings

import numpy as np
import pytest
import torch

import leafgrad
from tests.nn.layer_oracle import check, same_error

RNG = np.random.default_rng(7)
PADDINGS = ["zeros", "border", "reflection"]
CASES_2D = list(itertools.product(["bilinear", "nearest", "bicubic"], PADDINGS, [False, True]))
CASES_3D = list(itertools.product(["bilinear", "nearest"], PADDINGS, [False, True]))


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("mode,padding,align", CASES_2D)
def test_grid_sample_2d(mode, padding, align, dtype):
    x = RNG.standard_normal((2, 3, 4, 5))
    g = RNG.uniform(-1.4, 1.4, (2, 3, 2, 2))
    check("grid_sample", (x, g), dict(mode=mode, padding_mode=padding, align_corners=align),
          dtype=dtype, second=dtype == "float64")


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("mode,padding,align", CASES_3D)
def test_grid_sample_3d(mode, padding, align, dtype):
    x = RNG.standard_normal((2, 2, 4, 5, 3))
    g = RNG.uniform(-1.4, 1.4, (2, 3, 2, 4, 3))
    check("grid_sample", (x, g), dict(mode=mode, padding_mode=padding, align_corners=align),
          dtype=dtype, second=dtype == "float64")


@pytest.mark.parametrize("mode,padding,align", CASES_2D)
def test_grid_sample_at_pixel_centres_and_borders(mode, padding, align):
    """Grid points exactly on pixels, on the borders and half a pixel outside: the places
    where floor, rounding and the clip's zero slope at the borders decide."""
    W, H = 5, 4
    px = np.array([-1, 0, 1, 2, 4, 5, 6, 0.5, -0.5, 4.5])
    py = np.array([-1, 0, 3, 2, 1, 4, 3, 0.5, 3.5, -0.5])

    def norm(p, s):
        return p / (s - 1) * 2 - 1 if align else (2 * p + 1) / s - 1
    g = np.stack([norm(px, W), norm(py, H)], -1)[None, None]
    check("grid_sample", (RNG.standard_normal((1, 2, H, W)), g),
          dict(mode=mode, padding_mode=padding, align_corners=align))


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("size,theta,align", [
    ((2, 3, 4, 5), (2, 2, 3), False), ((2, 3, 4, 5), (2, 2, 3), True),
    ((2, 1, 3, 2, 4), (2, 3, 4), False), ((1, 2, 2, 3, 2), (1, 3, 4), True),
    ((1, 1, 1, 1), (1, 2, 3), False), ((1, 1, 1, 3, 1), (1, 3, 4), False)])
def test_affine_grid(size, theta, align, dtype):
    check("affine_grid", (RNG.standard_normal(theta), size), dict(align_corners=align),
          dtype=dtype)


@pytest.mark.parametrize("n", [2, 3])
@pytest.mark.parametrize("padding", PADDINGS)
@pytest.mark.parametrize("align", [False, True])
def test_spatial_transformer_chain(n, padding, align):
    """affine_grid -> grid_sample -> loss, as a spatial transformer network uses them; the
    identity theta puts grid points exactly on -1 and 1."""
    x = RNG.standard_normal((2, 2) + (4, 5, 3)[:n])
    theta = np.repeat(np.eye(n, n + 1)[None], 2, 0)
    theta[1] += RNG.standard_normal((n, n + 1)) * 0.3
    size = (2, 2) + (3, 4, 5)[:n]
    results = []
    for lib in (leafgrad, torch):
        X = lib.tensor(x, requires_grad=True)
        T = lib.tensor(theta, requires_grad=True)
        grid = lib.nn.functional.affine_grid(T, size, align_corners=align)
        y = lib.nn.functional.grid_sample(X, grid, padding_mode=padding, align_corners=align)
        assert type(y.grad_fn).__name__ == f"GridSampler{n}DBackward0"
        assert type(grid.grad_fn).__name__ == "AffineGridGeneratorBackward0"
        gx, gt = lib.autograd.grad((y * y).sum(), [X, T])
        results.append([t.detach().numpy() for t in (y, gx, gt)])
    for a, b in zip(*results):
        np.testing.assert_allclose(a, b, atol=1e-10, rtol=1e-9)


def _both(fn, *arrays):
    return (lambda: fn(leafgrad, *[leafgrad.tensor(a) for a in arrays]),
            lambda: fn(torch, *[torch.tensor(a) for a in arrays]))


X4 = np.zeros((2, 3, 4, 5), np.float32)
G4 = np.zeros((2, 6, 7, 2), np.float32)


@pytest.mark.parametrize("x,g,kw", [
    (X4, G4[:1], {}), (X4, G4[..., :1], {}), (X4[0], G4[0], {}), (X4, G4.astype(np.float64), {}),
    (X4.astype(np.float64), G4, {}), (X4, G4[:, None], {}),
    (X4[..., None], np.zeros((2, 3, 4, 5, 2), np.float32), {}),
    (X4[..., None], np.zeros((2, 3, 4, 5, 3), np.float32), {"mode": "bicubic"}),
    (X4[:, :, :0], G4, {}), (X4.astype(np.int32), G4.astype(np.int32), {}),
    (X4, G4, {"mode": "foo"}), (X4, G4, {"padding_mode": "foo"})])
def test_grid_sample_errors(x, g, kw):
    def call(lib, a, b):
        return lib.nn.functional.grid_sample(a, b, align_corners=False, **kw)
    same_error(*_both(call, x, g))


@pytest.mark.parametrize("theta,size", [
    (np.zeros((2, 2, 3)), (1, 3, 4, 5)), (np.zeros((2, 2, 3), np.int64), (2, 3, 4, 5)),
    (np.zeros((2, 2, 3)), (2, 3, 0, 5)), (np.zeros((2, 2, 3)), (2, 3, 4)),
    (np.zeros((2, 3, 4)), (2, 3, 4, 5)), (np.zeros((2, 2, 3)), (2, 3, 4, 5, 6)),
    (np.zeros((2, 2)), (2, 3, 4, 5))])
def test_affine_grid_errors(theta, size):
    def call(lib, t):
        return lib.nn.functional.affine_grid(t, size, align_corners=False)
    same_error(*_both(call, theta))


def _warnings(fn):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        fn()
    return [(w.category.__name__, str(w.message)) for w in caught]


@pytest.mark.parametrize("call", [
    lambda lib: lib.nn.functional.grid_sample(lib.zeros(1, 1, 2, 2), lib.zeros(1, 1, 1, 2)),
    lambda lib: lib.nn.functional.affine_grid(lib.zeros(1, 2, 3), (1, 1, 2, 2)),
    lambda lib: lib.nn.functional.affine_grid(lib.zeros(1, 2, 3), (1, 1, 1, 2),
                                              align_corners=True),
    lambda lib: lib.nn.functional.grid_sample(lib.zeros(1, 1, 2, 2), lib.zeros(1, 1, 1, 2),
                                              align_corners=False)])
def test_warnings(call):
    assert _warnings(lambda: call(leafgrad)) == _warnings(lambda: call(torch))


@pytest.mark.parametrize("n", [2, 3])
def test_non_finite_and_huge_grid_values(n):
    """NaN, inf and huge coordinates: the 2-d kernel (vectorized) clamps NaN to 0 and lets a
    NaN weight reach the output, the 3-d one (scalar) sends NaN to the far border and skips
    out-of-bounds taps; reflection folds huge values with the kernel's own arithmetic."""
    x = RNG.standard_normal((1, 2) + (3, 4, 5)[:n])
    pts = [[np.nan, 0.2, 0.1], [0.1, np.inf, 0.3], [-np.inf, 0.3, -0.2], [5.0, -7.0, 12.3],
           [1e10, 0.0, -1e9], [0.3, 0.2, np.nan], [-1e7, 3e8, 0.5]]
    g = np.array(pts)[:, :n].reshape((1,) * (n - 1) + (1, len(pts), n))
    modes = ["bilinear", "nearest", "bicubic"] if n == 2 else ["bilinear", "nearest"]
    for mode, padding, align in itertools.product(modes, PADDINGS, [False, True]):
        kw = dict(mode=mode, padding_mode=padding, align_corners=align)
        mine = leafgrad.nn.functional.grid_sample(leafgrad.tensor(x), leafgrad.tensor(g), **kw)
        theirs = torch.nn.functional.grid_sample(torch.tensor(x), torch.tensor(g), **kw)
        np.testing.assert_allclose(mine.numpy(), theirs.numpy(), rtol=1e-9, atol=1e-12,
                                   equal_nan=True, err_msg=str(kw))


@pytest.mark.parametrize("mode", ["bilinear", "nearest", "bicubic"])
def test_float16_rounds_as_pytorch(mode):
    """Half precision shows the order of the sums (bicubic: rows along x, then along y)."""
    x = RNG.standard_normal((2, 3, 4, 5)).astype(np.float16)
    g = RNG.uniform(-1.2, 1.2, (2, 3, 2, 2)).astype(np.float16)
    mine = leafgrad.nn.functional.grid_sample(leafgrad.tensor(x), leafgrad.tensor(g), mode=mode,
                                              align_corners=False)
    theirs = torch.nn.functional.grid_sample(torch.tensor(x), torch.tensor(g), mode=mode,
                                             align_corners=False)
    assert str(mine.dtype) == str(theirs.dtype)
    np.testing.assert_array_equal(mine.numpy(), theirs.numpy())
