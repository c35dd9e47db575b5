"""Regressions found by the widened fuzzer (issue 8: linear algebra, special functions, nn ops
and the other records the first op table never called).

Each statement runs in leafgrad and in torch; both must raise the same exception type and
first line, or give the same value (``y``), dtype, shape, ``grad_fn`` name and ``_version``.
"""
from __future__ import annotations

import math
import warnings

import pytest
import torch

import leafgrad

STATEMENTS = [
    # LAPACK-backed kernels take float and double only: half, integer and bool inputs get
    # the op's own message (a front check, the kernel's name, or a shared pinv/lstsq text)
    "y = torch.linalg.inv(torch.eye(2).half())",
    "y = torch.linalg.inv_ex(torch.eye(2).half())[0]",
    "y = torch.linalg.matrix_power(torch.eye(2).half(), -1)",
    "y = torch.linalg.det(torch.eye(2).half())",
    "y = torch.linalg.slogdet(torch.eye(2).half())[1]",
    "y = torch.logdet(torch.eye(2).half())",
    "y = torch.logdet(torch.eye(2).long())",
    "y = torch.logdet(torch.ones(2))",
    "y = torch.linalg.matrix_exp(torch.eye(2).long())",
    "y = torch.linalg.pinv(torch.eye(2).half())",
    "y = torch.linalg.pinv(torch.eye(2).long())",
    "y = torch.linalg.pinv(torch.ones(2))",
    "y = torch.linalg.svdvals(torch.eye(2).half())",
    "y = torch.linalg.svd(torch.eye(2).half())[1]",
    "y = torch.linalg.cond(torch.eye(2).half())",
    "y = torch.linalg.cond(torch.eye(2).half(), 'fro')",
    "y = torch.linalg.eigvalsh(torch.eye(2).half())",
    "y = torch.linalg.eigvalsh(torch.eye(2).long())",
    "y = torch.linalg.eigvalsh(torch.ones(2, 3))",
    "y = torch.linalg.eigvalsh(torch.ones(2))",
    "y = torch.linalg.eigh(torch.eye(2).bool())[0]",
    "y = torch.linalg.cholesky(torch.eye(2).half())",
    "y = torch.linalg.cholesky_ex(torch.eye(2).half())[0]",
    "y = torch.cholesky(torch.eye(2).long())",
    "y = torch.cholesky_inverse(torch.eye(2).half())",
    "y = torch.cholesky_inverse(torch.ones(2))",
    "y = torch.cholesky_solve(torch.eye(2), torch.eye(2).double())",
    "y = torch.cholesky_solve(torch.eye(2).long(), torch.eye(2).long())",
    # embedding from an empty table is index_select's error; embedding_bag takes float
    # weights only (CI fuzz seeds 43, 92)
    "y = torch.nn.functional.embedding(torch.tensor([0, 0]), torch.ones(0, 2))",
    "y = torch.nn.functional.embedding(torch.tensor([[0], [0]]), torch.ones(0, 2))",
    "y = torch.nn.functional.embedding_bag(torch.tensor([0, -1]), torch.ones(3, 1).bool(), "
    "torch.tensor([0]), mode='max')",
    "y = torch.nn.functional.embedding_bag(torch.tensor([0, 1]), torch.ones(3, 1).long(), "
    "torch.tensor([0]), mode='mean')",
    "y = torch.nn.functional.embedding_bag(torch.tensor([0, 1]), "
    "torch.ones(3, 1).to(torch.uint8), torch.tensor([0]))",
    # embedding(max_norm=...) runs embedding_renorm_'s checks and loop first: a 2-D table,
    # Long/Int indices (argument #2), select()'s index errors (10k fuzz run, seed 11)
    "y = torch.nn.functional.embedding(torch.tensor([0, 1]), torch.ones(4, 4, 1, 3), "
    "max_norm=0.5)",
    "y = torch.nn.functional.embedding(torch.tensor([0.5]), torch.ones(3, 2), max_norm=0.5)",
    "y = torch.nn.functional.embedding(torch.tensor([-4]), torch.ones(3, 2), max_norm=0.5)",
    "y = torch.nn.functional.embedding(torch.tensor([3, 7]), torch.ones(3, 2), max_norm=0.5)",
    "y = torch.nn.functional.embedding(torch.tensor([[1]]), torch.ones(3, 2) * 5, "
    "max_norm=0.5)",
    "y = torch.nn.functional.embedding(torch.tensor([True]), torch.ones(3, 2))",
    "y = torch.nn.functional.embedding(torch.tensor([3, 0, -1]), torch.ones(4, 1).long(), "
    "max_norm=1.0)",
    "y = torch.nn.functional.embedding(torch.tensor([5, 0]), torch.ones(4, 1).long(), "
    "max_norm=1.0)",
    "y = torch.nn.functional.embedding(torch.tensor([0.]).double(), torch.ones(3, 2))",
    # binary_cross_entropy's weight expands to target's size with weight's, then the kernel
    # writes into the input's shape
    "y = torch.nn.functional.binary_cross_entropy(torch.full((), 0.3), torch.full((), 0.5), "
    "weight=torch.ones(1))",
    "y = torch.nn.functional.binary_cross_entropy(torch.full((2, 1), 0.3), "
    "torch.full((2, 1), 0.5), weight=torch.ones(2))",
    "y = torch.nn.functional.binary_cross_entropy(torch.full((2,), 0.3), torch.full((2,), 0.5), "
    "weight=torch.ones(3))",
    "y = torch.nn.functional.binary_cross_entropy(torch.full((2, 3), 0.3), "
    "torch.full((2, 3), 0.5), weight=torch.ones(3))",
    # pdist's kernels have no half version: the forward where there are pairs and columns,
    # the backward always (one function now serves torch.pdist and F.pdist)
    "y = torch.pdist(torch.ones(3, 2).half())",
    "y = torch.pdist(torch.ones(2, 0).half())",
    "y = torch.nn.functional.pdist(torch.ones(1, 2).half())",
    # Cholesky stops at a NaN pivot as LAPACK's potrf does (CI fuzz seed 132)
    "y = torch.linalg.cholesky(torch.tensor([[float('nan')]]))",
    "y = torch.linalg.cholesky(torch.tensor([[4., 1.], [1., float('nan')]]).double())",
    "y = torch.linalg.cholesky_ex(torch.tensor([[float('nan'), 0.], [0., 1.]])).info",
    "y = torch.linalg.cholesky_ex(torch.tensor([[1., float('inf')], [float('inf'), 4.]]))"
    ".info",
    "y = torch.linalg.cholesky_ex(torch.tensor([[4., 2., 1.], [2., 1., 0.], [1., 0., 3.]]))"
    ".L",
    # F.pdist's checks: 2-D, then a floating dtype, then p (CI fuzz seed 158)
    "y = torch.nn.functional.pdist(torch.tensor([[1], [2]]), p=3.0)",
    "y = torch.nn.functional.pdist(torch.tensor([[1], [2]]), p=-1.0)",
    "y = torch.nn.functional.pdist(torch.tensor([1, 2]), p=-1.0)",
    "y = torch.nn.functional.pdist(torch.tensor([[True], [False]]))",
    # cholesky_solve's shape checks come before its dtype and kernel checks (CI fuzz draw)
    "y = torch.cholesky_solve(torch.ones(1), torch.ones(1))",
    "y = torch.cholesky_solve(torch.ones(1, 1), torch.ones(1).double())",
    "y = torch.cholesky_solve(torch.ones(2, 1).long(), torch.eye(3).long())",
    "y = torch.cholesky_solve(torch.ones(3, 1), torch.ones(3, 2))",
    "y = torch.cholesky_solve(torch.ones(5, 3, 2), torch.eye(3).expand(2, 3, 3))",
    "y = torch.cholesky_solve(torch.ones(3, 2), torch.eye(3).expand(2, 3, 3))",
    "y = torch.linalg.qr(torch.eye(2).half())[0]",
    "y = torch.linalg.lu(torch.eye(2).half())[1]",
    "y = torch.linalg.lu(torch.eye(2).long())[1]",
    "y = torch.linalg.lu(torch.ones(2))[1]",
    "y = torch.linalg.lu_factor(torch.eye(2).bool())[0]",
    "y = torch.linalg.matrix_norm(torch.eye(2).half(), 'nuc')",
    "y = torch.linalg.matrix_norm(torch.eye(2).half(), -2)",
    "y = torch.linalg.matrix_norm(torch.eye(2).half(), 1)",
    "y = torch.linalg.matrix_rank(torch.eye(2).half())",
    "y = torch.linalg.matrix_rank(torch.ones(2))",
    "y = torch.linalg.matrix_rank(torch.eye(3)[:2])",    # counted in place: version 1
    "y = torch.linalg.solve_triangular(torch.eye(2).half(), torch.eye(2).half(), upper=True)",
    "y = torch.linalg.solve_triangular(torch.eye(2).long(), torch.eye(2).double(), upper=True)",
    "y = torch.triangular_solve(torch.eye(2).long(), torch.eye(2).long())[0]",
    "y = torch.linalg.solve(torch.eye(2).half(), torch.eye(2).half())",
    "y = torch.linalg.solve(torch.eye(2), torch.ones(2).double())",
    "y = torch.linalg.solve_ex(torch.eye(2).half(), torch.ones(2).half())[0]",
    "y = torch.linalg.lstsq(torch.eye(2).half(), torch.eye(2).half()).solution",
    "y = torch.linalg.lstsq(torch.eye(2), torch.eye(2).double()).solution",
    "y = torch.linalg.lstsq(torch.ones(2), torch.eye(2)).solution",
    "y = torch.linalg.lu_solve(torch.eye(2).long(), torch.tensor([1, 2], dtype=torch.int32), "
    "torch.eye(2).long())",
    "y = torch.linalg.lu_solve(torch.eye(2).half(), torch.tensor([1, 2], dtype=torch.int32), "
    "torch.eye(2).half())",
    "y = torch.linalg.lu_solve(torch.eye(2), torch.tensor([1, 2], dtype=torch.int32), "
    "torch.ones(2, 2).double())",
    "y = torch.linalg.lu_solve(torch.eye(2), torch.tensor([1, 2], dtype=torch.int32), "
    "torch.ones(2))",
    "y = torch.linalg.lu_solve(torch.eye(2), torch.tensor([1, 2], dtype=torch.int32), "
    "torch.ones(4, 2))",
    "y = torch.trace(torch.eye(2).bool())",
    # products and distances: dtype and dim checks
    "y = torch.dist(torch.ones(2).long(), torch.ones(2).long())",
    "y = torch.dist(torch.ones(2).long(), torch.ones(3).long())",
    "y = torch.inner(torch.ones(2).half(), torch.ones(2))",
    "y = torch.tensordot(torch.ones(2).long(), torch.ones(2), 1)",
    "y = torch.tensordot(torch.tensor(1.), torch.ones(2), dims=([0], [0]))",
    "y = torch.tensordot(torch.ones(2), torch.ones(2), dims=([0], [1]))",
    "y = torch.tensordot(torch.ones(2), torch.ones(2), dims=2)",
    # unique along a dim of a 0-d tensor
    "y = torch.unique(torch.tensor(1.), dim=-1)",
    "y = torch.unique_consecutive(torch.tensor(1.), dim=0)",
    # poisson_nll_loss(full=True) adds the Stirling term in place (version 1)
    "y = torch.nn.functional.poisson_nll_loss(torch.ones(2, requires_grad=True), "
    "torch.tensor([0.5, 3.]), full=True, reduction='none')",
    # quantile/nanquantile (one name in the messages; empty inputs), kthvalue/nanmedian of bool
    "y = torch.ones(2).long().nanquantile(0.5)",
    "y = torch.ones(2).nanquantile(1.5)",
    "y = torch.ones(0).quantile(0.5)",
    "y = torch.ones(0).long().quantile(0.5)",
    "y = torch.tensor([True]).kthvalue(1)[0]",
    "y = torch.tensor([True, False]).nanmedian()",
    "y = torch.tensor([True, False]).nanmedian(0)[0]",
    # narrow_copy's checks, take from an empty tensor
    "y = torch.ones(2, 3).narrow_copy(0, 3, 1)",
    "y = torch.ones(2, 3).narrow_copy(0, 1, 2)",
    "y = torch.ones(2, 3).narrow_copy(2, 0, 1)",
    "y = torch.ones(2, 3).narrow_copy(0, -3, 1)",
    "y = torch.tensor(1.).narrow_copy(0, 0, 1)",
    "y = torch.ones(0).take(torch.tensor([0]))",
    # slice_scatter sizes, diagonal_scatter of 0-d, rot90 dims as given, meshgrid dtypes
    "y = torch.slice_scatter(torch.ones(1, 1), torch.ones(1, 1), 1, 1, 1, 1)",
    "y = torch.slice_scatter(torch.ones(3), torch.ones(2, 1), 0, 0, 2)",
    "y = torch.diagonal_scatter(torch.tensor(1.), torch.tensor(2.), 1)",
    "y = torch.tensor(1.).diagonal()",
    "y = torch.ones(2, 2).rot90(1, [0, -2])",
    "y = torch.meshgrid(torch.ones(2), torch.ones(2).long(), indexing='ij')[0]",
    # repeat_interleave's dim checks; searchsorted of bool
    "y = torch.tensor(1.).repeat_interleave(torch.tensor([1]), dim=0)",
    "y = torch.tensor(1.).repeat_interleave(2, dim=-1)",
    "y = torch.ones(2).repeat_interleave(2, dim=1)",
    "y = torch.ones(2).repeat_interleave(2, dim=-2)",
    "y = torch.searchsorted(torch.tensor([False, True]), torch.tensor([True]))",
    "y = torch.bucketize(torch.tensor([True]), torch.tensor([False, True]))",
    "y = torch.searchsorted(torch.tensor([0., 1.]), torch.tensor([True]))",
    # convolution: weight rank first; dtype messages depend on the (MKLDNN) path; no bool
    "y = torch.nn.functional.conv1d(torch.ones(1, 1, 3), torch.ones(1))",
    "y = torch.nn.functional.conv1d(torch.ones(1, 1, 3), torch.ones(1, 1))",
    "y = torch.nn.functional.conv2d(torch.ones(1, 1, 3, 3), torch.ones(1, 1, 1))",
    "y = torch.nn.functional.conv1d(torch.ones(1, 1, 3).half(), torch.ones(1, 1, 1))",
    "y = torch.nn.functional.conv1d(torch.ones(1, 1, 3), torch.ones(1, 1, 1).double())",
    "y = torch.nn.functional.conv1d(torch.ones(2, 1, 3), torch.ones(1, 1, 1).double())",
    "y = torch.nn.functional.conv2d(torch.ones(2, 1, 3, 3).double(), torch.ones(1, 1, 1, 1))",
    "y = torch.nn.functional.conv2d(torch.ones(1, 1, 3, 3).bool(), torch.ones(1, 1, 1, 1).bool())",
    "y = torch.nn.functional.conv3d(torch.ones(1, 1, 1, 1, 1).bool(), "
    "torch.ones(1, 1, 1, 1, 1).bool())",
    # conv: the bias's dtype is checked before the weight's; max_pool1d with indices
    "y = torch.nn.functional.conv1d(torch.ones(1, 1, 3).half(), torch.ones(1, 1, 1).double(), "
    "torch.ones(1).double())",
    "y = torch.nn.functional.conv1d(torch.ones(2, 1, 3), torch.ones(1, 1, 1).double(), "
    "torch.ones(1).double())",
    "y = torch.nn.functional.max_pool1d(torch.ones(1, 1, 3, 2), 1, return_indices=True)[0]",
    "y = torch.nn.functional.max_pool1d(torch.ones(3), 1, return_indices=True)[0]",
    "y = torch.nn.functional.max_pool1d(torch.ones(3), 1)",
    # isclose's result carries the versions of PyTorch's in-place ORs
    "y = torch.isclose(torch.tensor([1., 2]), torch.tensor([1., 2.5]))",
    "y = torch.isclose(torch.tensor([1., 2]), torch.tensor([1., 2.5]), equal_nan=True)",
    "y = torch.isclose(torch.tensor([1, 2]), torch.tensor([1, 3]), equal_nan=True)",
    "y = torch.isclose(torch.tensor([1., 2]), torch.tensor([1., 2.5]), rtol=0, atol=0)",
    # triangular_solve / lstsq shape checks; cond's inv_ex + nan_to_num for fro/1/inf
    "y = torch.triangular_solve(torch.ones(2), torch.eye(2))[0]",
    "y = torch.triangular_solve(torch.ones(2,1), torch.ones(2))[0]",
    "y = torch.triangular_solve(torch.tensor(1.), torch.eye(2).half())[0]",
    "y = torch.triangular_solve(torch.ones(3,1), torch.eye(2))[0]",
    "y = torch.triangular_solve(torch.ones(2,1), torch.eye(2).double())[0]",
    "y = torch.linalg.lstsq(torch.eye(2), torch.tensor(1.)).solution",
    "y = torch.linalg.lstsq(torch.eye(2), torch.ones(3)).solution",
    "y = torch.linalg.lstsq(torch.eye(2), torch.ones(3,1)).solution",
    "y = torch.linalg.cond(torch.eye(2, requires_grad=True) * 2, 'fro')",
    "y = torch.linalg.cond(torch.eye(2, requires_grad=True) * 2, 1)",
    "y = torch.linalg.cond(torch.eye(2, requires_grad=True) * 2, -float('inf'))",
    "y = torch.linalg.cond(torch.eye(2, requires_grad=True) * 2, 'nuc')",
    "y = torch.linalg.cond(torch.tensor([[1., 2], [2, 4]]), 'fro')",
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
    return str(y.dtype), tuple(y.shape), values, fn, y._version


@pytest.mark.parametrize("statement", STATEMENTS)
def test_widened_like_torch(statement):
    assert _run(leafgrad, statement) == _run(torch, statement)


def test_lu_solve_is_one_record_with_double_backward():
    # was a composite of triangular solves (LinalgSolveTriangularBackward0)
    def run(L):
        A = L.tensor([[3., 1, 0.5], [1, 2, 0], [0.2, 0.1, 4]], dtype=L.float64)[[2, 0, 1]]
        lu, piv = L.linalg.lu_factor(A)
        lu = lu.detach().requires_grad_()
        B = L.tensor([[1., 2], [3, 4], [5, 6]], dtype=L.float64, requires_grad=True)
        out = []
        for adjoint in (False, True):
            X = L.linalg.lu_solve(lu, piv, B, adjoint=adjoint)
            g = L.autograd.grad((X * X).sum(), [lu, B], create_graph=True)
            gg = L.autograd.grad(g[0].sum() + g[1].sum(), [lu, B])
            out.append((type(X.grad_fn).__name__,
                        [t.detach().numpy().round(8).tolist() for t in (X, *g, *gg)]))
        return out
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert run(leafgrad) == run(torch)

