"""Output layouts as a property of each op record (``defop(layout=...)``, the kinds in
ops/iter_layout.py), checked against PyTorch's ``.stride()``: one op of each kind on inputs
where that kind is what makes leafgrad agree (the family default would not), and a survey of
every record with samples over transposed, permuted, sliced and expanded inputs."""
from __future__ import annotations

import warnings

import numpy as np
import pytest
import torch

import leafgrad
from leafgrad.ops import iter_layout as IL
from leafgrad.ops.registry import RECORDS
from oracle import assert_same_tensor
from test_iter_layout import _make


def _same_layout(mine, theirs, what=""):
    assert tuple(mine.shape) == tuple(theirs.shape), what
    assert tuple(mine.stride()) == tuple(theirs.stride()), \
        f"{what}: strides {tuple(mine.stride())} != torch {tuple(theirs.stride())}"
    assert mine.is_contiguous() == theirs.is_contiguous(), what
    assert_same_tensor(mine, theirs, atol=1e-6, what=what)


# -- the kinds, one record each -----------------------------------------------------------------
def test_representative_kinds():
    expected = {"add": IL.ITER, "exp": IL.ITER, "relu": IL.ITER, "mse_loss": IL.ITER,
                "sum": IL.RED, "linalg_vector_norm": IL.RED, "rsub": IL.REV,
                "where": IL.WHERE, "binary_cross_entropy_with_logits": IL.TARGET,
                "softmax": IL.CONTIG, "cumsum": IL.CONTIG, "sort": IL.SELF, "flip": IL.SELF,
                "slice_scatter": IL.STRIDES, "clone": IL.OWN, "glu": IL.OWN,
                "transpose": IL.OWN, "mm": IL.OWN}
    for name, kind in expected.items():
        assert RECORDS[name].layout == kind, (name, RECORDS[name].layout, kind)


def test_default_rule():
    # the family rule (one place) and the records that name another kind with ``layout=``
    assert IL.default_layout("mul", "pointwise", False) == IL.ITER
    assert IL.default_layout("gelu", "nn_activations", False) == IL.ITER
    assert IL.default_layout("mul_", "pointwise", False) == IL.OWN
    assert IL.default_layout("expand", "pointwise", True) == IL.OWN
    assert IL.default_layout("amax", "reduction", False) == IL.RED
    assert IL.default_layout("mm", "linalg", False) == IL.OWN
    for rec in RECORDS.values():   # a kind, or the record's own rule (a function)
        assert rec.layout in (IL.OWN, IL.ITER, IL.CONTIG, IL.SELF, IL.REV, IL.STRIDES,
                              IL.WHERE, IL.TARGET, IL.RED) or callable(rec.layout), rec.name
    assert callable(RECORDS["convolution"].layout) and callable(RECORDS["cat"].layout)


def _bool_expanded_last(L):
    v = np.random.default_rng(5).random((4, 3, 1)) > 0.5
    return L.tensor(v).expand(4, 3, 4)


# (record, its kind, the call on the library L); each input is chosen so that leafgrad
# agrees with PyTorch only through the record's kind: with the family default (or OWN where
# the default is the kind itself) the strides differ
KIND_CASES = [
    ("add", IL.ITER, lambda L: L.add(_make(L, "T", (4, 3, 4)), _make(L, "c", (4, 3, 4), seed=1))),
    ("mse_loss", IL.ITER, lambda L: L.nn.functional.mse_loss(
        _make(L, "T", (4, 3, 4)), _make(L, "c", (4, 3, 4), seed=1), reduction="none")),
    ("rsub", IL.REV, lambda L: L.rsub(_make(L, "c", (4, 3, 4)), _make(L, "T", (4, 3, 4), seed=1))),
    ("sort", IL.SELF, lambda L: L.sort(_make(L, "T", (4, 3, 4)), 0)[0]),
    ("huber_loss", IL.SELF, lambda L: L.nn.functional.huber_loss(
        _make(L, "T", (4, 3, 4)), _make(L, "c", (4, 3, 4), seed=1), reduction="none")),
    ("slice_scatter", IL.STRIDES, lambda L: L.slice_scatter(
        _make(L, "S", (4, 3, 4)), L.zeros(1, 3, 4, dtype=L.float64), 0, 0, 1)),
    ("slice_scatter", IL.STRIDES, lambda L: L.slice_scatter(
        _make(L, "T", (4, 3, 4)), L.zeros(1, 3, 4, dtype=L.float64), 0, 0, 1)),
    ("softmax", IL.CONTIG, lambda L: L.softmax(_make(L, "T", (4, 3, 4)), 0)),
    ("where", IL.WHERE, lambda L: L.where(
        _bool_expanded_last(L), _make(L, "T", (4, 3, 4), "float32"),
        _make(L, "c", (4, 3, 4), seed=2))),
    ("binary_cross_entropy_with_logits", IL.TARGET,
     lambda L: L.nn.functional.binary_cross_entropy_with_logits(
         _make(L, "c", (4, 3, 4)), _make(L, "T", (4, 3, 4), seed=1), reduction="none")),
    ("amax", IL.RED, lambda L: L.amax(_make(L, "P", (4, 3, 4)), 1, keepdim=True)),
    ("linalg_vector_norm", IL.RED, lambda L: L.linalg.vector_norm(
        _make(L, "P", (4, 3, 4)), dim=1, keepdim=True)),
    ("clone", IL.OWN, lambda L: L.clone(_make(L, "T", (4, 3, 4)))),
    ("clone", IL.OWN, lambda L: L.clone(_make(L, "TS", (4, 3, 4)))),
]


@pytest.mark.parametrize("name,kind,call", KIND_CASES,
                         ids=[f"{c[0]}-{i}" for i, c in enumerate(KIND_CASES)])
def test_kind_against_torch(name, kind, call):
    rec = RECORDS[name]
    assert rec.layout == kind
    expected = call(torch)
    _same_layout(call(leafgrad), expected, name)
    if kind == IL.OWN:
        return   # the forward's own layout: nothing else to take away
    default = IL.default_layout(rec.name, rec.family, rec.view)
    old = rec.layout
    rec.layout = default if default != kind else IL.OWN
    try:
        other = call(leafgrad)
    finally:
        rec.layout = old
    # the kind is what makes the two agree here (so this test can fail)
    assert tuple(other.stride()) != tuple(expected.stride()), name


# -- every record with samples, against torch's strides -----------------------------------------
# Each sample's array arguments made non-contiguous the same way on both libraries (the last
# two dims transposed, every dim reversed, a step on the last dim, the first row expanded;
# the first array only or all of them); every output's ``stride()`` and ``is_contiguous()``
# compared. Before session 10 fifteen records differed (einsum, x[idx], conv, batch norm,
# cat/stack, cdist, cross, addr, matmul, lu, topk, kthvalue's indices, nll_loss2d, unsqueeze).
from test_ops_registry import Maker, _as_list, _run  # noqa: E402

SURVEYED = sorted(name for name, rec in RECORDS.items() if rec.samples is not None)
SURVEY_SHAPES = [[(3, 4), (3, 4), (4,), (3, 1)], [(2, 3, 4), (2, 3, 4), (3, 4), (2, 1, 4)]]


def _np_layout(L, v, kind):
    dt = getattr(L, {"float64": "float64", "float32": "float32", "int64": "int64",
                     "bool": "bool", "int32": "int32"}.get(v.dtype.name, "float64"))
    if kind == "c" or v.ndim < 2:
        return L.tensor(v.copy(), dtype=dt)
    if kind == "T":
        return L.tensor(np.swapaxes(v, -1, -2).copy(), dtype=dt).transpose(-1, -2)
    if kind == "P":
        order = tuple(range(v.ndim))[::-1]
        return L.tensor(v.transpose(order).copy(), dtype=dt).permute(*order)
    if kind == "S":
        return L.tensor(np.repeat(v, 2, axis=-1), dtype=dt)[..., ::2]
    return L.tensor(v[:1].copy(), dtype=dt).expand(*v.shape)   # "E"


def _convert(L, a, kind, which, seen):
    if isinstance(a, np.ndarray):
        seen.append(a)
        return _np_layout(L, a, kind if which == "all" or len(seen) == 1 else "c")
    if isinstance(a, (list, tuple)) and any(isinstance(v, np.ndarray) for v in a):
        return type(a)(_convert(L, v, kind, which, seen) for v in a)
    if isinstance(a, leafgrad.dtype):
        return a if L is leafgrad else getattr(torch, a.name)
    return a


def _expanded_values(a, kind):
    if isinstance(a, np.ndarray) and kind == "E" and a.ndim >= 2:
        return np.broadcast_to(a[:1], a.shape).copy()
    if isinstance(a, (list, tuple)) and any(isinstance(v, np.ndarray) for v in a):
        return type(a)(_expanded_values(v, kind) for v in a)
    return a


@pytest.mark.parametrize("name", SURVEYED)
def test_record_output_strides_match_torch(name):
    rec = RECORDS[name]
    warnings.simplefilter("ignore")
    compared = 0   # noqa: F841 (kept for debugging)
    for si, shapes in enumerate(SURVEY_SHAPES):
        for sample in rec.samples(Maker(np.random.default_rng(si)), shapes):
            call = sample.call or (rec.functions[0] if rec.functions
                                   else "Tensor." + rec.methods[0])
            if call.endswith("_") and not call.endswith("__"):
                continue   # in-place: the output is the input
            for kind in ("T", "P", "S", "E"):
                for which in ("first", "all"):
                    args = tuple(_expanded_values(a, kind) for a in sample.args)
                    kwargs = {k: _expanded_values(v, kind) for k, v in sample.kwargs.items()}
                    outs = []
                    for L in (leafgrad, torch):
                        seen = []
                        a = tuple(_convert(L, x, kind, which, seen) for x in args)
                        kw = {k: _convert(L, v, kind, which, seen) for k, v in kwargs.items()}
                        try:
                            outs.append(_as_list(_run(L, call, a, kw)))
                        except Exception as exc:   # (errors are other tests' business)
                            outs.append(exc)
                    mine, theirs = outs
                    if isinstance(mine, Exception) or isinstance(theirs, Exception):
                        continue
                    for i, (m, t) in enumerate(zip(mine, theirs)):
                        if not isinstance(t, torch.Tensor) or t.dim() < 2 or t.numel() <= 1:
                            continue
                        what = f"{call} ({kind}, {which}, shapes {si}) output {i}"
                        assert tuple(m.shape) == tuple(t.shape), what
                        assert tuple(m.stride()) == tuple(t.stride()), \
                            f"{what}: strides {tuple(m.stride())} != torch {tuple(t.stride())}"
                        assert m.is_contiguous() == t.is_contiguous(), what
                        compared += 1
    # (a record whose samples give no output of two or more dims compares nothing here)


# -- the layouts fixed in session 10, on more inputs than the samples give ------------------
def _perm_tensor(L, shape, perm, seed=0, dtype="float64"):
    """A tensor of ``shape`` whose memory holds its dims in the order ``perm``."""
    v = np.random.default_rng(seed).standard_normal([shape[p] for p in perm])
    inv = [perm.index(i) for i in range(len(perm))]
    return L.tensor(v, dtype=getattr(L, dtype)).permute(*inv)


_CONV_PERMS = {1: [(0, 1, 2), (0, 2, 1), (2, 1, 0)],
               2: [(0, 1, 2, 3), (0, 2, 3, 1), (0, 1, 3, 2), (3, 2, 1, 0)],
               3: [(0, 1, 2, 3, 4), (0, 2, 3, 4, 1)]}


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("transposed", [False, True])
@pytest.mark.parametrize("nd", [1, 2, 3])
@pytest.mark.parametrize("batch", [1, 2])
def test_convolution_layout(nd, transposed, dtype, batch):
    # channels-last where PyTorch's CPU backend picks it (input or weight for 2-d, the weight
    # for 1-d, oneDNN's float32 for 3-d), else exactly contiguous (the batch-1 stride too)
    xs = (batch, 3) + (5, 6, 4)[:nd]
    ws = ((3, 4) if transposed else (4, 3)) + (2, 1, 2)[:nd]
    name = ("conv_transpose%dd" if transposed else "conv%dd") % nd
    for xp in _CONV_PERMS[nd]:
        for wp in _CONV_PERMS[nd]:
            outs = [getattr(L.nn.functional, name)(_perm_tensor(L, xs, xp, 1, dtype),
                                                   _perm_tensor(L, ws, wp, 2, dtype))
                    for L in (leafgrad, torch)]
            assert tuple(outs[0].stride()) == tuple(outs[1].stride()), (xp, wp)
            assert_same_tensor(outs[0], outs[1], atol=1e-4)


@pytest.mark.parametrize("training", [True, False])
def test_batch_norm_layout(training):
    import itertools
    for perm in itertools.permutations(range(4)):
        outs = [L.nn.functional.batch_norm(
            _perm_tensor(L, (2, 3, 4, 5), perm), L.zeros(3, dtype=L.float64),
            L.ones(3, dtype=L.float64), training=training) for L in (leafgrad, torch)]
        _same_layout(outs[0], outs[1], str(perm))


@pytest.mark.parametrize("op", ["cat", "stack"])
@pytest.mark.parametrize("shape", [(3, 4), (2, 3, 4), (2, 3, 4, 5), (2, 3, 2, 3, 2)])
def test_cat_stack_layout(op, shape):
    # contiguous, or channels-last where every input suggests it (stack: cat viewed)
    import itertools
    nd = len(shape)
    perms = list(itertools.permutations(range(nd)))[::(1 if nd < 5 else 11)]
    for p1 in perms:
        for p2 in (perms[0], perms[-1], p1):
            for dim in range(nd + (op == "stack")):
                outs = [getattr(L, op)([_perm_tensor(L, shape, p1, 1),
                                        _perm_tensor(L, shape, p2, 2, "float32")], dim)
                        for L in (leafgrad, torch)]
                _same_layout(outs[0], outs[1], f"{p1} {p2} {dim}")


def _index(L, v, kind):
    a = np.array(v)
    if kind == "T":
        return L.tensor(np.ascontiguousarray(a.T)).t()
    if kind == "S":
        return L.tensor(np.repeat(a, 2, axis=-1))[..., ::2]
    return L.tensor(a)


_KEYS = [
    lambda L: (_index(L, [0, 2], "c"),),
    lambda L: (slice(None), _index(L, [0, 2, 1], "c")),
    lambda L: (slice(None), slice(None), _index(L, [0, 1, 1, 0], "c")),
    lambda L: (_index(L, [0, 1], "c"), _index(L, [2, 0], "c")),
    lambda L: (_index(L, [0, 1], "c"), slice(None), _index(L, [2, 0], "c")),   # not adjacent
    lambda L: (_index(L, [[0, 1, 1], [1, 0, 1]], "T"),),
    lambda L: (slice(None), _index(L, [[0, 1, 1], [1, 0, 1]], "T")),
    lambda L: (_index(L, [[0], [1]], "c"), slice(None), _index(L, [[2, 0, 1]], "c")),
    lambda L: (_index(L, [0, 1, 1, 0], "S"),),
    lambda L: (L.tensor(np.array([True, False, True])),),
    lambda L: (slice(1, None), _index(L, [0, 2], "c")),
    lambda L: (Ellipsis, _index(L, [[0, 1], [1, 0]], "c")),
]


@pytest.mark.parametrize("step", [False, True])
@pytest.mark.parametrize("perm", [(0, 1, 2), (0, 2, 1), (2, 1, 0), (1, 2, 0)])
@pytest.mark.parametrize("key", range(len(_KEYS)))
def test_advanced_index_layout(key, perm, step):
    def run(L):
        x = _perm_tensor(L, (3, 3, 4), perm)
        if step:
            x = L.cat([x, x], 2)[..., ::2]
        return x[_KEYS[key](L)]
    _same_layout(run(leafgrad), run(torch))


_EINSUMS = [("ij,jk->ik", [(2, 3), (3, 4)]), ("ij,jk->ki", [(2, 3), (3, 4)]),
            ("bij,bjk->bik", [(2, 2, 3), (2, 3, 4)]), ("bij,bjk->kbi", [(2, 2, 3), (2, 3, 4)]),
            ("ij,j->i", [(2, 3), (3,)]), ("ij,k->ijk", [(2, 3), (4,)]),
            ("ij,ij->ji", [(2, 3), (2, 3)]), ("...j,jk->...k", [(2, 2, 3), (3, 2)]),
            ("ij,jk,kl->il", [(2, 3), (3, 2), (2, 4)]), ("ijk,jl->lik", [(2, 3, 4), (3, 5)]),
            ("bij,bkj->bik", [(3, 2, 4), (3, 5, 4)]), ("iJ,Jk->ik", [(2, 3), (3, 4)]),
            ("ijk,ikl->jl", [(2, 3, 4), (2, 4, 5)]), ("xi,xj->ij", [(4, 2), (4, 3)]),
            ("ijk->ki", [(2, 3, 4)]), ("bhqk,bhkd->bqhd", [(2, 2, 3, 5), (2, 2, 5, 4)])]


@pytest.mark.parametrize("eq,shapes", _EINSUMS, ids=[e for e, _ in _EINSUMS])
def test_einsum_layout(eq, shapes):
    import itertools
    import random
    combos = list(itertools.product(*[list(itertools.permutations(range(len(s))))
                                      for s in shapes]))
    random.Random(0).shuffle(combos)
    for perms in combos[:10]:
        outs = [L.einsum(eq, *[_perm_tensor(L, s, p, i) for i, (s, p) in
                               enumerate(zip(shapes, perms))]) for L in (leafgrad, torch)]
        _same_layout(outs[0], outs[1], str(perms))


@pytest.mark.parametrize("call", [
    lambda L, a: L.einsum("ij,jk->ik", a.t(), a), lambda L, a: a.t()[[0, 2]],
    lambda L, a: L.cat([a.t(), a.t()]), lambda L, a: L.stack([a.t(), a.t()]),
    lambda L, a: L.cdist(a.t(), a.t()), lambda L, a: L.matmul(a.t().expand(2, 3, 3), a),
    lambda L, a: L.topk(a.t(), 2)[0], lambda L, a: L.linalg.cross(a.t(), a),
    lambda L, a: L.addr(a.t(), a[0], a[1])])
def test_view_after_op(call):
    # the observable symptom: a later view(-1) works or raises as in PyTorch
    def run(L):
        return call(L, L.tensor(np.arange(9.0).reshape(3, 3) / 7)).view(-1)
    try:
        expected = run(torch)
    except RuntimeError as exc:
        with pytest.raises(RuntimeError, match="view size is not compatible"):
            run(leafgrad)
        assert "view size" in str(exc)
        return
    assert_same_tensor(run(leafgrad), expected)


def test_unsqueeze_stride():
    # the new dim's stride: the next dim's extent (1 at the end), not NumPy's
    for make in (lambda L: L.tensor(np.arange(12.0).reshape(4, 3)).t(),
                 lambda L: L.tensor(np.arange(24.0).reshape(3, 8))[:, ::2]):
        for d in range(3):
            _same_layout(make(leafgrad).unsqueeze(d), make(torch).unsqueeze(d), str(d))
