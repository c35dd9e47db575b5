"""The backward engine, shared by ``Tensor.backward`` and ``autograd.grad``.

One iterative pass (no recursion, so 100,000-op chains are fine):
1. walk the graph from the roots and count, for every node, how many edges lead into it;
2. if only some inputs are wanted, mark the nodes that lead to them (the rest never run);
3. run nodes whose every consumer has delivered its gradient (Kahn's order), the most
   recently made first, as PyTorch's engine (Note [Sequence numbers] in graph.py), summing
   fan-in in a buffer per node, writing into leaves' ``.grad`` (at once: PyTorch's
   AccumulateGrad comes first among ready nodes) or into the list of wanted inputs;
4. free each node's saved values after it ran, unless ``retain_graph``.
Backward formulas run under grad mode = ``create_graph``, so with it they are recorded and
higher derivatives follow; without it they build nothing.
"""
from __future__ import annotations

import sys
from heapq import heappop, heappush

import numpy as np

from .._zerotensor import check_mutable, is_zero_array
from ..grad_mode import state as _mode
from ..tensor import Tensor, _wrap
from .. import errors as _errors
from .graph import MAX_SEQ, Node, OpNode, SavedOutput, anomaly as _anomaly
from .graph import check_versions as _check_versions
from . import reduce_grad as _reduce_grad
from .reduce_grad import check_reshaped

__all__ = ["execute", "accumulate_grad"]

_getrefcount = sys.getrefcount
# Note [Ties at the top]: PyTorch numbers AccumulateGrad and NotImplemented nodes UINT64_MAX
# (MAX_SEQ), so its engine runs them as soon as they are ready, in the order they became
# ready. leafgrad delivers a leaf's gradient at once, unless such a node is already waiting:
# then the leaf's delivery waits in the heap too, behind it (a NotImplemented node that
# raises first leaves the leaf's .grad unwritten, as PyTorch's). Their heap keys are MAX_SEQ
# plus a running count: unique, below every ordinary node's, first pushed first out.
_TOP = MAX_SEQ + 2 ** 62   # heap keys below this are such entries


def _collect(roots):
    """Dependency counts of every node reachable from ``roots`` (iteratively).

    Leaves are counted too, under ``id(leaf)``: a leaf reached by several edges gets their
    sum once, as PyTorch's AccumulateGrad node does (its hooks run once, on the sum)."""
    deps: dict = {}
    if len(roots) == 1:   # loss.backward()
        stack = [roots[0]] if isinstance(roots[0], Node) else []
        root_set = ()
    else:
        # once per node: two outputs of one node as roots (x.chunk(2)) walk its edges once
        stack = list(dict.fromkeys(fn for fn in roots if isinstance(fn, Node)))
        # a root reached from another root must not be walked twice (one root cannot reach
        # itself)
        root_set = set(stack) if len(stack) > 1 else ()
    while stack:
        node = stack.pop()
        for fn, _ in node._edges:
            if fn is None:
                continue
            if isinstance(fn, Tensor):
                key = id(fn)
                deps[key] = deps.get(key, 0) + 1
                continue
            count = deps.get(fn)
            if count is None:
                deps[fn] = 1
                if fn not in root_set:
                    stack.append(fn)
            else:
                deps[fn] = count + 1
    return deps


def _needed(roots, targets_nodes, target_leaves):
    """Nodes from which a wanted input can be reached through at least one edge (post-order,
    iterative): they run; a wanted node itself only when it leads to another."""
    needed = set()
    visited = set()
    for root in roots:
        if not isinstance(root, Node) or id(root) in visited:
            continue
        stack = [(root, iter(root._edges))]
        visited.add(id(root))
        while stack:
            node, it = stack[-1]
            advanced = False
            for fn, _ in it:
                if fn is None:
                    continue
                if isinstance(fn, Tensor):
                    if id(fn) in target_leaves:
                        needed.add(id(node))
                    continue
                if id(fn) not in visited:
                    visited.add(id(fn))
                    stack.append((fn, iter(fn._edges)))
                    advanced = True
                    break
                if id(fn) in needed or id(fn) in targets_nodes:
                    needed.add(id(node))
            if not advanced:
                stack.pop()
                # a node whose output is wanted makes its consumers needed, not itself
                # (Note [Captured nodes])
                if stack and (id(node) in needed or id(node) in targets_nodes):
                    needed.add(id(stack[-1][0]))
    return needed


def execute(roots, seeds, retain_graph: bool, create_graph: bool, inputs=None,
            accumulate: bool = True, fresh_seeds: bool = False):
    """Backpropagate ``seeds`` from ``roots`` (tensors). Returns grads for ``inputs`` if given.

    ``accumulate`` True writes leaves' ``.grad`` (only those in ``inputs`` when given);
    False only captures the gradients of ``inputs`` (``autograd.grad``).
    """
    prev = _mode.grad_enabled
    _mode.grad_enabled = create_graph
    try:
        return _execute(roots, seeds, retain_graph, create_graph, inputs, accumulate,
                        fresh_seeds)
    finally:
        _mode.grad_enabled = prev


def _execute(roots, seeds, retain_graph, create_graph, inputs, accumulate, fresh_seeds):
    root_fns = []
    for t in roots:
        root_fns.append(t._grad_fn if t._grad_fn is not None else t)
    deps = _collect(root_fns)

    captured = target_leaves = target_nodes = needed = None
    if inputs is not None:
        captured = [None] * len(inputs)
        target_leaves = {}
        target_nodes = {}
        for i, t in enumerate(inputs):
            if t._grad_fn is None:
                if t._meta is not None and t._meta.get("no_grad_view"):
                    continue   # no accumulator, so never reached (ops/views.py)
                target_leaves.setdefault(id(t), []).append(i)
            else:
                target_nodes.setdefault(id(t._grad_fn), []).append((t._output_nr, i))
        needed = _needed(root_fns, target_nodes, target_leaves)

    # Note [Ready nodes]: a node's gradient buffer leaves ``buffers`` when its last consumer
    # has delivered, so a node with one consumer (every node of a chain) never touches the
    # dict; grads is None when no gradient arrived at all. Ready nodes wait in ``ready``, a
    # heap of (seq, node, grads) whose smallest seq (the negated creation number) is the
    # newest node, PyTorch's order. While only one node is ready it waits in ``nxt`` and
    # ``nxt_grads`` instead: a chain never pays for the heap.
    buffers: dict = {}
    leaf_sums: dict = {}   # id(leaf) -> gradient so far, for leaves reached by several edges
    ready = []
    nxt = nxt_grads = None
    starts = []   # roots no other root leads to
    if not create_graph and not fresh_seeds:
        # A fresh wrapper: the user's seed array is then visibly shared, so a leaf's .grad
        # never aliases it (see accumulate_grad).
        seeds = [_wrap(g._data) if g is not None else None for g in seeds]
    root_leaves = None
    reshaped = _reduce_grad.ANY_RESHAPED   # Note [Reshaped outputs] (reduce_grad.py)
    if reshaped:
        seeds = [check_reshaped(fn, t._output_nr, seed, "", i) if isinstance(fn, Node)
                 else seed for i, (fn, t, seed) in enumerate(zip(root_fns, roots, seeds))]
    for fn, t, seed in zip(root_fns, roots, seeds):
        if isinstance(fn, Tensor):
            # backward() called on a leaf itself: as PyTorch's AccumulateGrad root, its seeds
            # are summed with what edges bring it, then its hooks run once (below)
            if seed is not None:
                key = id(fn)
                old = leaf_sums.get(key)
                leaf_sums[key] = seed if old is None else old + seed
                if not deps.get(key, 0):
                    if root_leaves is None:
                        root_leaves = {}
                    root_leaves[key] = fn
            continue
        if seed is not None:
            _add_to_buffer(buffers, fn, t._output_nr, seed)
        if deps.get(fn, 0) == 0 and fn not in starts:
            starts.append(fn)
    if root_leaves is not None:   # leaf roots no edge leads to: delivered now
        for key, fn in root_leaves.items():
            g = leaf_sums.pop(key)
            if captured is not None:
                _capture_leaf(fn, g, target_leaves.get(key), captured, accumulate,
                              create_graph)
            elif accumulate:
                accumulate_grad(fn, g, create_graph)
    if len(starts) == 1:
        nxt = starts[0]
        nxt_grads = buffers.pop(nxt, None)
    else:
        for fn in starts:
            heappush(ready, (fn._seq if not fn._max_priority else MAX_SEQ + len(ready), fn,
                             buffers.pop(fn, None)))
    # entries under _TOP in the heap (Note [Ties at the top])
    top_waiting = sum(1 for key, _, _ in ready if key < _TOP) if ready else 0
    tick = len(ready)

    capturing = captured is not None
    wanted = None
    while True:
        if nxt is not None:
            node = nxt
            grads = nxt_grads
            nxt = nxt_grads = None
        elif ready:
            key, node, grads = heappop(ready)
            if key < _TOP:
                top_waiting -= 1
                if isinstance(node, Tensor):   # a leaf's delivery that waited
                    if capturing:
                        _capture_leaf(node, grads, target_leaves.get(id(node)), captured,
                                      accumulate, create_graph)
                    elif accumulate:
                        accumulate_grad(node, grads, create_graph)
                    continue
        else:
            break
        if (grads is not None and not capturing and node._tensor_pre_hooks is None
                and node._retain_grad_hooks is None and node._pre_hooks is None):
            run = True   # the common case: a gradient arrived, no hooks, nothing captured
        else:
            if grads is None:
                grads = [None] * node.n_outputs
                has_grad = False
            else:
                has_grad = True
            if capturing:
                # Note [Captured nodes]: as PyTorch's engine, a node runs only when it leads
                # to a wanted input (one whose own output is wanted is not run, so it is not
                # freed); a node that does not run still gets its tensor hooks (register_hook,
                # retain_grad) and its output is captured after them; a node that runs is
                # captured before them.
                nid = id(node)
                run_it = nid in needed
                if not run_it and (node._tensor_pre_hooks is not None
                                   or node._retain_grad_hooks is not None):
                    grads = _run_pre_hooks(node, grads, tensor_only=True)
                if nid in target_nodes:
                    for nr, i in target_nodes[nid]:
                        g = grads[nr]
                        if g is not None:
                            captured[i] = g if captured[i] is None else captured[i] + g
                if not run_it:
                    grads = None
                elif isinstance(node, OpNode):
                    wanted = _wanted_edges(node._edges, needed, target_leaves, target_nodes)
            if (node._tensor_pre_hooks is not None or node._retain_grad_hooks is not None
                    or node._pre_hooks is not None) and grads is not None:
                grads = _run_pre_hooks(node, grads)
                has_grad = any(g is not None for g in grads)
            # No gradient arrived: built-in nodes are skipped, a custom Function's backward
            # still runs (on zeros, or on None without materialize_grads), as in PyTorch.
            run = has_grad or node.runs_without_grads
            if capturing and grads is None:
                run = False
        edges = node._edges
        if run:
            if _anomaly.enabled:
                # anomaly mode: forward trace on errors, NaN check (autograd/anomaly_mode.py)
                grad_inputs = _anomaly.run_node(node, grads, create_graph)
            elif wanted is not None:
                grad_inputs = node.apply(grads, create_graph, wanted)
                wanted = None
            else:
                grad_inputs = node.apply(grads, create_graph)
            if node._hooks:
                grad_inputs = _run_post_hooks(node, grad_inputs, grads)
            grads = buf = None   # drop the incoming gradients: see _sole_view
            if not retain_graph:
                saved = node._saved
                if saved:
                    slots = node._tensor_slots
                    if slots is None:
                        _free(node)
                    else:   # _free's op-node case, inline (once per node of every backward)
                        for i in slots:
                            if saved[i] is not None:
                                node._saved = None
                                break
                    # what the node saved dies now, as in PyTorch's engine (a CopySlices'
                    # in-place node, with the view's old history it holds: engine._free)
                    saved = None
        else:
            if isinstance(node, OpNode) and (not capturing or id(node) in needed):
                _unpack_without_grads(node, retain_graph)
            grad_inputs = _NONES[len(edges)] if len(edges) < 8 else [None] * len(edges)
        for (fn, nr), g in zip(edges, grad_inputs):
            if fn is None:
                continue
            if isinstance(fn, Tensor):
                key = id(fn)
                left = deps[key] - 1
                if left:   # more edges lead to this leaf: sum first (see _collect)
                    deps[key] = left
                    if g is not None:
                        old = leaf_sums.get(key)
                        leaf_sums[key] = g if old is None else old + g
                    continue
                limit = 4   # Note [Seen gradients]
                if leaf_sums:
                    old = leaf_sums.pop(key, None)
                    if old is not None:
                        g = old if g is None else old + g
                        old = None
                        limit = 2
                if g is None:
                    continue
                if top_waiting:
                    tick += 1
                    top_waiting += 1
                    heappush(ready, (MAX_SEQ + tick, fn, g))
                    continue
                if capturing:
                    _capture_leaf(fn, g, target_leaves.get(id(fn)), captured, accumulate,
                                  create_graph)
                elif accumulate:
                    seen = _getrefcount(g) > limit
                    accumulate_grad(fn, g, create_graph, seen=seen)
                continue
            if reshaped and g is not None and getattr(fn, "_reshaped_shapes", None):
                g = _check_delivered(node, edges, grad_inputs, fn, nr, g)
            left = deps[fn] - 1
            if left:
                deps[fn] = left
                if g is not None:
                    _add_to_buffer(buffers, fn, nr, g)
                continue
            buf = buffers.pop(fn, None) if buffers else None
            if g is not None:
                if buf is None:
                    buf = [None] * fn.n_outputs
                    buf[nr] = g
                else:
                    old = buf[nr]
                    buf[nr] = g if old is None else old + g
            if fn._max_priority:   # (Note [Ties at the top])
                if nxt is not None:
                    heappush(ready, (nxt._seq, nxt, nxt_grads))
                    nxt = nxt_grads = None
                tick += 1
                top_waiting += 1
                heappush(ready, (MAX_SEQ + tick, fn, buf))
            elif nxt is None and not ready:
                nxt = fn
                nxt_grads = buf
            else:
                if nxt is not None:
                    heappush(ready, (nxt._seq, nxt, nxt_grads))
                    nxt = nxt_grads = None
                heappush(ready, (fn._seq, fn, buf))
    return captured


_NONES = [(None,) * n for n in range(8)]

# Note [Seen gradients]
# A leaf's first gradient becomes its ``.grad`` without a copy when no one else can see it
# (accumulate_grad), as PyTorch's AccumulateGrad steals a tensor whose use count is 1. The
# array's reference count alone misses a gradient *tensor* that user code kept: a node's
# post hook (``grad_fn.register_hook``) or pre hook, or a tensor hook on a non-leaf, sees the
# tensor an identity formula (add, a view's backward) then hands to the leaf; stealing its
# array would let the next backward's in-place accumulation change the user's tensor. So the
# tensor's own count is checked where it is delivered: in the edge loop it is held by the
# node's list of gradients, zip's result tuple, ``g`` and getrefcount's argument (4); a sum
# from ``leaf_sums`` (or the tensor that waited there) only by ``g`` and the argument (2).
# Anything above that is someone else's reference: the gradient is copied.


def _wanted_edges(edges, needed, target_leaves, target_nodes):
    """Which of an op node's inputs need their gradient when only some inputs are wanted
    (``autograd.grad``, ``inputs=``): as PyTorch's engine, a derivative that leads nowhere
    wanted is not computed (some PyTorch formulas fail only when computed). None: all."""
    mask = None
    for i, (fn, _) in enumerate(edges):
        if fn is None:
            continue
        if isinstance(fn, Tensor):
            keep = id(fn) in target_leaves
        else:
            keep = id(fn) in needed or id(fn) in target_nodes
        if not keep:
            if mask is None:
                mask = [True] * len(edges)
            mask[i] = False
    return mask


def _check_delivered(node, edges, grad_inputs, fn, nr, g):
    """PyTorch's check of ``node``'s gradient ``g`` for ``fn``'s output ``nr``, a reshaped
    output (Note [Reshaped outputs]); the index counts the node's differentiable inputs."""
    calls = getattr(node, "_calls", None)
    index = 0
    for i, (edge, gi) in enumerate(zip(edges, grad_inputs)):
        if gi is g and edge[0] is fn and edge[1] == nr:
            break
        if calls is None or i >= len(calls) or calls[i] is not None:
            index += 1
    return check_reshaped(fn, nr, g, f"Function {node.name()} returned an ", index)


def _add_to_buffer(buffers, node, nr, g):
    buf = buffers.get(node)
    if buf is None:
        buf = [None] * node.n_outputs
        buffers[node] = buf
    old = buf[nr]
    buf[nr] = g if old is None else old + g


def _unpack_without_grads(node, retain_graph: bool) -> None:
    """A built-in node that no gradient reached: PyTorch's engine still calls it, and its
    generated ``apply`` unpacks the saved variables before it looks at the (undefined)
    gradients: a tensor changed in place since raises the version error, a node whose saved
    values a backward already freed raises "backward through the graph a second time", and
    without retain_graph the engine frees them after the call. Nothing is computed here (fuzz
    seed 156: the sign output of slogdet, whose gradient stops at the node, over an input
    changed in place)."""
    saved = node._saved
    if saved is None:
        raise RuntimeError(_errors.BACKWARD_TWICE)
    versions = node._versions
    if versions is not None:
        _check_versions(node, saved, versions)
    if not retain_graph and saved:
        _free(node)


def _free(node) -> None:
    """Drop what the node saved. PyTorch counts a number given for a tensor input (``x * 2``)
    as a saved tensor, so freeing it makes a second backward fail; plain arguments (``alpha``,
    ``dim``) are not tensors and a node that saved only those can run again."""
    saved = node._saved
    slots = node._tensor_slots   # op nodes: see Note [Node class constants] in graph.py
    if slots is not None:
        for i in slots:
            if saved[i] is not None:
                node._saved = None
                return
        return
    is_tensor = node.saved_is_tensor
    if is_tensor is None:
        freed = False
        for v in saved:
            if isinstance(v, Node):
                # CopySlices holds the in-place op's node: free what that node saved
                if v._saved:
                    _free(v)
                freed = freed or v._saved is None
            elif isinstance(v, (Tensor, SavedOutput)):
                freed = True
        if freed:
            node._saved = None
        return
    for v, t in zip(saved, is_tensor):
        if t and v is not None:
            node._saved = None
            return


def _run_pre_hooks(node, grads, tensor_only=False):
    """The hooks before a node: the tensors' (register_hook, then retain_grad), then the
    node's own (``register_prehook``, not for a node that does not run)."""
    grads = list(grads)
    if node._tensor_pre_hooks:
        for nr, hooks in node._tensor_pre_hooks.items():
            for hook in list(hooks.values()):
                if grads[nr] is None:
                    break
                new = hook(grads[nr])
                if new is not None:
                    _check_hook_result(hook, grads[nr], new)
                    grads[nr] = new
    if node._retain_grad_hooks:
        for nr, ref in node._retain_grad_hooks.items():
            t = ref()
            g = grads[nr]
            if t is not None and g is not None:
                if t._grad is None:
                    # a clone, as PyTorch's retain_grad hook (CloneBackward0 under create_graph)
                    t._grad = g.clone() if _mode.grad_enabled else _wrap(g._data.copy())
                else:
                    t._grad = t._grad + g
    if node._pre_hooks and not tensor_only:
        for hook in list(node._pre_hooks.values()):
            new = hook(tuple(grads))
            if new is not None:
                grads = list(new)
    return grads


def _run_post_hooks(node, grad_inputs, grads):
    for hook in list(node._hooks.values()):
        new = hook(tuple(grad_inputs), tuple(grads))
        if new is not None:
            grad_inputs = list(new)
    return grad_inputs


def _check_hook_result(hook, old, new):
    if not isinstance(new, Tensor) or new._data.shape != old._data.shape:
        name = getattr(hook, "__name__", repr(hook))
        raise RuntimeError(f"hook '{name}' has changed the size of value")


def _capture_leaf(leaf, g, hit, captured, accumulate, create_graph) -> None:
    """A leaf's gradient when ``inputs`` were given: its tensor hooks run once, then it goes
    to the wanted positions ``hit`` (None: not wanted) and, for backward(inputs=...), into
    ``.grad``."""
    if hit is None:
        return
    g = _run_tensor_hooks(leaf, g)
    for i in hit:
        captured[i] = g if captured[i] is None else captured[i] + g
    if accumulate:
        accumulate_grad(leaf, g, create_graph, hooks_done=True)


def _run_tensor_hooks(leaf, g):
    hooks = leaf._hooks
    if hooks:
        for hook in list(hooks.values()):
            new = hook(g)
            if new is not None:
                _check_hook_result(hook, g, new)
                g = new
    return g


def _sole_view(g: Tensor) -> bool:
    """Whether ``g``'s array, a NumPy view, may become a ``.grad`` as it is: C-contiguous over
    all of its base array, and that base (and the base tensor, when ``g`` is a leafgrad view)
    held by nothing else. A gradient that arrives as a view of a fresh result (``weight.t()``'s
    in ``nn.Linear``, a bias sum reshaped) then costs no copy. NumPy's ``.base`` is the array
    owning the memory and leafgrad's ``_base`` the root tensor, so views of views are covered;
    the engine drops its own reference to the incoming gradients before delivering. A count
    above the expected one (a hook kept the tensor, another view is alive) means a copy."""
    view = g._data
    base = view.base
    if (type(base) is not np.ndarray or not view.flags.c_contiguous
            or view.nbytes != base.nbytes):
        return False
    owner = g._base
    if owner is None:
        return _getrefcount(base) <= 3   # view.base, ``base``, the argument
    # + owner._data; and owner: g._base, ``owner``, the argument
    return owner._data is base and _getrefcount(base) <= 4 and _getrefcount(owner) <= 3


def _steals_zero(g: Tensor, hooked: bool) -> bool:
    """Whether a first gradient ``g`` that is a zero tensor becomes ``.grad`` as it is (so
    ``.grad`` is one too), as PyTorch's AccumulateGrad steals it, unless a tensor hook that
    ran on it kept it (``hooked``: the count of references to ``g`` tells), or it is laid
    out unlike the leaf (an expanded one: PyTorch's layout contract): then a copy. Its zeros
    are read-only, so sharing them is safe."""
    d = g._data
    return (is_zero_array(d) and d.flags.c_contiguous
            and (not hooked or _getrefcount(g) <= _ZERO_REFS))


# the engine's ``g``, its list of the node's gradients and the zip tuple, accumulate_grad's
# and _steals_zero's ``g``, getrefcount's argument
_ZERO_REFS = 6


def accumulate_grad(leaf: Tensor, g: Tensor, create_graph: bool, hooks_done=False,
                    seen=False) -> None:
    """Add ``g`` into ``leaf.grad`` as PyTorch's AccumulateGrad does (``seen``: the engine
    found another reference to ``g``, Note [Seen gradients])."""
    meta = leaf._meta
    if meta is not None and meta.get("no_grad_view"):
        return   # a view made under no_grad has no accumulator (Note in ops/views.py)
    # A gradient a hook has seen (and may have kept), or one also returned by autograd.grad
    # (hooks_done), is visible to the user: never steal its buffer.
    shared = hooks_done or seen
    if not hooks_done and leaf._hooks:
        g = _run_tensor_hooks(leaf, g)
        shared = True
    if not leaf._requires_grad:
        return   # no longer requires grad (detach_, requires_grad_(False)): its hooks ran
    old = leaf._grad
    if old is None:
        if create_graph:
            # PyTorch copies into a new tensor laid out like the leaf: .grad is a non-leaf
            # with a CopyBackwards node when ``g`` has history (Tensor.copy_, ops/copies.py)
            from ..ops.iter_layout import grad_buffer   # (laid out as the leaf: see there)
            leaf._grad = _wrap(grad_buffer(leaf._data)).copy_(g)
        else:
            data = g._data
            # Steal the buffer only when nothing else can see it (as PyTorch's use_count check)
            if (shared or (data.base is not None and not _sole_view(g)) or not data.flags.writeable
                    or _getrefcount(data) > 3 or data.dtype != leaf._data.dtype):
                if type(data) is np.ndarray or not _steals_zero(g, shared and not hooks_done):
                    data = np.array(data, dtype=leaf._data.dtype, copy=True)
            if data.ndim > 1 and not (data.flags.c_contiguous and leaf._data.flags.c_contiguous):
                from ..ops.iter_layout import grad_layout   # PyTorch's layout contract
                data = grad_layout(data, leaf._data)
            leaf._grad = _wrap(data)
    elif create_graph or _mode.grad_enabled:
        leaf._grad = old + g
    else:
        od = old._data
        if od.flags.writeable and od.shape == g._data.shape:
            np.add(od, g._data, out=od, casting="unsafe")
            old._vc[0] += 1
        else:
            if type(od) is not np.ndarray:
                check_mutable(old)   # PyTorch's ``grad += new``: a zero tensor refuses it
            leaf._grad = _wrap(od + g._data)
    post = meta.get("post_acc_hooks") if meta else None
    if post:
        for hook in list(post.values()):
            hook(leaf)
