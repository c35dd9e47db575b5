"""Findings of session 8 fixed by the lead (fuzz seed 76)."""
from __future__ import annotations

import random

import pytest
from oracle import same_on_both

_EQS = ["ij,kj->i", "ij,jk->ik", "ij,ij->", "ij,j->", "i,j->", "ij,kl->", "ij,kl->ik",
        "ij,jk->", "i,i->i", "ij,ik->i", "...i,...i->...", "ij,ij->j", "i,i->",
        "ij,jk,kl->il", "ij,j,k->", "ij,ij,ij->i"]
_SHAPES = {"ij": [(2, 3), (1, 3), (2, 1), (1, 1)], "kj": [(4, 3), (1, 3), (4, 1)],
           "jk": [(3, 4), (1, 4), (3, 1)], "j": [(3,), (1,)], "i": [(2,), (1,)],
           "k": [(4,), (1,)], "kl": [(4, 2), (1, 1), (1, 2)], "ik": [(2, 4), (2, 1)],
           "...i": [(2, 3), (1, 3), (3,)]}
_DTYPES = ["bool", "int8", "uint8", "int64", "float32", "float64"]


def _cases(n, seed):
    r = random.Random(seed)
    for _ in range(n):
        eq = r.choice(_EQS)
        specs = eq.split("->")[0].split(",")
        yield eq, [(r.choice(_SHAPES[s]), r.choice(_DTYPES)) for s in specs]


# -- einsum's dtype: an operand PyTorch sums over a label before multiplying (its ``sum``)
# accumulates integers and bools in int64; bmm checks its first operand's dtype (Bool: not
# implemented) before comparing the two (seed 76) ---------------------------------------------
@pytest.mark.parametrize("eq,ops", list(_cases(120, 76)))
def test_einsum_integer_dtypes(eq, ops):
    def run(L):
        ts = [L.ones(shape, dtype=getattr(L, dt)) for shape, dt in ops]
        r = L.einsum(eq, *ts)
        return r.dtype, r
    same_on_both(run)


@pytest.mark.parametrize("eq", ["ij->", "ij->i", "ii->", "ii->i", "ij->ji"])
@pytest.mark.parametrize("dt", ["bool", "int8", "uint8", "int32", "float16"])
def test_einsum_single_operand_sum_dtype(eq, dt):
    def run(L):
        x = L.ones((2, 2), dtype=getattr(L, dt))
        r = L.einsum(eq, x)
        return r.dtype, r
    same_on_both(run)
