"""PyTorch's memory-overlap checks (Note [Memory overlap] in ops/overlap.py), found by the fuzzer.

Each statement runs on a fresh ``x = arange(6.).reshape(2, 3)`` in leafgrad and in torch; both
must raise the same error or leave the same values in ``x``. Writes whose result PyTorch leaves
undefined (an input overlapping the output in a layout PyTorch calls "too hard" to check, such
as ``x.mul_(x[:, :1])``) are not compared.
"""
from __future__ import annotations

import pytest
import torch

import leafgrad

STATEMENTS = [
    # in-place ops: an input that partially overlaps the written-to tensor
    "x.add_(x)", "x.add_(x[0])", "x.add_(x.t().t())", "x[0].add_(x[1])", "x.t().add_(x)",
    "x.add_(x.t())", "x.sub_(x[1])", "x.mul_(x.expand(2, 3))", "x.lerp_(x[0], 0.5)",
    "x.pow_(x[1])", "x[0].pow_(x[0])", "x[0].add_(x.view(-1)[1:4])", "x[0].add_(x.view(-1)[3:6])",
    "y = x[0]; y.mul_(x.view(-1)[2:5])", "y = x.long(); y.add_(y[0])",
    "x.clamp_(x[0], x[1])", "x.sigmoid_().add_(x[1])",
    # the overlap checks come before broadcasting and dtype checks
    "x[0].expand(2, 3).add_(torch.ones(4))", "x[0].add_(torch.ones(4))",
    "y = x.long(); y.add_(y[0] * 1.5)",
    # copy_
    "x.copy_(x[0])", "x.copy_(x)", "x[0].copy_(x[1])", "x[0].copy_(x.view(-1)[1:4])",
    "x[0].expand(2, 3).copy_(x)",
    # writes into expanded views: refused, except fill_/zero_/masked_fill_
    "x.expand(2, 2, 3).add_(1)", "x[0].expand(2, 3).exp_()", "x[0].expand(2, 3).clamp_(0, 1)",
    "x[0].expand(2, 3).detach().add_(1)", "x.unsqueeze(0).expand(2, 2, 3).relu_()",
    "x[0].expand(2, 3).zero_()", "x[0].expand(2, 3).fill_(1)",
    "x[0].expand(2, 3).masked_fill_(torch.ones(2, 3).bool(), 1.0)",
    "x.masked_fill_(x > 0, x[0, 0])",
    # x[index] = value: copy_ for a basic index, index_put_ for an advanced one
    "x[0].expand(2, 3)[0] = 1", "x[0].expand(2, 3)[:, 0] = 1",
    "x[0].expand(2, 3)[:, 0] = torch.ones(2)", "x[0].expand(2, 3)[0] = torch.ones(3)",
    "x[0].expand(2, 3)[1] = x[1]", "x[0].expand(2, 3)[[0]] = 1.0",
    "x[0].expand(2, 3)[torch.tensor([True, False])] = 1.0", "y = x.expand(2, 2, 3); y[0] = 1.0",
    "x[x[:, 0] > 0] = x[0]", "x[[0, 1]] = x", "x[[0]] = x[1]", "x[1] = x[0]", "x[...] = x",
    "x.view(-1)[1:] = x.view(-1)[:5]", "x[0] = x.view(-1)[1:4]", "x[0] = x[0]",
    "x[:, 0] = x[:, 1]", "x[0].expand(2, 3)[1] = torch.ones(4)",
    # the value's leading size-1 dims go before the check (the same elements: allowed)
    "y = x[None, None]; y[-1] = y", "y = x[None]; y[0] = y", "x[0] = x[:1]", "x[:1] = x[0]",
    # an expand that shares no element (0-d, size 1) may be written
    "y = x[0, 0].expand(()); y.mul_(2)", "y = x[:1, :1].expand(1, 1); y.add_(1)",
]


def _run(L, statement):
    env = {"torch": L, "x": L.arange(6.0).reshape(2, 3)}
    try:
        exec(statement, env)   # noqa: S102 - a statement from the list above
    except Exception as exc:   # noqa: BLE001 - the error is the observation
        return type(exc).__name__, str(exc).split("\n")[0]
    return env["x"].tolist()


@pytest.mark.parametrize("statement", STATEMENTS)
def test_overlap_like_torch(statement):
    assert _run(leafgrad, statement) == _run(torch, statement)


@pytest.mark.parametrize("requires_grad", [False, True])
def test_fill_through_expanded_view(requires_grad):
    # (PyTorch then refuses the CopySlices backward of such a write, as its grad for the base
    # is built by writing through the same expanded view: not reproduced, see fuzz KNOWN)
    def run(L):
        leaf = L.zeros(3, requires_grad=requires_grad)
        x = leaf * 1
        x.expand(2, 3).fill_(2.0)
        return x.tolist(), type(x.grad_fn).__name__
    assert run(leafgrad) == run(torch)
