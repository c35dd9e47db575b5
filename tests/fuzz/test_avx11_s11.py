"""Session 11, avx11: the CPU capability PyTorch's kernels follow (``leafgrad._cpu``), and the
bit-exact emulations that depend on it (oneDNN's AVX2 and AVX-512 gelu_erf, ATen's vector
blocks), checked on this machine and, through the environment variables both libraries
read, for the other instruction set in subprocesses."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest
import torch

from oracle import same_on_both

import leafgrad._cpu as cpu

_ROOT = Path(__file__).resolve().parents[2]


def _run(code: str, **env) -> dict:
    """Run ``code`` in a fresh interpreter (leafgrad from this checkout) with ``env`` added;
    it prints one JSON object."""
    full = dict(os.environ)
    for key in ("ATEN_CPU_CAPABILITY", "ONEDNN_MAX_CPU_ISA", "DNNL_MAX_CPU_ISA"):
        full.pop(key, None)
    full.update(env)
    full["PYTHONPATH"] = os.pathsep.join([str(_ROOT / "src"), str(_ROOT / "tests")])
    out = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], env=full,
                         capture_output=True, text=True, timeout=600, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


# -- step 1: the capability, without torch --------------------------------------------------
def test_capability_matches_torch_here():
    assert cpu.ATEN_CAPABILITY == torch.backends.cpu.get_cpu_capability()
    assert cpu.aten_capability() == torch.backends.cpu.get_cpu_capability()


def test_leafgrad_does_not_import_torch_for_it():
    got = _run("""
        import json, sys
        import leafgrad, leafgrad._cpu
        print(json.dumps({"torch": "torch" in sys.modules}))
    """)
    assert got == {"torch": False}


@pytest.mark.parametrize("value", ["avx2", "default", "avx512", "AVX2", "bogus"])
def test_capability_env_var_as_torch(value):
    got = _run("""
        import json, warnings
        import leafgrad._cpu as cpu
        warnings.simplefilter("ignore")
        import torch
        print(json.dumps({"leafgrad": cpu.ATEN_CAPABILITY,
                          "torch": torch.backends.cpu.get_cpu_capability()}))
    """, ATEN_CPU_CAPABILITY=value)
    assert got["leafgrad"] == got["torch"]


@pytest.mark.parametrize("flags, env, expected", [
    ({"avx2", "fma", "avx512f", "avx512vl", "avx512bw", "avx512dq"}, {}, "AVX512"),
    ({"avx2", "fma", "avx512f", "avx512vl", "avx512bw"}, {}, "AVX2"),   # no DQ
    ({"avx2", "fma"}, {}, "AVX2"),
    ({"avx2"}, {}, "DEFAULT"),                                          # no FMA
    ({"avx", "sse4_1"}, {}, "DEFAULT"),
    ({"avx2", "fma"}, {"ATEN_CPU_CAPABILITY": "avx512"}, "AVX512"),
    ({"avx2", "fma"}, {"ATEN_CPU_CAPABILITY": "Avx2"}, "AVX2"),        # ignored: case
    (set(), {"ATEN_CPU_CAPABILITY": "avx2"}, "AVX2"),
])
def test_capability_rules(flags, env, expected):
    assert cpu.aten_capability(env, frozenset(flags)) == expected


@pytest.mark.parametrize("env, expected", [
    ({}, True), ({"ONEDNN_MAX_CPU_ISA": "AVX2"}, False), ({"ONEDNN_MAX_CPU_ISA": "avx2"}, False),
    ({"DNNL_MAX_CPU_ISA": "AVX2"}, False), ({"ONEDNN_MAX_CPU_ISA": "AVX512_CORE"}, True),
    ({"ONEDNN_MAX_CPU_ISA": "ALL"}, True), ({"ATEN_CPU_CAPABILITY": "avx2"}, True),
])
def test_onednn_rules(env, expected):
    flags = frozenset({"avx2", "fma", "avx512f", "avx512vl", "avx512bw", "avx512dq"})
    assert cpu.onednn_avx512_core(env, flags) is expected
    assert cpu.onednn_avx512_core(env, frozenset({"avx2", "fma"})) is False


# -- step 2: float32 gelu, oneDNN (contiguous) and ATen (the rest) --------------------------
_GELU_LAYOUTS = """
    import json
    import numpy as np
    import torch
    import leafgrad as L
    rng = np.random.default_rng(7)
    bad = []

    def check(name, make):
        for scale in (0.01, 0.5, 3.0, 12.0):
            x = (rng.standard_normal((3, 150)) * scale).astype(np.float32)
            x[0, :8] = [-0.0, 0.0, np.inf, -np.inf, np.nan, -5.55, 5.54, 1e-40]
            t = torch.nn.functional.gelu(make(torch.from_numpy(x))).numpy()
            lg = L.nn.functional.gelu(make(L.tensor(x))).numpy()
            if t.tobytes() != lg.tobytes():
                bad.append((name, scale, int((t.view(np.int32) != lg.view(np.int32)).sum())))

    for n in (1, 2, 15, 16, 17, 31, 32, 33, 64, 100, 150):
        check(f"row{n}", lambda a, n=n: a[0, :n])
        check(f"rows{n}", lambda a, n=n: a[:, :n])
        check(f"T{n}", lambda a, n=n: a[:, :n].t())
        check(f"step{n}", lambda a, n=n: a[:, :n:2])
    check("0-d", lambda a: a[1, 3])
    check("all", lambda a: a)
    print(json.dumps({"bad": bad}))
"""


def test_gelu_float32_layouts_here():
    assert _run(_GELU_LAYOUTS) == {"bad": []}


@pytest.mark.parametrize("env", [{"ONEDNN_MAX_CPU_ISA": "AVX2"},
                                 {"ATEN_CPU_CAPABILITY": "avx2"},
                                 {"ATEN_CPU_CAPABILITY": "avx2", "ONEDNN_MAX_CPU_ISA": "AVX2"}])
def test_gelu_float32_layouts_other_isa(env):
    """The AVX2 kernels, as an AVX2 machine picks them (the variables cap what runs)."""
    if not cpu.cpu_flags() >= {"avx2", "fma"}:
        pytest.skip("needs AVX2 and FMA to run the AVX2 kernels")
    assert _run(_GELU_LAYOUTS, **env) == {"bad": []}


@pytest.mark.parametrize("n", [2, 3, 16, 17, 300, 4097])
def test_gelu_float32_random_bits(n):
    """Any float32 bit pattern (NaNs compared by bits too)."""
    x = np.random.RandomState(n).randint(0, 2 ** 32, n, dtype=np.uint64).astype(
        np.uint32).view(np.float32)

    def run(L):
        return L.nn.functional.gelu(L.tensor(x)).numpy().view(np.int32).tolist()
    same_on_both(run)


@pytest.mark.parametrize("shape, index", [((40, 70), (slice(None), slice(0, 67))),
                                          ((600, 70), (slice(None), slice(0, 50)))])
def test_gelu_float32_strided_threads(shape, index):
    """A strided input large enough for ATen to split it among threads."""
    x = (np.random.RandomState(1).randn(*shape) * 3).astype(np.float32)

    def run(L):
        return L.nn.functional.gelu(L.tensor(x)[index]).numpy().view(np.int32).tolist()
    same_on_both(run)


def test_sleef_expf():
    from leafgrad._sleef import expf_u10
    from leafgrad.ops.gelu_kernels import gelu_aten_vectorized
    # Sleef's expf is what ATen's vectorized float erf calls: the vector blocks of gelu
    # tell it bit for bit (a (3, 64) input: all of it in blocks on AVX2 and AVX-512)
    x = (np.random.RandomState(3).randn(3, 128) * 3).astype(np.float32)[:, :64]
    t = torch.nn.functional.gelu(torch.from_numpy(x)).numpy()
    assert t.tobytes() == gelu_aten_vectorized(x).tobytes()
    e = expf_u10(np.array([-104.5, -103.9, 0.0, -0.0, 1.0, 88.7, 100.5, np.nan, -np.inf],
                          np.float32))
    assert e[0] == 0 and e[2] == 1 and e[3] == 1 and np.isinf(e[6]) and np.isnan(e[7])
    assert e[8] == 0
