"""Float sums (and means) of non-contiguous views, bit for bit as PyTorch 2.13 adds them
(ops/strided_sum.py, Note [Strided sums]): slices, steps, transposes and permutes, over every
dim combination, float32 and float64. Before session 11 these went to NumPy's pairwise sum:
``x[:, ::2].sum(-1)`` matched PyTorch's last bits in 1 case of 10."""
from __future__ import annotations

import numpy as np
import pytest
import torch

import leafgrad

_2D = {"off1": lambda t: t[:, 1:], "step2": lambda t: t[:, ::2], "rowstep": lambda t: t[::2],
       "T": lambda t: t.t(), "Toff": lambda t: t.t()[1:], "Tstep": lambda t: t.t()[:, ::3]}
_3D = {"perm": lambda t: t.permute(2, 0, 1), "perm2": lambda t: t.permute(1, 2, 0),
       "sl3": lambda t: t[:, 1:, ::2], "tr3": lambda t: t.transpose(0, 1),
       "tr3step": lambda t: t.transpose(0, 2)[::2]}


def _compare(a, view, dim, op):
    tt = view(torch.tensor(a))
    lt = view(leafgrad.tensor(a))
    if tt.numel() == 0:
        return 0
    args = () if dim is None else (dim,)
    x = getattr(tt, op)(*args).numpy()
    y = getattr(lt, op)(*args).numpy()
    assert x.shape == y.shape and x.dtype == y.dtype
    assert getattr(tt, op)(*args).stride() == getattr(lt, op)(*args).stride()
    bits = [np.ascontiguousarray(v).view(np.uint8).ravel() for v in (y, x)]
    np.testing.assert_array_equal(*bits,
                                  err_msg=f"{op}{args} of {tuple(tt.shape)} {tt.stride()}")
    return 1


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("view", sorted(_2D))
def test_2d_views(view, dtype):
    rng = np.random.default_rng(sum(map(ord, view)))
    checked = 0
    for _ in range(40):
        shape = (int(rng.integers(1, 9)), int(rng.integers(1, 300)))
        a = rng.standard_normal(shape).astype(dtype)
        for dim in (-1, 0, None, (0, 1)):
            checked += _compare(a, _2D[view], dim, "sum")
        checked += _compare(a, _2D[view], 0, "mean")
    assert checked > 100


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("view", sorted(_3D))
def test_3d_views(view, dtype):
    rng = np.random.default_rng(sum(map(ord, view)) + 1)
    checked = 0
    for _ in range(30):
        shape = tuple(int(v) for v in (rng.integers(1, 5), rng.integers(1, 6), rng.integers(1, 40)))
        a = rng.standard_normal(shape).astype(dtype)
        for dim in (0, 1, 2, None, (0, 1), (1, 2), (0, 2)):
            checked += _compare(a, _3D[view], dim, "sum")
        checked += _compare(a, _3D[view], (0, 2), "mean")
    assert checked > 100


def test_gradient_of_a_sliced_sum_unchanged():
    """The backward of a sum over a view is the expand it always was."""
    for lib in (leafgrad, torch):
        x = lib.arange(12.0).reshape(3, 4).requires_grad_()
        x[:, 1:].sum().backward()
        assert x.grad.tolist() == [[0.0, 1.0, 1.0, 1.0]] * 3


@pytest.mark.parametrize("shape,dim", [((3, 14), 1), ((3, 4), 1), ((2, 3, 14), 2), ((3, 20), 1),
                                       ((5, 40), -1), ((2, 3, 9), (1, 2))])
def test_sum_results_are_contiguous(shape, dim):
    """A row sum's result is contiguous, as PyTorch's (its last column of running sums was
    returned as a strided view: ``stride()`` (15,) where PyTorch says (1,))."""
    ours = leafgrad.ones(shape).sum(dim)
    theirs = torch.ones(shape).sum(dim)
    assert ours.stride() == theirs.stride() and ours.is_contiguous()
