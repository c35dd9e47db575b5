"""Draw a backward graph as text, from the real graph: ``grad_fn`` names, ``next_functions``,
saved values, and gradients caught by node hooks while the engine runs.

Only public autograd API is used, so these helpers draw real PyTorch graphs as well.

>>> import leafgrad as torch
>>> w = torch.tensor(2.0, requires_grad=True)
>>> h = w.square()
>>> L = 3 * h
>>> print(draw_chain(L, w=w, h=h, L=L))
Forward:  w = 2 ── square ──> h = 4 ── times 3 ──> L = 12
Backward: dL/dw = 12 <── ×4 ── dL/dh = 3 <── ×3 ── dL/dL = 1
>>> print(draw_tree(L, w=w, h=h, L=L))
L = 12  MulBackward0
├── h = 4  PowBackward0
│   └── w = 2  AccumulateGrad
└── (a constant: no edge)
"""
from __future__ import annotations

__all__ = ["draw_chain", "draw_tree", "fmt", "op_label"]


def fmt(value) -> str:
    """A number as a person writes it: 2.0 -> '2', 0.25 -> '0.25'."""
    if hasattr(value, "item"):
        value = value.item()
    return f"{value:.6g}"


def _node_name(node) -> str:
    return type(node).__name__


def _is_leaf_node(node) -> bool:
    return _node_name(node) == "AccumulateGrad"


def _saved(node, name):
    """``node._saved_<name>``, or None where the node did not save it (or it was freed)."""
    try:
        return getattr(node, "_saved_" + name)
    except (AttributeError, RuntimeError):
        return None


def _is_constant(value) -> bool:
    if isinstance(value, (int, float)):
        return True
    return hasattr(value, "requires_grad") and not value.requires_grad \
        and value.numel() == 1


def op_label(node) -> str:
    """A short word for what the forward op did, read from the node and its saved values."""
    name = _node_name(node)
    if name == "PowBackward0":
        exponent = _saved(node, "exponent")
        if exponent is not None:
            return "square" if exponent == 2 else f"power {fmt(exponent)}"
    if name == "MulBackward0":
        for slot in ("other", "self"):
            value = _saved(node, slot)
            if value is not None and _is_constant(value):
                return f"times {fmt(value)}"
    base = name.removesuffix("Backward0")
    return base.lower()


def _names_by_node(named: dict) -> dict:
    """Map each named tensor's graph position (its grad_fn, or the leaf itself) to its name."""
    by_key = {}
    for label, t in named.items():
        fn = t.grad_fn
        by_key[id(fn) if fn is not None else id(t)] = (label, t)
    return by_key


def _chain(output) -> list:
    """The nodes from ``output`` down to its leaf, following the one edge that needs a grad."""
    node = output.grad_fn
    if node is None:
        raise ValueError("draw_chain needs a tensor that has a grad_fn")
    nodes = [node]
    while not _is_leaf_node(node):
        edges = [fn for fn, _ in node.next_functions if fn is not None]
        if len(edges) != 1:
            raise ValueError(f"{_node_name(node)} has {len(edges)} inputs that need a "
                             "gradient; draw_chain draws single chains (use draw_tree)")
        node = edges[0]
        nodes.append(node)
    return nodes


def draw_chain(output, **named) -> str:
    """Two lines: the forward chain from the leaf to ``output`` and the backward chain back.

    Name the tensors to show (``w=w, h=h, L=L``). The backward line comes from running the
    engine (``autograd.grad`` with ``retain_graph=True``, so ``.grad`` fields and the graph are
    left as they were): a hook on each node reads the gradient that arrives and the one it
    sends on; their ratio is the node's local derivative.
    """
    if output.numel() != 1:
        raise ValueError("draw_chain draws scalar chains; the output has "
                         f"{output.numel()} elements")
    nodes = _chain(output)
    by_key = _names_by_node(named)
    leaf = nodes[-1].variable
    out_name = by_key.get(id(output.grad_fn), ("out", output))[0]

    def label_of(node, fallback_tensor=None):
        key = id(node.variable) if _is_leaf_node(node) else id(node)
        return by_key.get(key, ("?", fallback_tensor))

    # forward: leaf first, then each op with the tensor it produced
    steps = [label_of(nodes[-1], leaf)]
    for node in reversed(nodes[:-1]):
        steps.append((op_label(node), label_of(node)))
    parts = [f"{steps[0][0]} = {fmt(steps[0][1])}"]
    for op, (label, t) in steps[1:]:
        value = fmt(t) if t is not None else "?"
        parts.append(f" ── {op} ──> {label} = {value}")
    forward = "Forward:  " + "".join(parts)

    # backward: run the engine with a hook on every op node
    seen = {}
    handles = []
    for node in nodes[:-1]:
        def hook(grad_inputs, grad_outputs, node=node):
            seen[id(node)] = (grad_inputs, grad_outputs)
        handles.append(node.register_hook(hook))
    try:
        import importlib
        autograd = importlib.import_module(type(output).__module__.split(".")[0] + ".autograd")
        (leaf_grad,) = autograd.grad(output, leaf, retain_graph=True)
    finally:
        for h in handles:
            h.remove()
    pieces = [f"d{out_name}/d{out_name} = 1"]
    for node in nodes[:-1]:
        grad_inputs, grad_outputs = seen[id(node)]
        g_in = next(g for g in grad_inputs if g is not None)
        g_out = grad_outputs[0]
        local = g_in.item() / g_out.item() if g_out.item() != 0 else float("nan")
        below = nodes[nodes.index(node) + 1]
        below_name = label_of(below)[0]
        pieces.append((fmt(local), f"d{out_name}/d{below_name} = {fmt(g_in)}"))
    text = pieces[0]
    for local, grad_text in pieces[1:]:
        text = f"{grad_text} <── ×{local} ── " + text
    assert fmt(leaf_grad) == fmt(g_in)
    return forward + "\nBackward: " + text


def draw_tree(output, **named) -> str:
    """The backward graph under ``output`` as an indented tree of ``next_functions``.

    Each line shows the name and value of a named tensor (if any) and the node's class;
    an input that needs no gradient (a constant) shows as a missing edge.
    """
    by_key = _names_by_node(named)
    lines = []

    def describe(node):
        key = id(node.variable) if _is_leaf_node(node) else id(node)
        entry = by_key.get(key)
        prefix = ""
        if entry is not None:
            label, t = entry
            prefix = f"{label} = {fmt(t)}  " if t.numel() == 1 else f"{label}  "
        return prefix + _node_name(node)

    def walk(node, indent, last, top):
        if top:
            lines.append(describe(node))
            child_indent = ""
        else:
            branch = "└── " if last else "├── "
            text = describe(node) if node is not None else "(a constant: no edge)"
            lines.append(indent + branch + text)
            child_indent = indent + ("    " if last else "│   ")
        if node is None:
            return
        children = [fn for fn, _ in node.next_functions]
        for i, child in enumerate(children):
            walk(child, child_indent, i == len(children) - 1, False)

    root = output.grad_fn
    if root is None:
        raise ValueError("draw_tree needs a tensor that has a grad_fn")
    walk(root, "", True, True)
    return "\n".join(lines)
