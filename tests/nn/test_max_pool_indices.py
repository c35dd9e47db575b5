"""Max pooling's saved indices against PyTorch 2.13: PyTorch's MaxPool{2,3}DWithIndicesBackward0
saves the input and the indices (``result1``), not the values, and its indices are the first
maximum of each window in scan order (the last NaN; the first real position of an all-``-inf``
window). Compared here: values (signs of zero too), indices, the ``_saved_*`` attributes,
gradients (bit for bit in float32 where windows overlap), double backward, and what an
in-place change of the input, the indices or the output does."""
from __future__ import annotations

import numpy as np
import pytest
import torch
from tests.nn.layer_oracle import same_error

import leafgrad

rng = np.random.default_rng(2026)

# (shape, kernel_size, kwargs): 1-d, 2-d and 3-d geometries with padding, dilation, ceil_mode,
# overlapping windows and gaps
CASES = [
    ("max_pool1d", (2, 3, 11), 3, {"stride": 2, "padding": 1}),
    ("max_pool1d", (3, 10), 2, {"dilation": 3, "ceil_mode": True}),
    ("max_pool2d", (2, 3, 8, 8), 2, {}),
    ("max_pool2d", (2, 3, 8, 8), 3, {"stride": 1, "padding": 1}),
    ("max_pool2d", (2, 2, 7, 6), (2, 3), {"stride": (2, 1), "padding": 1, "ceil_mode": True}),
    ("max_pool2d", (1, 2, 9, 9), 3, {"stride": 2, "dilation": 2, "padding": 1}),
    ("max_pool2d", (2, 8, 7), (3, 2), {"stride": (3, 2), "padding": (1, 1), "dilation": (2, 1),
                                       "ceil_mode": True}),
    ("max_pool2d", (2, 2, 6, 6), 2, {"stride": 3}),
    ("max_pool3d", (2, 2, 4, 5, 4), 2, {}),
    ("max_pool3d", (2, 5, 5, 5), 3, {"stride": 1, "padding": 1}),
    ("max_pool3d", (1, 2, 6, 5, 7), (2, 3, 2), {"stride": (1, 2, 3), "padding": 1,
                                                "dilation": (2, 1, 1), "ceil_mode": True}),
]
IDS = [f"{c[0]}-{i}" for i, c in enumerate(CASES)]


def _special(shape, kind):
    """Inputs full of ties: small integers, or those with -inf blocks, NaNs, zeros of both
    signs."""
    x = rng.integers(-2, 3, shape).astype(np.float64)
    if kind == "-inf":
        x[rng.random(shape) < 0.6] = -np.inf
        x[..., :3] = -np.inf            # whole windows of -inf, beside the padding
    elif kind == "nan":
        x[rng.random(shape) < 0.15] = np.nan
        x[rng.random(shape) < 0.2] = -np.inf
    elif kind == "zeros":
        x = np.where(rng.random(shape) < 0.5, -0.0, 0.0)
        x[rng.random(shape) < 0.1] = -1.0
    return x


def _pair(x, dtype, requires_grad=True):
    return (leafgrad.tensor(x.astype(dtype), requires_grad=requires_grad),
            torch.tensor(x.astype(dtype), requires_grad=requires_grad))


def _same_bits(a, b, what):
    a, b = a.detach().numpy(), b.detach().numpy()
    assert a.dtype == b.dtype and a.shape == b.shape, what
    if a.dtype.kind == "f":
        np.testing.assert_array_equal(np.signbit(a), np.signbit(b), err_msg=what + " (signs)")
    np.testing.assert_array_equal(a, b, err_msg=what)


@pytest.mark.parametrize("kind", ["ties", "-inf", "nan", "zeros"])
@pytest.mark.parametrize("dtype", ["float32", "float64", "int64"])
@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_values_and_indices_match_torch(case, dtype, kind):
    fn, shape, k, kw = case
    if dtype == "int64" and kind != "ties":
        return
    x = _special(shape, kind)
    for requires_grad in (False, True) if dtype != "int64" else (False,):
        m, t = _pair(x, dtype, requires_grad)
        vm, im = getattr(leafgrad.nn.functional, fn)(m, k, **kw, return_indices=True)
        vt, it = getattr(torch.nn.functional, fn)(t, k, **kw, return_indices=True)
        _same_bits(vm, vt, f"{fn} values")
        _same_bits(im, it, f"{fn} indices")
        # the values alone (no gradient: the values-only path; else the indices op)
        try:
            vt = getattr(torch.nn.functional, fn)(t, k, **kw)
        except NotImplementedError as e:   # max_pool1d of integers (without indices)
            with pytest.raises(NotImplementedError, match=str(e)):
                getattr(leafgrad.nn.functional, fn)(m, k, **kw)
            continue
        _same_bits(getattr(leafgrad.nn.functional, fn)(m, k, **kw), vt, f"{fn} values only")


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("kind", ["ties", "-inf", "nan"])
@pytest.mark.parametrize("indices", [False, True])
@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_gradients_match_torch_bit_for_bit(case, indices, kind, dtype):
    """The gradient goes to each window's index; where windows overlap, one input collects
    several in output order (PyTorch's float sum order)."""
    fn, shape, k, kw = case
    m, t = _pair(_special(shape, kind), dtype)
    ym = getattr(leafgrad.nn.functional, fn)(m, k, **kw, return_indices=indices)
    yt = getattr(torch.nn.functional, fn)(t, k, **kw, return_indices=indices)
    ym, yt = (ym[0], yt[0]) if indices else (ym, yt)
    assert type(ym.grad_fn).__name__ == type(yt.grad_fn).__name__
    cot = rng.standard_normal(tuple(yt.shape)).astype(dtype)
    ym.backward(leafgrad.tensor(cot))
    yt.backward(torch.tensor(cot))
    _same_bits(m.grad, t.grad, f"{fn} grad")


def _pool_node(y):
    fn = y.grad_fn
    while "MaxPool" not in type(fn).__name__:
        fn = fn.next_functions[0][0]
    return fn


CALLS = [
    ("nn.functional.max_pool2d", (2,), {}),
    ("nn.functional.max_pool2d", ([2, 3],), {"stride": [1], "padding": 1, "dilation": (1, 2)}),
    ("nn.functional.max_pool2d", (2,), {"return_indices": True}),
    ("nn.functional.max_pool2d", ((2,),), {"stride": 1, "ceil_mode": True}),
    ("max_pool2d", (2,), {}),
    ("max_pool2d", (2, 1), {}),
    ("max_pool2d", ([3, 2], [2, 1], 1), {}),
    ("nn.functional.max_pool1d", (2,), {}),
    ("nn.functional.max_pool1d", (2,), {"return_indices": True}),
    ("nn.functional.max_pool1d", (2,), {"stride": 1, "padding": 1}),
    ("nn.functional.max_pool1d", ([3],), {"stride": [2], "dilation": 2}),
    ("nn.functional.max_pool3d", (2,), {}),
    ("nn.functional.max_pool3d", (2,), {"return_indices": True}),
    ("nn.functional.max_pool3d", ([2, 1, 2], 1), {}),
    ("max_pool3d", (2,), {}),
    ("max_pool3d", (2, [1, 2, 1], 1, 1, True), {}),
]


def _resolve(lib, name):
    for part in name.split("."):
        lib = getattr(lib, part)
    return lib


@pytest.mark.parametrize("call", CALLS, ids=[f"{c[0]}-{i}" for i, c in enumerate(CALLS)])
def test_saved_attributes_match_torch(call):
    name, args, kw = call
    x = rng.standard_normal((2, 6, 6, 6) if "3d" in name else (2, 3, 6, 6))
    if "1d" in name:
        x = x[0]
    seen = []
    for lib in (leafgrad, torch):
        t = lib.tensor(x, requires_grad=True)
        y = _resolve(lib, name)(t, *args, **kw)
        y = y[0] if isinstance(y, tuple) else y
        node = _pool_node(y)
        saved = {a: getattr(node, a) for a in ("_saved_kernel_size", "_saved_stride",
                                               "_saved_padding", "_saved_dilation",
                                               "_saved_ceil_mode")}
        saved["names"] = (type(y.grad_fn).__name__, type(node).__name__)
        saved["self"] = node._saved_self.detach().numpy().tolist()
        idx = node._saved_result1
        saved["result1"] = (str(idx.dtype), idx.numpy().tolist())
        seen.append(saved)
    assert seen[0] == seen[1]


@pytest.mark.parametrize("dims", [2, 3])
def test_double_backward_matches_torch(dims):
    """The double backward gathers by the saved indices (``_saved_indices``); a third
    derivative goes through the gather."""
    shape = (2, 2, 6, 6) if dims == 2 else (1, 2, 4, 4, 4)
    x = _special(shape, "ties")
    out = []
    for lib in (leafgrad, torch):
        t = lib.tensor(x, requires_grad=True)
        pool = getattr(lib.nn.functional, f"max_pool{dims}d")
        y = pool(t, 3, stride=1, padding=1)
        cot = lib.tensor(np.arange(y.numel(), dtype=np.float64).reshape(y.shape),
                         requires_grad=True)
        (g,) = lib.autograd.grad(y, t, cot, create_graph=True)
        node = g.grad_fn
        w = lib.tensor(np.linspace(-1, 1, g.numel()).reshape(g.shape), requires_grad=True)
        (gg,) = lib.autograd.grad((g * w).sum(), cot, create_graph=True)
        (ggg,) = lib.autograd.grad((gg * gg).sum(), w)
        out.append((type(node).__name__, node._saved_indices.numpy().tolist(),
                    [type(f).__name__ if f is not None else None
                     for f, _ in node.next_functions],
                    type(gg.grad_fn).__name__, gg.detach().numpy().tolist(),
                    ggg.numpy().tolist()))
    assert out[0] == out[1]


# -- version counters: the input and the indices are saved, the values are not ---------------
@pytest.mark.parametrize("dims", [1, 2, 3])
@pytest.mark.parametrize("return_indices", [False, True])
def test_input_changed_in_place_is_caught(dims, return_indices):
    def run(lib):
        x = lib.tensor(rng.standard_normal((1, 2) + (4,) * dims), requires_grad=True)
        h = x * 1
        if dims == 1:
            h = h[0]
        y = getattr(lib.nn.functional, f"max_pool{dims}d")(h, 2, return_indices=return_indices)
        h.add_(1)
        (y[0] if return_indices else y).sum().backward()
    same_error(lambda: run(leafgrad), lambda: run(torch))


@pytest.mark.parametrize("dims", [1, 2, 3])
def test_indices_changed_in_place_are_caught(dims):
    def run(lib):
        x = lib.tensor(rng.standard_normal((1, 2) + (4,) * dims), requires_grad=True)
        y, i = getattr(lib.nn.functional, f"max_pool{dims}d")(x, 2, return_indices=True)
        i.add_(1)
        y.sum().backward()
    same_error(lambda: run(leafgrad), lambda: run(torch))


@pytest.mark.parametrize("dims", [1, 2, 3])
@pytest.mark.parametrize("return_indices", [False, True])
@pytest.mark.parametrize("change", ["relu_", "mul_", "zero_"])
def test_output_changed_in_place_is_allowed(dims, return_indices, change):
    x = _special((2, 2) + (4,) * dims, "ties")
    grads = []
    for lib in (leafgrad, torch):
        t = lib.tensor(x, requires_grad=True)
        y = getattr(lib.nn.functional, f"max_pool{dims}d")(t, 2, return_indices=return_indices)
        y = y[0] if return_indices else y
        getattr(y, change)(*((-2.0,) if change == "mul_" else ()))
        y.backward(lib.tensor(np.arange(y.numel(), dtype=np.float64).reshape(y.shape)))
        grads.append((y._version, type(y.grad_fn).__name__, t.grad.numpy().tolist()))
    assert grads[0] == grads[1]


def test_second_backward_through_freed_graph_is_refused():
    def run(lib):
        x = lib.tensor(rng.standard_normal((1, 2, 4, 4)), requires_grad=True)
        y = lib.nn.functional.max_pool2d(x, 2)
        y.sum().backward()
        y.sum().backward()
    same_error(lambda: run(leafgrad), lambda: run(torch))


def test_saved_indices_after_backward_are_freed():
    def run(lib):
        x = lib.tensor(rng.standard_normal((1, 2, 4, 4)), requires_grad=True)
        y = lib.nn.functional.max_pool2d(x, 2)
        y.sum().backward()
        return y.grad_fn._saved_result1
    same_error(lambda: run(leafgrad), lambda: run(torch))


def test_no_grad_and_integer_inputs_record_nothing():
    x = rng.standard_normal((1, 2, 4, 4))
    for lib in (leafgrad, torch):
        t = lib.tensor(x, requires_grad=True)
        with lib.no_grad():
            assert lib.max_pool2d(t, 2).grad_fn is None
        assert lib.nn.functional.max_pool2d(lib.tensor(x).long(), 2).grad_fn is None
