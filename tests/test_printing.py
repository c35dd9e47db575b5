"""Tensor printing: ``repr`` of leafgrad tensors against PyTorch 2.13's, character for character."""
from __future__ import annotations

import doctest
import math

import numpy as np
import pytest
import torch
from hypothesis import given, settings, strategies as st
from hypothesis.extra import numpy as hnp

import leafgrad
from leafgrad import _printing
from leafgrad.nn.parameter import Parameter

FLOATS = [np.float16, np.float32, np.float64]
INTS = [np.int8, np.uint8, np.int16, np.int32, np.int64]
SPECIALS = [0.0, -0.0, math.nan, math.inf, -math.inf]


@pytest.fixture(autouse=True)
def default_options():
    """Every test starts and ends with both libraries on their default options."""
    yield
    torch.set_printoptions(profile="default")
    leafgrad.set_printoptions(profile="default")
    torch.set_default_dtype(torch.float32)
    leafgrad.set_default_dtype(leafgrad.float32)


def both(array, requires_grad=False):
    mine = leafgrad.tensor(array.copy(), requires_grad=requires_grad)
    theirs = torch.tensor(array.copy(), requires_grad=requires_grad)
    return mine, theirs


def assert_same_repr(mine, theirs):
    expected = repr(theirs)
    assert repr(mine) == expected, f"\nmine:\n{mine!r}\ntheirs:\n{expected}"
    assert str(mine) == str(theirs)


def check(array, requires_grad=False):
    assert_same_repr(*both(np.asarray(array), requires_grad))


# -- Hypothesis strategies ---------------------------------------------------------------------

shapes = hnp.array_shapes(min_dims=0, max_dims=4, min_side=0, max_side=5)


@st.composite
def float_arrays(draw, dtype=None, shape=None):
    dtype = draw(st.sampled_from(FLOATS)) if dtype is None else dtype
    shape = draw(shapes) if shape is None else shape
    scale = 10.0 ** draw(st.integers(-12, 12))
    width = np.dtype(dtype).itemsize * 8
    elements = st.one_of(
        st.integers(-2000, 2000).map(float),                      # whole numbers: int mode
        st.floats(-10, 10, width=64).map(lambda v: v * scale),    # one magnitude band
        st.sampled_from(SPECIALS),
        st.floats(width=width),                                   # anything, subnormals too
    )
    # Round each element to the dtype first (large values overflow to inf, as a cast does).
    elements = elements.map(lambda v: float(np.array(v).astype(dtype)))
    with np.errstate(over="ignore"):
        return draw(hnp.arrays(dtype, shape, elements=elements))


@st.composite
def int_arrays(draw):
    dtype = draw(st.sampled_from(INTS + [np.bool_]))
    return draw(hnp.arrays(dtype, draw(shapes)))


options = st.fixed_dictionaries({}, optional={
    "precision": st.integers(0, 8),
    "threshold": st.integers(0, 60),
    "edgeitems": st.integers(0, 4),
    "linewidth": st.integers(10, 150),
    "sci_mode": st.sampled_from([True, False]),
})


# -- property tests ----------------------------------------------------------------------------

@settings(max_examples=150, deadline=None)
@given(float_arrays())
def test_float_tensors(array):
    check(array)


@settings(max_examples=80, deadline=None)
@given(int_arrays())
def test_int_and_bool_tensors(array):
    check(array)


@settings(max_examples=60, deadline=None)
@given(float_arrays(), st.booleans())
def test_requires_grad_and_grad_fn(array, multiply):
    mine, theirs = both(array, requires_grad=True)
    if multiply:
        mine, theirs = mine * 2, theirs * 2
    assert_same_repr(mine, theirs)


@settings(max_examples=120, deadline=None)
@given(st.one_of(float_arrays(), int_arrays()), options)
def test_print_options(array, opts):
    torch.set_printoptions(**opts)
    leafgrad.set_printoptions(**opts)
    check(array)


@settings(max_examples=25, deadline=None)
@given(st.sampled_from([(2000,), (40, 40), (3, 400), (11, 12, 13), (7, 2, 1, 300), (1001,)]),
       st.sampled_from(FLOATS + INTS + [np.bool_]), st.integers(0, 2 ** 32 - 1),
       st.integers(-6, 9))
def test_summarized(shape, dtype, seed, exponent):
    rng = np.random.default_rng(seed)
    if np.dtype(dtype).kind != "f":
        info = np.iinfo(dtype) if dtype is not np.bool_ else np.iinfo(np.uint8)
        high = min(int(info.max), 10 ** abs(exponent)) + 1
        values = rng.integers(max(int(info.min), -high), high, size=shape)
        check(values.astype(dtype))
        return
    with np.errstate(over="ignore"):
        values = (rng.standard_normal(shape) * 10.0 ** exponent).astype(dtype)
    # A magnitude in the hidden middle that the shown corners lack: only they may count.
    values.reshape(-1)[values.size // 2] = 1e4 if dtype is np.float16 else 1e30
    check(values)


@settings(max_examples=20, deadline=None)
@given(float_arrays(dtype=np.float64), float_arrays(dtype=np.float32))
def test_default_dtype_float64(a64, a32):
    torch.set_default_dtype(torch.float64)
    leafgrad.set_default_dtype(leafgrad.float64)
    check(a64)
    check(a32)


# -- hand-picked cases -------------------------------------------------------------------------

CASES = {
    "scalar whole": np.array(12.0, np.float32),
    "scalar frac": np.array(0.1, np.float32),
    "scalar tiny": np.array(1e-5, np.float32),
    "scalar int": np.array(7),
    "scalar bool": np.array(True),
    "scalar nan": np.array(np.nan, np.float32),
    "scalar -0": np.array(-0.0, np.float32),
    "whole": np.array([1.0, 2.0], np.float32),
    "sci": np.array([1e-5, 1e5], np.float32),
    "sci big": np.array([1.0, 1e9], np.float64),
    "ratio": np.array([1.0, 1001.0, 0.5], np.float32),
    "neg zero": np.array([-0.0, 1.0, 2.5], np.float32),
    "all zero": np.zeros(4, np.float32),
    "specials": np.array([np.nan, np.inf, -np.inf, 1.5], np.float32),
    "specials whole": np.array([np.nan, -np.inf, 3.0], np.float16),
    "bool": np.array([True, False]),
    "int8": np.array([-128, 0, 127], np.int8),
    "uint8": np.array([[0, 255], [3, 4]], np.uint8),
    "empty": np.zeros((0,), np.float32),
    "empty 2d": np.zeros((0, 3), np.float32),
    "empty int": np.zeros((0,), np.int64),
    "empty bool 3d": np.zeros((2, 0, 1), np.bool_),
    "empty f64": np.zeros((0,), np.float64),
    "wrap": np.linspace(-1, 1, 37, dtype=np.float32),
    "wrap ints": np.arange(-50, 50),
    "3d": np.arange(24, dtype=np.float32).reshape(2, 3, 4) / 7,
    "4d": np.arange(16).reshape(2, 2, 2, 2),
    "float16 wide": np.array([65504.0, 6e-8, 1.0], np.float16),
    "float64 precise": np.array([1 / 3, 2 / 3, 1e-300], np.float64),
    "huge ratio": np.array([5e-324, 1.7e308], np.float64),
    "rounding": np.array([0.00005, 0.99995, 2.5e-4], np.float32),
    # The edges of the scientific-notation rule (strict comparisons in PyTorch).
    "ratio 1000": np.array([1.0, 1000.0, 0.5], np.float64) * np.array([0.5, 0.5, 1.0]),
    "ratio 1000 f32": np.array([0.25, 250.0], np.float32),
    "min 1e-4 f64": np.array([1e-4, 1e-3], np.float64),
    "min 1e-4 f32": np.array([1e-4, 1e-3], np.float32),
    "max 1e8": np.array([1e8, 2e7], np.float64),
    "max 1e8 f32": np.array(1e8, np.float32),
}


@pytest.mark.parametrize("name", list(CASES))
def test_cases(name):
    check(CASES[name])


@pytest.mark.parametrize("name", ["scalar frac", "whole", "sci", "wrap", "3d", "specials"])
def test_cases_with_grad(name):
    check(CASES[name], requires_grad=True)
    mine, theirs = both(CASES[name], requires_grad=True)
    assert_same_repr(mine * 2, theirs * 2)


SUFFIX_ARRAYS = [
    np.linspace(0, 1, 9, dtype=np.float64),          # dtype= then grad_fn=
    np.linspace(0, 1, 6, dtype=np.float16).reshape(2, 3),
    np.zeros((0, 2), np.float64),                    # size=, dtype=, then requires_grad=
    np.array(0.5, np.float64),
]


@pytest.mark.parametrize("index", range(len(SUFFIX_ARRAYS)))
def test_suffixes_wrap_to_a_new_line(index):
    # Every width from cramped to roomy: each suffix moves to its own line exactly when
    # PyTorch's count says the line would pass linewidth.
    leaf, reference = both(SUFFIX_ARRAYS[index], requires_grad=True)
    for width in range(10, 110):
        torch.set_printoptions(linewidth=width)
        leafgrad.set_printoptions(linewidth=width)
        assert_same_repr(leaf, reference)
        assert_same_repr(leaf * 2, reference * 2)


def test_threshold_is_strict():
    check(np.arange(1000.0, dtype=np.float32))
    check(np.arange(1001))
    for threshold in (9, 10):
        torch.set_printoptions(threshold=threshold)
        leafgrad.set_printoptions(threshold=threshold)
        check(np.arange(10))
        check(np.arange(10.0).reshape(2, 5))


@pytest.mark.parametrize("profile", ["default", "short", "full"])
def test_profiles(profile):
    torch.set_printoptions(profile=profile)
    leafgrad.set_printoptions(profile=profile)
    assert _printing.get_printoptions() == torch._tensor_str.get_printoptions()
    check(np.linspace(0, 1, 1500, dtype=np.float32))
    check(np.linspace(0, 1, 12, dtype=np.float32).reshape(3, 4))


def test_options_state_matches_torch():
    calls = [dict(precision=2), dict(threshold=5, sci_mode=True), dict(edgeitems=1),
             dict(linewidth=40), dict(profile="short", precision=6), dict(profile="bogus")]
    for kwargs in calls:
        torch.set_printoptions(**kwargs)
        leafgrad.set_printoptions(**kwargs)
        assert _printing.get_printoptions() == torch._tensor_str.get_printoptions()


def test_printoptions_context_restores():
    with _printing.printoptions(precision=1, sci_mode=True):
        with torch._tensor_str.printoptions(precision=1, sci_mode=True):
            check(np.array([0.25, 1.0], np.float32))
    assert _printing.get_printoptions() == torch._tensor_str.get_printoptions()
    check(np.array([0.25, 1.0], np.float32))


def test_only_torch_public_names():
    assert hasattr(leafgrad, "set_printoptions") and hasattr(torch, "set_printoptions")
    assert hasattr(leafgrad, "get_printoptions") == hasattr(torch, "get_printoptions")


def test_parameter_repr():
    array = np.array([[0.5, -1.0], [2.0, 3.0]], np.float32)
    theirs = torch.nn.Parameter(torch.tensor(array))
    mine = leafgrad.tensor(array, requires_grad=True)
    assert _printing.parameter_repr(mine) == repr(theirs)
    assert repr(Parameter(leafgrad.tensor(array))) == repr(theirs)


def test_format_of_tensors():
    mine, theirs = both(np.array(1.5, np.float32))
    assert f"{mine:.2f}" == f"{theirs:.2f}"


def test_docstring_examples():
    result = doctest.testmod(_printing, optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0
    assert result.failed == 0
