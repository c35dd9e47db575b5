"""SVG/PNG drawings through Graphviz's ``dot``, notebook display, ``leafgrad graph --out``.

Graphviz is a test requirement (``.ci/run`` installs it), so these tests fail, not skip,
where ``dot`` is missing; the message says how to install it.
"""
from __future__ import annotations

import os
import shutil
import struct
import sys
import types
import xml.etree.ElementTree as ET

import pytest

from ._helpers import run_cli

HERE = os.path.dirname(os.path.abspath(__file__))
PROGRAM = os.path.join(HERE, "graph_program.py")
NEED_DOT = ("Graphviz's `dot` program is a test requirement (installed by .ci/run: "
            "apt-get install graphviz)")
NODES = ("AddBackward0", "SumBackward0", "TanhBackward0", "MulBackward0", "MeanBackward0",
         "PowBackward0")


def _loss():
    import leafgrad
    w = leafgrad.tensor([1.0, 2.0], requires_grad=True)
    b = leafgrad.tensor(0.5, requires_grad=True)
    loss = (w * b).tanh().sum() + (w ** 2).mean()
    loss.backward()
    return loss, w, b


def _svg_texts(svg: str) -> list:
    root = ET.fromstring(svg)            # well-formed XML, or this raises
    assert root.tag == "{http://www.w3.org/2000/svg}svg", root.tag
    return [el.text or "" for el in root.iter("{http://www.w3.org/2000/svg}text")]


def _png_size(data: bytes):
    assert data[:8] == b"\x89PNG\r\n\x1a\n", data[:16]
    assert data[12:16] == b"IHDR"
    return struct.unpack(">II", data[16:24])


def _names_in(texts, names):
    return [n for n in names if not any(n in t for t in texts)]


def test_dot_is_installed():
    assert shutil.which("dot") is not None, NEED_DOT


def test_render_svg_and_png(tmp_path):
    import leafgrad
    assert shutil.which("dot") is not None, NEED_DOT
    loss, w, b = _loss()
    svg = leafgrad.viz.render(loss, str(tmp_path / "g.svg"), names={"w": w, "b": b})
    texts = _svg_texts((tmp_path / "g.svg").read_text())
    assert svg == str(tmp_path / "g.svg")
    assert _names_in(texts, NODES + ("w (leaf)", "b (leaf)")) == [], texts
    assert any("grad [" in t for t in texts)
    leafgrad.viz.render(loss, str(tmp_path / "g.png"))
    width, height = _png_size((tmp_path / "g.png").read_bytes())
    assert width > 50 and height > 100        # six nodes stacked: taller than wide
    with pytest.raises(ValueError, match="unknown format"):
        leafgrad.viz.render(loss, str(tmp_path / "g.gif"))


def test_render_without_dot_says_how_to_install(tmp_path, monkeypatch):
    import leafgrad
    from leafgrad.diagnostics import viz
    loss, _, _ = _loss()
    monkeypatch.setattr(viz.shutil, "which", lambda name: None)
    monkeypatch.setattr(viz, "_RENDERED", {})
    with pytest.raises(RuntimeError, match="apt-get install graphviz"):
        leafgrad.viz.render(loss, str(tmp_path / "g.svg"))
    g = leafgrad.viz.graph(loss)
    assert g._repr_svg_() is None
    assert g._repr_html_() == f'<pre class="leafgrad-graph">{g.text()}</pre>'


def test_graph_displays_in_notebooks():
    import leafgrad
    assert shutil.which("dot") is not None, NEED_DOT
    loss, _, _ = _loss()
    g = leafgrad.viz.graph(loss)
    svg = g._repr_svg_()
    assert _names_in(_svg_texts(svg), NODES) == []
    page = g._repr_html_()
    assert page.startswith('<div class="leafgrad-graph"><svg') and page.endswith("</div>")
    assert _svg_texts(page[len('<div class="leafgrad-graph">'):-len("</div>")])


def test_tensors_and_nodes_display_only_when_asked():
    import leafgrad
    from leafgrad.autograd.graph import Node
    assert shutil.which("dot") is not None, NEED_DOT
    loss, w, _ = _loss()
    # off by default: a tensor is shown by its repr alone, as in PyTorch
    assert not hasattr(loss, "_repr_html_") and not hasattr(loss.grad_fn, "_repr_svg_")
    leafgrad.viz.notebook()
    try:
        page = loss._repr_html_()
        assert page.startswith("<pre>tensor(")
        assert "SumBackward0" in page and "<svg" in page
        assert _names_in(_svg_texts(loss.grad_fn._repr_svg_()), NODES) == []
        mul = loss.grad_fn.next_functions[0][0].next_functions[0][0].next_functions[0][0]
        node_texts = _svg_texts(mul._repr_svg_())
        assert _names_in(node_texts, ("MulBackward0",)) == []
        assert _names_in(node_texts, ("AddBackward0",)) == ["AddBackward0"]   # below only
        assert leafgrad.ones(2)._repr_html_() is None     # no graph: plain repr
        assert leafgrad.ones(2)._repr_svg_() is None
        assert "leaf" in w._repr_html_()
    finally:
        leafgrad.viz.notebook(False)
    assert not hasattr(loss, "_repr_html_") and not hasattr(Node, "_repr_svg_")
    with leafgrad.diagnostics.enable():         # diagnostics turn the display on, too
        assert loss._repr_html_() is not None
        leafgrad.viz.notebook(False)            # and off again, inside: disable still works
        assert not hasattr(loss, "_repr_html_")
    assert not hasattr(loss, "_repr_html_")
    leafgrad.viz.notebook()
    with leafgrad.diagnostics.enable():
        pass
    assert hasattr(loss, "_repr_html_")         # asked for before: kept after disable
    leafgrad.viz.notebook(False)


def test_source_uses_the_graphviz_package(monkeypatch):
    import leafgrad
    loss, _, _ = _loss()
    made = []
    fake = types.ModuleType("graphviz")
    fake.Source = lambda text: made.append(text) or ("Source", text)
    monkeypatch.setitem(sys.modules, "graphviz", fake)
    assert leafgrad.viz.source(loss) == ("Source", leafgrad.viz.dot(loss))
    monkeypatch.setitem(sys.modules, "graphviz", None)     # not installed
    with pytest.raises(ImportError, match=r"leafgrad\[viz\]"):
        leafgrad.viz.source(loss)


@pytest.mark.parametrize("fmt", ["svg", "png"])
def test_graph_verb_out(tmp_path, fmt):
    assert shutil.which("dot") is not None, NEED_DOT
    prog = tmp_path / "prog.py"
    with open(PROGRAM) as f:
        prog.write_text(f.read().replace("import leafgrad as torch", "import torch")
                        + "print('done')\n")
    out = tmp_path / f"graph.{fmt}"
    proc = run_cli("graph", "--out", str(out), str(prog), cwd=str(tmp_path))
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == "done\n"
    if fmt == "svg":
        texts = _svg_texts(out.read_text())
        assert _names_in(texts, NODES) == [], texts
        assert any("(line 5)" in t for t in texts)     # the node's line in the program
    else:
        assert _png_size(out.read_bytes())[1] > 100
