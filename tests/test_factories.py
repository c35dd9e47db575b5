"""Factories against PyTorch 2.13: values, dtypes, shapes, warnings and error messages."""
from __future__ import annotations

import numpy as np
import pytest
import torch

import leafgrad
from dual import assert_same

TENSOR_CASES = r"""
torch.tensor([])
torch.tensor([[]])
torch.tensor([[], []])
torch.tensor([[], [1]])
torch.tensor(3)
torch.tensor(2.5)
torch.tensor(True)
torch.tensor([1, 2.0])
torch.tensor([True, 1])
torch.tensor([True, False])
torch.tensor([[1, 2], [3, 4.]])
torch.tensor([[1.], [2.]])
torch.tensor([[[1]], [[2]]])
torch.tensor((1, 2))
torch.tensor([(1, 2), [3, 4]])
torch.tensor(range(3))
torch.tensor([range(2), range(2)])
torch.tensor(np.float64(1.5))
torch.tensor(np.float32(3))
torch.tensor(np.int32(3))
torch.tensor(np.uint8(1))
torch.tensor(np.bool_(True))
torch.tensor([np.float32(1), 2])
torch.tensor([np.int32(1), 2])
torch.tensor([np.int32(1)])
torch.tensor([np.int16(1), np.int16(2)])
torch.tensor([np.float16(1)])
torch.tensor([np.float64(1), 2])
torch.tensor([np.float32(1), np.float64(2)])
torch.tensor([1.5, np.float64(1)])
torch.tensor([np.uint8(1)])
torch.tensor([np.bool_(True)])
torch.tensor([torch.tensor(1.), torch.tensor(2.)])
torch.tensor([torch.tensor(1, dtype=torch.float64), 2])
torch.tensor([torch.tensor(1, dtype=torch.int32), 2])
torch.tensor([torch.tensor(2, dtype=torch.int32)])
torch.tensor([torch.tensor(2, dtype=torch.uint8)])
torch.tensor([torch.tensor(True), 1])
torch.tensor([torch.tensor([2.])])
torch.tensor([torch.tensor([2.]), torch.tensor([3.])])
torch.tensor([torch.tensor([1, 2]), torch.tensor([3, 4])])
torch.tensor([torch.tensor([True, False])])
torch.tensor([np.array([1.0, 2]), np.array([1., 2])])
torch.tensor([np.array([1, 2], dtype=np.int32)])
torch.tensor(np.array([1, 2], dtype=np.int32))
torch.tensor(np.array(3.0))
torch.tensor(np.ones((2, 3)).T).stride()
torch.tensor(np.ones((2, 3))[:, ::2]).stride()
torch.tensor([[1, 2], [3]])
torch.tensor([[1], [2, 3]])
torch.tensor([[1, 2], 3])
torch.tensor([[1], 2])
torch.tensor([1, [2]])
torch.tensor([1.0, [2]])
torch.tensor([True, [2]])
torch.tensor([1.0, [2]], dtype=torch.int64)
torch.tensor([1, [2]], dtype=torch.float32)
torch.tensor([1, [2]], dtype=torch.bool)
torch.tensor("a")
torch.tensor(["a"])
torch.tensor(["a", 1])
torch.tensor([1, "a"])
torch.tensor(None)
torch.tensor([None])
torch.tensor([1, None])
torch.tensor({1: 2})
torch.tensor([None], dtype=torch.float32)
torch.tensor([None], dtype=torch.int64)
torch.tensor(None, dtype=torch.float32)
torch.tensor(2**63)
torch.tensor(-2**63 - 1)
torch.tensor([1, 2**63])
torch.tensor([1, 2**63], dtype=torch.float32)
torch.tensor(2**62, dtype=torch.float32)
torch.tensor(1e300, dtype=torch.float32)
torch.tensor(70000, dtype=torch.float16)
torch.tensor(1e39, dtype=torch.float16)
torch.tensor(3.7, dtype=torch.int64)
torch.tensor(-3.7, dtype=torch.int64)
torch.tensor([1, 2.5], dtype=torch.int32)
torch.tensor([1.5, 2], dtype=torch.bool)
torch.tensor([1.5, float('nan')], dtype=torch.bool)
torch.tensor(True, dtype=torch.float32)
torch.tensor(True, dtype=torch.int8)
torch.tensor(300, dtype=torch.uint8)
torch.tensor([300], dtype=torch.uint8)
torch.tensor(-1, dtype=torch.uint8)
torch.tensor([-1], dtype=torch.uint8)
torch.tensor(-128, dtype=torch.uint8)
torch.tensor(-129, dtype=torch.uint8)
torch.tensor(255, dtype=torch.int8)
torch.tensor(-129, dtype=torch.int8)
torch.tensor(200, dtype=torch.int8)
torch.tensor(2**31, dtype=torch.int32)
torch.tensor(-2**40, dtype=torch.int32)
torch.tensor(1e10, dtype=torch.int32)
torch.tensor(2.5e9, dtype=torch.uint8)
torch.tensor(-1.5, dtype=torch.uint8)
torch.tensor(255.9, dtype=torch.uint8)
torch.tensor(float('nan'), dtype=torch.int64)
torch.tensor(float('inf'), dtype=torch.int64)
torch.tensor([1.5, float('nan')], dtype=torch.int32)
torch.tensor(np.array([300]), dtype=torch.uint8)
torch.tensor(np.int64(300), dtype=torch.uint8)
torch.tensor([[1, 2], [3, 4]], dtype=float)
torch.tensor([1, 2], dtype=int)
torch.tensor([1, 2], dtype=bool)
torch.tensor([1, 2], dtype=np.float32)
torch.tensor([1, 2], dtype="float32")
torch.tensor(5, dtype=torch.float16)
torch.tensor(1, requires_grad=True)
torch.tensor([1, 2], requires_grad=True, dtype=torch.float64)
torch.tensor(1., requires_grad=True)
torch.tensor(1., requires_grad=1)
torch.tensor(1., requires_grad=None)
torch.tensor(1., pin_memory=True)
torch.tensor(1., device="cpu")
torch.tensor(1., device="cpu:0")
torch.tensor(1., device=torch.device("cpu"))
torch.tensor(1., device="foo")
torch.tensor(torch.tensor([1., 2], requires_grad=True))
torch.tensor(torch.tensor([1., 2]), dtype=torch.int64)
torch.tensor(torch.tensor([1., 2]), requires_grad=True)
torch.tensor()
torch.tensor([1], [2])
torch.tensor(data=[1])
torch.tensor([[1, 2]], dtype=torch.float64).stride()
"""

FILL_CASES = r"""
torch.zeros(2, 3)
torch.zeros((2, 3))
torch.zeros([2, 3])
torch.zeros(torch.Size([2]))
torch.zeros(())
torch.zeros([])
torch.zeros(0)
torch.zeros(2, 0)
torch.zeros(2, 3, dtype=torch.int32)
torch.zeros(2, dtype=torch.float16)
torch.zeros(-1)
torch.zeros(2, -3)
torch.zeros(2.5)
torch.zeros((2, 2.5))
torch.zeros("a")
torch.zeros(True)
torch.zeros((True, 2))
torch.zeros(2, (3,))
torch.zeros(2, dtype="float32")
torch.zeros(torch.tensor(3))
torch.zeros(torch.tensor(2.))
torch.zeros(np.int64(3))
torch.zeros(size=(2, 3))
torch.zeros(2, requires_grad=True)
torch.zeros(2, dtype=torch.int64, requires_grad=True)
torch.zeros(2, 3, device="cpu")
torch.zeros()
torch.ones(2, dtype=torch.bool)
torch.ones(2, 3, dtype=torch.float64)
torch.ones(-1)
torch.ones(2, 2.5)
torch.ones(3, requires_grad=True)
torch.empty(2, 3).shape
torch.empty(2, 3).dtype
torch.empty(2, dtype=torch.int32).dtype
torch.empty(-1)
torch.empty(2, -1)
torch.empty("a")
torch.full((2,), 3)
torch.full((2,), 3.0)
torch.full((2,), True)
torch.full((2,), 3, dtype=torch.float64)
torch.full([2, 2], 1.5)
torch.full((), 7)
torch.full((-1,), 2)
torch.full(2, 3)
torch.full((2,), torch.tensor(2.5))
torch.full((2,), torch.tensor(3, dtype=torch.int32))
torch.full((2,), torch.tensor(True))
torch.full((2,), torch.tensor([1., 2]))
torch.full((2,), np.float64(1.5))
torch.full((2,), np.int32(2))
torch.full((2,), 2.5, dtype=torch.int64)
torch.full((2,), 2.5, dtype=torch.bool)
torch.full((2,), -1, dtype=torch.uint8)
torch.full((2,), 300, dtype=torch.uint8)
torch.full((2,), 200, dtype=torch.int8)
torch.full((2,), 200, dtype=torch.int16)
torch.full((2,), 2**40, dtype=torch.int16)
torch.full((2,), 2**40, dtype=torch.int32)
torch.full((2,), 2.5e10, dtype=torch.int32)
torch.full((2,), float('nan'), dtype=torch.int64)
torch.full((2,), float('inf'))
torch.full((2,), 2**63)
torch.full((2,), 1e39, dtype=torch.float32)
torch.full((2,), 1e39, dtype=torch.float16)
torch.full((2,), "a")
torch.full((2,), None)
torch.full((2,), [1])
torch.full((2,), 3, requires_grad=True)
torch.full((2,), 3., requires_grad=True)
torch.scalar_tensor(3)
torch.scalar_tensor(3, dtype=torch.int64)
torch.scalar_tensor(True)
torch.eye(3)
torch.eye(2, 3)
torch.eye(3, 2)
torch.eye(2, dtype=torch.int64)
torch.eye(2, dtype=torch.bool)
torch.eye(2, 3, dtype=torch.float64)
torch.eye(0)
torch.eye(-1)
torch.eye(2, -1)
torch.eye(2.0)
torch.eye(True)
torch.eye(np.int64(2))
torch.eye(torch.tensor(2))
torch.eye(2, requires_grad=True)
"""

LIKE_CASES = r"""
torch.zeros_like(torch.tensor([1, 2]))
torch.zeros_like(torch.tensor([1., 2], requires_grad=True))
torch.zeros_like(torch.tensor(1.), dtype=torch.int64)
torch.zeros_like([1, 2])
torch.zeros_like(torch.tensor([1, 2]), requires_grad=True)
torch.zeros_like(torch.tensor([1., 2]), requires_grad=True)
torch.ones_like(torch.tensor([1, 2]), dtype=torch.float64)
torch.ones_like(torch.tensor([[True]]))
torch.full_like(torch.tensor([1, 2]), 2.7)
torch.full_like(torch.tensor([1., 2]), 2)
torch.full_like(torch.tensor([True]), 2)
torch.full_like(torch.tensor([1, 2]), 2.7, dtype=torch.float32)
torch.full_like(torch.tensor([1, 2], dtype=torch.uint8), 300)
torch.full_like(torch.tensor([1., 2]), "a")
torch.empty_like(torch.zeros(2, 3, dtype=torch.float64)).dtype
torch.empty_like(torch.zeros(2, 3, dtype=torch.float64)).shape
"""

RANGE_CASES = r"""
torch.arange(5)
torch.arange(5.)
torch.arange(1, 4)
torch.arange(1, 4, 0.5)
torch.arange(0, 1, 0.1)
torch.arange(0, 1, 0.1, dtype=torch.float64)
torch.arange(-1, 1, 0.3)
torch.arange(1, 2.5, 0.25, dtype=torch.float64)
torch.arange(0.1, 1.0, 0.3)
torch.arange(1, 2, 0.1)
torch.arange(0, 0.3, 0.1)
torch.arange(0, 1.0000001, 0.1)
torch.arange(10, 0, -3)
torch.arange(10, 0, -2.5)
torch.arange(0, 10, -1)
torch.arange(10, 0, 1)
torch.arange(0, 10, 0)
torch.arange(5, dtype=torch.float32)
torch.arange(5, dtype=torch.float16)
torch.arange(5.5, dtype=torch.int64)
torch.arange(0, 5, 1.5, dtype=torch.int64)
torch.arange(-2.5, 2.5, dtype=torch.int32)
torch.arange(torch.tensor(3))
torch.arange(torch.tensor(3.))
torch.arange(np.float64(3))
torch.arange(np.int32(3))
torch.arange(0)
torch.arange(True)
torch.arange(3, requires_grad=True)
torch.arange(3., requires_grad=True)
torch.arange(0, float('inf'))
torch.arange(0, float('nan'))
torch.arange(1e7, 1e7 + 3, 1.0, dtype=torch.float32)
torch.arange(0, 2**40, 2**38)
torch.arange(0.5, 3)
torch.arange(start=1, end=3)
torch.arange(end=3)
torch.arange(3, dtype=torch.uint8)
torch.arange(3, dtype=torch.bool)
torch.linspace(0, 1, 5)
torch.linspace(-1, 1, 7)
torch.linspace(0, 1, 7, dtype=torch.float64)
torch.linspace(0, 10, 4, dtype=torch.int64)
torch.linspace(0, 7, 8, dtype=torch.int32)
torch.linspace(0, 1, 1)
torch.linspace(0, 1, 0)
torch.linspace(0, 1, -1)
torch.linspace(3, 3, 3)
torch.linspace(1, 0, 4)
torch.linspace(torch.tensor(0.), torch.tensor(1.), 3)
torch.linspace(0.3, 7.9, 10)
torch.linspace(-5, 5, 11)
torch.linspace(0, 1, 3, requires_grad=True)
torch.logspace(0, 2, 3)
torch.logspace(0, 2, 3, base=2)
torch.logspace(0, 2, 3, dtype=torch.int64)
"""

LEGACY_CASES = r"""
torch.Tensor([1, 2])
torch.Tensor([True, False])
torch.Tensor([[1, 2], [3, 4]])
torch.Tensor(2, 3).shape
torch.Tensor(3).shape
torch.Tensor((2, 3))
torch.Tensor()
torch.Tensor(np.array([1, 2]))
torch.Tensor(np.array([1., 2]))
torch.Tensor(torch.tensor([1, 2]))
torch.Tensor(torch.tensor([1., 2]))
torch.Tensor(torch.Size([2, 3])).shape
torch.Tensor([1, 2], device="cpu")
torch.Tensor(-1)
torch.Tensor(2.5)
torch.tensor([1, 2]).new_tensor([3, 4])
torch.tensor([1., 2]).new_tensor([3, 4])
torch.tensor([1., 2], dtype=torch.float64).new_tensor([3, 4], dtype=torch.int32)
torch.tensor([1., 2], requires_grad=True).new_tensor([3., 4])
torch.tensor([1., 2]).new_tensor([3., 4], requires_grad=True)
torch.tensor([1., 2]).new_tensor(torch.tensor([3, 4]))
torch.tensor([1, 2]).new_zeros(2, 3)
torch.tensor([1, 2]).new_zeros((2, 3))
torch.tensor([1., 2], dtype=torch.float64).new_ones(2)
torch.tensor([1., 2]).new_full((2,), 7)
torch.tensor([1, 2]).new_full((2,), 7.5)
torch.tensor([1, 2]).new_empty(3).shape
torch.tensor([1, 2]).new_empty(3).dtype
torch.tensor([1., 2]).new_zeros(2, requires_grad=True)
torch.tensor([1., 2]).new_zeros(2, dtype=torch.int64)
torch.tensor([1., 2]).new_ones(())
torch.tensor([1., 2]).new_ones([])
torch.tensor([1., 2]).new_full(2, 1)
torch.tensor([1, 2]).new_ones(2, requires_grad=True)
"""


def _cases(block):
    return [line for line in block.strip().splitlines() if line.strip()]


@pytest.mark.parametrize("expr", _cases(TENSOR_CASES))
def test_tensor(expr):
    assert_same(expr)


@pytest.mark.parametrize("expr", _cases(FILL_CASES))
def test_filled(expr):
    assert_same(expr)


@pytest.mark.parametrize("expr", _cases(LIKE_CASES))
def test_like(expr):
    assert_same(expr)


@pytest.mark.parametrize("expr", _cases(RANGE_CASES))
def test_ranges(expr):
    assert_same(expr)


@pytest.mark.parametrize("expr", _cases(LEGACY_CASES))
def test_legacy_and_new(expr):
    assert_same(expr)


def test_arange_float_steps_bit_equal():
    """Float ranges agree bit for bit over many starts and steps (float32 and float64)."""
    rng = np.random.default_rng(0)
    for _ in range(300):
        start = float(np.round(rng.uniform(-5, 5), int(rng.integers(0, 4))))
        step = float(np.round(rng.uniform(0.01, 2), int(rng.integers(1, 4)))) or 0.5
        end = start + float(rng.uniform(0, 20)) * (1 if rng.random() < 0.8 else 0.01)
        if rng.random() < 0.3:
            start, end, step = end, start, -step
        for dtype in ("float32", "float64"):
            mine = leafgrad.arange(start, end, step, dtype=getattr(leafgrad, dtype))
            theirs = torch.arange(start, end, step, dtype=getattr(torch, dtype))
            np.testing.assert_array_equal(mine.numpy(), theirs.numpy(),
                                          err_msg=f"arange({start}, {end}, {step}, {dtype})")


def test_linspace_bit_equal():
    rng = np.random.default_rng(1)
    for _ in range(300):
        start, end = (float(np.round(v, 3)) for v in rng.uniform(-10, 10, 2))
        steps = int(rng.integers(0, 40))
        for dtype in ("float32", "float64", "int64"):
            mine = leafgrad.linspace(start, end, steps, dtype=getattr(leafgrad, dtype))
            theirs = torch.linspace(start, end, steps, dtype=getattr(torch, dtype))
            np.testing.assert_array_equal(mine.numpy(), theirs.numpy(),
                                          err_msg=f"linspace({start}, {end}, {steps}, "
                                                  f"{dtype})")


def test_logspace_close():
    for args in [(0, 3, 7), (-2, 2, 9, 2.0), (1, 0, 5, 3.0)]:
        assert_same(f"torch.logspace{args}", exact=False, atol=1e-6)


def test_other_devices_raise_a_clear_error():
    for dev in ("cuda", "cuda:0", "mps"):
        with pytest.raises(RuntimeError, match="CPU only"):
            leafgrad.tensor(1.0, device=dev)
        with pytest.raises(RuntimeError, match="CPU only"):
            leafgrad.zeros(2, device=dev)


def test_tensor_of_tensor_copies_and_drops_history():
    src = leafgrad.tensor([1.0, 2.0], requires_grad=True)
    with pytest.warns(UserWarning, match="sourceTensor.detach"):
        out = leafgrad.tensor(src)
    assert out.data_ptr() != src.data_ptr()
    assert out.is_leaf and not out.requires_grad


def test_as_tensor_and_from_numpy_share_memory():
    a = np.zeros(3)
    t = leafgrad.as_tensor(a)
    f = leafgrad.from_numpy(a)
    a[1] = 7.0
    assert f.tolist()[1] == 7.0 and t.tolist()[1] == 7.0
    assert f.data_ptr() == a.__array_interface__["data"][0] == t.data_ptr()
    # a dtype change or Python data copies
    c = leafgrad.as_tensor(a, dtype=leafgrad.float32)
    assert c.data_ptr() != a.__array_interface__["data"][0]
    data = [1.0, 2.0]
    assert leafgrad.as_tensor(data).tolist() == data
    # a tensor passes through as itself
    x = leafgrad.tensor([1.0, 2.0], requires_grad=True)
    assert leafgrad.as_tensor(x) is x
    assert torch.as_tensor(torch.tensor([1.0])).dtype == torch.float32  # oracle sanity


def test_as_tensor_like_torch():
    for expr in ["torch.as_tensor([1, 2])", "torch.as_tensor([1., 2], dtype=torch.float64)",
                 "torch.as_tensor(np.array([1, 2], dtype=np.int32))",
                 "torch.as_tensor(torch.tensor([1, 2]), dtype=torch.float32)",
                 "torch.as_tensor(3.5)", "torch.from_numpy(np.arange(3.))",
                 "torch.from_numpy([1, 2])", "torch.asarray([1, 2.5])",
                 "torch.asarray(np.ones(2), dtype=torch.float32)"]:
        assert_same(expr)


@pytest.fixture
def float64_default():
    leafgrad.set_default_dtype(leafgrad.float64)
    torch.set_default_dtype(torch.float64)
    yield
    leafgrad.set_default_dtype(leafgrad.float32)
    torch.set_default_dtype(torch.float32)


@pytest.mark.parametrize("expr", [
    "torch.tensor(1.0)", "torch.tensor([1, 2.5])", "torch.tensor([1, 2])", "torch.zeros(2)",
    "torch.ones(2)", "torch.full((2,), 1.5)", "torch.arange(0., 1., 0.1)",
    "torch.linspace(0, 1, 7)", "torch.eye(2)", "torch.Tensor([1, 2])", "torch.get_default_dtype()",
    "torch.tensor([np.float32(1), 2])", "torch.scalar_tensor(2)", "torch.empty(2).dtype",
    "torch.tensor([1.]) + torch.tensor([1], dtype=torch.int64)",
])
def test_default_dtype_float64(float64_default, expr):
    assert_same(expr)


def test_set_default_dtype_rejects_integers():
    assert_same("torch.set_default_dtype(torch.int64)")
