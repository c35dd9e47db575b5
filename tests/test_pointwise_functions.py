"""torch.* helper functions (leafgrad/functions.py) against PyTorch 2.13."""
from __future__ import annotations

import pytest

from oracle import run_both


def same(program):
    mine, theirs = run_both(program)
    assert repr(mine) == repr(theirs), f"\nleafgrad: {mine}\ntorch:    {theirs}"


CASES = {
    "isclose_basic": lambda t: t.isclose(t.tensor([1.0, 2.0, 3.0]),
                                         t.tensor([1.0 + 1e-6, 2.1, 3.0])),
    "isclose_nan_inf": lambda t: t.isclose(t.tensor([1.0, float("nan"), float("inf"),
                                                     -float("inf")]),
                                           t.tensor([1.0, float("nan"), float("inf"),
                                                     float("inf")])),
    "isclose_equal_nan": lambda t: t.isclose(t.tensor([float("nan")]), t.tensor([float("nan")]),
                                             equal_nan=True),
    "isclose_int": lambda t: t.isclose(t.tensor([1, 10, 100]), t.tensor([1, 11, 104]),
                                       rtol=0.05),
    "isclose_bool": lambda t: t.isclose(t.tensor([True, False]), t.tensor([True, True])),
    "isclose_broadcast": lambda t: t.isclose(t.ones(2, 1), t.ones(3)),
    "isclose_tols": lambda t: t.isclose(t.tensor([1.0]), t.tensor([1.5]), rtol=0, atol=0.6),
    "isclose_dtype_mismatch": lambda t: t.isclose(t.tensor([1]), t.tensor([1.0])),
    "isclose_number": lambda t: t.isclose(t.tensor([1.0]), 1.0),
    "isclose_negative_rtol": lambda t: t.isclose(t.tensor([1.0]), t.tensor([1.0]), rtol=-1),
    "isclose_negative_atol": lambda t: t.isclose(t.tensor([1.0]), t.tensor([1.0]), atol=-1),
    "allclose_true": lambda t: t.allclose(t.tensor([1.0, 2.0]), t.tensor([1.0, 2.0 + 1e-9])),
    "allclose_false": lambda t: t.allclose(t.tensor([1.0, 2.0]), t.tensor([1.0, 2.5])),
    "allclose_mismatch": lambda t: t.allclose(t.tensor([1.0], dtype=t.float64),
                                              t.tensor([1])),
    "allclose_grad": lambda t: t.allclose(t.ones(2, requires_grad=True), t.ones(2)),
    "equal_true": lambda t: t.equal(t.tensor([1, 2]), t.tensor([1, 2])),
    "equal_dtypes": lambda t: t.equal(t.tensor([1, 2]), t.tensor([1.0, 2.0])),
    "equal_bool_int": lambda t: t.equal(t.tensor([True, False]), t.tensor([1, 0])),
    "equal_shapes": lambda t: t.equal(t.tensor([1, 2]), t.tensor([[1, 2]])),
    "equal_nan": lambda t: t.equal(t.tensor([float("nan")]), t.tensor([float("nan")])),
    "equal_number": lambda t: t.equal(t.tensor([1]), 1),
    "numel": lambda t: [t.numel(t.ones(2, 3)), t.numel(t.tensor(1.0)), t.numel(t.ones(0, 4))],
    "numel_number": lambda t: t.numel(3),
    "is_floating_point": lambda t: [t.is_floating_point(t.ones(1)),
                                    t.is_floating_point(t.tensor([1])),
                                    t.is_floating_point(t.ones(1, dtype=t.float16))],
    "is_floating_point_number": lambda t: t.is_floating_point(2.0),
    "is_complex": lambda t: t.is_complex(t.ones(1)),
    "is_nonzero": lambda t: [t.is_nonzero(t.tensor([0.0])), t.is_nonzero(t.tensor(2)),
                             t.is_nonzero(t.tensor([[True]]))],
    "is_nonzero_empty": lambda t: t.is_nonzero(t.tensor([])),
    "is_nonzero_many": lambda t: t.is_nonzero(t.tensor([1, 2])),
    "is_same_size": lambda t: [t.is_same_size(t.ones(2), t.zeros(2)),
                               t.is_same_size(t.ones(2), t.ones(1, 2))],
    "result_type": lambda t: [t.result_type(t.tensor([1]), 2.5), t.result_type(2, 2.5),
                              t.result_type(2, 3), t.result_type(True, 3),
                              t.result_type(t.tensor([1], dtype=t.int8), 2000),
                              t.result_type(t.tensor(2.0, dtype=t.float64),
                                            t.tensor([1], dtype=t.int16)),
                              t.result_type(t.tensor([1], dtype=t.uint8),
                                            t.tensor([1], dtype=t.int8)),
                              t.result_type(t.tensor(2), t.tensor([1.0], dtype=t.float16))],
    "can_cast": lambda t: [t.can_cast(a, b) for a in (t.bool, t.uint8, t.int64, t.float16,
                                                      t.float64)
                           for b in (t.bool, t.int8, t.int32, t.float32)],
    "broadcast_shapes": lambda t: [t.broadcast_shapes((2, 1), (3,)), t.broadcast_shapes(),
                                   t.broadcast_shapes(2, (3, 1)),
                                   t.broadcast_shapes(t.Size([2, 1]), [1, 4]),
                                   t.broadcast_shapes((0, 1), (1, 5)),
                                   t.broadcast_shapes((1,), (0,))],
    "broadcast_shapes_mismatch": lambda t: t.broadcast_shapes((2, 2), (3,)),
    "broadcast_shapes_mismatch_later": lambda t: t.broadcast_shapes((2, 3), (1, 3), (4,)),
    "broadcast_shapes_mismatch_inner": lambda t: t.broadcast_shapes((5, 2, 3), (4, 3)),
    "broadcast_shapes_negative": lambda t: t.broadcast_shapes((2, -1)),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_function_matches_torch(name):
    same(CASES[name])
