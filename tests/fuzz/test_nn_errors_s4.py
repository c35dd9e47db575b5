"""NN-op regressions from the session-3 10k fuzz run (issue 8): errors PyTorch raises (or
does not raise) in embedding_bag, convolutions, interpolation, pooling and the losses.

Each statement runs in leafgrad and in torch, both on one thread (some kernels' messages
follow the thread count, as in tests/fuzz/test_fuzz.py); both must raise the same exception
type and first line, or give the same value (``y``), dtype, shape and ``grad_fn`` name.
"""
from __future__ import annotations


import pytest
import torch

import leafgrad

from .test_widened import _run

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
    # interpolate: integer and bool inputs reach the kernel's dtype dispatch, whose name
    # depends on the mode and rank (uint8 passes all but linear/trilinear); the size checks
    # come first (spatial sizes before "Non-empty"; the 1-d message says "and output")
    "y = F.interpolate(torch.zeros(1, 1, 4, dtype=torch.bool), scale_factor=2)",
    "y = F.interpolate(torch.zeros(1, 1, 4, dtype=torch.long), scale_factor=2, mode='linear')",
    "y = F.interpolate(torch.zeros(1, 1, 4, dtype=torch.uint8), size=3, mode='linear')",
    "y = F.interpolate(torch.zeros(1, 1, 4, dtype=torch.uint8), size=3)",
    "y = F.interpolate(torch.zeros(0, 2, 4, dtype=torch.bool), scale_factor=2)",
    "y = F.interpolate(torch.zeros(1, 1, 1, 3, dtype=torch.long), scale_factor=2)",
    "y = F.interpolate(torch.zeros(2, 3, 2, 2, dtype=torch.int32), size=3, "
    "mode='nearest-exact')",
    "y = F.interpolate(torch.zeros(1, 1, 2, 2, dtype=torch.bool), size=3, mode='bilinear')",
    "y = F.interpolate(torch.zeros(1, 1, 2, 2, dtype=torch.uint8), size=3, mode='bilinear')",
    "y = F.interpolate(torch.zeros(1, 1, 2, 2, dtype=torch.bool), size=3, mode='bicubic')",
    "y = F.interpolate(torch.zeros(1, 1, 2, 2, 2, dtype=torch.bool), size=3, "
    "mode='trilinear')",
    "y = F.interpolate(torch.zeros(1, 1, 2, 2, 2, dtype=torch.int8), size=3)",
    "y = F.interpolate(torch.zeros(1, 1, 1, 1, 0, dtype=torch.long), size=(1, 1, 0), "
    "mode='trilinear')",
    "y = F.interpolate(torch.zeros(1, 0, 3, 0), scale_factor=2)",
    "y = F.interpolate(torch.zeros(0, 1, 0), scale_factor=2)",
    "y = F.interpolate(torch.zeros(1, 2, 3), size=0)",
    "y = F.interpolate(torch.zeros(1, 1, 0, 2), scale_factor=2, mode='bicubic')",
    "y = F.interpolate(torch.zeros(1, 0, 3, 3), scale_factor=2)",
    # adaptive average pooling: to size 1 everywhere it is a mean, of any rank; otherwise the
    # 2-d kernel checks rank then the pooled dims and returns empty outputs before its dtype
    # check, the 3-d kernel checks all non-batch dims, then rank, then dtype
    "y = F.adaptive_avg_pool2d(torch.arange(24.).reshape(4, 1, 1, 2, 3), 1)",
    "y = F.adaptive_avg_pool2d(torch.arange(24.).reshape(4, 1, 1, 2, 3).requires_grad_(), "
    "(1, 1))",
    "y = F.adaptive_avg_pool2d(torch.arange(12).reshape(4, 3), 1)",
    "y = F.adaptive_avg_pool2d(torch.ones(3, 4), 1)",
    "y = F.adaptive_avg_pool2d(torch.ones(3), 1)",
    "y = F.adaptive_avg_pool3d(torch.ones(2, 0, 1, 1).requires_grad_(), 1)",
    "y = F.adaptive_avg_pool3d(torch.ones(1, 2, 3, 4, 5, 2), 1)",
    "y = F.adaptive_avg_pool1d(torch.ones(2, 3, 0), 1)",
    "y = F.adaptive_avg_pool2d(torch.ones(0, 3, 4), 2)",
    "y = F.adaptive_avg_pool2d(torch.ones(1, 0, 3, 4, dtype=torch.long), 2)",
    "y = F.adaptive_avg_pool2d(torch.ones(2, 3, 4, dtype=torch.long), 0)",
    "y = F.adaptive_avg_pool2d(torch.ones(1, 0, 1, 0), 2)",
    "y = F.adaptive_avg_pool3d(torch.ones(0, 2, 3, 4, dtype=torch.long), 2)",
    "y = F.adaptive_avg_pool3d(torch.ones(1, 2, 3, 4, 0, 6), 2)",
    "y = F.adaptive_avg_pool3d(torch.ones(2, 0, 4), 2)",
    "y = F.adaptive_avg_pool1d(torch.ones(1, 0, 3).requires_grad_(), 2)",
    "y = F.interpolate(torch.zeros(0, 2, 2, 2, dtype=torch.long), size=3, mode='area')",
    "y = F.interpolate(torch.zeros(1, 0, 2), size=3, mode='area')",
    # adaptive max pooling: rank, then every non-batch dim; empty outputs are fine
    "y = F.adaptive_max_pool2d(torch.ones(0, 3, 4), 2)",
    "y = F.adaptive_max_pool2d(torch.ones(1, 2, 3, 4), 0)",
    "y = F.adaptive_max_pool3d(torch.ones(0, 2, 3, 4, dtype=torch.long), 2)",
    "y = F.adaptive_max_pool1d(torch.ones(2, 0, 4), 2)",
    "y = F.adaptive_max_pool1d(torch.ones(3, 0), 2)",
    "y = F.adaptive_max_pool1d(torch.ones(2, 3), 0)",
    # convolutions: conv1d/2d/3d with numeric padding check the bias dtype first (before
    # the input rank and the kernel size); string padding and torch.convolution leave a
    # mixed bias to the kernel (the slow path adds it, MKLDNN refuses it)
    "y = F.conv1d(torch.ones(2, 3, 1).double(), torch.ones(6, 1, 2), torch.ones(6), "
    "stride=2, groups=3)",
    "y = F.conv1d(torch.ones(1, 1, 1), torch.ones(2, 1, 2).double(), torch.ones(2).double())",
    "y = F.conv1d(torch.ones(1, 1, 1, 1), torch.ones(()), torch.ones(2).double())",
    "y = F.conv1d(torch.ones(1, 1, 1, 1), torch.ones(()), torch.ones(2))",
    "y = F.conv2d(torch.ones(2, 1, 1, 1).half(), torch.ones(2, 1, 2, 2).half(), "
    "torch.ones(2))",
    "y = F.conv1d(torch.ones(2, 1, 2).double().requires_grad_(), torch.ones(2, 1, 1), "
    "torch.ones(2), padding='same', dilation=2)",
    "y = F.conv1d(torch.ones(1, 1, 1).half(), torch.ones(1, 1, 1), torch.ones(1), "
    "padding='same')",
    "y = F.conv1d(torch.ones(2, 1, 3).double(), torch.ones(2, 1, 1).double(), torch.ones(2), "
    "padding='valid')",
    "y = F.conv1d(torch.ones(2, 1, 1), torch.ones(2, 1, 2), torch.ones(2).double(), "
    "padding='same')",
    "y = torch.convolution(torch.ones(2, 1, 3), torch.ones(2, 1, 1), torch.ones(2).double(), "
    "[1], [0], [1], False, [0], 1)",
    # the kernels' dtype dispatch: dilated and transposed kernels take floats and int64 only;
    # the plain ones refuse bool (3-d: a strided, padded, grouped or wider kernel fails
    # building its columns)
    "y = F.conv1d(torch.ones(1, 3, 2, dtype=torch.bool), torch.ones(6, 1, 1, dtype=torch.bool), "
    "stride=2, dilation=2, groups=3)",
    "y = F.conv2d(torch.ones(1, 1, 3, 3, dtype=torch.int32), torch.ones(1, 1, 1, 1, "
    "dtype=torch.int32), dilation=2)",
    "y = F.conv2d(torch.ones(1, 1, 3, 3, dtype=torch.int32), torch.ones(1, 1, 1, 1, "
    "dtype=torch.int32))",
    "y = F.conv_transpose1d(torch.ones(1, 1, 3, dtype=torch.bool), torch.ones(1, 1, 1, "
    "dtype=torch.bool))",
    "y = F.conv_transpose3d(torch.ones(1, 1, 2, 2, 2, dtype=torch.uint8), torch.ones(1, 1, 1, "
    "1, 1, dtype=torch.uint8))",
    "y = F.conv3d(torch.ones(1, 1, 2, 2, 2, dtype=torch.bool), torch.ones(1, 1, 1, 1, 1, "
    "dtype=torch.bool))",
    "y = F.conv3d(torch.ones(1, 1, 2, 2, 2, dtype=torch.bool), torch.ones(1, 1, 1, 1, 1, "
    "dtype=torch.bool), padding=1)",
    "y = F.conv_transpose1d(torch.ones(1, 1, 3, dtype=torch.long), torch.ones(1, 1, 2, "
    "dtype=torch.long))",
    # empty inputs: a zero batch or zero channels give an empty output and skip the kernels
    # (zero channels give zero output channels); other empty inputs are refused
    "y = F.conv1d(torch.ones(1, 0, 3), torch.ones(4, 0, 2), torch.ones(4))",
    "y = F.conv2d(torch.ones(2, 0, 3, 3), torch.ones(4, 0, 2, 1), stride=2)",
    "y = F.conv1d(torch.ones(0, 1, 3, dtype=torch.bool), torch.ones(2, 1, 1, dtype=torch.bool))",
    "y = F.conv1d(torch.ones(0, 1, 3), torch.ones(2, 1, 1).double())",
    "y = F.conv1d(torch.ones(0, 1, 3).requires_grad_(), torch.ones(2, 1, 1), torch.ones(2))",
    "y = F.conv_transpose1d(torch.ones(0, 1, 3), torch.ones(1, 2, 1), padding=5)",
    "y = F.conv_transpose1d(torch.ones(0, 2, 3), torch.ones(2, 0, 1))",
    "y = F.conv2d(torch.ones(1, 1, 0, 1), torch.ones(1, 1, 2, 2), padding=1)",
    "y = F.conv1d(torch.ones(1, 1, 0), torch.ones(2, 1, 1).double(), padding=1)",
    "y = F.conv_transpose1d(torch.ones(1, 1, 0), torch.ones(1, 2, 1))",
    "y = F.conv_transpose3d(torch.ones(1, 1, 1, 0, 1), torch.ones(1, 1, 1, 1, 1))",
    # transposed output sizes under 1 are refused by the slow kernels (a 1-d one names two
    # dims); MKLDNN (a batched float32 input) returns an empty output
    "y = F.conv_transpose1d(torch.ones(1, 1), torch.ones(1, 1, 2), padding=1)",
    "y = F.conv_transpose1d(torch.ones(1, 1, 1).double(), torch.ones(1, 1, 2).double(), "
    "padding=2)",
    "y = F.conv_transpose2d(torch.ones(1, 1, 1, 3), torch.ones(1, 1, 2, 2).double(), "
    "padding=1)",
    "y = F.conv_transpose2d(torch.ones(2, 1, 1, 3), torch.ones(1, 1, 2, 2), padding=1)",
    "y = F.conv_transpose1d(torch.ones(1, 1, 1, dtype=torch.bool), torch.ones(1, 1, 2, "
    "dtype=torch.bool), padding=1)",
    # weights with a zero-size dim
    "y = F.conv1d(torch.ones(1, 1, 3), torch.ones(1, 1, 0).double())",
    "y = F.conv2d(torch.ones(2, 1, 3, 3).double(), torch.ones(1, 1, 0, 1).double(), "
    "dilation=2)",
    "y = F.conv3d(torch.ones(1, 1, 3, 3, 3), torch.ones(1, 1, 1, 0, 1))",
    "y = F.conv_transpose1d(torch.ones(1, 2, 3), torch.ones(2, 0, 1))",
    "y = F.conv_transpose3d(torch.ones(1, 1, 3, 3, 3).double(), torch.ones(1, 1, 1, 0, 1)"
    ".double())",
    # losses: margin_ranking_loss wants inputs of one rank; soft_margin_loss writes into a
    # buffer shaped like the input (the target may broadcast to it, not beyond it)
    "y = F.margin_ranking_loss(torch.ones(()), torch.ones(1), torch.ones(1))",
    "y = F.margin_ranking_loss(torch.ones(3, 1, 4), torch.ones(3, 1, 4), torch.ones(3, 1, 4, 2))",
    "y = F.margin_ranking_loss(torch.ones(2, 3), torch.ones(3), torch.ones(2, 3), "
    "reduction='none')",
    "y = F.margin_ranking_loss(torch.ones(2), torch.ones(1), torch.ones(2))",
    "y = F.soft_margin_loss(torch.ones(1, 1, 4, 1).double(), torch.ones(4, 2))",
    "y = F.soft_margin_loss(torch.ones(()), torch.ones(2), reduction='none')",
    "y = F.soft_margin_loss(torch.ones(3, 2), torch.ones(2), reduction='none')",
    "y = F.soft_margin_loss(torch.ones(2), torch.ones(3))",
    # huber_loss's backward kernel refuses operands of two dtypes (the forward promotes)
    "x = torch.ones(2, 3).double().requires_grad_(); "
    "F.huber_loss(x, torch.full((3,), 0.25).expand(2, 3), reduction='sum').backward(); "
    "y = x.grad",
    "x = torch.full((3,), 0.25, requires_grad=True); "
    "F.huber_loss(torch.ones(2, 3).double(), x.expand(2, 3)).backward(); y = x.grad",
    "x = torch.ones(2, 3, requires_grad=True); "
    "F.huber_loss(x, torch.full((2, 3), 0.25).half(), reduction='sum').backward(); y = x.grad",
    # vector norms without an identity (inf, negative orders) of empty dims
    "y = torch.linalg.vector_norm(torch.ones(1, 0), float('inf'), dim=-1)",
    "y = torch.linalg.vector_norm(torch.ones(0, 2), -1, dim=(0, 1))",
    "y = torch.linalg.vector_norm(torch.ones(0), -float('inf'))",
    "y = torch.linalg.vector_norm(torch.ones(2, 0), float('inf'), dim=0)",
    "y = torch.linalg.vector_norm(torch.ones(2, 0), 0.5)",
    "y = torch.norm(torch.ones(0, 2), float('inf'), dim=0)",
    # hinge_embedding_loss fills a tensor like the input with the margin before subtracting
    # (a bool input: "two bool tensors"; an integer input truncates the margin)
    "y = F.hinge_embedding_loss(torch.tensor(True), torch.tensor(1))",
    "y = F.hinge_embedding_loss(torch.tensor([0, 1, 1]), torch.tensor([1, -1, -1]), "
    "margin=0.5, reduction='none')",
    "y = F.hinge_embedding_loss(torch.tensor([0, 1, 1]), torch.tensor([1, -1, -1]), "
    "margin=2, reduction='sum')",
    # soft_margin_loss runs neg(input).mul_(target).exp_() in the input's dtype
    "y = F.soft_margin_loss(torch.ones(1, dtype=torch.bool), torch.ones(()).long())",
    "y = F.soft_margin_loss(torch.ones(2, dtype=torch.long), torch.ones(2).double())",
    "y = F.soft_margin_loss(torch.ones(2, dtype=torch.long), torch.ones(2, dtype=torch.bool))",
    "y = F.soft_margin_loss(torch.ones(1, dtype=torch.long), torch.ones(2))",
    "y = F.soft_margin_loss(torch.ones(2, dtype=torch.long), torch.ones(3))",
    "y = F.soft_margin_loss(torch.ones(2).half(), torch.tensor([True, False]), reduction='none')",
    "x = torch.tensor([0.3, -0.5], requires_grad=True); "
    "g, = torch.autograd.grad(F.soft_margin_loss(x, torch.tensor([True, False])), x, "
    "create_graph=True); y = torch.autograd.grad(g.sum(), x)[0]",
]


@pytest.mark.parametrize("statement", STATEMENTS)
def test_nn_error_like_torch(statement, one_thread):
    # test_widened's observation without its _version (these statements never compared it)
    assert _run(leafgrad, statement)[:4] == _run(torch, statement)[:4]
