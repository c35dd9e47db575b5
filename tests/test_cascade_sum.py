"""float32/float64 sum and mean add in PyTorch's order (ops/cascade_sum.py): bit-equal results
for row lengths around every boundary of the cascade (lanes, ILP groups, block sizes)."""
from __future__ import annotations

import numpy as np
import pytest
import torch

import leafgrad

SIZES = [1, 3, 7, 8, 9, 31, 32, 33, 100, 255, 256, 257, 513, 2000, 4097, 8193, 16384]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("n", SIZES)
def test_sum_and_mean_bits(n, dtype):
    rng = np.random.default_rng(n)
    x = (rng.standard_normal((2, n)) * 10.0 ** rng.uniform(-3, 3, (2, n))).astype(dtype)
    for name in ("sum", "mean"):
        theirs = getattr(torch.from_numpy(x), name)
        mine = getattr(leafgrad.tensor(x), name)
        assert mine().numpy().tobytes() == theirs().numpy().tobytes()
        assert mine(-1).numpy().tobytes() == theirs(-1).numpy().tobytes()
        assert mine(1, keepdim=True).numpy().tobytes() == theirs(1, keepdim=True).numpy().tobytes()
    xt = np.ascontiguousarray(x.T).T            # a transposed (column-major) tensor
    assert leafgrad.tensor(xt).t().sum().item() == torch.from_numpy(xt).t().sum().item()
    mse = torch.nn.functional.mse_loss(torch.from_numpy(x[0]), torch.from_numpy(x[1]))
    mine = leafgrad.nn.functional.mse_loss(leafgrad.tensor(x[0]), leafgrad.tensor(x[1]))
    assert mine.item() == mse.item()


OUTER = [((20, 1), 0), ((20, 5), 0), ((64, 10), 0), ((200, 3), 0), ((7, 33), 0), ((1, 20), 1),
         ((3, 1, 20), (0, 1)), ((4, 20, 1), 1), ((5, 7, 9), (0, 1)), ((16, 64), 0),
         ((33, 36), 0), ((9, 4, 1), (0, 2)), ((600, 48), 0), ((2000, 16), 0),
         ((6, 10, 37), 1), ((4, 3, 5, 5), (0, 2, 3)), ((4, 3, 5, 5), (0, 2)),
         ((8, 16, 4, 4), (0, 2, 3)), ((4, 6, 7, 2, 3), (1, 3)), ((4, 6, 7, 2, 3), (0, 2, 4)),
         # _narrow_sum: below one block of rows, and in whole blocks of 64 rows
         ((16, 3), 0), ((32, 9), 0), ((60, 12), 0), ((128, 10), 0), ((192, 31), 0),
         ((960, 20), 0), ((1024, 10), 0)]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shape,dim", OUTER)
def test_outer_and_unit_dim_sums_bits(shape, dim, dtype):
    """Sums over leading or middle dims (a bias gradient: (N, out) over dim 0; batch norm's
    (N, C, H, W) over (0, 2, 3)) and over dims next to size-1 dims add in PyTorch's order
    too (the outer reduction, row sums added in order; size-1 dims coalesced)."""
    rng = np.random.default_rng(len(shape) * 100 + shape[0])
    x = (rng.standard_normal(shape) * 10.0 ** rng.uniform(-3, 3, shape)).astype(dtype)
    for name in ("sum", "mean"):
        for keepdim in (False, True):
            theirs = getattr(torch.from_numpy(x), name)(dim, keepdim=keepdim).numpy()
            mine = getattr(leafgrad.tensor(x), name)(dim, keepdim=keepdim).numpy()
            assert mine.shape == theirs.shape and mine.tobytes() == theirs.tobytes()
