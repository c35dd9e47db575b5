"""Golden files for the graph drawings (text and DOT), with and without provenance."""
from __future__ import annotations

import os
import runpy

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
GOLDEN = os.path.join(HERE, "golden")
PROGRAM = os.path.join(HERE, "graph_program.py")


def _golden(name):
    with open(os.path.join(GOLDEN, name)) as f:
        return f.read()


def _names(g):
    return {"w": g["w"], "b": g["b"], "loss": g["loss"]}


def test_text_without_provenance():
    import leafgrad
    g = runpy.run_path(PROGRAM)
    assert leafgrad.viz.text(g["loss"], names=_names(g)) + "\n" == _golden("graph.txt")


def test_text_and_dot_with_provenance():
    import leafgrad
    with leafgrad.diagnostics.enable():
        g = runpy.run_path(PROGRAM)
    assert leafgrad.viz.text(g["loss"], names=_names(g)) + "\n" == _golden("graph_lines.txt")
    assert leafgrad.viz.dot(g["loss"], names=_names(g)) + "\n" == _golden("graph_lines.dot")


def test_values_match_torch():
    # the drawn values and gradients are the ones torch computes for the same program
    torch = pytest.importorskip("torch")
    w = torch.tensor([1.0, 2.0], requires_grad=True)
    b = torch.tensor(0.5, requires_grad=True)
    loss = (w * b).tanh().sum() + (w ** 2).mean()
    loss.backward()
    text = _golden("graph.txt")
    assert f"loss = {loss.item():.4g}" in text
    assert "grad [" + ", ".join(f"{v:.4g}" for v in w.grad.tolist()) + "]" in text
    assert f"grad {b.grad.item():.4g}" in text
    names = [type(n).__name__ for n in (loss.grad_fn, loss.grad_fn.next_functions[0][0])]
    assert all(n in text for n in names)


def test_leaf_and_no_graph():
    import leafgrad
    w = leafgrad.tensor([1.0], requires_grad=True)
    assert leafgrad.viz.text(w) == "tensor shape (1,) = [1]\n#1 leaf shape (1,) value [1] " \
                                   "grad None"
    with pytest.raises(TypeError):
        leafgrad.viz.text(3.0)


def test_graph_verb(tmp_path):
    from ._helpers import run_cli
    prog = tmp_path / "prog.py"
    with open(PROGRAM) as f:
        prog.write_text(f.read().replace("import leafgrad as torch", "import torch")
                        + "print('done')\n")
    dot_path = tmp_path / "g.dot"
    proc = run_cli("graph", "--dot", str(dot_path), str(prog))
    assert proc.returncode == 0 and proc.stdout == "done\n"
    assert "the last backward (backward at line 8)" in proc.stderr
    body = _golden("graph_lines.txt").replace("loss = ", "tensor = ")
    body = body.replace("w (leaf)", "leaf").replace("b (leaf)", "leaf")
    assert body in proc.stderr
    assert dot_path.read_text().startswith("digraph backward {")
