"""Kernel dtype checks, messages and corner values found by the fuzzer (issue 8).

Each statement runs in leafgrad and in torch; both must raise the same exception type and
first line, or give the same value (``y``), dtype and ``grad_fn`` name.
"""
from __future__ import annotations

import math
import warnings

import pytest
import torch

import leafgrad

STATEMENTS = [
    # clamp_ with number bounds names the output type as C++ does; with tensor bounds not
    "y = torch.tensor([1, 2]); y.clamp_(-0.5, 0.5)",
    "y = torch.tensor([1, 2]); y.clamp_(0.5)",
    "y = torch.tensor([1, 2]); y.clamp_min_(0.1)",
    "y = torch.tensor([1, 2]); y.clamp_max_(0.1)",
    "y = torch.tensor([1, 2], dtype=torch.int32); y.clamp_(-0.5, 0.5)",
    "y = torch.tensor([True, False]); y.clamp_min_(0.1)",
    "y = torch.tensor([True, False]); y.clamp_(0, 1)",
    "y = torch.tensor([1, 2]); y.clamp_(torch.tensor(0.5))",
    # clamp of bool: one tensor bound runs maximum/minimum (bool allowed), two do not
    "y = torch.tensor([True, False]).clamp(min=torch.tensor(True))",
    "y = torch.tensor([True, False]).clamp(max=torch.tensor(False))",
    "y = torch.tensor([True, False]).clamp(torch.tensor(False), torch.tensor(True))",
    "y = torch.tensor([True, False]).clamp(torch.tensor([1, 0]), torch.tensor(True))",
    # lerp: floating kernels only; a tensor weight must have self's dtype unless 0-d
    "y = torch.lerp(torch.tensor([1, 2]), torch.tensor([1, 2]), 0.5)",
    "y = torch.lerp(torch.tensor([True]), torch.tensor([True]), 0.5)",
    "y = torch.tensor([1, 2]).lerp(torch.tensor([1, 2]), torch.tensor([1, 2]))",
    "y = torch.tensor([1., 2]).lerp(torch.tensor([1., 2]), torch.tensor([1, 2]))",
    "y = torch.tensor([1., 2]).lerp(torch.tensor([1., 2]), torch.tensor(0.5, dtype=torch.float64))",
    "y = torch.tensor([1., 2]).lerp(torch.tensor([1., 2]), torch.tensor([.5, .5]).double())",
    # roll of a 0-d tensor with dims
    "y = torch.tensor(1.).roll(1, -1)", "y = torch.tensor(1.).roll(1, 0)",
    "y = torch.tensor(1.).roll(-2, 1)", "y = torch.tensor(1.).roll(1)",
    # einsum: more subscripts than dims, with and without an ellipsis
    "y = torch.einsum('...i,...i->...', torch.tensor(1.), torch.tensor(1.))",
    "y = torch.einsum('...i,...i->...', torch.ones(2), torch.tensor(1.))",
    "y = torch.einsum('i,i->', torch.ones(2, 2), torch.ones(2))",
    # median of an empty tensor is NaN (cast to the dtype), not an error
    "y = torch.ones(0).median()", "y = torch.ones(0, 2).median()",
    "y = torch.ones(0, dtype=torch.long).median()", "y = torch.ones(0, dtype=torch.bool).median()",
    "y = torch.ones(0, requires_grad=True).median()",
    # an advanced index out of range: the dimension counts tensor-indexed dims only
    "y = torch.ones(3, 2, 4)[:, :, torch.tensor([5])]",
    "y = torch.ones(3, 2, 4)[torch.tensor([1]), :, torch.tensor([5])]",
    "y = torch.ones(3, 2, 4)[0, :, torch.tensor([5])]",
    # empty reductions name the dim (argmax wrapped, amax as given); bool kernels; 0-d dims
    "y = torch.ones(0,3).argmin(0)",
    "y = torch.ones(0,3).argmax(-2)",
    "y = torch.ones(0,3).argmax(-1)",
    "y = torch.ones(0,3).bool().argmax(0)",
    "y = torch.ones(0,3).bool().argmax()",
    "y = torch.ones(0,3).amin(-2)",
    "y = torch.ones(0,3).amax((-2,1))",
    "y = torch.ones(0,3).amax((1,-2))",
    "y = torch.ones(0,3).amax(0)",
    "y = torch.tensor(1.).sort(-2)[0]",
    "y = torch.tensor(1.).sort(1)[0]",
    "y = torch.tensor(1.).sort(0)[0]",
    "y = torch.tensor(1.).topk(1, -2)[0]",
    "y = torch.tensor(1.).topk(2)[0]",
    "y = torch.ones(3).topk(1, 1)[0]",
    "y = torch.ones(3).topk(5, 0)[0]",
    "y = torch.tensor([True, False]).topk(1)[0]",
    "y = torch.tensor([True, False]).topk(5, 3)[0]",
    "y = torch.tensor([True, False]).median()",
    "y = torch.tensor([True, False]).median(0)[0]",
    "y = torch.tensor([True, False]).argmax()",
    "y = torch.tensor([True, False]).argmin(0)",
    # index_select / index_add out of range: the message depends on PyTorch's kernel
    "y = torch.ones(4,2).index_add(0, torch.tensor([0, 7]), torch.ones(2,2))",
    "y = torch.ones(4,2).index_add(0, torch.tensor([-1]), torch.ones(1,2))",
    "y = torch.ones(4).index_add(0, torch.tensor([-1]), torch.ones(1))",
    "y = torch.ones(2,4,2).index_add(1, torch.tensor([-1]), torch.ones(2,1,2))",
    "y = torch.ones(2,4).index_add(1, torch.tensor([7]), torch.ones(2,1))",
    "y = torch.ones(2,4,2).index_select(2, torch.tensor([-1]))",
    "y = torch.ones(2,4).index_select(1, torch.tensor([0, 7, -5]))",
    "y = torch.ones(2,4).index_select(0, torch.tensor([0, -1, 7]))",
    "y = torch.ones(4).index_select(0, torch.tensor([4]))",
    "y = torch.tensor(1.).index_select(0, torch.tensor([1]))",
    # matmul family: no bool kernels; einsum contracts two operands with bmm (one dtype)
    "y = torch.tensor([[True, False],[True,True]]).mv(torch.tensor([True, False]))",
    "y = torch.tensor([True, False]) @ torch.tensor([[True, False],[True,True]])",
    "y = torch.tensor([[True, False],[True,True]]) @ torch.tensor([True, False])",
    "y = torch.tensor([[[True, False],[True,True]]]) @ torch.tensor([[[True, False],[True,True]]])",
    "y = torch.tensor([[[True, False],[True,True]]]) @ torch.tensor([[True, False],[True,True]])",
    "y = torch.tensor([[[True, False],[True,True]]]) @ torch.tensor([True, False])",
    "y = torch.tensor([True, False]) @ torch.tensor([[[True, False],[True,True]]])",
    "y = torch.tensor([True, False]) @ torch.tensor([True, False])",
    "y = torch.tensor([True, False]).dot(torch.tensor([True, False]))",
    "y = torch.tensor([[True, False],[True,True]]).mm(torch.tensor([[True, False],[True,True]]))",
    "y = torch.tensor([[[True, False],[True,True]]]).bmm(torch.tensor([[[True, False],[True,True]]]))",
    "y = torch.einsum('...i,...i->...', torch.ones(2), torch.ones(2, dtype=torch.long))",
    "y = torch.einsum('...i,...i->...', torch.ones(2, dtype=torch.long), torch.ones(2))",
    "y = torch.einsum('...i,...i->...', torch.ones(2), torch.ones(2, dtype=torch.float64))",
    "y = torch.einsum('...i,...i->...', torch.tensor([True, False]), torch.tensor([True, False]))",
    "y = torch.einsum('ij,j->i', torch.ones(2, 2), torch.ones(2, dtype=torch.long))",
    "y = torch.einsum('i,i->', torch.ones(1), torch.ones(2, dtype=torch.long))",
    "y = torch.einsum('i,j->ij', torch.ones(2), torch.ones(2, dtype=torch.long))",
    "y = torch.einsum('...i,...i->...', torch.ones(2, 1), torch.ones(2, 1, dtype=torch.long))",
    # unflatten's infer_size errors, permute() without dims, expand checks from the last dim
    "y = torch.ones(2,3).unflatten(1, (-1, -1))",
    "y = torch.ones(2,3).unflatten(1, (-1, 2))",
    "y = torch.ones(2,3).unflatten(1, (-1, 0))",
    "y = torch.ones(2,0).unflatten(1, (-1, 0))",
    "y = torch.ones(2,0).unflatten(1, (0, -1))",
    "y = torch.ones(2,0).unflatten(1, (0, 5))",
    "y = torch.ones(2,3).unflatten(1, (-2, 3))",
    "y = torch.ones(2,3).unflatten(-1, (3, 1))",
    "y = torch.ones(2,3).unflatten(1, (-1, 3))",
    "y = torch.ones(2,3).permute()",
    "y = torch.ones(2,3).permute(())",
    "y = torch.tensor(1.).permute()",
    "y = torch.ones(2,3).expand(-1, 3, -1)",
    "y = torch.ones(2,3).expand(-1, 4, 5)",
    "y = torch.ones(2,3).expand(4, -1, -1)",
    "y = torch.ones(2,1).expand(-1, 2, 4)",
    "y = torch.ones(2,1).expand(3)",
    "y = torch.tensor([True]).lerp(torch.tensor([False]), torch.tensor(True))",
    "y = torch.tensor([1, 2]).lerp(torch.tensor([1, 2]), torch.tensor(3))",
    # empty softmax; mv of 0-d; CPUBoolType; empty dims; in-place: overlap, then output shape
    "y = torch.ones(0).softmax(-1)",
    "y = torch.ones(0, dtype=torch.float16).softmax(0)",
    "y = torch.ones(0, requires_grad=True).softmax(0)",
    "y = torch.ones(0,2).log_softmax(0)",
    "y = torch.ones(2,0).log_softmax(0)",
    "y = torch.tensor(1.).mv(torch.tensor(1.))",
    "y = torch.ones(2,2).mv(torch.tensor(1.))",
    "y = torch.tensor(1.).mv(torch.ones(2))",
    "y = torch.ones(3,1,dtype=torch.bool).expand(1)",
    "y = torch.ones(3,1,dtype=torch.float16).expand(1)",
    "y = torch.ones(0, 3)[torch.tensor([0])]",
    "y = torch.ones(3, 0)[:, torch.tensor([-1])]",
    "y = torch.ones(0, 1, 2, 1)[:, :, :, [0, 0]].expand(0, 1, 2, 2).lerp_(torch.ones(2), 0.5)",
    "y = torch.ones(0, 3).bool().expand(2, 0, 3).neg_()",
    "y = torch.tensor(True); y.lerp_(torch.ones(4).long(), 0.5)",
    "y = torch.tensor(1.); y.add_(torch.ones(2))",
    "y = torch.tensor([1.]); y.mul_(torch.ones(2, 1).long())",
    "y = torch.tensor([1, 2]); y.div_(torch.ones(2, 2))",
    "y = torch.tensor([1, 2]); y.clamp_(torch.ones(2, 2))",
    # kl_div refuses integral (and bool) inputs
    "y = torch.nn.functional.kl_div(torch.tensor([1, 2]), torch.tensor([1., 2]))",
    "y = torch.nn.functional.kl_div(torch.tensor([1., 2]), torch.tensor([True, False]))",
]


def _run(L, statement):
    env = {"torch": L}
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
    return str(y.dtype), tuple(y.shape), values, fn


@pytest.mark.parametrize("statement", STATEMENTS)
def test_message_like_torch(statement):
    assert _run(leafgrad, statement) == _run(torch, statement)
