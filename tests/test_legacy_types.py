"""torch.FloatTensor & co. (leafgrad/_legacy_types.py) against PyTorch: construction from
data, sizes, nothing and tensors, isinstance by dtype, Tensor.type(cls), class repr, errors."""
from __future__ import annotations

import pytest
import torch

import leafgrad

CASES = {
    "long_from_floats": lambda T: T.LongTensor([1.7, -2.2]),
    "int": lambda T: T.IntTensor([1.7]),
    "sizes": lambda T: (T.FloatTensor(2, 3).shape, T.DoubleTensor(T.Size([2])).shape),
    "empty": lambda T: T.FloatTensor(),
    "others": lambda T: (T.ByteTensor([1, 2]), T.HalfTensor([1]), T.ShortTensor([1]),
                         T.CharTensor([1]), T.BoolTensor([True, False])),
    "isinstance": lambda T: (isinstance(T.ones(2), T.FloatTensor), isinstance(T.ones(2), T.DoubleTensor),
                             isinstance(T.ones(1, dtype=T.long), T.LongTensor), isinstance(3, T.LongTensor)),
    "type_cls": lambda T: (T.ones(2).type(T.DoubleTensor), T.ones(2).type(T.LongTensor).dtype),
    "repr": lambda T: (repr(T.FloatTensor), T.FloatTensor.__name__, T.FloatTensor.dtype,
                       type(T.FloatTensor([1])).__name__, issubclass(T.FloatTensor, T.Tensor)),
    "same_dtype_tensor": lambda T: T.FloatTensor(T.ones(2)),
    "other_dtype_tensor": lambda T: T.FloatTensor(T.ones(2, dtype=T.float64)),
    "scalar_data": lambda T: T.FloatTensor(1.5),
}


def _run(T, case):
    try:
        return repr(CASES[case](T))
    except Exception as e:   # the error is part of the behaviour compared
        return f"{type(e).__name__}: {e}"


@pytest.mark.parametrize("case", sorted(CASES))
def test_legacy_type_matches_torch(case):
    assert _run(leafgrad, case) == _run(torch, case)
