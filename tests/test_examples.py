"""The programs in ``examples/`` run unmodified under ``leafgrad run`` (and under real PyTorch)
and do what they say: the digits models learn (the full MLP and CNN runs reach 97% test
accuracy), the character LSTM's loss falls, and a saved state_dict reloads to identical
predictions and opens in PyTorch (through safetensors).

Each program runs in a subprocess. Their optional dependencies (scikit-learn, tqdm) are used
when installed; the ``blocked`` runs hide both, so the synthetic-digits and plain-print
fallbacks are tested on every machine whatever is installed.
"""
from __future__ import annotations

import importlib
import importlib.util
import itertools
import os
import re
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SRC = os.path.join(ROOT, "src")
EXAMPLES = os.path.join(ROOT, "examples")

EPOCH_LINE = re.compile(r"^epoch +(\d+) +loss ([0-9.]+)", re.MULTILINE)
ACCURACY_LINE = re.compile(r"^final test accuracy: ([0-9.]+)%$", re.MULTILINE)
SYNTHETIC_NOTE = "scikit-learn is not installed: using a synthetic 8x8 digits set"
HAVE_SKLEARN = importlib.util.find_spec("sklearn") is not None


@pytest.fixture(scope="module")
def blocker(tmp_path_factory):
    """A folder whose ``sklearn`` and ``tqdm`` packages raise ImportError, put first on
    PYTHONPATH to run the examples as on a machine without them."""
    root = tmp_path_factory.mktemp("blocker")
    for name in ("sklearn", "tqdm"):
        (root / name).mkdir()
        (root / name / "__init__.py").write_text(
            f"raise ImportError('{name} is hidden by tests/test_examples.py')\n")
    return str(root)


def run_example(name, *args, leafgrad=True, blocker=None, cwd=None):
    """``python -m leafgrad run examples/NAME ARGS`` (or plain ``python``: real PyTorch)."""
    env = dict(os.environ)
    env.pop("PYTHONPATH", None)
    path = [p for p in (blocker, SRC if leafgrad else None) if p]
    if path:
        env["PYTHONPATH"] = os.pathsep.join(path)
    # These models multiply small matrices, where BLAS threads only add synchronisation; on a
    # busy machine OpenBLAS's spinning threads make such products 100x slower.
    env["OPENBLAS_NUM_THREADS"] = env["OMP_NUM_THREADS"] = "1"
    script = os.path.join(EXAMPLES, name)
    cmd = [sys.executable, "-m", "leafgrad", "run", script] if leafgrad else \
        [sys.executable, script]
    proc = subprocess.run(cmd + list(args), capture_output=True, text=True, env=env, check=False,
                          cwd=cwd or ROOT, timeout=600)
    assert proc.returncode == 0, f"{name} exited {proc.returncode}\n{proc.stdout}\n{proc.stderr}"
    return proc.stdout


def epoch_losses(out):
    """The per-epoch losses, checked to be numbered 1, 2, ..."""
    found = EPOCH_LINE.findall(out)
    assert [int(n) for n, _ in found] == list(range(1, len(found) + 1)), out
    return [float(loss) for _, loss in found]


def final_accuracy(out):
    found = ACCURACY_LINE.findall(out)
    assert len(found) == 1, out
    return float(found[0])


def check_digits_run(out, epochs, min_accuracy, synthetic):
    losses = epoch_losses(out)
    assert len(losses) == epochs, out
    assert all(b < a for a, b in itertools.pairwise(losses)), f"loss did not fall: {losses}"
    assert final_accuracy(out) >= min_accuracy, out
    assert (SYNTHETIC_NOTE in out) == synthetic, out


@pytest.mark.parametrize("name", ["mlp_digits.py", "cnn_digits.py"])
def test_digits_quick(name):
    """--quick: three epochs whose loss falls, and a test accuracy far above chance (10%)."""
    out = run_example(name, "--quick")
    check_digits_run(out, 3, 75.0, synthetic=not HAVE_SKLEARN)


@pytest.mark.parametrize("name", ["mlp_digits.py", "cnn_digits.py"])
def test_digits_quick_without_sklearn_or_tqdm(name, blocker):
    """Without scikit-learn the synthetic digits stand in (and the program says so); without
    tqdm the epochs print plainly."""
    out = run_example(name, "--quick", blocker=blocker)
    check_digits_run(out, 3, 75.0, synthetic=True)


@pytest.mark.parametrize("name, epochs", [("mlp_digits.py", 20), ("cnn_digits.py", 15)])
def test_digits_full_run_reaches_97_percent(name, epochs):
    """The default run, as the README reports it: at least 97% test accuracy."""
    out = run_example(name, "--no-progress")
    check_digits_run(out, epochs, 97.0, synthetic=not HAVE_SKLEARN)


def test_epochs_flag(blocker):
    out = run_example("mlp_digits.py", "--epochs", "2", blocker=blocker)
    assert len(epoch_losses(out)) == 2


def test_char_lstm_loss_falls():
    out = run_example("char_lstm.py", "--quick")
    losses = epoch_losses(out)
    assert len(losses) == 3
    assert all(b < a for a, b in itertools.pairwise(losses)), losses
    assert losses[-1] < 0.8 * losses[0], losses
    assert f"first epoch loss {losses[0]:.4f}, last epoch loss {losses[-1]:.4f}" in out, out
    sample = re.search(r"^sample: '(.*)'$", out, re.MULTILINE)
    assert sample is not None, out
    assert sample.group(1).startswith("Alice was ") and len(sample.group(1)) == 90, out


def test_char_lstm_without_tqdm(blocker):
    out = run_example("char_lstm.py", "--epochs", "1", blocker=blocker)
    assert len(epoch_losses(out)) == 1


def _import_example(module_name):
    """Import an example module in this (real torch) process, then forget it."""
    sys.path.insert(0, EXAMPLES)
    try:
        return importlib.import_module(module_name)
    finally:
        sys.path.remove(EXAMPLES)
        for name in (module_name, "_common"):
            sys.modules.pop(name, None)


def test_save_load_roundtrip_and_pytorch_reads_the_file(tmp_path):
    """leafgrad saves, reloads to identical logits; real PyTorch then reads the same file
    (a safetensors file: leafgrad never pickles) into the same model and gets the accuracy
    leafgrad printed."""
    import torch
    from safetensors.torch import load_file
    path = tmp_path / "mlp.pt"
    out = run_example("save_load.py", "--quick", "--path", str(path))
    assert "fresh model agrees before loading: False" in out, out
    assert "loaded model gives identical predictions: True" in out, out
    printed = re.search(r"test accuracy: trained ([0-9.]+)%, loaded ([0-9.]+)%", out)
    assert printed is not None and printed.group(1) == printed.group(2), out

    mlp_digits = _import_example("mlp_digits")
    common = _import_example("_common")
    model = mlp_digits.MLP()
    model.load_state_dict(load_file(path))   # strict: the same keys and shapes
    _, _, x_test, y_test = common.load_digits_split(seed=0, quiet=True)
    accuracy = mlp_digits.accuracy(model, torch.from_numpy(x_test), torch.from_numpy(y_test))
    assert f"{accuracy:.2%}" == printed.group(2) + "%"


@pytest.mark.parametrize("name", ["mlp_digits.py", "cnn_digits.py", "char_lstm.py",
                                  "save_load.py"])
def test_examples_are_pytorch_programs(name):
    """The same files run under real PyTorch (plain ``python``) and print the same lines."""
    out = run_example(name, "--quick", leafgrad=False)
    if name == "save_load.py":
        assert "loaded model gives identical predictions: True" in out, out
        return
    losses = epoch_losses(out)
    assert losses and losses[-1] < losses[0], out
    if name != "char_lstm.py":
        assert final_accuracy(out) >= 75.0, out
