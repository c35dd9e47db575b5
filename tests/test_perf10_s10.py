"""Session 10, perf10: float32 gelu's block kernels (Note [Fast float32 fma blocks]) give the
step-by-step emulation's bits, and PyTorch's (oneDNN's AVX2 kernel); the direct operator
dunders (Note [Direct dunders]) behave as the public functions they stand for."""
from __future__ import annotations

import inspect
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import leafgrad as L
from leafgrad.ops import gelu_kernels as G

from oracle import same_on_both


def _sweep():
    """Every 4099th float32 bit pattern (NaNs, infinities, subnormals included), dyadic
    values (halfway sums are common there) and gelu's edge values."""
    bits = np.arange(0, 2 ** 32, 4099, dtype=np.uint64).astype(np.uint32).view(np.float32)
    dyadic = np.arange(-4000, 4000, dtype=np.float32) / np.float32(256)
    edge = np.array([0, -0.0, np.inf, -np.inf, np.nan, 1e-45, -1e-45, 1e-38, -13.2, -14,
                     -9.3, 4, 5, 6, -87, -88, -89, -120, 3.4e38, -3.4e38], np.float32)
    payloads = np.array([0x7fc00001, 0xffc00123, 0x7f800001, 0xff800005],
                        np.uint32).view(np.float32)
    return np.concatenate([bits, dyadic, edge, payloads])


def _bits(a):
    return a.view(np.uint32)


def _count_calls(monkeypatch, names):
    counts = dict.fromkeys(names, 0)
    for name in names:
        fn = getattr(G, name)

        def counting(*args, _fn=fn, _name=name):
            counts[_name] += 1
            return _fn(*args)
        monkeypatch.setattr(G, name, counting)
    return counts


def test_onednn_blocks_match_the_steps(monkeypatch):
    x = _sweep()
    with np.errstate(all="ignore"):
        want = G._gelu_steps(x)
    counts = _count_calls(monkeypatch, ["_gelu_steps", "fma32"])
    for n in (x.size, 2, 3, 64, 4095, 4096, 4097):
        part = x[:n] if n < x.size else x
        got = G.gelu_onednn_avx2(part.reshape(-1, 1) if n == 64 else part)
        assert got.dtype == np.float32 and got.flags.c_contiguous
        np.testing.assert_array_equal(_bits(got.reshape(-1)), _bits(want[:part.size]))
    # both ways of redoing a halfway sum were taken
    assert counts["_gelu_steps"] > 0 and counts["fma32"] > 0


def test_aten_blocks_match_the_steps(monkeypatch):
    x = _sweep()
    counts = _count_calls(monkeypatch, ["_aten_steps"])
    with np.errstate(all="ignore"):
        for part in (x[:1], x[:1].reshape(1, 1), x[:6000].reshape(-1, 2)[:, :1],
                     x[:4096 * 2].reshape(2, -1)[:, ::-1], x[: 30 * 40].reshape(30, 40)[:, :7],
                     x[-9000:]):
            got = G.gelu_aten_vectorized(part)
            want = G._aten_steps(part)
            assert got.strides == want.strides
            np.testing.assert_array_equal(_bits(got), _bits(want))
    assert counts["_aten_steps"] >= 6   # the six references (halfway redos add more)


def test_gelu_blocks_against_torch_avx2():
    """The kernels emulate oneDNN's AVX2 gelu_erf; on an AVX-512 machine torch takes another
    kernel, so torch runs in a subprocess limited to AVX2."""
    pytest.importorskip("torch")
    code = inspect.getsource(_sweep) + textwrap.dedent("""
        import sys, numpy as np, torch
        sys.path.insert(0, sys.argv[1])
        import leafgrad as L
        x = _sweep()
        bad = []
        for part in (x, x[:2], x[:64], x[:4097], x[:4096 * 3].reshape(3, -1)[:, ::2]):
            a = torch.nn.functional.gelu(torch.from_numpy(np.ascontiguousarray(part))
                                         if part.flags.c_contiguous else
                                         torch.from_numpy(x[:4096 * 3].reshape(3, -1))[:, ::2])
            b = L.nn.functional.gelu(L.tensor(part))
            a, b = a.numpy().view(np.uint32), b.numpy().view(np.uint32)
            bad.append(int((a != b).sum()))
        print(bad)
    """)
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    env = dict(os.environ, ONEDNN_MAX_CPU_ISA="AVX2")
    out = subprocess.run([sys.executable, "-c", code, os.path.join(root, "src")], env=env,
                         capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[0, 0, 0, 0, 0]"


# -- Note [Direct dunders] ------------------------------------------------------------------
@pytest.mark.parametrize("op", ["+", "-", "*", "/", "//", "r+", "r-", "r*", "r/"])
@pytest.mark.parametrize("other", ["tensor", 2, 2.5, True, "int_tensor"])
def test_dunders_as_the_public_functions(op, other):
    def run(lib):
        x = lib.tensor([[1.5, -2.0], [3.0, 0.25]], requires_grad=True)
        o = {"tensor": lib.tensor([0.5, 4.0], requires_grad=True),
             "int_tensor": lib.tensor([3, -2])}.get(other, other) \
            if isinstance(other, str) else other
        if op[0] == "r":
            y = eval(f"o {op[1:]} x")
        else:
            y = eval(f"x {op} o")
        name = type(y.grad_fn).__name__
        y.sum().backward()
        return (y, name, x.grad,
                o.grad if isinstance(o, lib.Tensor) and o.requires_grad else None)
    same_on_both(run)


def test_dunders_refuse_other_types():
    x = L.tensor([1.0])
    for bad in ("a", None, [1.0], object()):
        for expr in ("x + bad", "bad + x", "x * bad", "x - bad", "x / bad"):
            with pytest.raises(TypeError):
                eval(expr)
    assert L.Tensor.__add__(x, "a") is NotImplemented
    assert L.Tensor.__mul__.__name__ == "__mul__"
    assert L.Tensor.__add__.__code__.co_name == "__add__"


def test_dunders_see_a_swapped_dispatcher():
    """Diagnostics swaps ``_dispatch`` in the public function's globals: the dunders see it."""
    env = L.Tensor.__mul__.__globals__
    rec = env["_rec"]
    seen = []
    orig = env["_dispatch"]

    def spy(r, args):
        seen.append((r.name, len(args)))
        return orig(r, args)
    env["_dispatch"] = spy
    try:
        L.tensor([1.0]) * 2
        L.tensor([1.0]) + 2
    finally:
        env["_dispatch"] = orig
    assert ("mul", 2) in seen and rec.name == "mul"


# -- the fast dispatchers call the specialised recorder directly only while record_node is
# not rebound (Note [Integer tensors with history], saved-tensor hooks) ----------------------
@pytest.mark.parametrize("op", ["neg", "abs", "mul2", "add_float", "tanh_float"])
def test_fast_paths_after_an_integer_history(op):
    def run(lib):
        x = lib.tensor(2.5, requires_grad=True)
        y = lib.zeros(2, 2).long()
        y.masked_fill_(y == 0, x)
        out = {"neg": lambda: y.neg(), "abs": lambda: y.abs(), "mul2": lambda: y * 2,
               "add_float": lambda: y.float() + 1.5,
               "tanh_float": lambda: y.float().tanh()}[op]()
        return out, out.requires_grad, type(out.grad_fn).__name__
    same_on_both(run)


def test_fast_paths_under_saved_tensor_hooks():
    def run(lib):
        packed = []

        def pack(t):
            packed.append(tuple(t.shape))
            return t
        x = lib.tensor([0.5, 1.5], requires_grad=True)
        with lib.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
            y = ((x * x).tanh() * 2.0 + x).exp()
        y.sum().backward()
        return len(packed), x.grad
    same_on_both(run)
