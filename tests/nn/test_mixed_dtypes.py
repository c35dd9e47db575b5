"""Mixed-dtype and mixed-type input against torch: the errors learners hit most (a float64 NumPy
batch fed to a float32 model, a float32 batch fed to a ``.double()`` model), and which mixes
PyTorch computes anyway. Each case runs the same program on leafgrad and torch and compares
the result (values, dtype) or the exception (type and text)."""
from __future__ import annotations

import itertools
import warnings

import numpy as np
import pytest

from tests.oracle import run_both


def same_on_both(program, atol=3e-3):
    """Same exception (type, text) or same results: dtype and shape exactly, values to
    ``atol`` (float16 kernels round differently in the last bits)."""
    mine, theirs = run_both(program)
    _close(mine, theirs, atol)


def _close(mine, theirs, atol):
    if isinstance(theirs, tuple) and theirs and theirs[0] == "tensor":
        assert isinstance(mine, tuple) and mine[:3] == theirs[:3], (mine, theirs)
        np.testing.assert_allclose(np.asarray(mine[3], dtype=float),
                                   np.asarray(theirs[3], dtype=float), atol=atol, rtol=1e-3)
    elif isinstance(theirs, (list, tuple)) and theirs and theirs[0] != "error":
        assert type(mine) is type(theirs) and len(mine) == len(theirs), (mine, theirs)
        for a, b in zip(mine, theirs):
            _close(a, b, atol)
    else:
        assert mine == theirs, f"\nleafgrad: {mine}\ntorch:    {theirs}"

DTYPES = ["float32", "float64", "float16"]
PARAMS = [None, "float32", "float64", "float16"]


def _vec(lib, dtype, n=3, value=1.0):
    return None if dtype is None else lib.full((n,), value, dtype=getattr(lib, dtype))


def _input(lib, dtype, shape=(4, 3)):
    data = np.linspace(-1.0, 2.0, int(np.prod(shape))).reshape(shape)
    return lib.tensor(data, dtype=getattr(lib, dtype))


# -- normalization: the first given parameter decides whether the call is "mixed" ----------------
def _norm_calls(lib, name, x, w, b):
    F = lib.nn.functional
    if name == "layer_norm":
        return F.layer_norm(x, (3,), w, b)
    if name == "batch_norm":
        return F.batch_norm(x, None, None, w, b, True)
    if name == "group_norm":
        return F.group_norm(x, 1, w, b)
    if name == "instance_norm":
        return F.instance_norm(x.t().unsqueeze(0), None, None, w, b)
    return F.rms_norm(x, (3,), w)


@pytest.mark.parametrize("name", ["layer_norm", "batch_norm", "group_norm", "instance_norm",
                                  "rms_norm"])
@pytest.mark.parametrize("xd,wd,bd", list(itertools.product(DTYPES, PARAMS, PARAMS)))
def test_norm_parameter_dtypes(name, xd, wd, bd):
    def program(lib):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")   # rms_norm's once-per-process mismatch warning
            return _norm_calls(lib, name, _input(lib, xd), _vec(lib, wd), _vec(lib, bd))
    same_on_both(program)


@pytest.mark.parametrize("xd,rd,wd", list(itertools.product(DTYPES, DTYPES, [None, "float32",
                                                                             "float64"])))
@pytest.mark.parametrize("kind", ["eval", "train", "instance"])
def test_norm_running_stat_dtypes(kind, xd, rd, wd):
    def program(lib):
        F = lib.nn.functional
        x = _input(lib, xd)
        rm, rv = _vec(lib, rd, value=0.0), _vec(lib, rd)
        w = _vec(lib, wd)
        if kind == "instance":
            out = F.instance_norm(x.t().unsqueeze(0), rm, rv, w, w, True)
        else:
            out = F.batch_norm(x, rm, rv, w, w, kind == "train")
        return out, rm, rv
    same_on_both(program)


@pytest.mark.parametrize("dtype", ["int64", "int32", "bool"])
@pytest.mark.parametrize("name", ["layer_norm", "batch_norm", "group_norm", "rms_norm"])
@pytest.mark.parametrize("with_params", [False, True])
def test_norm_integer_input(name, dtype, with_params):
    def program(lib):
        w = _vec(lib, "float32") if with_params else None
        return _norm_calls(lib, name, lib.ones(4, 3, dtype=getattr(lib, dtype)), w, w)
    same_on_both(program)


@pytest.mark.parametrize("module", ["BatchNorm1d(3)", "LayerNorm(3)", "GroupNorm(1, 3)",
                                    "RMSNorm(3)", "InstanceNorm1d(4, affine=True)"])
@pytest.mark.parametrize("direction", ["float64 input", "double module"])
def test_norm_modules(module, direction):
    def program(lib):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            m = eval("lib.nn." + module)
            x = _input(lib, "float64" if direction == "float64 input" else "float32")
            if direction == "double module":
                m = m.double()
            return m(x.t().unsqueeze(0) if "Instance" in module else x)
    same_on_both(program)


# -- convolutions: bias checked before weight (plain), after it (transposed) ----------------------
CONV_DTYPES = ["float32", "float64", "float16", "int64"]


@pytest.mark.parametrize("nd", [1, 2, 3])
@pytest.mark.parametrize("transposed", [False, True])
@pytest.mark.parametrize("batch", [1, 2])
@pytest.mark.parametrize("xd,wd,bd", list(itertools.product(CONV_DTYPES, CONV_DTYPES,
                                                            [None] + CONV_DTYPES)))
def test_conv_dtypes(nd, transposed, batch, xd, wd, bd):
    def program(lib):
        F = lib.nn.functional
        x = lib.ones((batch, 2) + (4,) * nd, dtype=getattr(lib, xd))
        w = lib.ones((2, 2) + (3,) * nd, dtype=getattr(lib, wd)) * 0.5
        b = None if bd is None else lib.full((2,), 3, dtype=getattr(lib, bd))
        f = getattr(F, f"conv_transpose{nd}d" if transposed else f"conv{nd}d")
        return f(x, w, b)
    same_on_both(program)


@pytest.mark.parametrize("module", ["Conv1d(2, 2, 3)", "Conv2d(2, 2, 3)", "Conv3d(2, 2, 3)",
                                    "Conv1d(2, 2, 3, bias=False)",
                                    "ConvTranspose1d(2, 2, 3)", "ConvTranspose2d(2, 2, 3)",
                                    "ConvTranspose2d(2, 2, 3, bias=False)"])
@pytest.mark.parametrize("direction", ["float64 input", "double module"])
@pytest.mark.parametrize("batch", [1, 2])
def test_conv_modules(module, direction, batch):
    def program(lib):
        lib.manual_seed(0)
        m = eval("lib.nn." + module)
        nd = int(module.split("d(")[0][-1])
        x = lib.ones((batch, 2) + (4,) * nd,
                     dtype=lib.float64 if direction == "float64 input" else lib.float32)
        return (m.double() if direction == "double module" else m)(x)
    same_on_both(program)


# -- ctc_loss: both lengths tensors, or both sequences of ints; any other mix is a TypeError ------
CTC_LENGTHS = [("(5, 5)", "tensor([3, 3])"), ("tensor([5, 5])", "[3, 3]"), ("(5, 5)", "3"),
               ("tensor([5, 5])", "3"), ("5", "(3, 3)"), ("[5.0, 5.0]", "tensor([3, 3])"),
               ("[5.0, 5.0]", "(3, 3)"), ("(5, 5)", "(3, 3)"), ("tensor([5, 5])", "tensor([3, 3])"),
               ("[tensor(5), tensor(5)]", "(3, 3)")]


@pytest.mark.parametrize("il,tl", CTC_LENGTHS)
@pytest.mark.parametrize("reduction", ["mean", "sum"])
def test_ctc_loss_length_types(il, tl, reduction):
    def program(lib):
        lp = lib.linspace(-1, 1, 40).reshape(5, 2, 4).log_softmax(2)
        targets = lib.ones(2, 3, dtype=lib.long)
        env = {"tensor": lib.tensor}
        return lib.nn.functional.ctc_loss(lp, targets, eval(il, env), eval(tl, env),
                                          reduction=reduction)
    same_on_both(program)


# -- InstanceNorm: running statistics in an old (unversioned) state dict ------------------------
INSTANCE_STATES = [({"running_mean": 0, "running_var": 1}, False),
                   ({"running_mean": 0, "running_var": 1}, True),
                   ({"running_mean": 0}, True),
                   ({"running_var": 1, "num_batches_tracked": None}, True),
                   ({"num_batches_tracked": None}, True)]


@pytest.mark.parametrize("state,strict", INSTANCE_STATES)
@pytest.mark.parametrize("tracked", [False, True])
def test_instance_norm_load_running_stats(state, strict, tracked):
    def program(lib):
        m = lib.nn.InstanceNorm1d(3, track_running_stats=tracked)
        sd = {k: lib.tensor(0) if v is None else lib.full((3,), float(v))
              for k, v in state.items()}
        result = m.load_state_dict(sd, strict=strict)
        return (sorted(result.missing_keys), sorted(result.unexpected_keys),
                [b for _, b in m.named_buffers()])
    same_on_both(program)


@pytest.mark.parametrize("versioned", [False, True])
def test_instance_norm_load_nested(versioned):
    def program(lib):
        s = lib.nn.Sequential(lib.nn.InstanceNorm2d(3, affine=True))
        sd = s.state_dict() if versioned else dict(s.state_dict())
        sd["0.running_var"] = lib.ones(3)
        return s.load_state_dict(sd)
    same_on_both(program)


# -- pooling: no parameters, but CPU kernels for some dtypes only --------------------------------
@pytest.mark.parametrize("dtype", ["int64", "int32", "uint8", "bool", "float16", "float64"])
@pytest.mark.parametrize("nd", [1, 2, 3])
@pytest.mark.parametrize("pool", ["max_pool", "max_pool+indices", "avg_pool",
                                  "adaptive_avg_pool", "adaptive_max_pool", "lp_pool"])
def test_pooling_dtypes(pool, nd, dtype):
    def program(lib):
        F = lib.nn.functional
        x = lib.ones((1, 2) + (4,) * nd, dtype=getattr(lib, dtype))
        if pool == "max_pool+indices":
            return getattr(F, f"max_pool{nd}d")(x, 2, return_indices=True)
        f = getattr(F, f"{pool}{nd}d")
        return f(x, 2, 2) if pool == "lp_pool" else f(x, 2)
    same_on_both(program)


@pytest.mark.parametrize("dtypes", [("float64", "float32", "float32", None),
                                    ("float32", "float64", "float32", None),
                                    ("float32", "float32", "float64", None),
                                    ("float32", "float32", "float32", "float64"),
                                    ("float64", "float64", "float64", "float32"),
                                    ("float64", "float64", "float64", "float64"),
                                    ("int64", "int64", "int64", None)])
def test_bilinear_dtypes(dtypes):
    def program(lib):
        x1, x2, w, b = ((None if d is None else lib.ones(shape, dtype=getattr(lib, d)))
                        for d, shape in zip(dtypes, [(2, 3), (2, 3), (4, 3, 3), (4,)]))
        return lib.nn.functional.bilinear(x1, x2, w, b)
    same_on_both(program)


@pytest.mark.parametrize("indices,offsets", [("tensor([1., 2.])", "tensor([0])"),
                                             ("tensor([1, 2])", "tensor([0.])"),
                                             ("tensor([1, 2])", "tensor([0], dtype=int32)"),
                                             ("tensor([[1., 2.]])", "None"),
                                             ("tensor([[1, 2]], dtype=int32)", "None")])
@pytest.mark.parametrize("fn", ["embedding_bag", "embedding"])
def test_embedding_index_dtypes(fn, indices, offsets):
    def program(lib):
        env = {"tensor": lib.tensor, "int32": lib.int32}
        w = lib.linspace(0, 1, 15).reshape(5, 3)
        idx = eval(indices, env)
        if fn == "embedding":
            return lib.nn.functional.embedding(idx, w)
        return lib.nn.functional.embedding_bag(idx, w, eval(offsets, env))
    same_on_both(program)
