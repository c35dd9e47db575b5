"""Fuzz findings of session 7 fixed by lo7 (issue 8): each statement runs on leafgrad and torch.
"""
from __future__ import annotations

import numpy as np
import pytest
from oracle import same_on_both


def _signs(t):
    return np.signbit(t.detach().numpy()).tolist()


# -- sort(stable=False) leaves ties where libstdc++'s std::sort does (slices over 16); a slice of
# stride 0 is not sorted at all (seed 26 x2) ------------------------------------------------------
def _tie_array(seed, dtype):
    rng = np.random.default_rng(seed)
    nd = int(rng.integers(1, 4))
    shape = [int(rng.integers(1, 5)) for _ in range(nd)]
    dim = int(rng.integers(-nd, nd))
    shape[dim] = int(rng.integers(1, 300))
    a = rng.integers(-2, int(rng.integers(1, 6)), shape).astype(np.float64)
    if dtype.startswith("float"):
        a[rng.random(shape) < 0.1] = np.nan
        zero = a == 0
        a[zero] = np.where(rng.random(np.count_nonzero(zero)) < 0.5, -0.0, 0.0)
    elif dtype == "uint8":
        a = np.abs(a)
    return a.astype(dtype), dim, bool(rng.integers(2))


@pytest.mark.parametrize("dtype", ["float64", "float32", "float16", "int64", "int16", "uint8",
                                   "bool"])
@pytest.mark.parametrize("seed", range(12))
def test_unstable_sort_ties(dtype, seed):
    a, dim, descending = _tie_array(seed * 7 + len(dtype), dtype)

    def run(L):
        x = L.tensor(a.copy())
        v, i = x.sort(dim, descending)
        return i, _signs(v), x.argsort(dim, descending), L.sort(x, dim=dim, stable=False)[1]
    same_on_both(run)


@pytest.mark.parametrize("n", [5, 17, 40, 200])
def test_unstable_sort_special(n):
    def run(L):
        z = L.zeros(1, n)
        signs = L.tensor(np.where(np.arange(n * 3) % 3 == 1, -0.0, 0.0).reshape(n, 3))
        return (z.expand(3, n).sort(1).indices, z.expand(3, n).sort(1, True).indices,
                L.zeros(3, 1).expand(3, n).sort(1).indices,
                L.zeros(3, 1).expand(3, n).argsort(1, descending=True),
                _signs(L.msort(signs)), _signs(signs.sort(dim=0, stable=True).values))
    same_on_both(run)


# -- which zero a max/min-like op keeps on a tie of -0.0 and +0.0 (Note [signed zero ties] in
# ops/signed_zero.py): relu/clamp with numbers, hardtanh, elu keep self; maximum/minimum and
# clamp with tensor bounds take the other side in PyTorch's vector lanes ----------------------
_ACTS = {
    "relu": lambda L, x: L.relu(x), "relu_": lambda L, x: x.clone().relu_(),
    "F.relu_inplace": lambda L, x: L.nn.functional.relu(x.clone(), inplace=True),
    "relu6": lambda L, x: L.nn.functional.relu6(x),
    "hardtanh": lambda L, x: L.nn.functional.hardtanh(x, 0.0, 1.0),
    "hardtanh_": lambda L, x: L.nn.functional.hardtanh_(x.clone(), -0.0, 0.0),
    "threshold": lambda L, x: L.nn.functional.threshold(x, 0.0, 0.0),
    "clamp(min=0)": lambda L, x: x.clamp(min=0), "clamp(min=-0.)": lambda L, x: x.clamp(min=-0.0),
    "clamp(max=0)": lambda L, x: x.clamp(max=0.0), "clamp(0, 0)": lambda L, x: x.clamp(0.0, -0.0),
    "clamp_": lambda L, x: x.clone().clamp_(min=0), "clamp_min": lambda L, x: L.clamp_min(x, 0.0),
    "clamp_max": lambda L, x: L.clamp_max(x, -0.0),
    "elu": lambda L, x: L.nn.functional.elu(x), "selu": lambda L, x: L.nn.functional.selu(x),
    "celu": lambda L, x: L.nn.functional.celu(x), "gelu": lambda L, x: L.nn.functional.gelu(x),
    "gelu_strided": lambda L, x: L.nn.functional.gelu(x[::2]),
    "fmax": lambda L, x: L.fmax(x, L.zeros(x.shape, dtype=x.dtype)),
    "fmin": lambda L, x: L.fmin(L.zeros(x.shape, dtype=x.dtype), x),
}


@pytest.mark.parametrize("n", [1, 3, 40])
@pytest.mark.parametrize("dtype", ["float64", "float32", "float16"])
@pytest.mark.parametrize("op", sorted(_ACTS))
def test_signed_zero_one_input(op, dtype, n):
    a = np.resize(np.array([-0.0, 0.0, -1.0, 1.0, -0.5]), n).astype(dtype)

    def run(L):
        out = _ACTS[op](L, L.tensor(a.copy()))
        return out, _signs(out)
    same_on_both(run)


_PAIRS = [((7,), (7,)), ((8,), (8,)), ((9,), (9,)), ((33,), (33,)), ((3, 9), (9,)),
          ((3, 9), (3, 1)), ((9, 3), (3,)), ((4, 4), (4, 4)), ((4, 4), (4, 1)),
          ((2, 3, 8), (1, 3, 8)), ((5, 2, 4), (5, 1, 4)), ((40,), ()), ((), (40,)),
          ((2, 20), (2, 1)), ((3, 1, 8), (1, 4, 8)), ((6, 6), (6, 6))]
_TWO = {
    "maximum": lambda L, x, y: L.maximum(x, y), "minimum": lambda L, x, y: L.minimum(x, y),
    "clamp(min=t)": lambda L, x, y: x.clamp(min=y), "clamp(t, t)": lambda L, x, y: x.clamp(y, y),
    "clamp_max(t)": lambda L, x, y: L.clamp_max(x, y),
    "fmax": lambda L, x, y: L.fmax(x, y), "fmin": lambda L, x, y: L.fmin(y, x),
    "maximum(x.t())": lambda L, x, y: L.maximum(x.t() if x.dim() == 2 else x, y),
}


@pytest.mark.parametrize("dtype", ["float64", "float32", "float16"])
@pytest.mark.parametrize("shapes", _PAIRS, ids=str)
@pytest.mark.parametrize("op", sorted(_TWO))
def test_signed_zero_two_inputs(op, shapes, dtype):
    rng = np.random.default_rng(len(op) * 31 + len(shapes[0]) * 7 + shapes[0][0] if shapes[0]
                                else 5)

    def zeros(shape):
        a = np.where(rng.random(shape) < 0.5, -0.0, 0.0)
        a[rng.random(shape) < 0.2] = 1.0
        return a.astype(dtype)
    a, b = zeros(shapes[0]), zeros(shapes[1])
    if op.startswith("clamp") and len(shapes[1]) > len(shapes[0]):
        a, b = b, a     # clamp's result has self's shape

    def run(L):
        out = _TWO[op](L, L.tensor(a.copy()), L.tensor(b.copy()))
        return out, _signs(out)
    same_on_both(run)


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("n", [1, 2, 3, 5, 8, 9, 16, 17, 33, 100])
def test_numpy_second_argument_wins_ties(dtype, n):
    """ops/signed_zero.keep_self relies on it for float and double (no torch involved: if a
    NumPy release changes it, this says so)."""
    neg, pos = np.full(n, -0.0, dtype), np.zeros(n, dtype)
    for fn in (np.maximum, np.minimum):
        assert np.signbit(fn(pos, neg)).all() and not np.signbit(fn(neg, pos)).any()
        assert np.signbit(fn(np.zeros((), dtype), neg)).all()
        assert np.signbit(fn(pos[::-1], neg[::-1])).all()


# -- torch.<pair op>(..., out=(values, indices)) writes into the given tensors and returns them
# as torch.return_types.<name>_out; PyTorch's dtype, count, autograd checks and resize warnings
_PAIR_CALLS = {
    "max": lambda L, x, o: L.max(x, 1, out=o), "min": lambda L, x, o: L.min(x, 0, True, out=o),
    "sort": lambda L, x, o: L.sort(x, 1, True, out=o), "topk": lambda L, x, o: L.topk(x, 2, out=o),
    "sort_stable": lambda L, x, o: L.sort(x, stable=True, dim=0, out=o),
    "kthvalue": lambda L, x, o: L.kthvalue(x, 2, out=o), "mode": lambda L, x, o: L.mode(x, 0, out=o),
    "median": lambda L, x, o: L.median(x, 1, out=o),
    "nanmedian": lambda L, x, o: L.nanmedian(x, 1, True, out=o),
    "cummax": lambda L, x, o: L.cummax(x, 1, out=o), "cummin": lambda L, x, o: L.cummin(x, 0, out=o),
    "aminmax": lambda L, x, o: L.aminmax(x, dim=1, out=o),
}
_OUTS = {
    "fresh": lambda L, i: (L.empty(0), L.empty(0, dtype=i)),
    "right": lambda L, i: (L.zeros(2), L.zeros(2, dtype=i)),
    "resize": lambda L, i: (L.empty(7), L.empty(5, dtype=i)),
    "list": lambda L, i: [L.empty(0), L.empty(0, dtype=i)],
    "idx_float": lambda L, i: (L.empty(0), L.empty(0, dtype=L.float32 if i == L.int64 else L.int64)),
    "val_double": lambda L, i: (L.empty(0, dtype=L.float64), L.empty(0, dtype=i)),
    "both_int": lambda L, i: (L.empty(0, dtype=L.int32), L.empty(0, dtype=L.int32)),
    "three": lambda L, i: (L.empty(0), L.empty(0, dtype=i), L.empty(0)),
    "tensor": lambda L, i: L.empty(0),
    "not_tensor": lambda L, i: (1, L.empty(0, dtype=i)),
    "out_requires_grad": lambda L, i: (L.empty(0, requires_grad=True), L.empty(0, dtype=i)),
}


@pytest.mark.parametrize("outs", sorted(_OUTS))
@pytest.mark.parametrize("op", sorted(_PAIR_CALLS))
def test_pair_out(op, outs):
    import warnings

    def run(L):
        x = L.tensor([[3.0, 1.0, 2.0], [0.0, 5.0, 4.0]])
        o = _OUTS[outs](L, L.float32 if op == "aminmax" else L.int64)
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            r = _PAIR_CALLS[op](L, x, o)
        same = [a is b for a, b in zip(r, o)]
        return type(r).__name__, tuple(r), same, list(o), [str(m.message) for m in w]
    same_on_both(run)


@pytest.mark.parametrize("op", sorted(_PAIR_CALLS))
def test_pair_out_refuses_grad(op):
    def run(L):
        x = L.tensor([[3.0, 1.0, 2.0], [0.0, 5.0, 4.0]], requires_grad=True)
        i = L.float32 if op == "aminmax" else L.int64
        try:
            _PAIR_CALLS[op](L, x, (L.empty(0), L.empty(0, dtype=i)))
        except RuntimeError as e:
            first = str(e)
        with L.no_grad():
            r = _PAIR_CALLS[op](L, x, (L.empty(0), L.empty(0, dtype=i)))
        return first, tuple(r)
    same_on_both(run)


@pytest.mark.parametrize("call", ["max_all", "max_other", "min_view", "max_dim_tensor_out"])
def test_extreme_single_out(call):
    def run(L):
        x = L.tensor([[3.0, 1.0, 2.0], [0.0, 5.0, 4.0]])
        base = L.zeros(2, 3)
        if call == "max_all":
            t = L.empty(())
            return L.max(x, out=t) is t, t
        if call == "max_other":
            t = L.empty(2, 3)
            return L.max(x, L.ones(3), out=t) is t, t
        if call == "min_view":
            r = L.min(x, 1, out=(base[0, :2], L.empty(2, dtype=L.int64)))
            return tuple(r), base
        return L.max(x, 1, out=L.empty(2))
    same_on_both(run)


# -- einsum with a subscript repeated in one operand takes its diagonal first (DiagonalBackward0
# under the einsum's node): values, gradients and second derivatives as PyTorch -------------
_REPEATED = [("ii->i", [(3, 3)]), ("ii", [(3, 3)]), ("iij->j", [(3, 3, 2)]),
             ("bii->bi", [(2, 3, 3)]), ("iji->j", [(3, 2, 3)]), ("ii,i->i", [(3, 3), (3,)]),
             ("iii->i", [(2, 2, 2)]), ("ij,jj->i", [(2, 3), (3, 3)]),
             ("...ii->...i", [(2, 3, 3)]), ("bii,bi->b", [(2, 3, 3), (2, 3)]),
             ("iij,jk->ik", [(2, 2, 3), (3, 4)]), ("ijij->ij", [(2, 3, 2, 3)]),
             ("iji->ji", [(3, 2, 3)]), ("ii->ii", [(3, 3)]), ("ii->i", [(2, 3)]),
             ("ij,ii->j", [(2, 3), (3, 2)])]


@pytest.mark.parametrize("eq,shapes", _REPEATED, ids=[e for e, _ in _REPEATED])
def test_einsum_repeated_subscripts(eq, shapes):
    rng = np.random.default_rng(len(eq))
    arrays = [rng.standard_normal(s) for s in shapes]

    def run(L):
        ts = [L.tensor(a, requires_grad=True) for a in arrays]
        out = L.einsum(eq, *ts)
        g = L.autograd.grad(out.sum() if out.dim() else out, ts, create_graph=True)
        total = sum((x * x * x).sum() for x in g)
        gg = L.autograd.grad(total, ts, allow_unused=True) if total.requires_grad else None
        return out, type(out.grad_fn).__name__, g, gg

    same_on_both(run)


def test_einsum_diagonal_is_a_view():
    def run(L):
        x = L.arange(9.0).reshape(3, 3)
        L.einsum("ii->i", x).mul_(10)
        return x
    same_on_both(run)


# -- add/sub alpha: a bool alpha needs a bool result (also on the float fast path, where True ==
# 1 used to pass for alpha=1), a bool result takes any alpha as a bool, and in place the
# result-type cast is checked before alpha ---------------------------------------------------
_ALPHA_TENSORS = {"f": lambda L: L.tensor([1.5, -2.0]), "i": lambda L: L.tensor([1, 2]),
                  "b": lambda L: L.tensor([True, False]),
                  "fg": lambda L: L.tensor([1.5, -2.0], requires_grad=True)}


@pytest.mark.parametrize("op", ["add", "sub", "add_", "sub_", "rsub", "Tensor.add"])
@pytest.mark.parametrize("a", sorted(_ALPHA_TENSORS))
@pytest.mark.parametrize("b", sorted(_ALPHA_TENSORS) + ["3", "2.5"])
def test_alpha_kinds(op, a, b):
    def run(L):
        out = []
        for alpha in (True, False, 2, 2.5, -1, 0, 1):
            x = _ALPHA_TENSORS[a](L)
            y = _ALPHA_TENSORS[b](L) if b in _ALPHA_TENSORS else float(b) if "." in b else int(b)
            try:
                if op.endswith("_"):
                    r = getattr(x.detach().clone(), op)(y, alpha=alpha)
                elif op == "Tensor.add":
                    r = x.add(y, alpha=alpha)
                else:
                    r = getattr(L, op)(x, y, alpha=alpha)
                out.append((r, type(r.grad_fn).__name__ if r.grad_fn else None))
            except Exception as e:   # noqa: BLE001 - the error is compared
                out.append((type(e).__name__, str(e)))
        return out
    same_on_both(run)


# -- in-place ops on an expanded tensor: most refuse it (internal overlap), index_fill_,
# index_put_ (advanced setitem), masked_fill_, tril_ and triu_ write the written places only
# (the last write to shared memory wins, accumulate adds each), with PyTorch's deprecation
# warnings (Note [Expanded writes] in ops/expanded_write.py) ---------------------------------
_EXPANDED = {
    "nan_to_num_": lambda L, x: x.nan_to_num_(), "add_": lambda L, x: x.add_(1),
    "fill_": lambda L, x: x.fill_(2.0), "clamp_": lambda L, x: x.clamp_(0, 1),
    "index_copy_": lambda L, x: x.index_copy_(1, L.tensor([0]), L.ones(2, 1)),
    "scatter_": lambda L, x: x.scatter_(1, L.tensor([[0], [1]]), 1.0),
    "index_fill_1": lambda L, x: x.index_fill_(1, L.tensor([0]), 2.0),
    "index_fill_0": lambda L, x: x.index_fill_(0, L.tensor([0]), 2.0),
    "index_fill_t": lambda L, x: x.index_fill_(0, L.tensor([1]), L.tensor(3.0)),
    "index_put": lambda L, x: x.index_put_((L.tensor([0]),), L.tensor(7.0)),
    "index_put_acc": lambda L, x: x.index_put_((L.tensor([0, 1]),), L.tensor(7.0),
                                               accumulate=True),
    "index_put_seq": lambda L, x: x.index_put_((L.tensor([1, 0]), L.tensor([1, 1])),
                                               L.tensor([7.0, 8.0])),
    "index_put_acc2": lambda L, x: x.index_put_((L.tensor([1, 0, 1]), L.tensor([1, 1, 2])),
                                                L.tensor([7.0, 8.0, 1.0]), accumulate=True),
    "index_put_mask": lambda L, x: x.index_put_((L.tensor([[True, False, True]] * 2),),
                                                L.tensor(4.0)),
    "tril_": lambda L, x: x.tril_(), "triu_": lambda L, x: x.triu_(),
    "tril_m1": lambda L, x: x.tril_(-1), "triu_1": lambda L, x: x.triu_(1),
    "set_index": lambda L, x: x.__setitem__(L.tensor([0]), 3.0),
    "set_mask": lambda L, x: x.__setitem__(L.tensor([[True, False, True], [False] * 3]), 4.0),
    "set_mask_slice": lambda L, x: x.__setitem__((slice(None), L.tensor([True, False, True])),
                                                 4.0),
    "set_pair": lambda L, x: x.__setitem__((L.tensor([1, 0]), L.tensor([2, 2])),
                                           L.tensor([5.0, 6.0])),
    "masked_fill_": lambda L, x: x.masked_fill_(L.tensor([True, False, False]), 9.0),
    "masked_fill_2d": lambda L, x: x.masked_fill_(L.tensor([[True, False, False],
                                                            [False, False, True]]), 9.0),
}


@pytest.mark.parametrize("kind", ["row", "col"])
@pytest.mark.parametrize("op", sorted(_EXPANDED))
def test_inplace_on_expanded(op, kind):
    import warnings

    def run(L):
        base = L.tensor([[1.0, 5.0, -0.25]]) if kind == "row" else L.tensor([[1.0],
                                                                                  [2.0]])
        x = base.expand(2, 3)
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            try:
                _EXPANDED[op](L, x)
                out = base
            except RuntimeError as e:
                out = str(e)
        return out, [str(m.message) for m in w]
    same_on_both(run)


# -- fill_ with a number: c10's checked conversion (int8 fill_(300), float fill_(1e40) refused;
# uint8 takes -1 as 255; a one-element half tensor takes anything, as inf); with a 0-d tensor:
# a cast (300 in int8 is 44); masked_fill_/index_fill_ the same checks -----------------------
_FILL_VALUES = [300, -1, 128, -129, 256, 1e6, 70000.0, 1e40, float("inf"), float("nan"), -0.5,
                2.5, True, 2 ** 31, 2 ** 63 - 1, -2 ** 63, 65504.0, 65520.0, -1e39]


@pytest.mark.parametrize("op", ["fill_", "fill_t", "fill_one", "fill_0d", "masked_fill_",
                                "index_fill_", "index_fill"])
@pytest.mark.parametrize("dtype", ["int8", "uint8", "int16", "int32", "int64", "bool",
                                   "float16", "float32", "float64"])
def test_fill_overflow(dtype, op):
    def run(L):
        out = []
        for v in _FILL_VALUES:
            x = L.zeros(3, dtype=getattr(L, dtype))
            try:
                if op == "fill_":
                    r = x.fill_(v)
                elif op == "fill_t":
                    r = x.fill_(L.tensor(v))
                elif op == "fill_one":
                    r = L.zeros(1, dtype=x.dtype).fill_(v)
                elif op == "fill_0d":
                    r = L.zeros((), dtype=x.dtype).fill_(v)
                elif op == "masked_fill_":
                    r = x.masked_fill_(L.tensor([True, False, True]), v)
                elif op == "index_fill_":
                    r = x.index_fill_(0, L.tensor([1]), v)
                else:
                    r = x.index_fill(0, L.tensor([1]), v)
                out.append([str(a) for a in r.reshape(-1).tolist()])
            except RuntimeError as e:
                out.append(str(e))
        return out
    same_on_both(run)


# -- an index out of bounds is only an error when something is read or written: an empty
# result (another dim of size 0, or empty indices) makes no check; an index over a dim of size
# 0 with elements is refused at setup --------------------------------------------------------
_EMPTY_INDEX = {
    "z03[:,5]": lambda L, T: L.zeros(0, 3)[:, T([5])],
    "z03[5]": lambda L, T: L.zeros(0, 3)[T([5])],
    "z30[5]": lambda L, T: L.zeros(3, 0)[T([5])],
    "z302[:,:,5]": lambda L, T: L.zeros(3, 0, 2)[:, :, T([5])],
    "z03[:,[5,-7]]": lambda L, T: L.zeros(0, 3)[:, T([5, -7])],
    "z043[:,5]": lambda L, T: L.zeros(0, 4, 3)[:, T([5])],
    "z403[5,:,1]": lambda L, T: L.zeros(4, 0, 3)[T([5]), :, T([1])],
    "z03[...,5]": lambda L, T: L.zeros(0, 3)[..., T([5])],
    "z03[None,:,5]": lambda L, T: L.zeros(0, 3)[None, :, T([5])],
    "z03[:,[5]]": lambda L, T: L.zeros(0, 3)[:, [5]],
    "z32[5 of empty]": lambda L, T: L.zeros(3, 2)[T([[5]])[:0]],
    "z32[5,[]]": lambda L, T: L.zeros(3, 2)[T([5]), T([], dtype=L.long)],
    "z32[:,5]": lambda L, T: L.zeros(3, 2)[:, T([5])],
    "z32[[5],[7]]": lambda L, T: L.zeros(3, 2)[T([5]), T([7])],
    "z32[[1],[7]]": lambda L, T: L.zeros(3, 2)[T([1]), T([7])],
    "shape mismatch first": lambda L, T: L.zeros(3, 2)[T([5, 6]), T([1, 0, 1])],
    "set z03[:,5]": lambda L, T: L.zeros(0, 3).__setitem__((slice(None), T([5])), 1.0),
    "set z03[:,5]=t": lambda L, T: L.zeros(0, 3).__setitem__((slice(None), T([5])),
                                                             L.ones(0, 1)),
    "set z03[5]": lambda L, T: L.zeros(0, 3).__setitem__(T([5]), 1.0),
    "put z03[:,5]": lambda L, T: L.zeros(0, 3).index_put_((L.arange(0), T([5])), T(1.0)),
    "put z03[5]": lambda L, T: L.zeros(0, 3).index_put_((T([5]),), T(1.0), accumulate=True),
    "set z32[:,5]": lambda L, T: L.zeros(3, 2).__setitem__((slice(None), T([5])), 1.0),
}


@pytest.mark.parametrize("case", sorted(_EMPTY_INDEX))
def test_empty_index_bounds(case):
    def run(L):
        return _EMPTY_INDEX[case](L, L.tensor)
    same_on_both(run)


# -- threshold keeps NaN (PyTorch: x <= threshold ? value : x), seed 46 x3 ------------------------
@pytest.mark.parametrize("dtype", ["float64", "float32", "float16"])
@pytest.mark.parametrize("call", ["threshold", "threshold_", "inplace"])
def test_threshold_nan(call, dtype):
    def run(L):
        x = L.tensor([float("nan"), 0.05, 0.1, 0.2, -1.0, -0.0], dtype=getattr(L, dtype))
        F = L.nn.functional
        if call == "threshold":
            out = F.threshold(x, 0.1, 5.0)
        elif call == "threshold_":
            out = F.threshold_(x[1:].clone(), 0.1, 0.0)
        else:
            out = F.threshold(x.clone(), -0.5, 2.0, inplace=True)
        return out.isnan(), out.nan_to_num(-7.0), _signs(out)
    same_on_both(run)


# -- isin refuses bool on either side, a Python bool too (seed 46 x7) ---------------------------
@pytest.mark.parametrize("case", ["bool_scalar", "int_true", "both_bool", "float_bool",
                                  "true_int", "int_float", "uint8"])
def test_isin_bool(case):
    def run(L):
        a, b = {"bool_scalar": (L.tensor([True, False]), 1), "int_true": (L.tensor([1, 2]), True),
                "both_bool": (L.tensor([True]), L.tensor([True])),
                "float_bool": (L.tensor([1.0]), L.tensor([True])),
                "true_int": (True, L.tensor([1])), "int_float": (L.tensor([1, 2]), L.tensor([1.5, 2.0])),
                "uint8": (L.tensor([1, 3], dtype=L.uint8), 1)}[case]
        return L.isin(a, b), L.isin(a, b, invert=True)
    same_on_both(run)


# -- lerp_ with a number weight saves no old self: an integer self with a history gets lerp's
# dtype check, not autograd's integer refusal (seed 46) ----------------------------------------
def test_lerp_inplace_integer_history():
    def run(L):
        x = L.tensor([1.5], requires_grad=True)
        y = L.tensor([-2])
        y.masked_fill_(L.tensor([True]), x.sum())   # int64 with a history
        out = []
        for w in (0.25, L.tensor(0.5)):
            try:
                y.lerp_(L.tensor([3.0]), w)
            except RuntimeError as e:
                out.append(str(e))
        z = x * 1
        z.lerp_(L.tensor([3.0]), 0.25).sum().backward()
        return out, x.grad
    same_on_both(run)
