"""NN-op regressions from the session-3 10k fuzz run (issue 8): errors PyTorch raises (or
does not raise) in embedding_bag, convolutions, interpolation, pooling and the losses.

Each statement runs in leafgrad and in torch, both on one thread (some kernels' messages
follow the thread count, as in tests/fuzz/test_fuzz.py); both must raise the same exception
type and first line, or give the same value (``y``), dtype, shape and ``grad_fn`` name.
"""
from __future__ import annotations

import math
import warnings

import pytest
import torch

import leafgrad

STATEMENTS = [
    # embedding_bag: a bad index is reported by the kernel that runs. Sums and means of
    # float/half rows without padding_idx take the fast path: it looks only at entries its
    # bags cover and names the entry's position; doubles, maxima and padding_idx name the
    # first bad value (both RuntimeError, not embedding's IndexError)
    "y = F.embedding_bag(torch.tensor([-1, 0]), torch.ones(3, 2), torch.tensor([0, 1]))",
    "y = F.embedding_bag(torch.tensor([0, 3]), torch.ones(3, 2), torch.tensor([0, 1]), "
    "mode='sum')",
    "y = F.embedding_bag(torch.tensor([0, 1, 5, -2]), torch.ones(3, 2).half(), "
    "torch.tensor([0, 1]))",
    "y = F.embedding_bag(torch.tensor([0, 1, 5, -2]), torch.ones(3, 2), torch.tensor([0, 1]), "
    "include_last_offset=True)",
    "y = F.embedding_bag(torch.tensor([0, 1, 5, -2]), torch.ones(3, 2).double(), "
    "torch.tensor([0, 1]), include_last_offset=True)",
    "y = F.embedding_bag(torch.tensor([0, 1, 5, -2]), torch.ones(3, 2), torch.tensor([0, 1]), "
    "mode='max', include_last_offset=True)",
    "y = F.embedding_bag(torch.tensor([0, 3]), torch.ones(3, 2), torch.tensor([0, 1]), "
    "padding_idx=0)",
    "y = F.embedding_bag(torch.tensor([0, 3]), torch.ones(3, 2), torch.tensor([0, 1]), "
    "mode='sum', per_sample_weights=torch.ones(2))",
    "y = F.embedding_bag(torch.tensor([[0, 1], [1, -2]]), torch.ones(3, 2))",
    "y = F.embedding_bag(torch.tensor([0, 4]), torch.ones(2, 3).t(), torch.tensor([0, 1]))",
    "y = F.embedding_bag(torch.tensor([0, 4, 4]), torch.ones(3, 2), torch.tensor([0, 2, 1]), "
    "include_last_offset=True)",
    # which entries count with include_last_offset follows the path too (max and half)
    "y = F.embedding_bag(torch.tensor([0, 1, 2]), torch.arange(6.).reshape(3, 2), "
    "torch.tensor([0, 1]), mode='max', include_last_offset=True)",
    "y = F.embedding_bag(torch.tensor([0, 1, 2]), torch.arange(6.).reshape(3, 2).half(), "
    "torch.tensor([0, 1]), mode='sum', include_last_offset=True)",
]


def _run(L, statement):
    env = {"torch": L, "F": L.nn.functional}
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            exec(statement, env)   # noqa: S102 - a statement from the list above
    except Exception as exc:   # noqa: BLE001 - the error is the observation
        return type(exc).__name__, str(exc).split("\n")[0]
    y = env["y"]
    fn = None if y.grad_fn is None else type(y.grad_fn).__name__
    values = [v if not (isinstance(v, float) and math.isnan(v)) else "nan"
              for v in y.detach().reshape(-1).tolist()]
    values = [round(v, 5) if isinstance(v, float) else v for v in values]
    return str(y.dtype), tuple(y.shape), values, fn


@pytest.fixture
def one_thread():
    before = (torch.get_num_threads(), leafgrad.get_num_threads())
    torch.set_num_threads(1)
    leafgrad.set_num_threads(1)
    yield
    torch.set_num_threads(before[0])
    leafgrad.set_num_threads(before[1])


@pytest.mark.parametrize("statement", STATEMENTS)
def test_nn_error_like_torch(statement, one_thread):
    assert _run(leafgrad, statement) == _run(torch, statement)
