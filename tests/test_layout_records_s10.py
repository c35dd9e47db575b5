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
    for rec in RECORDS.values():
        assert rec.layout in (IL.OWN, IL.ITER, IL.CONTIG, IL.SELF, IL.REV, IL.STRIDES,
                              IL.WHERE, IL.TARGET, IL.RED), rec.name


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
