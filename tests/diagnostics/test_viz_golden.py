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


SAVED = os.path.join(HERE, "saved_program.py")


def test_saved_values_versions_hooks():
    # before backward: each node's saved tensors (shape, version), retained grads, hooks;
    # b was changed in place after MulBackward0 and ExpBackward0 saved it
    import leafgrad
    g = runpy.run_path(SAVED)
    assert leafgrad.viz.text(g["loss"], names={"w": g["w"], "b": g["b"]}) + "\n" == \
        _golden("graph_saved.txt")


def _pairs(ours, theirs, seen=None):
    """(leafgrad node, torch node) pairs over both graphs, walked in step."""
    seen = set() if seen is None else seen
    if ours is None or id(ours) in seen:
        return
    seen.add(id(ours))
    assert type(ours).__name__ == type(theirs).__name__
    yield ours, theirs
    for (a, _), (b, _) in zip(ours.next_functions, theirs.next_functions, strict=True):
        yield from _pairs(a, b, seen)


def test_saved_names_and_shapes_match_torch():
    import re

    from leafgrad.diagnostics import viz
    torch = pytest.importorskip("torch")
    g = runpy.run_path(SAVED)
    with open(SAVED) as f:
        source = f.read().replace("import leafgrad as torch", "")
    tg = {"torch": torch}
    exec(compile(source, SAVED, "exec"), tg)  # noqa: S102 (the same program on torch)
    checked = 0
    for ours, theirs in _pairs(g["loss"].grad_fn, tg["loss"].grad_fn):
        saved = viz._saved(ours) or ""
        shown = {}
        for name, shape, changed in re.findall(r"(\w+) (\([\d, ]*\)) v\d+( \(now)?", saved):
            shown[name] = (shape, bool(changed))
        theirs_saved = {}
        for attr in dir(theirs):
            if not attr.startswith("_saved_"):
                continue
            try:
                value = getattr(theirs, attr)
            except RuntimeError as exc:     # torch refuses a saved value changed in place
                assert "modified by an inplace operation" in str(exc)
                theirs_saved[attr[len("_saved_"):]] = (None, True)
                continue
            if isinstance(value, torch.Tensor):
                theirs_saved[attr[len("_saved_"):]] = (str(tuple(value.shape)), False)
        assert shown.keys() == theirs_saved.keys(), (type(ours).__name__, saved)
        for name, (shape, changed) in theirs_saved.items():
            assert shown[name][1] == changed, (type(ours).__name__, name)
            if shape is not None:
                assert shown[name][0] == shape, (type(ours).__name__, name)
            checked += 1
    assert checked >= 7
