"""Draw a tensor's backward graph: as text (values and gradients) or as Graphviz DOT.

>>> import leafgrad as torch
>>> w = torch.tensor([1.0, 2.0], requires_grad=True)
>>> loss = (w * 3).sum()
>>> loss.backward()
>>> print(torch.viz.text(loss, names={"w": w}))
tensor = 9
#1 SumBackward0
└─ #2 MulBackward0 saved freed
   └─ #3 w (leaf) shape (2,) value [1, 2] grad [3, 3]

Before backward a node lists the tensors it saved, with the version each had then:

>>> x = w * w
>>> print(torch.viz.text(x, names={"w": w}))
tensor shape (2,) = [1, 4]
#1 MulBackward0 saved other (2,) v0, self (2,) v0
├─ #2 w (leaf) shape (2,) value [1, 2] grad [3, 3]
└─ #2 (above)

SVG/PNG need the ``dot`` program of Graphviz (``render``); text and DOT need nothing.
In Jupyter a ``Graph`` displays itself (SVG with Graphviz, else the text drawing); after
``viz.notebook()`` (or while diagnostics are on) tensors and backward nodes do too, see Note
[Notebook display].
"""
from __future__ import annotations

import html
import shutil
import subprocess

import numpy as np

from ..autograd.graph import Node, SavedOutput
from ..tensor import Tensor
from . import provenance as pv

__all__ = ["Graph", "dot", "graph", "notebook", "render", "source", "text"]


def _fmt(data) -> str:
    arr = np.asarray(data)
    return np.array2string(arr, separator=", ", threshold=8, edgeitems=2,
                           max_line_width=10**6,
                           formatter={"float_kind": lambda x: f"{x:.4g}"})


def _children(node):
    """(child, output_nr) pairs below ``node``: nodes or leaf tensors."""
    if isinstance(node, Tensor):
        return []
    out = []
    for fn, nr in getattr(node, "_edges", ()):
        if fn is None:
            continue
        out.append(fn)
    return out


def _leaf_of(x):
    if isinstance(x, Tensor):
        return x
    var = getattr(x, "variable", None)
    return var if isinstance(var, Tensor) else None


def _saved(node) -> str | None:
    """``saved self (2,) v0, result () v0``: the tensors a node keeps for backward, with the
    version each had when saved (and the version now, when an in-place op changed it)."""
    names = getattr(type(node), "saved_names", ())
    saved = getattr(node, "_saved", ())
    if saved is None:       # freed by backward; say so where tensors were saved
        kinds = getattr(type(node), "saved_is_tensor", None) or ()
        return "saved freed" if any(kinds) else None
    versions = getattr(node, "_versions", None)
    items = []
    for i, (name, value) in enumerate(zip(names, saved)):
        if isinstance(value, Tensor):
            shape, vc = value._data.shape, value._vc
        elif isinstance(value, SavedOutput):
            shape, vc = value.data.shape, value.vc
        else:
            continue            # a saved number or shape, not a tensor
        item = f"{name} {tuple(shape)}"
        v = versions[i] if versions is not None and i < len(versions) else None
        if v is not None:
            item += f" v{v}" if vc[0] == v else f" v{v} (now v{vc[0]}: changed in place)"
        items.append(item)
    return "saved " + ", ".join(items) if items else None


def _node_state(node) -> list:
    """Saved values, retained gradients and hooks of a node, as label parts."""
    parts = []
    saved = _saved(node)
    if saved is not None:
        parts.append(saved)
    for nr, ref in sorted((getattr(node, "_retain_grad_hooks", None) or {}).items()):
        t = ref()
        if t is not None:
            grad = _fmt(t._grad._data) if t._grad is not None else "None"
            parts.append(f"retained grad {grad}" if nr == 0 else f"retained grad[{nr}] {grad}")
    n = len(getattr(node, "_hooks", None) or ()) + len(getattr(node, "_pre_hooks", None) or ())
    n += sum(len(h) for h in (getattr(node, "_tensor_pre_hooks", None) or {}).values())
    if n:
        parts.append(f"hooks {n}")
    return parts


class Graph:
    """The backward graph below a tensor, numbered in depth-first order (deterministic)."""

    def __init__(self, t, names=None, lines: bool = True):
        if not isinstance(t, (Tensor, Node)):
            raise TypeError(f"viz expects a Tensor or a backward node, not {type(t).__name__}")
        self.root = t
        self.lines = lines
        self.names = {}
        for name, v in (names or {}).items():
            if isinstance(v, Tensor):
                self.names[id(v)] = name
        self.ids: dict = {}
        self.order: list = []
        start = t if isinstance(t, Node) else (t._grad_fn if t._grad_fn is not None else t)
        stack = [start]
        while stack:
            x = stack.pop()
            if id(x) in self.ids:
                continue
            self.ids[id(x)] = len(self.order) + 1
            self.order.append(x)
            stack.extend(reversed(_children(x)))

    def label(self, x) -> str:
        leaf = _leaf_of(x)
        if leaf is not None:
            name = self.names.get(id(leaf), "leaf")
            parts = [f"{name} (leaf)" if name != "leaf" else "leaf",
                     f"shape {tuple(leaf._data.shape)}", f"value {_fmt(leaf._data)}"]
            g = leaf._grad
            parts.append(f"grad {_fmt(g._data)}" if g is not None else "grad None")
            if leaf._hooks:
                parts.append(f"hooks {len(leaf._hooks)}")
            return " ".join(parts)
        parts = [type(x).__name__]
        p = pv.lookup(x)
        if p is not None:
            if self.lines and p.site is not None:
                parts.append(f"(line {p.site[1]})")
            out = p.extra() if p.extra is not None else None
            if out is not None:
                parts.append(f"value {_fmt(out._data)}")
        parts.extend(_node_state(x))
        return " ".join(parts)

    def head(self) -> str:
        t = self.root
        if isinstance(t, Node):
            return f"backward graph of {type(t).__name__}"
        name = self.names.get(id(t), "tensor")
        if t._data.ndim == 0:
            return f"{name} = {_fmt(t._data)}"
        return f"{name} shape {tuple(t._data.shape)} = {_fmt(t._data)}"

    def text(self) -> str:
        lines = [self.head()]
        done = set()
        start = self.order[0]
        # iterative pre-order walk: (item, prefix, is_last, is_root)
        stack = [(start, "", True, True)]
        while stack:
            x, prefix, last, is_root = stack.pop()
            n = self.ids[id(x)]
            branch = "" if is_root else ("└─ " if last else "├─ ")
            if id(x) in done:
                lines.append(f"{prefix}{branch}#{n} (above)")
                continue
            done.add(id(x))
            lines.append(f"{prefix}{branch}#{n} {self.label(x)}")
            kids = _children(x)
            child_prefix = prefix if is_root else prefix + ("   " if last else "│  ")
            for i in range(len(kids) - 1, -1, -1):
                stack.append((kids[i], child_prefix, i == len(kids) - 1, False))
        return "\n".join(lines)

    def dot(self) -> str:
        out = ["digraph backward {", "  rankdir=BT;",
               '  node [shape=box, fontname="monospace", fontsize=10];']
        out.append(f'  n0 [label="{_esc(self.head())}", shape=oval];')
        for x in self.order:
            n = self.ids[id(x)]
            leaf = _leaf_of(x) is not None
            style = ', style=filled, fillcolor="lightblue"' if leaf else ""
            out.append(f'  n{n} [label="{_esc(self.label(x))}"{style}];')
        out.append(f"  n{self.ids[id(self.order[0])]} -> n0;")
        for x in self.order:
            for kid in _children(x):
                out.append(f"  n{self.ids[id(kid)]} -> n{self.ids[id(x)]};")
        out.append("}")
        return "\n".join(out)

    def __str__(self) -> str:
        return self.text()

    def _repr_svg_(self):
        if len(self.order) > _NOTEBOOK_MAX_NODES or shutil.which("dot") is None:
            return None
        return _run_dot(self.dot(), "svg").decode()

    def _repr_html_(self):
        if len(self.order) > _NOTEBOOK_MAX_NODES:
            return (f"<pre>{html.escape(self.head())}\n({len(self.order)} nodes: too many to "
                    "draw here; use leafgrad.viz.text(t) or viz.render(t, path))</pre>")
        svg = self._repr_svg_()
        if svg is not None:
            return f'<div class="leafgrad-graph">{svg[svg.find("<svg"):]}</div>'
        return f'<pre class="leafgrad-graph">{html.escape(self.text())}</pre>'


_NOTEBOOK_MAX_NODES = 300


def _esc(s: str) -> str:
    return s.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")


_RENDERED: dict = {}   # (DOT source, format) -> output: a notebook asks for HTML and SVG


def _run_dot(source: str, fmt: str) -> bytes:
    hit = _RENDERED.get((source, fmt))
    if hit is not None:
        return hit
    exe = shutil.which("dot")
    if exe is None:
        raise RuntimeError("rendering SVG/PNG needs Graphviz's `dot` program, which is not "
                           "installed (apt-get install graphviz, brew install graphviz or "
                           "conda install graphviz); use viz.dot(t) and render the text "
                           "elsewhere")
    out = subprocess.run([exe, f"-T{fmt}"], input=source.encode(), capture_output=True,
                         check=True).stdout
    if len(_RENDERED) >= 8:
        _RENDERED.pop(next(iter(_RENDERED)))
    _RENDERED[(source, fmt)] = out
    return out


def graph(t, names=None, lines: bool = True) -> Graph:
    return Graph(t, names, lines)


def text(t, names=None, lines: bool = True) -> str:
    """The graph as indented text: each node, each leaf's value and gradient."""
    return Graph(t, names, lines).text()


def dot(t, names=None, lines: bool = True) -> str:
    """The graph in Graphviz DOT (edges point from inputs to the node that uses them)."""
    return Graph(t, names, lines).dot()


def render(t, path: str, fmt: str | None = None, names=None) -> str:
    """Write the graph as SVG or PNG (needs Graphviz); returns ``path``."""
    fmt = fmt or path.rsplit(".", 1)[-1]
    if fmt not in ("svg", "png", "pdf"):
        raise ValueError(f"render: unknown format {fmt!r} (svg, png or pdf)")
    data = _run_dot(dot(t, names), fmt)
    with open(path, "wb") as f:
        f.write(data)
    return path


def source(t, names=None, lines: bool = True):
    """The graph as a ``graphviz.Source`` (the ``viz`` extra: ``pip install 'leafgrad[viz]'``),
    for its notebook display, ``.render()`` and ``.view()``."""
    try:
        import graphviz
    except ImportError:
        raise ImportError("viz.source needs the `graphviz` Python package: pip install "
                          "'leafgrad[viz]' (and Graphviz's `dot` program to render)") from None
    return graphviz.Source(dot(t, names, lines))


# Note [Notebook display]
# Jupyter shows an object through its ``_repr_html_``/``_repr_svg_`` methods. Tensors and
# nodes get them only when asked (``viz.notebook()``, or while diagnostics are on): they
# are class attributes, so nothing is added per tensor or per op, and with them off a
# tensor displays as PyTorch's does (its repr). A tensor that does not require grad has no
# graph and keeps its plain repr (the methods return None).

def _tensor_html(self):
    if not self._requires_grad:
        return None
    return f"<pre>{html.escape(repr(self))}</pre>" + Graph(self)._repr_html_()


def _tensor_svg(self):
    return Graph(self)._repr_svg_() if self._requires_grad else None


def _node_html(self):
    return Graph(self)._repr_html_()


def _node_svg(self):
    return Graph(self)._repr_svg_()


NOTEBOOK_METHODS = ((Tensor, "_repr_html_", _tensor_html), (Tensor, "_repr_svg_", _tensor_svg),
                    (Node, "_repr_html_", _node_html), (Node, "_repr_svg_", _node_svg))


def notebook(enabled: bool = True) -> None:
    """Display tensors that require grad, and backward nodes, as their graph in Jupyter."""
    for cls, name, fn in NOTEBOOK_METHODS:
        if enabled:
            setattr(cls, name, fn)
        elif cls.__dict__.get(name) is fn:
            delattr(cls, name)
