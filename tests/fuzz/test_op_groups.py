"""Op-level mismatch groups found by the fuzzer (issue 8, session 3), as regression tests.

Each statement runs in leafgrad and in torch (``torch`` and ``F`` name the library under
test); both must raise the same exception type and full message, or give the same values,
dtype, shape and ``grad_fn`` name for ``y``.
"""
from __future__ import annotations

import math
import warnings

import pytest
import torch

import leafgrad

# a) activations whose PyTorch kernels are written for floating dtypes only (and the ones
# that accept integers: relu, hardtanh/relu6, threshold, but not bool)
_ACTIVATIONS = ["F.softplus(x)", "F.softplus(x, beta=2)", "F.gelu(x)",
                "F.gelu(x, approximate='tanh')", "F.silu(x)", "F.silu(x, inplace=True)",
                "F.elu(x)", "F.selu(x)", "F.celu(x)", "F.leaky_relu(x)", "F.mish(x)",
                "F.logsigmoid(x)", "F.hardswish(x)", "F.hardsigmoid(x)", "F.softshrink(x)",
                "F.hardshrink(x)", "F.rrelu(x)", "F.glu(x, 0)", "F.relu(x)", "F.relu6(x)",
                "F.relu6(x, inplace=True)", "F.hardtanh(x)", "F.hardtanh(x, -1.5, 2.5)",
                "F.hardtanh_(x, 0., 6.)", "F.hardtanh(x, -0., 6.)", "F.threshold(x, 0.5, 2.)",
                "F.threshold_(x, 0.5, 2.)", "torch.threshold(x, 0, 1)", "F.tanhshrink(x)",
                "F.softsign(x)"]
_INPUTS = ["torch.tensor([-2, 0, 1, 3])", "torch.tensor([True, False, True, True])",
           "torch.tensor([0, 1, 3, 8], dtype=torch.uint8)",
           "torch.tensor([-2, 0, 1, 3], dtype=torch.int32)"]
ACTIVATIONS = [f"x = {x}; y = {call}" for x in _INPUTS for call in _ACTIVATIONS]

OTHERS = [
    # unsigned hardtanh refuses negative limits; gelu checks `approximate` before the dtype
    "y = F.hardtanh(torch.tensor([0, 1, 9], dtype=torch.uint8), -1., 6.)",
    "y = F.hardtanh_(torch.tensor([0, 1, 9], dtype=torch.uint8), -1., 6.)",
    "y = F.gelu(torch.tensor([1, 2]), approximate='x')",
    # prelu: the dtypes must agree (checked before the shapes), floating kernels only
    "y = F.prelu(torch.tensor([-1, 2]), torch.tensor([0.25]))",
    "y = F.prelu(torch.ones(2, 3).long(), torch.ones(5))",
    "y = F.prelu(torch.ones(2, 3).long(), torch.ones(5).long())",
    "y = F.prelu(torch.ones(2, 3).long(), torch.ones(3).long())",
    "y = F.prelu(torch.tensor([True, False]), torch.tensor([True]))",
    "y = F.prelu(torch.ones(2, 3).double(), torch.ones(3))",
    "y = F.prelu(torch.ones(2, 3), torch.ones(3).half())",
    "y = F.prelu(torch.tensor([-1., 2], requires_grad=True), torch.tensor([0.25]))",
    # b) sub_/neg_ with a bool operand: autograd's in-place checks, then the bool check, then
    # the overlap and output shape checks
    "b = torch.ones(3, 1, dtype=torch.bool); y = b.expand(3, 4).neg_()",
    "b = torch.ones(3, 1, dtype=torch.bool); y = b.expand(3, 4).negative_()",
    "b = torch.ones(3, 1, dtype=torch.bool); y = b.expand(3, 4).sub_(b)",
    "b = torch.ones(3, 1, dtype=torch.bool); y = b.expand(3, 4).subtract_(True)",
    "b = torch.ones(3, 1, dtype=torch.bool); y = b.expand(3, 4); y -= b",
    "b = torch.ones(3, 1, dtype=torch.bool); y = torch.ones(3, 1).expand(3, 4).sub_(b)",
    "b = torch.ones(3, 1, dtype=torch.bool); y = b.expand(3, 4).sub_(torch.ones(3, 4))",
    "b = torch.ones(3, 1, dtype=torch.bool); y = torch.ones(3, 1).expand(3, 4).sub_(other=b)",
    "y = torch.tensor([True]).sub_(torch.ones(2, dtype=torch.bool))",
    "y = torch.tensor([1]).sub_(torch.ones(2, dtype=torch.bool))",
    "y = torch.ones(1, dtype=torch.bool).sub_(torch.ones(3, 2))",
    "y = torch.ones(2, requires_grad=True).sub_(torch.tensor([True, False]))",
    "y = torch.ones(2, requires_grad=True)[:1].sub_(torch.tensor([True]))",
    "y = torch.ones(2, 2, requires_grad=True).clone().unbind(0)[0].sub_(torch.tensor([True]))",
    "y = torch.ones(2, 2, requires_grad=True).clone(); y.sub_(torch.ones(2)); y.neg_()",
    "y = torch.tensor([1, 2]); y.subtract_(torch.tensor([3, 1]), alpha=2)",
    # e) result dtypes: lerp's 0-d weight joins type promotion (all 0-d: float64 here); the
    # inf-norm's gradient of a 0-d or keepdim input stays in the input's dtype
    "y = torch.lerp(torch.tensor(1.), torch.tensor(3.), torch.tensor(.25).double())",
    "y = torch.lerp(torch.tensor([1.]), torch.tensor([3.]), torch.tensor(.25).double())",
    "y = torch.lerp(torch.tensor(1.).half(), torch.tensor(3.).half(), torch.tensor(.25))",
    "y = torch.lerp(torch.tensor([1, 2]), torch.tensor([3, 4]), torch.tensor(0.5))",
    "y = torch.lerp(torch.tensor(1), torch.tensor(3), torch.tensor(0.5).double())",
    "y = torch.lerp(torch.tensor(True), torch.tensor(False), torch.tensor(0.25))",
    "y = torch.lerp(torch.tensor([True]), torch.tensor([False]), torch.tensor(1))",
    "y = torch.lerp(torch.tensor([1]), torch.tensor([2]), torch.tensor(True))",
    "y = torch.lerp(torch.tensor(1.), torch.tensor(3.), torch.tensor([.25]).double())",
    "y = torch.tensor(1.); y.lerp_(torch.tensor(3.), torch.tensor(.25).double())",
    "x = torch.tensor(1., requires_grad=True); w = torch.tensor(.3, requires_grad=True).double()"
    "; y = torch.autograd.grad(torch.lerp(x, torch.tensor(2.), w), (x, w))[0]",
    "x = torch.tensor(1., requires_grad=True); w = torch.tensor(.3, requires_grad=True).double()"
    "; y = torch.autograd.grad(torch.lerp(x, torch.tensor(2.), w), (x, w))[1]",
    "x = torch.tensor(2., requires_grad=True)"
    "; y = torch.autograd.grad(torch.linalg.vector_norm(x * 1, float('inf')), x)[0]",
    "x = torch.tensor([-2.], requires_grad=True); y = torch.autograd.grad("
    "torch.linalg.vector_norm(x * 1, -float('inf'), -1, True), x, torch.ones(1))[0]",
    "x = torch.tensor([[-2., 2., 1.]], requires_grad=True); y = torch.autograd.grad("
    "torch.linalg.vector_norm(x * 1, float('inf'), -1, True), x, torch.ones(1, 1))[0]",
    # c) floor_divide records NotImplemented; its error names the in-place op when in place
    "x = torch.tensor([1.5, -2.5], requires_grad=True); y = x // torch.tensor(2.)",
    "x = torch.tensor([1.5, -2.5], requires_grad=True); y = 3 // x",
    "x = torch.tensor([1.5, -2.5], requires_grad=True); y = x.clone(); y //= 2",
    "x = torch.tensor([1.5, -2.5], requires_grad=True)"
    "; y = torch.autograd.grad(x.floor_divide(2).sum(), x)[0]",
    "x = torch.tensor([1.5, -2.5], requires_grad=True); y = torch.autograd.grad("
    "torch.floor_divide(torch.tensor(3.), x).sum(), x)[0]",
    "x = torch.tensor([1.5, -2.5], requires_grad=True); y = x.clone(); y.floor_divide_(2)"
    "; y = torch.autograd.grad(y.sum(), x)[0]",
    "x = torch.tensor([1.5, -2.5], requires_grad=True); y = x.clone(); y //= x"
    "; y = torch.autograd.grad(y.sum(), x)[0]",
    "x = torch.tensor([1.5, -2.5], requires_grad=True); y = x.clone()"
    "; y.heaviside_(torch.ones(2)); y = torch.autograd.grad(y.sum(), x)[0]",
    "x = torch.tensor([1.5, -2.5], requires_grad=True); y = torch.autograd.grad("
    "(x.floor_divide(2) * 0).sum() + x.sum(), x)[0]",
    "x = torch.tensor([1.5, -2.5], requires_grad=True); f = x.floor_divide(2) + x"
    "; y = torch.autograd.grad(f.sum(), f)[0]",
    "y = torch.floor_divide(torch.tensor([True]), torch.tensor([True]))",
    "y = torch.floor_divide(torch.tensor([5, -5]), torch.tensor([0, 2]))",
    "y = torch.tensor([5, -5]).floor_divide_(torch.tensor([2.]))",
]


def _run(L, statement):
    env = {"torch": L, "F": L.nn.functional}
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            exec(statement, env)   # noqa: S102 - a statement from the lists above
    except Exception as exc:   # noqa: BLE001 - the error is the observation
        return type(exc).__name__, str(exc)
    y = env["y"]
    fn = None if y.grad_fn is None else type(y.grad_fn).__name__
    values = [v if not (isinstance(v, float) and math.isnan(v)) else "nan"
              for v in y.detach().reshape(-1).tolist()]
    return str(y.dtype), tuple(y.shape), values, fn


@pytest.mark.parametrize("statement", ACTIVATIONS + OTHERS)
def test_like_torch(statement):
    assert _run(leafgrad, statement) == _run(torch, statement)


# d) matmul: each rank case runs the checks of the kernel PyTorch picks (dot, mv, mm, a folded
# mm/mv -- chosen by requires_grad and strides -- or bmm), in its order; empty bmm products
# skip the dtype and bool checks
_MM_SHAPES = [(2,), (0,), (2, 3), (3, 2), (0, 3), (3, 0), (2, 2, 3), (2, 3, 2), (1, 3, 2),
              (1, 2, 3), (2, 0, 3), (2, 1, 3, 2)]
_MM_DTYPES = [("float32", "float32"), ("float32", "int64"), ("float64", "float32"),
              ("bool", "bool"), ("bool", "float32")]


def _matmul_case(L, sa, sb, da, db, rga, rgb, transposed):
    a = L.ones(sa, dtype=getattr(L, da))
    if transposed:
        a = L.ones(sa[:-2] + (sa[-1], sa[-2]), dtype=getattr(L, da)).mT
    a.requires_grad_(rga)
    b = L.ones(sb, dtype=getattr(L, db), requires_grad=rgb)
    try:
        r = L.matmul(a, b)
    except Exception as exc:   # noqa: BLE001 - the error is the observation
        return type(exc).__name__, str(exc)
    return str(r.dtype), tuple(r.shape), None if r.grad_fn is None else type(r.grad_fn).__name__


def test_matmul_checks_like_torch():
    bad = []
    for sa in _MM_SHAPES:
        for sb in _MM_SHAPES:
            for da, db in _MM_DTYPES:
                for rga, rgb in [(False, False), (True, False), (False, True)]:
                    if (rga and da != "float32" and da != "float64") or (rgb and db == "bool"):
                        continue
                    if rgb and db == "int64":
                        continue
                    for tr in ([False, True] if len(sa) >= 3 else [False]):
                        case = (sa, sb, da, db, rga, rgb, tr)
                        mine = _matmul_case(leafgrad, *case)
                        theirs = _matmul_case(torch, *case)
                        if mine != theirs:
                            bad.append((case, mine, theirs))
    assert not bad, f"{len(bad)} cases differ, e.g. {bad[:3]}"


MATMUL_OTHERS = [
    "y = torch.mm(torch.ones(2, 3), torch.ones(2, 3).long())",
    "y = torch.mm(torch.ones(0, 2).bool(), torch.ones(2, 3).bool())",
    "y = torch.mv(torch.ones(2, 3), torch.ones(2).long())",
    "y = torch.mv(torch.ones(2, 0).bool(), torch.ones(0).bool())",
    "y = torch.bmm(torch.ones(2, 2, 3).bool(), torch.ones(2, 3, 2))",
    "y = torch.bmm(torch.ones(2, 2, 3), torch.ones(2, 3, 2).bool())",
    "y = torch.bmm(torch.ones(2, 0, 3), torch.ones(2, 3, 2).long())",
    "y = torch.bmm(torch.ones(2, 0, 3, requires_grad=True), torch.ones(2, 3, 2).double())",
    "y = torch.bmm(torch.ones(2, 0, 3, requires_grad=True), torch.ones(2, 3, 2).long())",
    "a = torch.ones(2, 3, 0, requires_grad=True); y = torch.autograd.grad("
    "(a @ torch.ones(0, 2)).sum(), a)[0]",
    "a = torch.ones(2, 3, 0, requires_grad=True); y = torch.autograd.grad("
    "(a @ torch.ones(0)).sum(), a)[0]",
    "b = torch.ones(0, 2, requires_grad=True); y = torch.autograd.grad("
    "(torch.ones(2, 3, 0) @ b).sum(), b)[0]",
    # sum's parser refuses a float or a str dim (TypeError, PyTorch's text)
    "y = torch.ones(2, 3).sum(1.5)",
    "y = torch.ones(2, 3).sum('a')",
    "y = torch.ones(2, 3).sum((0.5,))",
    "y = torch.ones(2, 3).sum([0, 1])",
]


@pytest.mark.parametrize("statement", MATMUL_OTHERS)
def test_matmul_others_like_torch(statement):
    assert _run(leafgrad, statement) == _run(torch, statement)


# broadcasting comes before a kernel's dtype check (PyTorch builds its TensorIterator first);
# rsub broadcasts other (tensor a) with self; dist checks bool like a subtraction first
_BROADCAST_OPS = ["torch.bitwise_and", "torch.bitwise_or", "torch.bitwise_xor",
                  "torch.bitwise_left_shift", "torch.pow", "torch.remainder", "torch.fmod",
                  "torch.floor_divide", "torch.hypot", "torch.nextafter", "torch.logaddexp",
                  "torch.gcd", "torch.lcm", "torch.rsub", "torch.isclose", "torch.dist",
                  "torch.Tensor.bitwise_and_", "torch.Tensor.__and__", "torch.Tensor.__or__"]
BROADCAST = [f"y = {op}(torch.ones(2, 4, dtype={a}), torch.ones(3, dtype={b}))"
             for op in _BROADCAST_OPS
             for a, b in [("torch.float32", "torch.float32"), ("torch.int64", "torch.int64"),
                          ("torch.bool", "torch.bool"), ("torch.float32", "torch.int64"),
                          ("torch.bool", "torch.float32")]]
BROADCAST += ["y = torch.lerp(torch.ones(2, 4).long(), torch.ones(3).long(), 0.5)",
              "y = torch.lerp(torch.ones(2, 4).bool(), torch.ones(3).bool(), 0.5)",
              "y = torch.rsub(torch.ones(2), torch.ones(2) * 3, alpha=2)"]


@pytest.mark.parametrize("statement", BROADCAST)
def test_broadcast_before_kernel_like_torch(statement):
    assert _run(leafgrad, statement) == _run(torch, statement)


# addmm / addmv / addr / baddbmm / addbmm: PyTorch's check order (dtypes before ranks for
# addmm, self expanded first with expand's messages, sizes read before ranks), addr promotes
# its operands and refuses float scalars for integral results, integral products truncate
# alpha and beta
_ADD_SELF = [(), (1,), (2,), (3,), (2, 2), (1, 1, 1)]
_ADD_MATS = [(2, 3), (3,), (1, 2, 3), (2, 3, 2)]
_ADD_RIGHT = [(3,), (2,), (3, 2), (2, 3, 2), (1, 3, 2)]
_ADD_DTYPES = ["fff", "ffl", "lff", "lll", "bbb", "ffd", "dff", "hff", "fhf", "llb"]
_ADD_DT = {"f": "float32", "l": "int64", "d": "float64", "b": "bool", "h": "float16"}


def _add_case(L, op, si, s1, s2, d, alpha, beta):
    i = L.ones(si, dtype=getattr(L, _ADD_DT[d[0]]))
    a = L.ones(s1, dtype=getattr(L, _ADD_DT[d[1]]))
    b = L.ones(s2, dtype=getattr(L, _ADD_DT[d[2]]))
    try:
        r = getattr(L, op)(i, a, b, alpha=alpha, beta=beta)
    except Exception as exc:   # noqa: BLE001 - the error is the observation
        return type(exc).__name__, str(exc)
    return str(r.dtype), tuple(r.shape), r.reshape(-1).tolist()


@pytest.mark.parametrize("op", ["addmm", "addmv", "addr", "baddbmm", "addbmm"])
def test_add_products_like_torch(op):
    bad = []
    for si in _ADD_SELF:
        for s1 in _ADD_MATS:
            for s2 in _ADD_RIGHT:
                for d in _ADD_DTYPES:
                    for alpha, beta in [(1, 1), (0.5, 1), (1, 0.5), (-2, 0)]:
                        case = (op, si, s1, s2, d, alpha, beta)
                        mine, theirs = _add_case(leafgrad, *case), _add_case(torch, *case)
                        if mine != theirs:
                            bad.append((case, mine, theirs))
    assert not bad, f"{len(bad)} cases differ, e.g. {bad[:3]}"


# the other products: multi_dot/chain_matmul (rank, dtype and size checks per neighbour pair),
# cross (the default dim is input's first dim of size 3; kernel by input's dtype), vecdot,
# cdist (no Half kernel; one dtype), tensordot (size-1 contracted dims broadcast; a single
# output element runs dot), inner/vdot of two vectors (dot's kernel and messages), kron
# (a 0-d operand promotes as a dimensioned one)
_PROD_SHAPES = [(), (1,), (3,), (2,), (1, 1), (2, 3), (3, 2), (1, 3), (3, 3), (1, 2, 3),
                (2, 1, 3)]
_PROD_DTYPES = ["ff", "fl", "lf", "ll", "bb", "fd", "df", "hf", "fh"]


def _prod_case(L, op, s1, s2, d):
    a = L.ones(s1, dtype=getattr(L, _ADD_DT[d[0]]))
    b = L.ones(s2, dtype=getattr(L, _ADD_DT[d[1]]))
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            if op == "multi_dot":
                r = L.linalg.multi_dot([a, b])
            elif op == "linalg_cross":
                r = L.linalg.cross(a, b)
            elif op == "vecdot":
                r = L.linalg.vecdot(a, b)
            elif op == "tensordot":
                r = L.tensordot(a, b, dims=1)
            else:
                r = getattr(L, op)(a, b)
    except Exception as exc:   # noqa: BLE001 - the error is the observation
        return type(exc).__name__, str(exc)
    return str(r.dtype), tuple(r.shape), r.reshape(-1).tolist()


@pytest.mark.parametrize("op", ["multi_dot", "chain_matmul", "linalg_cross", "cross", "vecdot",
                                "cdist", "tensordot", "inner", "vdot", "kron", "outer", "dist"])
def test_products_like_torch(op):
    bad = []
    for s1 in _PROD_SHAPES:
        for s2 in _PROD_SHAPES:
            for d in _PROD_DTYPES:
                mine, theirs = _prod_case(leafgrad, op, s1, s2, d), _prod_case(torch, op, s1, s2, d)
                if mine != theirs:
                    bad.append(((s1, s2, d), mine, theirs))
    assert not bad, f"{len(bad)} cases differ, e.g. {bad[:3]}"


# index_copy (its meta checks in order, no promotion), put (dtype, counts as IndexError, an
# empty self), index_add (same scalar type first; the first/last-dim kernel names a bad
# index), select/slice/diagonal_scatter (self's dtype; a 0-d self cannot be selected or
# sliced; select's index range), index_fill of a 0-d self checks dim
_SC_SHAPES = [(), (1,), (3,), (2, 3), (1, 1, 1), (2, 3, 4)]
_SC_DTYPES = ["ff", "fd", "df", "hf", "lf", "fl", "ll", "bb", "bf"]


def _sc_case(L, op, sx, d, dim, idx):
    x = L.ones(sx, dtype=getattr(L, _ADD_DT[d[0]]))
    dt = getattr(L, _ADD_DT[d[1]])
    T = L.tensor
    try:
        shape = list(x.shape)
        ok_dim = x.dim() and -x.dim() <= dim < x.dim()
        if ok_dim:
            shape[dim] = 1
        if op == "index_copy":
            r = x.index_copy(dim, T([idx]), L.ones(shape, dtype=dt) * 2)
        elif op == "index_add":
            r = x.index_add(dim, T([idx]), L.ones(shape, dtype=dt))
        elif op == "index_fill":
            r = x.index_fill(dim, T([idx]), 2)
        elif op == "put":
            r = x.put(T([idx]), L.ones(1, dtype=dt) * 2, accumulate=dim == 0)
        elif op == "select_scatter":
            src = L.ones(x.select(dim, 0).shape if ok_dim else (), dtype=dt)
            r = L.select_scatter(x, src, dim, idx)
        elif op == "slice_scatter":
            r = L.slice_scatter(x, L.ones(x.shape, dtype=dt), dim)
        else:
            r = L.diagonal_scatter(x, L.ones(min(x.shape) if x.dim() >= 2 else 1, dtype=dt),
                                   0, dim, 0 if dim else 1)
    except Exception as exc:   # noqa: BLE001 - the error is the observation
        return type(exc).__name__, str(exc)
    return str(r.dtype), tuple(r.shape), r.reshape(-1).tolist()


@pytest.mark.parametrize("op", ["index_copy", "index_add", "index_fill", "put", "select_scatter",
                                "slice_scatter", "diagonal_scatter"])
def test_index_scatter_ops_like_torch(op):
    bad = []
    for sx in _SC_SHAPES:
        for d in _SC_DTYPES:
            for dim in [0, 1, -1, 2]:
                for idx in [0, -1, 5]:
                    case = (op, sx, d, dim, idx)
                    mine, theirs = _sc_case(leafgrad, *case), _sc_case(torch, *case)
                    if mine != theirs:
                        bad.append((case, mine, theirs))
    assert not bad, f"{len(bad)} cases differ, e.g. {bad[:3]}"


# quantile's result version (PyTorch's composite writes it in place 1-4 times); bincount with
# differentiable weights records NotImplemented (float32/64 weights keep their dtype);
# unique(dim=...) and unique_consecutive record their nodes; histc of bool fails in linspace
QUANTILE = [f"x = torch.ones(2, 3, requires_grad=True) * 1; y = torch.{fn}(x, {q}, "
            f"interpolation='{i}'{kw}); y = (y._version, y.grad_fn.name())"
            for fn in ("quantile", "nanquantile")
            for q in ("0.5", "torch.tensor(0.5)", "torch.tensor([0.2, 0.5])")
            for i in ("linear", "lower", "higher", "midpoint", "nearest")
            for kw in ("", ", dim=0", ", dim=-1, keepdim=True")]
UNIQUE = [
    "w = torch.tensor([0.5, 1.5, 2.], requires_grad=True)"
    "; y = torch.bincount(torch.tensor([0, 1, 1]), weights=w)",
    "w = torch.tensor([0.5, 1.5, 2.], requires_grad=True)"
    "; y = torch.bincount(torch.tensor([0, 1, 1]), weights=w.half(), minlength=4)",
    "w = torch.tensor([0.5, 1.5, 2.], requires_grad=True)"
    "; y = torch.bincount(torch.tensor([0, 1, 1]), weights=w).grad_fn.name()",
    "w = torch.tensor([0.5, 1.5, 2.], requires_grad=True)"
    "; torch.bincount(torch.tensor([0, 1, 1]), weights=w).sum().backward()",
    "x = torch.tensor([[1., 2.], [1., 2.], [3., 4.]], requires_grad=True)"
    "; y = torch.unique(x, dim=0)",
    "x = torch.tensor([[1., 2.], [1., 2.], [3., 4.]], requires_grad=True)"
    "; torch.unique(x, dim=0).sum().backward()",
    "x = torch.tensor([[1., 2.], [1., 2.], [3., 4.]], requires_grad=True)"
    "; y = torch.unique_consecutive(x, dim=1)",
    "x = torch.tensor([[1., 2.], [1., 2.], [3., 4.]], requires_grad=True)"
    "; torch.unique_consecutive(x).sum().backward()",
    "y = torch.unique_consecutive(torch.ones(0, 3), dim=0, return_inverse=True)[1]",
    "y = torch.unique_consecutive(torch.ones(0, 3).long(), return_counts=True, dim=-2)[1]",
    "y = torch.histc(torch.tensor([True]), bins=4, min=0, max=1)",
    "y = torch.histc(torch.tensor([1]), bins=4, min=0, max=1)",
    "x = torch.ones(2, requires_grad=True); y = (x // 2).grad_fn.name()",
]


@pytest.mark.parametrize("statement", QUANTILE + UNIQUE)
def test_search_ops_like_torch(statement):
    assert _run_any(leafgrad, statement) == _run_any(torch, statement)


def _run_any(L, statement):
    """Like _run, for statements whose ``y`` may be a plain value (or absent)."""
    env = {"torch": L, "F": L.nn.functional}
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            exec(statement, env)   # noqa: S102 - a statement from the lists above
    except Exception as exc:   # noqa: BLE001 - the error is the observation
        return type(exc).__name__, str(exc)
    y = env.get("y")
    if isinstance(y, (L.Tensor,)):
        return _run(L, statement)
    return repr(y)


# mvlgamma refuses bool; its in-place form on integers names the types as PyTorch does
MVLGAMMA = [f"y = torch.ones({s}, dtype=torch.{d}){op}"
            for s in ("2", "()")
            for d in ("float32", "int64", "bool", "uint8")
            for op in (".mvlgamma(1)", ".mvlgamma_(1)", ".mvlgamma(2)")]


@pytest.mark.parametrize("statement", MVLGAMMA)
def test_mvlgamma_like_torch(statement):
    assert _run(leafgrad, statement) == _run(torch, statement)


# in-place binary ops: TensorIterator's output shape, then the result dtype's cast into self
# (PyTorch's canCast: uint8 += int64 is allowed), then the kernel's dtype; shifts have no bool
# kernel; float_power_ names dtypes as PyTorch
_INPLACE_OPS = ["add", "mul", "pow", "floor_divide", "remainder", "hypot", "bitwise_and",
                "bitwise_xor", "bitwise_left_shift", "gcd", "nextafter", "float_power",
                "logaddexp", "atan2", "fmod"]
_INPLACE_DT = ["float32", "float16", "int64", "bool", "int32", "uint8"]


def _inplace_case(L, op, da, db, sa, sb, how):
    a, b = L.ones(sa, dtype=getattr(L, da)), L.ones(sb, dtype=getattr(L, db))
    try:
        r = getattr(a, op + "_")(b) if how == "inplace" else getattr(L, op)(a, b)
    except Exception as exc:   # noqa: BLE001 - the error is the observation
        return type(exc).__name__, str(exc)
    return str(r.dtype), tuple(r.shape), r.reshape(-1).tolist()


@pytest.mark.parametrize("op", _INPLACE_OPS)
def test_inplace_binary_checks_like_torch(op):
    bad = []
    for da in _INPLACE_DT:
        for db in _INPLACE_DT:
            for sa, sb in [((2,), (2,)), ((), (2,)), ((2,), ())]:
                for how in ("inplace", "fn"):
                    case = (op, da, db, sa, sb, how)
                    mine, theirs = _inplace_case(leafgrad, *case), _inplace_case(torch, *case)
                    if mine != theirs:
                        bad.append((case, mine, theirs))
    assert not bad, f"{len(bad)} cases differ, e.g. {bad[:3]}"
