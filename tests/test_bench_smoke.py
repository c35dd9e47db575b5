"""Smoke tests of the benchmark suite (bench/): it runs, and it compares equal work.

No timing is asserted. What is asserted: each workload runs on leafgrad in quick mode and ends
with the same loss, gradients and parameter updates as the hand-written NumPy floor; the floor
itself agrees with PyTorch (for every code path the MLP fallback may take), so a ratio in the
benchmark table compares the same computation; and the command line works end to end.
"""
import contextlib
import json
import os
import subprocess
import sys

import numpy as np
import pytest
import torch  # the oracle; not bench.libs.load_torch, which would set torch's thread count

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)

from bench import conv, mlp
from bench.cli import run_workload
from bench.libs import load_leafgrad
from bench.workloads import WORKLOADS, build_case

leafgrad = load_leafgrad()

MLP_FALLBACKS = [{"log_softmax": ls, "pick": pick}
                 for ls in ("log_softmax", "exp-sum-log") for pick in ("index", "gather", "one-hot")]


@contextlib.contextmanager
def torch_threads(n):
    """torch with n intra-op threads, restored after. One thread here: on a busy 2-core
    machine torch's OpenMP threads make tanh on 1,000 elements ~50x slower."""
    before = torch.get_num_threads()
    torch.set_num_threads(n)
    try:
        yield
    finally:
        torch.set_num_threads(before)


def run_quick(name, impl, lib, plan):
    workload = WORKLOADS[name]
    case = build_case(workload, impl, lib, plan)
    with torch_threads(1):
        case.run(workload.quick.n)
    return case.result()


def assert_same_results(got, want):
    """Same keys and dtypes; values close. Parameter updates are compared with a tolerance
    scaled to the update's own size, so a wrong gradient cannot hide inside float32 noise."""
    assert sorted(got) == sorted(want)
    for key in want:
        g, w = np.asarray(got[key]), np.asarray(want[key])
        assert g.dtype == w.dtype, (key, g.dtype, w.dtype)
        assert g.shape == w.shape, (key, g.shape, w.shape)
        scale = float(np.abs(w).max()) if w.size else 0.0
        np.testing.assert_allclose(g, w, rtol=1e-4, atol=1e-3 * scale + 1e-12, err_msg=key)


@pytest.mark.parametrize("name", ["W1", "W2", "W3", "W4", "W5"])
def test_leafgrad_matches_numpy_floor(name):
    plan = WORKLOADS[name].prepare(leafgrad)
    assert plan[2] is None, f"{name} cannot run on leafgrad: {plan[2]}"
    assert_same_results(run_quick(name, "leafgrad", leafgrad, plan),
                        run_quick(name, "numpy", None, plan))


def test_conv_step_runs_or_is_skipped_with_reason():
    """W6 runs only when leafgrad has the CNN modules and they work; otherwise the report
    says what is missing or what failed."""
    reason = conv.skip_reason(leafgrad)
    if reason is None:
        plan = WORKLOADS["W6"].prepare(leafgrad)
        assert_same_results(run_quick("W6", "leafgrad", leafgrad, plan),
                            run_quick("W6", "numpy", None, plan))
        return
    missing = [p for p in conv.FEATURES if not _has(leafgrad, p)]
    if missing:
        assert reason == "leafgrad lacks " + ", ".join(missing)
    else:
        assert reason.startswith("leafgrad fails a tiny conv step: ")
    res = run_workload(WORKLOADS["W6"], {"leafgrad": leafgrad}, ["leafgrad"], True, None)
    assert res["skipped"] == reason
    assert res["impls"] == {}


def test_probes_accept_torch():
    """torch has every feature, so the probes must pick the idiomatic variants for it."""
    with torch_threads(1):
        assert conv.skip_reason(torch) is None
        assert mlp.choose_variant(torch) == ("nn", None, None)


def _has(obj, dotted):
    for part in dotted.split("."):
        if not hasattr(obj, part):
            return False
        obj = getattr(obj, part)
    return True


@pytest.mark.parametrize("name", ["W1", "W2", "W5", "W6"])
def test_numpy_floor_matches_torch(name):
    plan = ("nn", None, None)
    assert_same_results(run_quick(name, "torch", torch, plan), run_quick(name, "numpy", None, plan))


@pytest.mark.parametrize("name", ["W3", "W4"])
def test_numpy_floor_matches_torch_mlp_nn(name):
    plan = ("nn", None, None)
    assert_same_results(run_quick(name, "torch", torch, plan), run_quick(name, "numpy", None, plan))


@pytest.mark.parametrize("ops", MLP_FALLBACKS, ids=lambda o: f"{o['log_softmax']}-{o['pick']}")
def test_numpy_floor_matches_torch_mlp_fallbacks(ops):
    """Every tensor-ops fallback the MLP may run on leafgrad does the floor's work (on torch)."""
    plan = ("ops", ops, None)
    assert_same_results(run_quick("W3", "torch", torch, plan), run_quick("W3", "numpy", None, plan))


def test_mlp_variant_is_chosen_from_what_leafgrad_has():
    label, ops, skip = mlp.choose_variant(leafgrad)
    assert skip is None, skip  # the fallback needs only matmul, which leafgrad must have
    if label == "nn":
        assert ops is None
    else:
        assert label.startswith("ops: matmul") and ops in MLP_FALLBACKS


def _run_cli(*args):
    proc = subprocess.run([sys.executable, "-m", "bench", *args], cwd=ROOT,
                          capture_output=True, text=True, timeout=600, check=False)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return proc.stdout


def test_cli_quick_writes_table_and_json(tmp_path):
    path = tmp_path / "results.json"
    out = _run_cli("--quick", "--only", "W1,W2,import", "--impls", "leafgrad,numpy",
                   "--json", str(path))
    doc = json.loads(path.read_text())
    assert doc["quick"] is True and doc["impls"] == ["leafgrad", "numpy"]
    assert doc["machine"]["recursion_limit"] == sys.getrecursionlimit()
    for name in ("W1", "W2"):
        res = doc["results"][name]
        for impl in ("leafgrad", "numpy"):
            assert res["impls"][impl]["error"] is None, res["impls"][impl]
            assert res["impls"][impl]["median"] > 0
        assert res["ratios"]["numpy"] > 0
        assert f"{name} {WORKLOADS[name].title}" in out
    assert doc["results"]["import"]["impls"]["leafgrad"]["median"] > 0
    assert "lg/numpy" in out and "lg/torch" not in out


def test_cli_profile_lists_leafgrad_functions():
    out = _run_cli("--profile", "W2", "--quick")
    assert "tottime" in out
    assert os.path.join("src", "leafgrad") in out


def test_cli_rejects_unknown_workload():
    proc = subprocess.run([sys.executable, "-m", "bench", "--only", "W9"], cwd=ROOT,
                          capture_output=True, text=True, check=False)
    assert proc.returncode == 2
    assert "unknown workload(s): W9" in proc.stderr
