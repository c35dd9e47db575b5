"""NN-op regressions from the session-5 10k fuzz runs (seeds 12 and 13, issue 8): pooling,
losses, convolutions, softmax and einsum against PyTorch.

Each statement runs in leafgrad and in torch, both on one thread; both must raise the same
exception type and first line, or give the same value (``y``), dtype, shape and ``grad_fn``
name (``tests/fuzz/test_widened.py``'s observation without ``_version``).
"""
from __future__ import annotations

import pytest
import torch

import leafgrad

from .test_widened import _run

STATEMENTS = [
    # max_pool1d refuses an empty non-batch dim (before its argument checks); max_pool3d and
    # avg_pool3d name "non-batch dimension 0" whichever one is empty
    "y = F.max_pool1d(torch.ones(1, 1, 0), 1)",
    "y = F.max_pool1d(torch.ones(1, 0, 3), 2, padding=5)",
    "y = F.max_pool1d(torch.ones(0, 3), 1)",
    "y = F.max_pool1d(torch.ones(0, 1, 3), 3)",
    "y = F.max_pool1d(torch.ones(0, 1, 3), 0)",
    "y = F.max_pool1d(torch.ones(1, 1, 0), 1, return_indices=True)[0]",
    "y = F.max_pool1d(torch.ones(0, 1, 3), 1, return_indices=True)[1]",
    "y = F.max_pool3d(torch.ones(1, 1, 1, 1, 0), 1)",
    "y = F.max_pool3d(torch.ones(2, 3, 2, 0, 2), 1)",
    "y = F.avg_pool3d(torch.ones(1, 0, 1, 1), 1)",
    "y = F.max_pool3d(torch.ones(0, 1, 1, 1), 1)",
    "y = F.max_pool3d(torch.ones(0, 1, 1, 1, 1), 1)",
    # adaptive_avg_pool2d's backward refuses an empty non-batch dim of grad_output (its
    # forward allowed it; output size 1 is a mean and has no such backward)
    "x = torch.ones(1, 0, 1, requires_grad=True); F.adaptive_avg_pool1d(x, "
    "2).sum().backward(); y = x.grad",
    "x = torch.ones(1, 0, 1, 1, requires_grad=True); F.adaptive_avg_pool2d(x, (1, "
    "2)).sum().backward(); y = x.grad",
    "x = torch.ones(0, 1, 1, requires_grad=True); F.adaptive_avg_pool2d(x, "
    "2).sum().backward(); y = x.grad",
    "x = torch.ones(0, 2, 1, 1, requires_grad=True); F.adaptive_avg_pool2d(x, "
    "2).sum().backward(); y = x.grad",
    "x = torch.ones(1, 0, 1, requires_grad=True); F.adaptive_avg_pool1d(x, "
    "1).sum().backward(); y = x.grad",
    # cosine_embedding_loss: a 0-d target wants 1-d inputs, a 1-d target 2-d ones (checked first)
    "y = F.cosine_embedding_loss(torch.ones(4, 1), torch.ones(4, 1, 3), torch.ones(4))",
    "y = F.cosine_embedding_loss(torch.ones(2), torch.ones(1, 1), torch.tensor(1.))",
    "y = F.cosine_embedding_loss(torch.ones(2, 3), torch.ones(2, 3), torch.ones(2, 1))",
    "y = F.cosine_embedding_loss(torch.ones(2, 3), torch.ones(3), torch.ones(2))",
    "y = F.cosine_embedding_loss(torch.ones(3), torch.ones(3), torch.ones(1))",
    "y = F.cosine_embedding_loss(torch.ones(2, 3), torch.ones(2, 3), torch.tensor(1.))",
    "y = F.cosine_embedding_loss(torch.ones(2, 3), torch.ones(1, 3), torch.tensor([1, "
    "-1]), reduction='none')",
    "y = F.cosine_embedding_loss(torch.ones(2, 3), torch.ones(2, 3), torch.ones(3))",
    "y = F.cosine_embedding_loss(torch.ones(3), torch.ones(3), torch.tensor(-1), margin=-0.5)",
    "y = F.cosine_embedding_loss(torch.ones(2, 3, requires_grad=True), torch.ones(2, 3), "
    "torch.tensor([1, -1]), reduction='none')",
    "y = F.cosine_embedding_loss(torch.ones(2, 3, requires_grad=True), torch.ones(2, 3), "
    "torch.tensor([1, -1]), reduction='sum')",
    "y = F.cosine_embedding_loss(torch.ones(2, 3, dtype=torch.long), torch.ones(2, 3), "
    "torch.tensor([1, -1]))",
    # softmax/log_softmax return an empty integer or bool input as it is (non-empty ones are refused)
    "y = torch.ones(0, 3, dtype=torch.long).log_softmax(-1)",
    "y = torch.ones(0, 3, dtype=torch.long).softmax(0)",
    "y = torch.ones(3, 0, dtype=torch.bool).log_softmax(0)",
    "y = torch.ones(0, dtype=torch.uint8).softmax(-1)",
    "y = torch.ones(0, dtype=torch.int32).softmax(2)",
    "y = torch.ones(0, 2, dtype=torch.long).softmax(-1, dtype=torch.float64)",
    "y = F.log_softmax(torch.ones(2, 0, dtype=torch.long), 1)",
    "y = F.softmax(torch.ones(2, 0, dtype=torch.long), 1)",
    "y = torch.ones(2, 3, dtype=torch.long).softmax(0)",
    "y = torch.ones(2, 3, dtype=torch.long).log_softmax(-1)",
    "y = torch.ones((), dtype=torch.long).log_softmax(0)",
    "y = torch.ones(0, 3, requires_grad=True).log_softmax(-1)",
    # convolutions: float32 inputs take MKLDNN (whose dtype messages differ) as PyTorch's use_mkldnn
    # decides: grouped, big (kernels over 3x3, inputs over 20480 elements) and batched ones, unless an
    # unstrided undilated 1x1 kernel runs on one thread or a transposed one's output padding reaches
    # its stride; the slow kernels' dtype dispatch comes before their weight-dtype check; bool
    # types are named CPUBoolType
    "y = F.conv1d(torch.ones(1, 3, 1), torch.ones(6, 1, 2).double(), "
    "torch.ones(6).double(), padding='same', groups=3)",
    "y = F.conv1d(torch.ones(1, 2, 3), torch.ones(2, 1, 2).double(), groups=2)",
    "y = F.conv1d(torch.ones(1, 2, 3), torch.ones(2, 1, 1).double(), groups=2)",
    "y = F.conv2d(torch.ones(1, 1, 5, 5), torch.ones(1, 1, 4, 4).double())",
    "y = F.conv2d(torch.ones(1, 1, 5, 5), torch.ones(1, 1, 3, 4).double())",
    "y = F.conv1d(torch.ones(1, 1, 20481), torch.ones(1, 1, 2).double())",
    "y = F.conv1d(torch.ones(1, 1, 20480), torch.ones(1, 1, 2).double())",
    "y = F.conv3d(torch.ones(1, 1, 2, 10300, 1), torch.ones(1, 1, 1, 1, 1).double(), stride=2)",
    "y = F.conv_transpose1d(torch.ones(2, 1, 3), torch.ones(1, 1, 1).double())",
    "y = F.conv_transpose1d(torch.ones(1, 2, 3), torch.ones(2, 1, 2).double(), groups=2)",
    "y = F.conv_transpose1d(torch.ones(2, 1, 3), torch.ones(1, 1, 2).double(), stride=2, "
    "output_padding=1, dilation=2)",
    "y = F.conv_transpose1d(torch.ones(1, 2, 6), torch.ones(2, 1, 2), "
    "torch.ones(2).double(), groups=2)",
    "y = F.conv_transpose1d(torch.ones(1, 1, 1, dtype=torch.bool), torch.ones(1, 1, 2, "
    "dtype=torch.long), torch.ones(1, dtype=torch.long), dilation=2)",
    "y = F.conv_transpose1d(torch.ones(1, 1, 1, dtype=torch.bool), torch.ones(1, 1, 2, "
    "dtype=torch.bool), dilation=2)",
    "y = F.conv_transpose1d(torch.ones(1, 1, 1, dtype=torch.long), torch.ones(1, 1, 2, "
    "dtype=torch.bool))",
    "y = F.conv1d(torch.ones(1, 1, 3, dtype=torch.bool), torch.ones(1, 1, 2, dtype=torch.long))",
    "y = F.conv1d(torch.ones(1, 1, 3, dtype=torch.long), torch.ones(1, 1, 2, dtype=torch.bool))",
    "y = F.conv2d(torch.ones(1, 1, 3, 3, dtype=torch.int32), torch.ones(1, 1, 1, 1, "
    "dtype=torch.long), dilation=2)",
    "y = F.conv1d(torch.ones(2, 1, 3), torch.ones(1, 1, 2, dtype=torch.bool))",
    "y = F.conv_transpose1d(torch.ones(2, 1, 3), torch.ones(1, 1, 2), torch.ones(1, "
    "dtype=torch.bool))",
    # einsum: a dim of the ellipsis that does not broadcast is named by its place in the operand
    "y = torch.einsum('...i,...i->...', torch.ones(48, 2), torch.ones(3, 1))",
    "y = torch.einsum('...i,...i->...', torch.ones(2, 48, 2), torch.ones(2, 3, 2))",
    "y = torch.einsum('...i,i...', torch.ones(5, 48, 2), torch.ones(2, 5, 3))",
    "y = torch.einsum('a...i,b...i', torch.ones(1, 5, 48, 2), torch.ones(1, 5, 3, 2))",
    "y = torch.einsum('...,...,...', torch.ones(2, 3), torch.ones(1, 3), torch.ones(3, 2))",
    "y = torch.einsum('...ij,...ij', torch.ones(1, 2, 3), torch.ones(1, 3, 3))",
    "y = torch.einsum('...i,...i->...', torch.ones(1, 4, 2), torch.ones(3, 1, 2))",
    # max_pool1d without a gradient to record (PyTorch's max_pool1d_impl) returns a new tensor, at
    # version 1 when the input has no batch dim (squeezed in place)
    "x = torch.ones(1, 3); y = F.max_pool1d(x, 1); y = torch.tensor([y._version, y._base "
    "is None])",
    "x = torch.ones(2, 1, 3); y = F.max_pool1d(x, 2); y = torch.tensor([y._version, "
    "y._base is None])",
    "x = torch.ones(1, 3, requires_grad=True); y = F.max_pool1d(x, 1); y = "
    "torch.tensor([y._version, y._base is None])",
    "x = torch.ones(1, 3, requires_grad=True); y = F.max_pool1d(x.detach(), 1, "
    "dilation=2); y = torch.tensor([y._version, y._base is None])",
    "x = torch.ones(1, 3, requires_grad=True); y = F.max_pool1d(x, 1, "
    "return_indices=True)[0]; y = torch.tensor([y._version, y._base is None])",
    # pdist's gradient is PyTorch's _pdist_backward node (PdistBackwardBackward0, no derivative of
    # its own), for p = 0 too (was a plain zero tensor)
    "x = torch.ones(1, 1, requires_grad=True); y = torch.autograd.grad(F.pdist(x, p=0), x, "
    "torch.ones(0), create_graph=True)[0]",
    "x = torch.tensor([[0.5, 1.], [2., -1.], [0.5, 3.]], requires_grad=True); y = "
    "torch.autograd.grad(F.pdist(x, p=0).sum(), x, create_graph=True)[0]",
    "x = torch.tensor([[0.5, 1.], [2., -1.], [0.5, 3.]], requires_grad=True); y = "
    "torch.autograd.grad(F.pdist(x, p=0.5).sum(), x, create_graph=True)[0]",
    "x = torch.tensor([[0.5, 1.], [2., -1.], [0.5, 1.]], requires_grad=True); y = "
    "torch.autograd.grad(F.pdist(x, p=3).sum(), x, create_graph=True)[0]",
    "x = torch.tensor([[0.5, 1.], [2., -1.], [0.5, 3.]], requires_grad=True); g = "
    "torch.autograd.grad(F.pdist(x).sum(), x, create_graph=True)[0]; y = "
    "torch.autograd.grad(g.sum(), x)[0]",
    # einsum's gradients under create_graph come out of PyTorch's last node: a permute, or a squeeze
    # for an operand that lacks some subscript
    "a = torch.ones(2, 3, dtype=torch.float64, requires_grad=True); b = torch.ones(2, 3, "
    "dtype=torch.float64, requires_grad=True); y = "
    "torch.autograd.grad(torch.einsum('...i,...i->...', a, b), a, torch.ones(2, "
    "requires_grad=True), create_graph=True)[0]",
    "a = torch.ones(2, 3, dtype=torch.float64, requires_grad=True); b = torch.ones(3, "
    "dtype=torch.float64, requires_grad=True); y = "
    "torch.autograd.grad((torch.einsum('ij,j->i', a, b) ** 2).sum(), b, "
    "create_graph=True)[0]",
    "a = torch.ones(2, 3, dtype=torch.float64, requires_grad=True); b = torch.ones(3, 4, "
    "dtype=torch.float64, requires_grad=True); y = "
    "torch.autograd.grad((torch.einsum('ij,jk->ik', a, b) ** 2).sum(), a, "
    "create_graph=True)[0]",
    "a = torch.ones(2, 1, 3, dtype=torch.float64, requires_grad=True); b = torch.ones(4, "
    "3, dtype=torch.float64, requires_grad=True); y = "
    "torch.autograd.grad((torch.einsum('...i,...i->...', a, b) ** 2).sum(), a, "
    "create_graph=True)[0]",
    # embedding of a weight with rows but no columns: PyTorch's index_select names the first bad
    # index (a RuntimeError), also after max_norm's renorm
    "y = F.embedding(torch.tensor([0, 1, -2, 1, 0]), torch.ones(2, 0), max_norm=0.5)",
    "y = F.embedding(torch.tensor([0, 1, -2, 1, 0]), torch.ones(2, 0))",
    "y = F.embedding(torch.tensor([0, 1, 2]), torch.ones(2, 0))",
    "y = F.embedding(torch.tensor([0, 1, -3]), torch.ones(2, 0))",
    "y = F.embedding(torch.tensor([[0, 1], [3, 0]]), torch.ones(2, 0))",
    "y = F.embedding(torch.tensor([0, 1]), torch.ones(2, 0))",
    "y = F.embedding(torch.tensor([0, 1, 5]), torch.ones(2, 3), max_norm=0.5)",
    "y = F.embedding(torch.tensor([0, 1, -1]), torch.ones(2, 3), max_norm=0.5)",
    "y = F.embedding(torch.tensor([0, 1, -3]), torch.ones(2, 3), max_norm=0.5)",
    "y = F.embedding(torch.tensor([0, 5, 1, -2]), torch.ones(2, 3), max_norm=0.5)",
    "y = F.embedding(torch.tensor([0, 5]), torch.ones(2, 3))",
    "y = F.embedding(torch.tensor([0, 1, 5]), torch.ones(2, 0), max_norm=0.5)",
    "y = F.embedding(torch.tensor([0, 1, -3]), torch.ones(2, 0), max_norm=0.5)",
    "y = F.embedding(torch.tensor([0, 1, -1]), torch.ones(2, 0), max_norm=0.5)",
    "y = F.embedding(torch.tensor([0, 1, -1]), torch.ones(2, 0), padding_idx=0)",
    "y = F.embedding(torch.tensor([0, 1, -1]), torch.ones(2, 0, requires_grad=True))",
    # einsum of mixed dtypes: the gradient is cast before PyTorch's last node
    "a = torch.ones(1, 1, requires_grad=True); b = torch.ones(1, 1, 4, 1, "
    "dtype=torch.float64, requires_grad=True); y = "
    "torch.autograd.grad(torch.einsum('...i,...i->...', a, b).sum(), a, "
    "create_graph=True)[0]",
    "a = torch.ones(2, 3, requires_grad=True); b = torch.ones(3, dtype=torch.float64, "
    "requires_grad=True); y = torch.autograd.grad((torch.einsum('ij,j->i', a, b) ** "
    "2).sum(), a, create_graph=True)[0]",
    # the engine computes an op's input gradients only where a wanted input needs them (PyTorch's
    # should_compute_output): clamp's min/max gradients combine masks in place and fail only when
    # computed (s4 seed 11, s5 seeds 12/13)
    "lo = torch.full((), -1., requires_grad=True); y = "
    "torch.autograd.grad(torch.zeros(()).clamp(lo, torch.ones(1)).sum(), lo)[0]",
    "hi = torch.full((), 1., requires_grad=True); y = "
    "torch.autograd.grad(torch.zeros(()).clamp(-torch.ones(2), hi).sum(), hi)[0]",
    "lo = torch.full((2, 1), -1., requires_grad=True); hi = torch.full((1, 3), 1., "
    "requires_grad=True); y = torch.autograd.grad(torch.zeros(()).clamp(lo, hi).sum(), "
    "[hi, lo])[0]",
    "x = torch.tensor(0.5, requires_grad=True); lo = torch.tensor([-1.], "
    "requires_grad=True); y = torch.autograd.grad(x.clamp(lo, x), lo, torch.ones(1))[0]",
    "x = torch.tensor(0.5, requires_grad=True); lo = torch.tensor([-1.], "
    "requires_grad=True); hi = torch.tensor(0.5, requires_grad=True); y = "
    "torch.autograd.grad(x.clamp(lo, hi), x, torch.ones(1))[0]",
    "x = torch.tensor(0.5, requires_grad=True); lo = torch.tensor([-1.], "
    "requires_grad=True); hi = torch.tensor(0.5, requires_grad=True); y = "
    "torch.autograd.grad(x.clamp(lo, hi), hi, torch.ones(1))[0]",
    "x = torch.tensor(0.5, requires_grad=True); lo = torch.tensor([-1.], "
    "requires_grad=True); hi = torch.tensor(0.5, requires_grad=True); x.clamp(lo, "
    "hi).backward(torch.ones(1)); y = lo.grad",
    "x = torch.tensor(0.5, requires_grad=True); lo = torch.tensor([-1.], "
    "requires_grad=True); hi = torch.tensor(0.5, requires_grad=True); x.clamp(lo, "
    "hi).backward(torch.ones(1), inputs=[lo]); y = lo.grad",
]


@pytest.mark.parametrize("statement", STATEMENTS)
def test_nn_like_torch(statement, one_thread):
    assert _run(leafgrad, statement)[:4] == _run(torch, statement)[:4]
