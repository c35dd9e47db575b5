"""Regressions from the seed-11 10k fuzz run (issue 8): tensor ops whose dtype, shape and
argument checks raised another exception, another message, or nothing, where PyTorch raises.

Each statement runs in leafgrad and in torch (``test_widened._run``): both must raise the same
exception type and first line, or give the same value, dtype, shape, grad_fn and version.
"""
from __future__ import annotations

import pytest
import torch

import leafgrad

from .test_widened import _run

STATEMENTS = [
    # addcmul has no bool kernel (the result dtype decides); addcdiv refuses integer division
    "y = torch.addcmul(torch.ones(2).bool(), torch.ones(2).bool(), torch.ones(2).bool())",
    "y = torch.addcmul(torch.ones(2).bool(), torch.ones(2).bool(), torch.ones(2).bool(), "
    "value=2)",
    "y = torch.ones(2).bool().addcmul_(torch.ones(2).bool(), torch.ones(2).bool())",
    "y = torch.ones(2).bool().addcmul_(torch.ones(2), torch.ones(2))",
    "y = torch.addcmul(torch.ones(2).long(), torch.ones(2).bool(), torch.ones(2).bool())",
    "y = torch.addcmul(torch.ones(2).bool(), torch.ones(2).long(), torch.ones(2).bool())",
    "y = torch.addcmul(torch.ones(2).bool(), torch.ones(2).bool(), torch.ones(2))",
    "y = torch.addcmul(torch.ones(2).long(), torch.ones(2).long(), torch.ones(2).long(), "
    "value=2.5)",
    "y = torch.addcdiv(torch.ones(2).bool(), torch.ones(2).bool(), torch.ones(2).bool())",
    "y = torch.addcdiv(torch.ones(2), torch.ones(2).long(), torch.ones(2).bool())",
    "y = torch.addcdiv(torch.ones(2).bool(), torch.ones(2).bool(), torch.ones(2))",
    # quantile: float and double only (half too); PyTorch's order of checks
    "y = torch.quantile(torch.ones(3).half(), 0.5)",
    "y = torch.nanquantile(torch.ones(3).half(), 0.5)",
    "y = torch.quantile(torch.ones(3).long(), torch.tensor([0.5]))",
    "y = torch.quantile(torch.ones(3).half(), torch.tensor([0.5]).half())",
    "y = torch.quantile(torch.ones(0).half(), 0.5)",
    "y = torch.quantile(torch.ones(0), torch.ones(2, 2))",
    "y = torch.quantile(torch.ones(3).half(), torch.ones(2, 2).half())",
    "y = torch.quantile(torch.ones(3).half(), 1.5, interpolation='bad')",
    "y = torch.quantile(torch.ones(3), torch.tensor([0.5]).double(), interpolation='bad')",
    "y = torch.quantile(torch.ones(3).half(), 0.5, dim=3)",
    "y = torch.quantile(torch.ones(3), torch.tensor([1.5]))",
    "y = torch.quantile(torch.ones(3), torch.tensor([1.5]), dim=4)",
    "y = torch.quantile(torch.ones(3), torch.tensor([0.2, 0.7]), dim=0, keepdim=True)",
    # var_mean/std_mean name themselves in the dtype check
    "y = torch.std_mean(torch.ones(3).long())[0]",
    "y = torch.var_mean(torch.ones(3).bool())[1]",
    "y = torch.std_mean(torch.ones(3).long(), 5)[0]",
    "y = torch.var_mean(torch.ones(3).long(), dim=0, unbiased=True)[0]",
]


@pytest.mark.parametrize("statement", STATEMENTS)
def test_op_errors_like_torch(statement):
    assert _run(leafgrad, statement) == _run(torch, statement)
