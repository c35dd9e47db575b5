"""Findings of session 9 fixed by the lead (fuzz seed 113 and on)."""
from __future__ import annotations

import numpy as np
import pytest
from oracle import same_on_both


# -- eigh / eigvalsh where LAPACK's syevd does not converge (NaN entries): PyTorch's
# LinAlgError naming the batch element and LAPACK's info, not NumPy's "Eigenvalues did not
# converge" (seed 113) ---------------------------------------------------------------------
def _nan_matrices(seed):
    rng = np.random.default_rng(seed)
    for _ in range(40):
        n = int(rng.integers(2, 6))
        batch = tuple(int(b) for b in rng.integers(1, 3, size=rng.integers(0, 3)))
        a = rng.standard_normal(batch + (n, n))
        a[rng.random(a.shape) < rng.random() * 0.3] = np.nan
        yield a


@pytest.mark.parametrize("fn", ["eigh", "eigvalsh"])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("requires_grad", [False, True])
def test_eigh_not_converging(fn, dtype, requires_grad):
    matrices = list(_nan_matrices(113))

    def run(L):
        out = []
        for a in matrices:
            x = L.tensor(a, dtype=getattr(L, dtype), requires_grad=requires_grad)
            try:
                r = getattr(L.linalg, fn)(x)
                out.append(("ok", (r if fn == "eigvalsh" else r[0]).isnan().sum().item()))
            except Exception as exc:   # noqa: BLE001 - the error is the observation
                out.append((type(exc).__name__, str(exc)))
        return out
    mine = same_on_both(run)
    assert any(o[0] != "ok" for o in mine) and any(o[0] == "ok" for o in mine)


# -- det / slogdet / logdet of singular and non-finite matrices: PyTorch multiplies out U's
# diagonal of the LU of A^T (A contiguous) or A: the signed zero of -0 * 1, the NaN of
# 0 * inf and of log 0 + log inf, where NumPy gives sign * exp(logdet) and special-cases a zero
# pivot (seed 113) ----------------------------------------------------------------------------
def _det_matrices(seed, count):
    rng = np.random.default_rng(seed)
    for _ in range(count):
        n = int(rng.integers(1, 5))
        batch = tuple(int(b) for b in rng.integers(1, 3, size=rng.integers(0, 2)))
        kind = int(rng.integers(0, 5))
        if kind < 2:   # small integers: often exactly singular
            a = rng.integers(-2, 3, size=batch + (n, n)).astype(float)
        else:
            a = rng.standard_normal(batch + (n, n))
            a[rng.random(a.shape) < 0.3] = 0.0
        if kind == 3:
            a[rng.random(a.shape) < 0.2] = rng.choice([np.inf, -np.inf, np.nan])
        if kind == 4:
            a[rng.random(a.shape) < 0.3] = -0.0
        yield a, bool(rng.random() < 0.3)


def _exact(t):
    """Values to 3 significant digits, with NaN, inf and the sign of a zero kept."""
    a = t.detach().numpy().astype(np.float64)
    return [("nan" if np.isnan(v) else "-0" if v == 0 and np.signbit(v) else
             float(f"{v:.3g}")) for v in a.reshape(-1)]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("part", range(4))
def test_det_slogdet_singular_nonfinite(dtype, part):
    cases = list(_det_matrices(5, 1000))[part * 250:(part + 1) * 250]

    def run(L):
        out = []
        for a, transposed in cases:
            x = L.tensor(a, dtype=getattr(L, dtype))
            x = x.mT if transposed else x   # not contiguous: PyTorch factors A itself
            sign, logabs = L.linalg.slogdet(x)
            out.append((_exact(L.linalg.det(x)), _exact(sign), _exact(logabs),
                        _exact(L.logdet(x))))
        return out
    same_on_both(run)


# -- a loss whose result has the target's dtype (binary_cross_entropy_with_logits writes into
# ``1 - target``) gives the target a gradient computed in the input's dtype: PyTorch's engine
# casts it back (ToCopyBackward0), where leafgrad kept no metadata to cast by (seed 113) --------
_LOSSES = ["mse_loss", "l1_loss", "smooth_l1_loss", "huber_loss", "kl_div",
           "binary_cross_entropy", "binary_cross_entropy_with_logits", "soft_margin_loss",
           "poisson_nll_loss", "cross_entropy"]


@pytest.mark.parametrize("name", _LOSSES)
@pytest.mark.parametrize("dtypes", [("float32", "float16"), ("float64", "float32"),
                                    ("float16", "float64"), ("float32", "float64")])
@pytest.mark.parametrize("shape", [(), (3,), (2, 3)])
def test_loss_gradient_dtypes(name, dtypes, shape):
    def run(L):
        x = L.full(shape, 0.3, dtype=getattr(L, dtypes[0]), requires_grad=True)
        y = L.full(shape, 0.6, dtype=getattr(L, dtypes[1]), requires_grad=True)
        out = []
        for reduction in ("none", "mean"):
            loss = getattr(L.nn.functional, name)(x, y, reduction=reduction)
            g = L.autograd.grad(loss.sum(), [x, y], create_graph=True, allow_unused=True)
            out.append((loss.dtype, [None if t is None else (t.dtype, type(t.grad_fn).__name__)
                                     for t in g],
                        # (to float16's precision: its rounding is another matter)
                        [None if t is None else (t.detach().double() * 100).round() for t in g]))
        return out
    same_on_both(run)


# -- cross_entropy of a 0-d input: the class-probability path reads size(1) (no wrapping), and
# label smoothing's log_softmax raises before the nll checks ----------------------------------
@pytest.mark.parametrize("target", ["float0d", "long0d", "float1d", "long1d"])
@pytest.mark.parametrize("smoothing", [0.0, 0.1])
def test_cross_entropy_0d_input_errors(target, smoothing):
    def run(L):
        x = L.full((), 0.3, requires_grad=True)
        y = {"float0d": L.full((), 0.6), "long0d": L.tensor(1), "float1d": L.full((3,), 0.6),
             "long1d": L.tensor([1])}[target]
        return L.nn.functional.cross_entropy(x, y, label_smoothing=smoothing)
    same_on_both(run)


# -- matrix_norm's 2/-2/nuc with keepdim reduce with keepdim and add one dim (PyTorch's graph:
# Permute <- Unsqueeze <- Amin; its saved result has the kept dim, which a version error names,
# seed 114) -------------------------------------------------------------------------------------
def _chain(t, depth=4):
    out, fn = [], t.grad_fn
    while fn is not None and len(out) < depth:
        out.append(type(fn).__name__)
        fn = fn.next_functions[0][0] if fn.next_functions else None
    return out


@pytest.mark.parametrize("ord_", [2, -2, "nuc"])
@pytest.mark.parametrize("keepdim", [False, True])
@pytest.mark.parametrize("shape,dim", [((1, 1), (-2, -1)), ((2, 3, 2), (0, 2)),
                                       ((2, 3, 2), (2, 1))])
def test_matrix_norm_svd_keepdim_graph(ord_, keepdim, shape, dim):
    def run(L):
        a = L.arange(1.0, 1 + np.prod(shape), dtype=L.float64).reshape(shape)
        a = a.requires_grad_()
        n = L.linalg.matrix_norm(a, ord=ord_, dim=dim, keepdim=keepdim)
        chain = _chain(n)
        n.mul_(2)   # the saved result changed in place: the version error names its shape
        try:
            n.sum().backward()
            err = None
        except RuntimeError as exc:
            err = str(exc)
        return n.shape, chain, err
    same_on_both(run)


# -- PyTorch saves a tensor that two formulas read whenever it makes the node (addcdiv's
# tensor2 with only self requiring grad): a second backward raises, and ``_saved_tensor2`` is
# there (seed 115) -------------------------------------------------------------------------------
@pytest.mark.parametrize("needs", ["self", "tensor1", "tensor2", "self+tensor1"])
@pytest.mark.parametrize("op", ["addcdiv", "addcmul"])
def test_saved_when_two_formulas_read(needs, op):
    def run(L):
        a = [L.full((3, 4), v, dtype=L.float64) for v in (0.5, 2.0, 4.0)]
        for i, n in enumerate(("self", "tensor1", "tensor2")):
            if n in needs:
                a[i].requires_grad_()
        y = getattr(L, op)(*a, value=0.5)
        saved = [getattr(y.grad_fn, f"_saved_{n}") is not None for n in ("tensor1", "tensor2")]
        y.sum().backward()
        try:
            y.sum().backward()
            twice = None
        except RuntimeError as exc:
            twice = str(exc)
        return saved, twice
    same_on_both(run)


# -- once an integer tensor has a history (Note [Integer tensors with history]), the checking
# recorder skips an output a multi-output backward op left uncomputed (grid_sample's double
# backward raised "can't convert np.ndarray of type numpy.object") --------------------------
def test_integer_history_then_grid_sample_double_backward():
    def run(L):
        i = L.zeros(2, dtype=L.int64)
        v = L.tensor(1.0, requires_grad=True)
        try:
            i.masked_fill_(L.tensor([True, False]), v)   # an int64 tensor with a history
        except RuntimeError:
            pass
        x = L.tensor(np.linspace(-1, 1, 18).reshape(1, 2, 3, 3), requires_grad=True)
        g = L.tensor(np.linspace(-0.9, 0.9, 8).reshape(1, 2, 2, 2), requires_grad=True)
        y = L.nn.functional.grid_sample(x, g, align_corners=False)
        gx, = L.autograd.grad(y.sum(), [x], create_graph=True)
        return gx, L.autograd.grad((gx * gx).sum(), [x, g], allow_unused=True)
    same_on_both(run)


# -- of several saved tensors changed in place, PyTorch's error names the first in the order
# of their names, as its generated apply unpacks them (pow's exponent before self, other
# before self, tensor1 before tensor2; seed 116) -------------------------------------------------
_TWO_SAVED = {
    "mul": lambda L, a, b: a * b, "mul_r": lambda L, a, b: b * a,
    "atan2": lambda L, a, b: L.atan2(a, b), "atan2_r": lambda L, a, b: L.atan2(b, a),
    "hypot": lambda L, a, b: L.hypot(a, b), "div": lambda L, a, b: a / b,
    "lerp": lambda L, a, b: L.lerp(a, b, b), "lerp_r": lambda L, a, b: L.lerp(b, a, a),
    "addcmul": lambda L, a, b: L.addcmul(b, a, b), "addcmul_r": lambda L, a, b: L.addcmul(a, b, a),
    "addcdiv": lambda L, a, b: L.addcdiv(b, a, b), "addcdiv_r": lambda L, a, b: L.addcdiv(a, b, a),
    "xlogy": lambda L, a, b: L.xlogy(a, b), "xlogy_r": lambda L, a, b: L.xlogy(b, a),
    "fmod": lambda L, a, b: L.fmod(a, b), "maximum": lambda L, a, b: L.maximum(a, b),
    "maximum_r": lambda L, a, b: L.maximum(b, a), "copysign": lambda L, a, b: L.copysign(a, b),
    "pow": lambda L, a, b: L.pow(a, b), "pow_r": lambda L, a, b: L.pow(b, a),
    "matmul": lambda L, a, b: L.matmul(b, a.T), "cdist": lambda L, a, b: L.cdist(a, b[None]),
}


@pytest.mark.parametrize("name", sorted(_TWO_SAVED))
@pytest.mark.parametrize("dtype", ["float16", "float64"])
def test_version_error_names_first_saved_by_name(name, dtype):
    def run(L):
        x = L.tensor([[0.5, 0.3]], dtype=getattr(L, dtype), requires_grad=True)
        a = x * 1
        b = a[0]   # a view of a: both stale after a.add_
        c = _TWO_SAVED[name](L, a, b)
        a.add_(1)
        c.sum().backward()
    same_on_both(run)


@pytest.mark.parametrize("op", ["logsumexp", "norm", "exp", "sigmoid", "softmax", "cumsum"])
def test_version_error_inputs_before_outputs(op):
    # saved inputs are unpacked before saved outputs (logsumexp's self before result; seed 117)
    def run(L):
        x = L.tensor([[0.5, 0.3], [0.2, 0.1]], dtype=L.float64, requires_grad=True)
        a = x * 1
        r = {"logsumexp": lambda: a.logsumexp(1, keepdim=True), "norm": lambda: a.norm(),
             "exp": lambda: a.exp(), "sigmoid": lambda: a.sigmoid(),
             "softmax": lambda: a.softmax(1), "cumsum": lambda: a.cumsum(0)}[op]()
        r.add_(1)
        a.add_(1)
        r.sum().backward()
    same_on_both(run)


# -- seed 117's programs: a float32 value made from integer leaves (cos of an int64) carries
# float32 rounding (PyTorch's vectorized cos is not NumPy's), so the harness compares what is
# computed from it at float32 tolerance, as for float32 leaves; and logsumexp's version error --
SEED117 = ["Program(leaves=[Leaf(shape=(1, 1, 1), dtype='int64', requires_grad=False, seed=5959, scale=1.0), Leaf(shape=(), dtype='int64', requires_grad=False, seed=1623, scale=0.1)], steps=[Step(op='maximum', seed=300, no_grad=False), Step(op='cos', seed=1336, no_grad=False), Step(op='predicates', seed=16505, no_grad=False), Step(op='cos', seed=10071, no_grad=False), Step(op='where', seed=1056, no_grad=False), Step(op='minimum', seed=598, no_grad=False), Step(op='pointwise_extra', seed=65536, no_grad=True), Step(op='where', seed=1056, no_grad=False)], ending=Ending(kind='backward', seed=1665, retain_graph=None, create_graph=False, twice=False, allow_unused=True, give_gradient=True))",
           "Program(leaves=[Leaf(shape=(1, 1), dtype='float16', requires_grad=True, seed=53597, scale=1.0)], steps=[Step(op='linalg_products', seed=1430, no_grad=False), Step(op='conv', seed=104, no_grad=False), Step(op='reduce_dim', seed=16624, no_grad=False), Step(op='div', seed=1335, no_grad=False), Step(op='squeeze', seed=11616, no_grad=False), Step(op='rearrange', seed=24548, no_grad=False), Step(op='inplace_unary', seed=60, no_grad=False), Step(op='inplace_binary', seed=14339, no_grad=False)], ending=Ending(kind='grad', seed=2916, retain_graph=None, create_graph=False, twice=False, allow_unused=None, give_gradient=True))"]


@pytest.mark.parametrize("text", SEED117)
def test_seed_117_programs(text):
    from .programs import Ending, Leaf, Program, Step, difference  # noqa: F401
    assert difference(eval(text)) is None


# -- scatter_reduce(reduce="mean") of a bool tensor: PyTorch's kernel has no Bool mean, an
# error before it looks at the indices (leafgrad gave a result; seed 118) ------------------------
@pytest.mark.parametrize("reduce", ["sum", "prod", "mean", "amax", "amin"])
@pytest.mark.parametrize("idx", [[0], [-1], [5]])
@pytest.mark.parametrize("include_self", [True, False])
def test_scatter_reduce_bool(reduce, idx, include_self):
    def run(L):
        s = L.tensor([True, False])
        return s.scatter_reduce(0, L.tensor(idx), L.tensor([True]), reduce,
                                include_self=include_self)
    same_on_both(run)
