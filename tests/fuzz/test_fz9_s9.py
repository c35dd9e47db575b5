"""Findings of session 9's fresh fuzz seeds 107-112 (helper fz9), each against torch."""
from __future__ import annotations

import pytest
from oracle import same_on_both


# -- scatter_reduce amax/amin with a 0-d src: PyTorch's scatter reads a 0-d tensor as one of
# size 1 (with a one-element 1-d index); the gradients counted the ties by indexing the 0-d
# array (NumPy's IndexError; seed 107) ----------------------------------------------------------
@pytest.mark.parametrize("reduce", ["amax", "amin", "sum", "mean", "prod"])
@pytest.mark.parametrize("include_self", [False, True])
@pytest.mark.parametrize("n", [1, 3])
@pytest.mark.parametrize("tie", [False, True])
def test_scatter_reduce_zero_dim_src(reduce, include_self, n, tie):
    def run(L):
        x = L.tensor([-0.25, 0.5, 1.5][:n], requires_grad=True)
        s = L.tensor(-0.25 if tie else 0.75, requires_grad=True)
        t = (x * 1).scatter_reduce(0, L.tensor([0]), s, reduce, include_self=include_self)
        g = L.autograd.grad(t.sum(), [x, s], create_graph=True)
        return t, g
    same_on_both(run)


# -- cholesky_inverse's gradient reads its saved result as PyTorch's formula does,
# X (grad + grad^T) X times the factor: the second derivative with respect to the result
# itself (an input of autograd.grad) follows that arrangement (seed 107; fixed by gf9's
# op-for-op formula, 542f16b) --------------------------------------------------------------------
@pytest.mark.parametrize("upper", [False, True])
def test_cholesky_inverse_second_derivative_wrt_result(upper):
    import numpy as np
    low = np.array([[2.0, 0.0, 0.0], [0.7, 1.3, 0.0], [-0.4, 0.2, 0.9]])
    a = low.T.copy() if upper else low
    v = np.array([[0.3, -1.2, 0.4], [0.5, 0.9, -0.1], [0.2, 0.0, 1.1]])
    w = np.cos(v * 3)

    def run(L):
        c = L.tensor(a, requires_grad=True)
        r = L.cholesky_inverse(c, upper)
        g, = L.autograd.grad(r, [c], L.tensor(v, requires_grad=True), create_graph=True)
        return g, L.autograd.grad((g * L.tensor(w)).sum(), [c, r])
    same_on_both(run)


# -- torch's internal asserts are no oracle (Note [Torch internal asserts] in programs.py): an
# int64 tensor that requires grad (masked_fill_ with a 0-d value requiring grad) gets a gradient
# and PyTorch's engine asserts isDifferentiableType (seed 107, x3; seed 79). Such a program is
# counted apart, never as a pass; a difference before torch's assert stays a mismatch ----------
ASSERT_VERSION = "Program(leaves=[Leaf(shape=(), dtype='float16', requires_grad=True, seed=363, scale=1.0), Leaf(shape=(1, 1, 1), dtype='int64', requires_grad=False, seed=7637, scale=1.0)], steps=[Step(op='inplace_binary', seed=1336, no_grad=False), Step(op='inplace_unary', seed=286, no_grad=False), Step(op='inplace_unary', seed=501, no_grad=False)], ending=Ending(kind='grad', seed=12645, retain_graph=False, create_graph=False, twice=True, allow_unused=True, give_gradient=True))"
ASSERT_ONLY_TORCH = "Program(leaves=[Leaf(shape=(2,), dtype='float16', requires_grad=False, seed=51, scale=1.0), Leaf(shape=(), dtype='float32', requires_grad=True, seed=277, scale=1.0), Leaf(shape=(2, 2), dtype='int64', requires_grad=False, seed=984, scale=1.0)], steps=[Step(op='linalg_square', seed=59900, no_grad=False), Step(op='bitwise_and', seed=1323, no_grad=False), Step(op='inplace_binary', seed=52, no_grad=False), Step(op='nn_more', seed=1024, no_grad=False), Step(op='inplace_binary', seed=47624, no_grad=False)], ending=Ending(kind='backward', seed=7093, retain_graph=False, create_graph=True, twice=False, allow_unused=None, give_gradient=True))"


@pytest.mark.parametrize("text", [ASSERT_VERSION, ASSERT_ONLY_TORCH])
def test_torch_internal_assert_is_no_oracle(text):
    from .programs import Ending, Leaf, Program, Step, check, difference, oracle_failed  # noqa
    d = difference(eval(text))
    assert d is not None and oracle_failed(d) and "INTERNAL ASSERT FAILED" in d
    check(eval(text))   # passes: not a mismatch


def test_only_the_first_difference_decides():
    from .programs import compare, oracle_failed
    boom = ("E", "RuntimeError", "x INTERNAL ASSERT FAILED at engine.cpp")
    assert oracle_failed(compare([("step", 1), ("grad", None)], [("step", 1), ("grad", boom)]))
    # a difference before torch's assert is a mismatch
    d = compare([("step", 2), ("grad", None)], [("step", 1), ("grad", boom)])
    assert d and not oracle_failed(d)
    # leafgrad's own differing error is a mismatch
    d = compare([("grad", ("E", "RuntimeError", "a"))], [("grad", ("E", "RuntimeError", "b"))])
    assert d and not oracle_failed(d)


# -- cummax/cummin of an empty input: PyTorch returns before wrapping dim (any dim is taken),
# and its backward returns the (empty) input itself, so a create_graph gradient is the input,
# requiring grad without a grad_fn (seed 108) --------------------------------------------------
@pytest.mark.parametrize("name", ["cummax", "cummin"])
@pytest.mark.parametrize("shape,dim", [((0, 1, 4), 1), ((0,), 0), ((0, 1, 4), -4),
                                       ((0, 2), 5), ((0, 3), -1)])
@pytest.mark.parametrize("dtype", ["float32", "int64"])
def test_cummax_cummin_empty(name, shape, dim, dtype):
    def run(L):
        x = L.zeros(shape, dtype=getattr(L, dtype), requires_grad=dtype == "float32")
        v, i = getattr(L, name)(x, dim)
        out = [v, i, v.stride(), i.stride(), v.grad_fn is None]
        if x.requires_grad:
            g, = L.autograd.grad(v.sum() * 1, x, create_graph=True)
            out += [g, g.requires_grad, g.grad_fn is None, g is x]
        return out
    same_on_both(run)


# -- var/std over all elements without degrees of freedom: PyTorch's gradient is grad times
# where(self == mean, nan, inf), a tensor of the default dtype, so a float16 (or, with a
# float64 default, float32) gradient is promoted and the engine casts it back: ToCopyBackward0
# on top under create_graph (seed 108) -----------------------------------------------------------
@pytest.mark.parametrize("name", ["std", "var"])
@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
@pytest.mark.parametrize("default", ["float32", "float64"])
@pytest.mark.parametrize("shape,kw", [((), {"dim": -1, "keepdim": True}), ((), {"dim": 0}),
                                      ((), {}), ((1,), {"keepdim": True}), ((1,), {})])
def test_var_std_no_dof_gradient_dtype(name, dtype, default, shape, kw):
    from oracle import grad_fn_names

    def run(L):
        before = L.get_default_dtype()
        L.set_default_dtype(getattr(L, default))
        try:
            x = L.tensor([0.5] if shape else 0.5, dtype=getattr(L, dtype), requires_grad=True)
            r = getattr(L, name)(x, **kw)
            g, = L.autograd.grad(r, x, L.ones_like(r, requires_grad=True), create_graph=True)
            g2, = L.autograd.grad(getattr(L, name)(x, **kw), x)
            # (NaN compared as a number: lists of NaN floats are unequal)
            return [(t.dtype, L.nan_to_num(t.detach(), nan=7.0)) for t in (g, g2)], \
                grad_fn_names(g)
        finally:
            L.set_default_dtype(before)
    same_on_both(run)


# -- the harness compares values that rounding decides by what does not depend on it:
# eigen/singular values at rounding level are made 0 on both sides (seed 108, x6: an
# eigenvalue 5.8e-8 here and -3.7e-7 in PyTorch, then histc's bins); pinv of a matrix with a
# singular value near the cutoff or badly conditioned kept ones by Penrose's A X A = A -------
EIGH_NOISE = "Program(leaves=[Leaf(shape=(4, 1), dtype='float32', requires_grad=True, seed=56, scale=1.0), Leaf(shape=(), dtype='int64', requires_grad=False, seed=118, scale=1.0)], steps=[Step(op='linalg_products', seed=945, no_grad=False), Step(op='linalg_square', seed=61, no_grad=False), Step(op='unique_search', seed=496, no_grad=False)], ending=Ending(kind='none', seed=409, retain_graph=False, create_graph=False, twice=True, allow_unused=False, give_gradient=True))"


def test_eigenvalue_at_rounding_level_compared_as_zero():
    from .programs import Ending, Leaf, Program, Step, difference  # noqa: F401 (eval)
    assert difference(eval(EIGH_NOISE)) is None


_PINV_UNSETTLED = [[-0.0, -0.9, -0.7], [0.0, 1.3, 1.0]]   # differs in float32 (cond ~400)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_pinv_unsettled_by_invariants(dtype):
    from .ops_table_extra import _pinv_invariants, _pinv_unsettled

    def run(L):
        a = L.tensor(_PINV_UNSETTLED, dtype=getattr(L, dtype))
        x = L.linalg.pinv(a)
        wrong = x.clone()
        wrong[1, 0] += 1   # a wrong pseudo-inverse breaks A X A = A
        return _pinv_unsettled(a), _pinv_invariants(L, a, x), _pinv_invariants(L, a, wrong)
    out = same_on_both(run)
    # unsettled in float32 only (cond ~400); the invariant holds either way
    assert out[0] is (dtype == "float32") and out[1][0] is True and out[2][0] is False


def test_pinv_well_conditioned_still_compared():
    from .ops_table_extra import _pinv_unsettled
    import leafgrad
    assert not _pinv_unsettled(leafgrad.tensor([[2.0, 0.5], [0.1, 1.0], [0.3, -1.0]]))


# -- vector_norm with nothing to reduce (every reduced dim of size 1): PyTorch's result is |x|
# exactly for every p, where pow(pow(|x|, p), 1/p) rounds in the last bit; a 0-d input with
# an explicit dim still takes the general path (seed 109: the rounded norm then tied a clamp
# bound differently, and the gradient went to the other side) ----------------------------------
_NORM_CASES = [((), None), ((), 0), ((), (0,)), ((), []), ((1,), None), ((1,), 0), ((1, 1), []),
               ((1, 1), (0, 1)), ((1, 7), 0), ((7, 1), 1), ((2, 1, 3), 1), ((1, 1, 3), (1, 0))]


@pytest.mark.parametrize("shape,dim", _NORM_CASES)
@pytest.mark.parametrize("p", [3.0, 0.7, 2, 1, float("inf"), 0, -1.5])
@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
def test_vector_norm_nothing_to_reduce_exact(shape, dim, p, dtype):
    import numpy as np
    values = np.random.default_rng(len(shape) * 7 + 3).standard_normal((40,) + shape) * 3
    values[0].flat[0] = 1e-30   # (x * x underflows: |x| all the same)
    # (float32 first: PyTorch casts float64 to float16 through float32, rounding twice, which
    # NumPy does not: a separate difference, left for now)
    values = values.astype(np.float32)

    def run(L):
        out = []
        for keepdim in (False, True):
            for v in values:
                x = L.tensor(v, dtype=getattr(L, dtype))
                n = L.linalg.vector_norm(x, p, dim=dim, keepdim=keepdim)
                a = n.numpy()   # bitwise: the values as integers
                out.append((tuple(n.shape), str(n.dtype),
                            a.view(np.dtype(f"int{8 * a.itemsize}")).tolist()))
        return out
    same_on_both(run)


def test_norm_tie_with_clamp_bound_gradient():
    # the reduced seed-109 program, as one statement: clamp(x, min=norm over a size-1 dim)
    def run(L):
        x = L.tensor([[0.03949469, -1.7174479, -0.33433115, -0.24742334]], requires_grad=True)
        n = L.linalg.vector_norm(x, 3, dim=-2)
        y = L.clamp(x, min=n)
        g, = L.autograd.grad(y.sum(), x)
        return n, g
    same_on_both(run)


# -- index_put checks that the values broadcast to the indexed result before it compares
# dtypes (seed 109: an empty float32 value into float16 named the dtypes) -------------------------
@pytest.mark.parametrize("inplace", [False, True])
@pytest.mark.parametrize("vshape", [(0,), (2,), (1, 1, 1, 4), (3, 4), (1,), (), (4,), (1, 4)])
@pytest.mark.parametrize("index", ["int", "int2", "mask2"])
@pytest.mark.parametrize("accumulate", [False, True])
def test_index_put_shape_checked_before_dtype(inplace, vshape, index, accumulate):
    if index == "mask2" and accumulate is False and vshape in ((1,), ()):
        vshape = (2, 2)   # (a single mask with one value is masked_fill_'s path: not here)

    def run(L):
        x = L.zeros(1, 2, 4, dtype=L.float16)
        idx = {"int": (L.tensor([0]),), "int2": (L.tensor([0, 0]), L.tensor([1, 0])),
               "mask2": (L.tensor([[True, False]]), L.tensor([0]))}[index]
        v = L.zeros(vshape)
        return (x.index_put_ if inplace else x.index_put)(idx, v, accumulate=accumulate)
    same_on_both(run)


# -- clamp_/clip_ without bounds: PyTorch's in-place autograd checks (a leaf, a view of a
# leaf, requiring grad) come before the kernel's "At least one of 'min' or 'max'" (seed 110) -----
@pytest.mark.parametrize("name", ["clamp_", "clip_"])
@pytest.mark.parametrize("case", ["leaf", "view", "nonleaf", "nograd", "plain"])
def test_clamp_inplace_no_bounds_checks_leaf_first(name, case):
    def run(L):
        x = L.ones(3, requires_grad=case != "plain")
        t = {"leaf": x, "view": x[1:], "nonleaf": x * 1, "nograd": x, "plain": x}[case]
        if case == "nograd":
            with L.no_grad():
                return getattr(t, name)()
        return getattr(t, name)(None, None)
    same_on_both(run)


# -- the harness does not compare a NaN's sign bit (IEEE 754 leaves it unspecified for
# arithmetic results; PyTorch's amax of -NaN gives +NaN, max() keeps it; seed 110) ---------------
SIGNBIT_NAN = "Program(leaves=[Leaf(shape=(), dtype='float32', requires_grad=True, seed=191, scale=1.0), Leaf(shape=(1, 4), dtype='float64', requires_grad=False, seed=7042, scale=1.0), Leaf(shape=(), dtype='float64', requires_grad=False, seed=81, scale=1.0), Leaf(shape=(), dtype='float64', requires_grad=False, seed=164, scale=1.0)], steps=[Step(op='reduce_dim', seed=32768, no_grad=False), Step(op='reduce_all', seed=1769, no_grad=False), Step(op='predicates', seed=1162, no_grad=False)], ending=Ending(kind='none', seed=606, retain_graph=None, create_graph=False, twice=False, allow_unused=True, give_gradient=True))"


def test_signbit_of_nan_not_compared():
    from .programs import Ending, Leaf, Program, Step, difference  # noqa: F401 (eval)
    assert difference(eval(SIGNBIT_NAN)) is None


# -- dist with p=-inf is the smallest |difference| (it was pow(sum(|d|^-inf), -0) = 1), and the
# inf-norm gradients count a NaN among the extremes (sgn(NaN) = 0: a zero gradient), as
# PyTorch's norm_backward (seed 110: var's NaN through dist(p=inf)) -----------------------------
@pytest.mark.parametrize("p", [float("inf"), -float("inf"), 2, 1, 3, 0.5])
@pytest.mark.parametrize("xv,yv", [([[float("nan")]], 0.5), ([2.0, 3.0], 0.0),
                                   ([2.0, float("nan"), -3.0], 1.0), ([-3.0, 3.0, 1.0], 0.0)])
def test_dist_and_norm_inf_with_nan(p, xv, yv):
    def run(L):
        x = L.tensor(xv, requires_grad=True)
        y = L.tensor(yv, requires_grad=True)
        d = L.dist(x, y, p)
        n = L.linalg.vector_norm(x, p)
        return [L.nan_to_num(t, nan=7.0) for t in
                (d, *L.autograd.grad(d, [x, y]), n, *L.autograd.grad(n, x))]
    same_on_both(run)


# -- integer division by zero raises per element: an empty result raises nothing (seed 111) ------
@pytest.mark.parametrize("op", ["remainder", "fmod", "div_floor", "div_trunc", "floor_divide",
                                "__mod__", "__floordiv__"])
@pytest.mark.parametrize("shape", [(0,), (0, 3), (2,)])
@pytest.mark.parametrize("other", ["int", "0d", "same", "row"])
def test_integer_division_by_zero_empty(op, shape, other):
    def run(L):
        x = L.ones(shape, dtype=L.int64)
        o = {"int": 0, "0d": L.zeros((), dtype=L.int64), "same": L.zeros(shape, dtype=L.int64),
             "row": L.zeros((1,) * len(shape), dtype=L.int64)}[other]
        if op.startswith("div_"):
            return L.div(x, o, rounding_mode=op[4:])
        if op.startswith("__"):
            return getattr(x, op)(o)
        return getattr(L, op)(x, o)
    same_on_both(run)


# -- slogdet of a numerically singular matrix is compared by its determinant (sign * exp(log)):
# a zero pivot or a rounding-sized one is rounding's choice (seed 111, x5) --------------------
SLOGDET_SINGULAR = "Program(leaves=[Leaf(shape=(4, 1, 1, 1), dtype='float32', requires_grad=True, seed=11090, scale=1.0)], steps=[Step(op='cosh', seed=9302, no_grad=False), Step(op='linalg_products', seed=855, no_grad=False), Step(op='ge', seed=2767, no_grad=False), Step(op='inplace_binary', seed=2128, no_grad=True), Step(op='reciprocal', seed=75, no_grad=False), Step(op='dunder_tensor', seed=569, no_grad=False), Step(op='linalg_square', seed=405, no_grad=False), Step(op='pointwise_extra', seed=65535, no_grad=False)], ending=Ending(kind='grad', seed=309, retain_graph=False, create_graph=True, twice=True, allow_unused=None, give_gradient=True))"


def test_slogdet_of_numerically_singular_by_determinant():
    from .programs import Ending, Leaf, Program, Step, difference  # noqa: F401 (eval)
    assert difference(eval(SLOGDET_SINGULAR)) is None
