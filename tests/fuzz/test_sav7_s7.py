"""Session 7 (sav7): what linear algebra, normalization and a few gathers save for backward,
and the LU / QR derivatives of non-square matrices.

A saved tensor changed in place makes backward raise PyTorch's version-counter error; so
leafgrad must save exactly the tensors PyTorch's derivatives.yaml formulas save: no more
(linalg.solve and solve_triangular saved B, qr / lu / svdvals / eigvalsh saved A where PyTorch
saves the factors) and no fewer (cholesky_solve's and triangular_solve's self, aminmax's min and max, std_mean's std, prelu's weight,
the norms' weight / bias / input, grid_sample's input, take's and masked_select's self;
take_along_dim gathers from a broadcast view of its input, so the error names the view; kron
multiplies ``_unsafe_view`` reshapes, which share no version counter with the inputs, so
changing an input is never caught).
Each statement below changes one input or output in place after the forward, for each set
of inputs requiring grad, and compares what backward does (the error with its versions, or
the gradients) with torch.
"""
from __future__ import annotations

import itertools

import numpy as np
import pytest
from oracle import grad_fn_names, same_on_both

rng = np.random.default_rng(7)
A3 = rng.standard_normal((3, 3)) + 3 * np.eye(3)
B32 = rng.standard_normal((3, 2))
S3 = A3 @ A3.T
L3 = np.linalg.cholesky(S3)
W34 = rng.standard_normal((3, 4))
T43 = rng.standard_normal((4, 3))
X = rng.standard_normal((2, 3, 4))
IMG = rng.standard_normal((1, 2, 3, 4))
GRID = rng.uniform(-1, 1, (1, 2, 2, 2))
WEIGHT3, BIAS3 = np.array([1.5, 0.5, -1.0]), np.array([0.1, -0.2, 0.3])
WEIGHT4, BIAS4 = np.array([1.5, 0.5, -1.0, 2.0]), np.array([0.1, -0.2, 0.3, 0.0])


def _bn(L, x, w, b, training=True, stats=False):
    rm = L.zeros(3, dtype=L.float64) if stats else None
    rv = L.ones(3, dtype=L.float64) if stats else None
    return L.nn.functional.batch_norm(x, rm, rv, w, b, training=training)


# name: (function of the library and the inputs, input arrays, whether the gradients are
# gauge-free, so comparable: a loss of eigen/singular vectors depends on their signs)
OPS = {
    "solve": (lambda L, a, b: L.linalg.solve(a, b), [A3, B32], True),
    "solve_right": (lambda L, a, b: L.linalg.solve(a, b.mT, left=False), [A3, B32], True),
    "solve_vector": (lambda L, a, b: L.linalg.solve(a, b[:, 0]), [A3, B32], True),
    "solve_ex": (lambda L, a, b: L.linalg.solve_ex(a, b)[0], [A3, B32], True),
    "qr_wide": (lambda L, a: L.linalg.qr(a), [W34], False),
    "qr_tall": (lambda L, a: L.linalg.qr(a), [T43], False),
    "qr_r": (lambda L, a: L.linalg.qr(a, mode="r")[1], [A3], True),
    "lu_factor": (lambda L, a: L.linalg.lu_factor(a)[0], [A3], True),
    "lu_factor_wide": (lambda L, a: L.linalg.lu_factor(a)[0], [W34], True),
    "linalg_lu": (lambda L, a: L.linalg.lu(a)[1:], [A3], True),
    "linalg_lu_tall": (lambda L, a: L.linalg.lu(a)[1:], [T43], True),
    "svdvals": (lambda L, a: L.linalg.svdvals(a), [A3], True),
    "svd": (lambda L, a: L.linalg.svd(a, full_matrices=False), [A3], False),
    "eigvalsh": (lambda L, a: L.linalg.eigvalsh(a), [S3], True),
    "eigh": (lambda L, a: L.linalg.eigh(a), [S3], False),
    "cholesky_solve": (lambda L, b, f: L.cholesky_solve(b, f), [B32, L3], True),
    "cholesky_solve_upper": (lambda L, b, f: L.cholesky_solve(b, f.mT, upper=True),
                             [B32, L3], True),
    "solve_triangular": (lambda L, a, b: L.linalg.solve_triangular(a, b, upper=False),
                         [L3, B32], True),
    "triangular_solve": (lambda L, b, a: L.triangular_solve(b, a, upper=False), [B32, L3],
                         True),
    "take_along_dim": (lambda L, x: L.take_along_dim(x, L.tensor([[[0]]]), 1), [X], True),
    "kron": (lambda L, a, b: L.kron(a, b), [W34[:2, :3], B32[:, 0]], True),
    "bmm": (lambda L, a, b: L.bmm(a, b), [X[:, :2, :3], X[:, :3, :]], True),
    "addbmm": (lambda L, s, a, b: L.addbmm(s, a, b, alpha=2), [X[0, :2], X[:, :2, :3],
                                                                X[:, :3, :]], True),
    "baddbmm": (lambda L, s, a, b: L.baddbmm(s, a, b), [X[:, :2], X[:, :2, :3], X[:, :3, :]],
                True),
    "aminmax": (lambda L, x: L.aminmax(x), [X], True),
    "aminmax_dim": (lambda L, x: L.aminmax(x, dim=1), [X], True),
    "aminmax_keepdim": (lambda L, x: L.aminmax(x, dim=1, keepdim=True), [X], True),
    "std_mean": (lambda L, x: L.std_mean(x), [X], True),
    "std_mean_dim": (lambda L, x: L.std_mean(x, dim=1), [X], True),
    "prelu": (lambda L, x, w: L.nn.functional.prelu(x, w), [X, np.array([0.25, 0.5, -0.1])],
              True),
    "prelu_shared": (lambda L, x, w: L.nn.functional.prelu(x, w), [X, np.array([0.25])], True),
    "batch_norm": (lambda L, x, w, b: _bn(L, x, w, b), [X, WEIGHT3, BIAS3], True),
    "batch_norm_stats": (lambda L, x, w, b: _bn(L, x, w, b, stats=True), [X, WEIGHT3, BIAS3],
                         True),
    "batch_norm_eval": (lambda L, x, w, b: _bn(L, x, w, b, False, True), [X, WEIGHT3, BIAS3],
                        True),
    "group_norm": (lambda L, x, w, b: L.nn.functional.group_norm(x.reshape(2, 4, 3), 2, w, b),
                   [X, WEIGHT4, BIAS4], True),
    "layer_norm": (lambda L, x, w, b: L.nn.functional.layer_norm(x, (4,), w, b),
                   [X, WEIGHT4, BIAS4], True),
    "grid_sample": (lambda L, x, g: L.nn.functional.grid_sample(x, g, align_corners=False),
                    [IMG, GRID], True),
    "grid_sample_nearest": (lambda L, x, g: L.nn.functional.grid_sample(
        x, g, mode="nearest", align_corners=False), [IMG, GRID], True),
    "take": (lambda L, x: L.take(x, L.tensor([0, 5, 7])), [X], True),
    "masked_select": (lambda L, x: L.masked_select(x, x > 0), [X], True),
    "masked_select_broadcast": (lambda L, x, y: L.masked_select(x, y > 0), [X[0, :1], X[1]],
                                True),
}


def _outputs(o):
    return list(o) if isinstance(o, (tuple, list)) else [o]


def _cases():
    import torch
    for name, (fn, arrays, _) in OPS.items():
        n = len(arrays)
        n_out = len(_outputs(fn(torch, *[torch.tensor(a) for a in arrays])))
        targets = [None] + [("in", i) for i in range(n)] + [("out", i) for i in range(n_out)]
        for mask in itertools.product([True, False], repeat=n):
            if any(mask):
                for target in targets:
                    yield name, mask, target


def _run(L, name, mask, target):
    fn, arrays, gauge_free = OPS[name]
    leaves = [L.tensor(a, dtype=L.float64, requires_grad=r) for a, r in zip(arrays, mask)]
    # non-leaf inputs (a leaf requiring grad cannot be changed in place outside no_grad)
    inputs = [t * 1 if t.requires_grad else t.clone() for t in leaves]
    outs = _outputs(fn(L, *inputs))
    if target is not None:
        kind, i = target
        t = inputs[i] if kind == "in" else outs[i]
        with L.no_grad():
            t.add_(0.5)
    loss = sum((o * (k + 1.0)).sum() for k, o in enumerate(outs) if o.requires_grad)
    loss.backward()
    return [t.grad for t in leaves] if gauge_free else "backward ran"


@pytest.mark.parametrize("name,mask,target", list(_cases()))
def test_saved_tensors_changed_in_place(name, mask, target):
    same_on_both(lambda L: _run(L, name, mask, target))


# -- the saved outputs read back under PyTorch's names -----------------------------------------
@pytest.mark.parametrize("expr,names", [
    ("L.linalg.qr(a)[0]", ("Q", "R", "mode")),
    ("L.linalg.lu_factor(a)[0]", ("LU", "pivots", "pivot")),
    ("L.linalg.lu(a)[1]", ("P", "L", "U", "pivot")),
    ("L.linalg.svd(a)[1]", ("U", "S", "Vh", "full_matrices")),
    ("L.linalg.svdvals(a)", ("U", "S", "Vh")),
    ("L.linalg.eigvalsh(a)", ("eigenvalues", "eigenvectors")),
    ("L.aminmax(a, dim=0)[0]", ("min", "max", "self", "dim", "keepdim")),
    ("L.std_mean(a, 0)[1]", ("result0", "self")),
    ("L.take(a, L.tensor([1]))", ("self", "index")),
    ("L.masked_select(a, a > 0)", ("self", "mask")),
])
def test_saved_names(expr, names):
    def run(L):
        a = L.tensor(S3, requires_grad=True)
        y = eval(expr)
        saved = [getattr(y.grad_fn, "_saved_" + n) for n in names]
        # (magnitudes: eigen/singular vectors' signs are LAPACK's choice, which differs)
        saved = [s.abs() if isinstance(s, L.Tensor) else s for s in saved]
        return type(y.grad_fn).__name__, saved
    same_on_both(run)


# -- svdvals / eigvalsh of a tensor needing grad are outputs of svd / eigh (PyTorch computes
# the vectors then), and only then: no grad, no vectors ---------------------------------------
@pytest.mark.parametrize("fn", ["svdvals", "eigvalsh"])
@pytest.mark.parametrize("grad", [True, False])
def test_values_only_ops(fn, grad):
    def run(L):
        a = L.tensor(S3, requires_grad=grad)
        y = getattr(L.linalg, fn)(a)
        return y, y.requires_grad, y.grad_fn is None, y.output_nr, y._version
    same_on_both(run)


def test_nuclear_norm_repeated_singular_values():
    # svdvals' gradient U diag(g) Vh has no 1 / (s_j^2 - s_i^2) term: a repeated singular
    # value is fine (the vectors' gradients are left out, not zero-filled)
    def run(L):
        x = (L.eye(3, dtype=L.float64) * 2).requires_grad_()
        y = L.linalg.matrix_norm(x, "nuc")
        g, = L.autograd.grad(y, x)
        return g
    same_on_both(run)


# -- LU of non-square matrices: first and second derivatives ----------------------------------
def _grads_of(L, fn, a, weights_seed=0):
    x = L.tensor(a, requires_grad=True)
    outs = [o for o in _outputs(fn(L, x)) if o.requires_grad]
    w = np.random.default_rng(weights_seed)
    loss = sum((o * L.tensor(w.standard_normal(tuple(o.shape)))).sum() for o in outs)
    g, = L.autograd.grad(loss, x, create_graph=True)
    gg, = L.autograd.grad((g * g).sum(), x)
    return [o.detach() for o in outs], g.detach(), gg


LU_SHAPES = [(4, 2), (2, 4), (3, 5), (5, 3), (2, 3, 5), (2, 5, 3), (1, 4), (4, 1), (3, 3),
             (0, 3), (3, 0)]


@pytest.mark.parametrize("shape", LU_SHAPES)
@pytest.mark.parametrize("op", ["lu_factor", "lu_factor_ex", "lu", "torch_lu"])
def test_lu_non_square_derivatives(shape, op):
    a = np.random.default_rng(sum(shape)).standard_normal(shape)
    fns = {"lu_factor": lambda L, x: L.linalg.lu_factor(x)[0],
           "lu_factor_ex": lambda L, x: L.linalg.lu_factor_ex(x)[0],
           "lu": lambda L, x: L.linalg.lu(x)[1:],
           "torch_lu": lambda L, x: L.linalg.lu_factor(x)[0]}
    same_on_both(lambda L: _grads_of(L, fns[op], a))


@pytest.mark.parametrize("shape", [(2, 4), (3, 5), (2, 3, 5), (1, 3)])
@pytest.mark.parametrize("mode", ["reduced", "complete"])
def test_qr_wide_derivatives(shape, mode):
    # gauge-free losses: Q R (= A) and Q diag(R) reach every part of the wide formula
    a = np.random.default_rng(sum(shape)).standard_normal(shape)

    def fn(L, x):
        Q, R = L.linalg.qr(x, mode=mode)
        return Q @ R, Q * R.diagonal(dim1=-2, dim2=-1).unsqueeze(-2), R * R
    same_on_both(lambda L: _grads_of(L, fn, a))


# -- std_mean's mean part divides by the count as a number: DivBackward1 ----------------------
@pytest.mark.parametrize("op", ["std_mean", "var_mean"])
@pytest.mark.parametrize("kw", [{}, {"dim": 1}, {"dim": 1, "keepdim": True}])
def test_mean_part_double_backward_node(op, kw):
    def run(L):
        x = L.tensor([[1.0, 2.0, 4.0], [3.0, 1.0, 0.0]], dtype=L.float64, requires_grad=True)
        s, m = getattr(L, op)(x, **kw)
        v = L.ones(m.shape, dtype=L.float64, requires_grad=True)
        g, = L.autograd.grad(m, x, v, create_graph=True)
        return type(g.grad_fn).__name__, g
    same_on_both(run)


def test_std_mean_std_part_double_backward():
    def run(L):
        x = L.tensor([[1.0, 2.0, 4.0], [3.0, 1.0, 0.0]], dtype=L.float64, requires_grad=True)
        s, m = L.std_mean(x, dim=1)
        g, = L.autograd.grad((s * s.detach() + m).sum(), x, create_graph=True)
        return g, L.autograd.grad(g.pow(2).sum(), x), grad_fn_names(g)[0]
    same_on_both(run)


# -- kron is PyTorch's composite: UnsafeView(Mul(UnsafeView(a), UnsafeView(b))) ----------------
@pytest.mark.parametrize("sa,sb", [((2, 3), (3,)), ((2,), (2, 2, 3)), ((), (3,)), ((), ()),
                                   ((2, 3), (3, 2)), ((1, 0), (2,))])
def test_kron_composite(sa, sb):
    a = np.random.default_rng(1).standard_normal(sa)
    b = np.random.default_rng(2).standard_normal(sb)

    def run(L):
        x, y = L.tensor(a, requires_grad=True), L.tensor(b, requires_grad=True)
        k = L.kron(x, y)
        w = L.tensor(np.cos(np.arange(k.numel())).reshape(tuple(k.shape)))
        gx, gy = L.autograd.grad((k * w).sum(), (x, y), create_graph=True)
        return k, grad_fn_names(k), gx, gy, L.autograd.grad((gx * gy.sum()).sum(), (x, y))
    same_on_both(run)


@pytest.mark.parametrize("pair", [("bool", "bool"), ("int64", "float32"), ("float64", "float32")])
def test_kron_dtypes(pair):
    def run(L):
        a = L.ones(2, dtype=getattr(L, pair[0]))
        return L.kron(a, L.ones((), dtype=getattr(L, pair[1]))), L.kron(a[0], a[1])
    same_on_both(run)


# -- linalg.solve's gradients as PyTorch computes them: a vector right-hand side unsqueezed,
# solved with A^T, squeezed (SqueezeBackward1 under create_graph; fuzz seed 40), A's a product
@pytest.mark.parametrize("bshape", [(3,), (3, 2), (2, 3)])
def test_solve_vector_double_backward_graph(bshape):
    a = np.eye(3) * 2 + 0.1
    b = np.arange(np.prod(bshape), dtype=np.float64).reshape(bshape) + 1

    def run(L):
        A, B = L.tensor(a, requires_grad=True), L.tensor(b, requires_grad=True)
        x = L.linalg.solve(A, B)
        v = L.ones(x.shape, dtype=L.float64, requires_grad=True)
        gA, gB = L.autograd.grad(x, (A, B), v, create_graph=True)
        return (gA, gB, type(gA.grad_fn).__name__, type(gB.grad_fn).__name__,
                L.autograd.grad((gA * gA).sum() + (gB * gB).sum(), (A, B, v)))
    same_on_both(run)


# -- repeat_interleave's size error names the dim as given (fuzz seed 40 x6) -------------------
@pytest.mark.parametrize("shape,dim", [((3,), -1), ((3,), 0), ((2, 3), -1), ((2, 3), -2),
                                       ((2, 3), 1), ((3,), None)])
def test_repeat_interleave_size_message(shape, dim):
    same_on_both(lambda L: L.repeat_interleave(L.ones(shape), L.tensor([1, 2, 3, 4]), dim=dim))


# -- the products' gradients under create_graph: bmm for bmm / baddbmm / addbmm, alpha and beta
# by maybe_multiply (mul by a Scalar: MulBackward1) ---------------------------------------------
MM_CASES = {
    "bmm": (lambda L, a, b: L.bmm(a, b), [(2, 2, 3), (2, 3, 4)]),
    "baddbmm": (lambda L, s, a, b: L.baddbmm(s, a, b), [(2, 2, 4), (2, 2, 3), (2, 3, 4)]),
    "baddbmm_scaled": (lambda L, s, a, b: L.baddbmm(s, a, b, alpha=2, beta=3),
                       [(2, 2, 4), (2, 2, 3), (2, 3, 4)]),
    "addbmm": (lambda L, s, a, b: L.addbmm(s, a, b), [(2, 4), (2, 2, 3), (2, 3, 4)]),
    "addbmm_scaled": (lambda L, s, a, b: L.addbmm(s, a, b, alpha=2, beta=0.5),
                      [(2, 4), (2, 2, 3), (2, 3, 4)]),
    "addbmm_": (lambda L, s, a, b: (s * 1).addbmm_(a, b, alpha=2), [(2, 4), (2, 2, 3), (2, 3, 4)]),
    "addmm_scaled": (lambda L, s, a, b: L.addmm(s, a, b, alpha=2, beta=3), [(2, 4), (2, 3), (3, 4)]),
    "addmv_scaled": (lambda L, s, a, b: L.addmv(s, a, b, alpha=2, beta=3), [(2,), (2, 3), (3,)]),
    "addr_scaled": (lambda L, s, a, b: L.addr(s, a, b, alpha=2, beta=3), [(2, 3), (2,), (3,)]),
}


@pytest.mark.parametrize("name", list(MM_CASES))
def test_product_gradients_create_graph(name):
    fn, shapes = MM_CASES[name]

    def run(L):
        ins = [L.tensor(np.linspace(-1, 1, int(np.prod(s))).reshape(s), requires_grad=True)
               for s in shapes]
        out = fn(L, *ins)
        v = L.ones(out.shape, dtype=L.float64, requires_grad=True)
        gs = L.autograd.grad(out, ins, v, create_graph=True)
        names = [type(g.grad_fn).__name__ if g.grad_fn is not None else None for g in gs]
        total = sum((g * g).sum() for g in gs)
        return gs, names, L.autograd.grad(total, ins + [v], allow_unused=True)
    same_on_both(run)


# -- LAPACK's outputs are column-major matrices in PyTorch (stride, is_contiguous, whether
# reshape / contiguous copy: CloneBackward0; fuzz seed 41 x6: lstsq then a reshape) ----------
_R = np.random.default_rng(3)
_A = _R.standard_normal((2, 3, 3)) + 3 * np.eye(3)
_S = _A @ np.swapaxes(_A, -1, -2)
_B = _R.standard_normal((2, 3, 2))
_W = _R.standard_normal((2, 3, 4))
_T = _R.standard_normal((2, 4, 3))
LAYOUTS = {
    "solve": lambda L, t: L.linalg.solve(t(_A), t(_B)),
    "solve_vectors": lambda L, t: L.linalg.solve(t(_A), t(_B)[..., 0]),
    "solve_vector": lambda L, t: L.linalg.solve(t(_A), t(_B)[0, :, 0]),
    "solve_left": lambda L, t: L.linalg.solve(t(_A), t(_B).mT, left=False),
    "inv": lambda L, t: L.linalg.inv(t(_A)),
    "inv_ex": lambda L, t: L.linalg.inv_ex(t(_A))[0],
    "matrix_power_neg": lambda L, t: L.linalg.matrix_power(t(_A), -1),
    "cholesky": lambda L, t: L.linalg.cholesky(t(_S)),
    "cholesky_upper": lambda L, t: L.linalg.cholesky(t(_S), upper=True),
    "torch_cholesky": lambda L, t: L.cholesky(t(_S)),
    "qr_Q": lambda L, t: L.linalg.qr(t(_T))[0],
    "qr_R": lambda L, t: L.linalg.qr(t(_T))[1],
    "lu_factor": lambda L, t: L.linalg.lu_factor(t(_A))[0],
    "lu_L": lambda L, t: L.linalg.lu(t(_A))[1],
    "svd_U": lambda L, t: L.linalg.svd(t(_W))[0].abs(),
    "svd_Vh": lambda L, t: L.linalg.svd(t(_W))[2].abs(),
    "svd_Vh_reduced": lambda L, t: L.linalg.svd(t(_W), full_matrices=False)[2].abs(),
    "eigh_V": lambda L, t: L.linalg.eigh(t(_S))[1].abs(),
    "lstsq_tall": lambda L, t: L.linalg.lstsq(t(_T), t(_T[..., :2])).solution,
    "lstsq_tall_vector": lambda L, t: L.linalg.lstsq(t(_T), t(_T[..., 0])).solution,
    "lstsq_square": lambda L, t: L.linalg.lstsq(t(_A), t(_B)).solution,
    "lstsq_gelsd": lambda L, t: L.linalg.lstsq(t(_T), t(_T[..., :2]), driver="gelsd").solution,
    "lu_solve": lambda L, t: L.linalg.lu_solve(*L.linalg.lu_factor(t(_A)), t(_B)),
    "lu_solve_right": lambda L, t: L.linalg.lu_solve(*L.linalg.lu_factor(t(_A)), t(_B).mT,
                                                     left=False),
    "lu_solve_adjoint": lambda L, t: L.linalg.lu_solve(*L.linalg.lu_factor(t(_A)), t(_B),
                                                       adjoint=True),
    "cholesky_solve": lambda L, t: L.cholesky_solve(t(_B), L.linalg.cholesky(t(_S))),
    "cholesky_inverse": lambda L, t: L.cholesky_inverse(L.linalg.cholesky(t(_S))),
    "solve_triangular": lambda L, t: L.linalg.solve_triangular(t(_A), t(_B), upper=True),
    "solve_triangular_right": lambda L, t: L.linalg.solve_triangular(t(_A), t(_B).mT,
                                                                     upper=True, left=False),
    "triangular_solve": lambda L, t: L.triangular_solve(t(_B), t(_A))[0],
    "triangular_solve_clone": lambda L, t: L.triangular_solve(t(_B), t(_A))[1],
}


@pytest.mark.parametrize("name", list(LAYOUTS))
def test_lapack_output_layout(name):
    # (abs: the vectors' signs are LAPACK's choice; abs keeps the layout)
    def run(L):
        x = LAYOUTS[name](L, lambda a: L.tensor(a, requires_grad=True))
        flat = x.reshape(-1)
        return (x, x.stride(), x.is_contiguous(), type(flat.grad_fn).__name__,
                type(x.contiguous().grad_fn).__name__)
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        same_on_both(run)


# -- linalg.solve's batch broadcast error names B's batch first (fuzz seed 42 x3) -------------
@pytest.mark.parametrize("sa,sb", [((1, 2, 1, 1), (4, 3, 1, 1)), ((2, 1, 1), (3, 1, 1)),
                                   ((2, 3, 3), (4, 3, 1)), ((4, 2, 3, 3), (5, 3))])
@pytest.mark.parametrize("fn", ["solve", "solve_ex", "lu_solve", "cholesky_solve"])
def test_solve_batch_broadcast_message(sa, sb, fn):
    def run(L):
        A, B = L.eye(sa[-1]).expand(sa) * 2, L.ones(sb)
        if fn == "solve":
            return L.linalg.solve(A, B)
        if fn == "solve_ex":
            return L.linalg.solve_ex(A, B)
        if fn == "lu_solve":
            return L.linalg.lu_solve(*L.linalg.lu_factor(A), B)
        return L.cholesky_solve(B, A)
    same_on_both(run)


# -- cdist of an empty Half input runs no kernel, so it is not refused (fuzz seed 42) ----------
@pytest.mark.parametrize("sa,sb", [((1, 0), (1, 0)), ((0, 3), (2, 3)), ((2, 3), (0, 3)),
                                   ((2, 3), (4, 3))])
@pytest.mark.parametrize("p", [0, 1, 2, float("inf")])
def test_cdist_half_empty(sa, sb, p):
    def run(L):
        a = L.zeros(sa, dtype=L.float16).requires_grad_()
        r = L.cdist(a, L.zeros(sb, dtype=L.float16), p=p,
                    compute_mode="donot_use_mm_for_euclid_dist")
        r.sum().backward()
        return r, a.grad
    same_on_both(run)


# -- rot90 copies even when the rotated view would be contiguous (fuzz seed 42: a later
# in-place change of the input showed through) ----------------------------------------------
@pytest.mark.parametrize("shape,k", [((4, 1, 1), 1), ((1, 3), 1), ((2, 2), 0), ((2, 3), 2)])
def test_rot90_copies(shape, k):
    def run(L):
        x = L.ones(shape)
        y = L.rot90(x, k, [0, 1] if len(shape) == 2 else [1, 2])
        x.add_(1)
        return y
    same_on_both(run)


# -- vector @ matrix: PyTorch's unsqueeze(0).mm(B).squeeze_(0), so under create_graph the
# vector's gradient is SqueezeBackward1 and the matrix's MmBackward0 (in the matrix's layout) --
@pytest.mark.parametrize("transposed", [False, True])
def test_vector_matrix_gradients(transposed):
    def run(L):
        a = L.tensor([0.5, -1.0, 2.0], dtype=L.float64, requires_grad=True)
        w = L.tensor(np.linspace(-1, 1, 12).reshape(4, 3) if transposed else
                     np.linspace(-1, 1, 12).reshape(3, 4), requires_grad=True)
        y = a @ (w.t() if transposed else w)
        v = L.ones(4, dtype=L.float64, requires_grad=True)
        ga, gw = L.autograd.grad(y, (a, w), v, create_graph=True)
        y.sum().backward()
        return (ga, gw, type(ga.grad_fn).__name__, type(gw.grad_fn).__name__, w.grad.stride(),
                L.autograd.grad((ga * ga).sum() + (gw * gw).sum(), (a, w, v)))
    same_on_both(run)


# -- batched @ matrix / vector: PyTorch folds the batch into one mm / mv, so the batched
# operand's gradient is reshaped back (ViewBackward0 under create_graph); batched @ batched:
# one bmm of the operands expanded to the common batch, reshaped back -----------------------
@pytest.mark.parametrize("sa,sb", [((4, 2, 3), (3, 5)), ((2, 2, 3), (3,)), ((2, 2, 3), (3, 0)),
                                   ((2, 0, 3), (3,)), ((2, 1, 2, 3), (3, 2)),
                                   # both batched: one bmm of the expanded operands
                                   ((2, 2, 3), (2, 3, 4)), ((2, 1, 2, 3), (3, 3, 2)),
                                   ((3, 1, 2, 3), (1, 4, 3, 2)), ((0, 2, 3), (0, 3, 4)),
                                   # vector / matrix @ batched: other^T folded
                                   ((3,), (2, 3, 4)), ((2, 3), (4, 3, 2)), ((1, 3), (4, 3, 2)),
                                   ((2, 3), (2, 1, 3, 2)), ((3,), (0, 3, 2))])
def test_folded_matmul_gradients(sa, sb):
    a = np.linspace(-1, 1, int(np.prod(sa))).reshape(sa)
    b = np.linspace(2, -1, int(np.prod(sb))).reshape(sb)

    def run(L):
        x, w = L.tensor(a, requires_grad=True), L.tensor(b, requires_grad=True)
        y = x @ w
        v = L.ones(y.shape, dtype=L.float64, requires_grad=True)
        gx, gw = L.autograd.grad(y, (x, w), v, create_graph=True)
        return (gx, gw, type(gx.grad_fn).__name__, type(gw.grad_fn).__name__,
                L.autograd.grad((gx * gx).sum() + (gw * gw).sum(), (x, w, v), allow_unused=True))
    same_on_both(run)


# -- aminmax over an empty dim: PyTorch's IndexError (fuzz seed 43) --------------------------
@pytest.mark.parametrize("shape,kw", [((0,), {"dim": 0}), ((0, 3), {"dim": 0}),
                                      ((0, 3), {"dim": 1}), ((3, 0), {"dim": -1}),
                                      ((0, 3), {"dim": 0, "keepdim": True}), ((0,), {}),
                                      ((0, 3), {"dim": 1, "keepdim": True})])
def test_aminmax_empty_dim(shape, kw):
    same_on_both(lambda L: L.aminmax(L.zeros(shape), **kw))


# -- cdist of empty inputs checks no dtypes: the result has x1's (fuzz seed 43 x7) ------------
@pytest.mark.parametrize("d1,d2,sa,sb", [
    ("float16", "float32", (0, 1, 2), (0, 1, 2)), ("float16", "float32", (2, 0), (3, 0)),
    ("float32", "float16", (2, 0), (3, 0)), ("float64", "float32", (2, 0), (3, 0)),
    ("float64", "float32", (0, 3), (2, 3)), ("float64", "float32", (2, 3), (2, 3))])
def test_cdist_empty_mixed_dtypes(d1, d2, sa, sb):
    def run(L):
        a = L.zeros(sa, dtype=getattr(L, d1)).requires_grad_()
        b = L.zeros(sb, dtype=getattr(L, d2)).requires_grad_()
        r = L.cdist(a, b)
        r.sum().backward()
        return r, a.grad, b.grad
    same_on_both(run)


@pytest.mark.parametrize("sa,sb,transposed", [((3,), (2, 3, 4), False), ((2, 3), (4, 3, 2), False),
                                              ((3,), (0, 3, 2), False), ((3,), (2, 4, 3), True),
                                              ((2, 3), (2, 1, 3, 2), False)])
def test_matmul_other_gradient_unfolded(sa, sb, transposed):
    # only other needs a gradient: PyTorch folds other^T only when it is laid out as one
    # matrix (or empty); else one bmm (ViewBackward0)
    a = np.linspace(-1, 1, int(np.prod(sa))).reshape(sa)
    b = np.linspace(2, -1, int(np.prod(sb))).reshape(sb)

    def run(L):
        x, w = L.tensor(a), L.tensor(b, requires_grad=True)
        y = x @ (w.mT if transposed else w)
        v = L.ones(y.shape, dtype=L.float64, requires_grad=True)
        g, = L.autograd.grad(y, w, v, create_graph=True)
        return g, type(g.grad_fn).__name__, L.autograd.grad((g * g).sum(), v)
    same_on_both(run)
