"""``out=`` of torch.add/sub/mul/div/matmul/mm/bmm/cat/stack (ops/out_variants.py), against
PyTorch: the result written into ``out`` (and returned), the resize warning, the errors; and
the methods, which take no out=."""
import warnings

import numpy as np
import pytest
import torch

import leafgrad

from oracle import assert_same_error

A = np.array([[1.0, -2.0], [3.5, 4.0]], np.float32)
B = np.array([[0.5, 2.0], [-1.0, 3.0]], np.float32)

CALLS = [
    ("add", lambda m, a, b: (a, b), {"alpha": 2}),
    ("sub", lambda m, a, b: (a, 3), {}),
    ("mul", lambda m, a, b: (a, b), {}),
    ("div", lambda m, a, b: (a, b), {"rounding_mode": "floor"}),
    ("div", lambda m, a, b: (a, b), {}),
    ("matmul", lambda m, a, b: (a, b), {}),
    ("mm", lambda m, a, b: (a, b), {}),
    ("bmm", lambda m, a, b: (a.unsqueeze(0), b.unsqueeze(0)), {}),
    ("cat", lambda m, a, b: ([a, b],), {"dim": 1}),
    ("stack", lambda m, a, b: ([a, b],), {}),
]


def _run(m, name, make_args, kwargs, out):
    a, b = m.tensor(A), m.tensor(B)
    return getattr(m, name)(*make_args(m, a, b), **kwargs, out=out)


@pytest.mark.parametrize("name,make_args,kwargs", CALLS)
@pytest.mark.parametrize("out_shape", ["same", "empty", "other"])
def test_out_written_and_returned(name, make_args, kwargs, out_shape):
    results = {}
    for m in (leafgrad, torch):
        a, b = m.tensor(A), m.tensor(B)
        full = getattr(m, name)(*make_args(m, a, b), **kwargs)
        shape = {"same": tuple(full.shape), "empty": (0,), "other": (3,)}[out_shape]
        out = m.zeros(shape)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            got = _run(m, name, make_args, kwargs, out)
        assert got is out
        results[m.__name__] = (out.numpy().tolist(), str(out.dtype).split(".")[-1],
                               tuple(out.shape), [str(w.message) for w in caught],
                               [w.filename for w in caught])
    mine, theirs = results["leafgrad"], results["torch"]
    assert mine[:4] == theirs[:4]
    assert all(f == __file__ for f in mine[4])   # the warning names the caller's line


@pytest.mark.parametrize("name,make_args,kwargs", CALLS)
def test_out_refuses_inputs_requiring_grad(name, make_args, kwargs):
    def call(m):
        a, b = m.tensor(A, requires_grad=True), m.tensor(B)
        return getattr(m, name)(*make_args(m, a, b), **kwargs, out=m.zeros(2, 2))
    assert_same_error(lambda: call(leafgrad), lambda: call(torch))


@pytest.mark.parametrize("name,make_args,kwargs", CALLS[:3])
def test_out_cast_and_type_errors(name, make_args, kwargs):
    assert_same_error(lambda: _run(leafgrad, name, make_args, kwargs,
                                   leafgrad.zeros(2, 2, dtype=leafgrad.int64)),
                      lambda: _run(torch, name, make_args, kwargs,
                                   torch.zeros(2, 2, dtype=torch.int64)))
    with pytest.raises(TypeError):
        _run(leafgrad, name, make_args, kwargs, 3)


def test_out_under_no_grad_and_version():
    for m in (leafgrad, torch):
        a = m.tensor(A, requires_grad=True)
        out = m.zeros(2, 2)
        with m.no_grad():
            m.mul(a, 2, out=out)
        assert out._version == 1 and not out.requires_grad
        np.testing.assert_array_equal(out.numpy(), A * 2)


@pytest.mark.parametrize("name", ["add", "mul", "matmul", "div"])
def test_methods_take_no_out(name):
    for m in (leafgrad, torch):
        a = m.tensor(A)
        with pytest.raises(TypeError):
            getattr(a, name)(a, out=m.zeros(2, 2))


def test_without_out_same_as_before():
    a, b = leafgrad.tensor(A, requires_grad=True), leafgrad.tensor(B)
    y = leafgrad.add(a, b, alpha=3)
    assert y.grad_fn.name() == "AddBackward0"
    np.testing.assert_array_equal(y.detach().numpy(), A + 3 * B)
    with pytest.raises(TypeError, match="positional"):
        leafgrad.add(a, b, 3)


def test_written_templates_equal_compiled():
    # out_variants writes its common template shapes out (no compile at import); each must be
    # the code _out_template compiles for that shape
    from leafgrad.ops import out_variants as ov
    for key in ov._WRITTEN:
        written = ov._written_template(key)
        compiled = ov._out_template(*key, compiled=True)
        assert written.co_code == compiled.co_code, key
        assert written.co_consts == compiled.co_consts, key
        assert written.co_names == compiled.co_names, key
        assert written.co_varnames == compiled.co_varnames, key
        assert (written.co_argcount, written.co_kwonlyargcount) == \
            (compiled.co_argcount, compiled.co_kwonlyargcount), key
