"""Hooks for saved tensors: ``torch.autograd.graph.saved_tensors_hooks`` and its kin.

>>> import leafgrad as torch
>>> calls = []
>>> def pack(t):
...     calls.append("pack")
...     return t.detach()
>>> def unpack(t):
...     calls.append("unpack")
...     return t
>>> x = torch.ones(3, requires_grad=True)
>>> with torch.autograd.graph.saved_tensors_hooks(pack, unpack):
...     y = x.exp()
>>> y.sum().backward()
>>> calls
['pack', 'unpack']

Note [Packing only while hooks are set]
Without hooks a node saves inputs as the tensors themselves and its own output as a
``SavedOutput`` (Note [Saved values] in graph.py); the recorders (ops/recorder.py) and
``apply`` read those directly, and nothing here costs them a test. Pushing the first pair of
hooks (in any thread) rebinds ``ops.dispatch.record_node`` (the name every dispatcher calls)
to ``_record_packing``, which records as before and then, if the calling thread has hooks,
replaces each saved tensor by a ``_Packed`` entry holding what ``pack_hook`` returned (and
the tensor's history, to rebuild it on unpacking); popping the last pair restores the plain
recorder, so only programs that use hooks pay for them (plus the other threads while some
thread has hooks set: one thread-local read per node). A node so packed changes class to a subclass of
its own, same name, whose ``apply`` unpacks every saved tensor first (as PyTorch's generated
nodes unpack all their saved variables on entry), runs the class's ``apply`` and puts the
packed entries back; ``_free`` (engine.py) drops them as it drops plain ones. As in PyTorch,
a packed tensor is not checked against in-place changes (its version entry is None): the
hooks decide what comes back.

Note [Order of the pack calls]
PyTorch's generated nodes save their tensor arguments in the alphabetical order of the
argument names (``mul``: ``other`` then ``self``; ``addmm``: ``mat1``, ``mat2``), then the
outputs the formula needs, in output order; a custom Function's in ``save_for_backward``
order. Unpacking goes in the same order.

``grad_fn._raw_saved_<name>`` (``SavedTensor``, autograd/saved_tensor.py) packs one saved
tensor of one node with ``register_hooks``; the node changes class the same way.
"""
from __future__ import annotations

import contextlib
import threading

import numpy as np

from .. import errors
from ..tensor import Tensor, _wrap
from . import graph as _graph
from .graph import Node, SavedOutput

__all__ = ["saved_tensors_hooks", "save_on_cpu", "disable_saved_tensors_hooks"]

_GRAPH_MODULE = "leafgrad.autograd.graph"   # classes print as PyTorch's torch.autograd.graph.X


class _HooksState(threading.local):
    """Per thread, as PyTorch's: the stack of (pack, unpack) pairs and the disable message."""

    def __init__(self):
        self.stack = []
        self.disabled = None
        self.in_backward = 0   # a node's apply is unpacking (run_checkpointed)
        self.deferred = None   # an in-place op runs: its saved outputs, packed after it


_state = _HooksState()
_active = [0]              # pairs pushed and not yet popped, in all threads together
_active_lock = threading.Lock()


# -- the context managers ----------------------------------------------------------------

def _push(pack_hook, unpack_hook) -> None:
    if _state.disabled is not None:
        raise RuntimeError(_state.disabled)
    _state.stack.append((pack_hook, unpack_hook))
    with _active_lock:
        _active[0] += 1
        if _active[0] == 1:
            _install()


def _pop() -> None:
    if not _state.stack:
        raise RuntimeError("pop_hooks: there are no hooks to pop")
    _state.stack.pop()
    with _active_lock:
        _active[0] -= 1
        if _active[0] == 0:
            _uninstall()


class saved_tensors_hooks:
    """Context manager: tensors saved for backward inside it go through ``pack_hook`` when
    saved, and ``unpack_hook`` turns what it returned back into a tensor when needed.

    Nested, the innermost pair applies; the pairs are per thread, as in PyTorch."""

    __module__ = _GRAPH_MODULE

    def __init__(self, pack_hook, unpack_hook) -> None:
        self.pack_hook = pack_hook
        self.unpack_hook = unpack_hook

    def __enter__(self) -> None:
        _push(self.pack_hook, self.unpack_hook)

    def __exit__(self, *args) -> None:
        _pop()


class save_on_cpu(saved_tensors_hooks):
    """Saved tensors are stored on the CPU and moved back to their device for backward.
    leafgrad computes on the CPU only, so both moves keep the tensor where it is."""

    __module__ = _GRAPH_MODULE

    def __init__(self, pin_memory: bool = False, device_type: str = "cuda") -> None:
        def pack_to_cpu(tensor):
            if not pin_memory:
                return (tensor.device, tensor.cpu())
            # no accelerator: nothing is pinnable, the copy is a plain one (as PyTorch's)
            packed = tensor.new_empty(tensor.size())
            packed.copy_(tensor)
            return (tensor.device, packed)

        def unpack_from_cpu(packed):
            device, tensor = packed
            return tensor.to(device, non_blocking=pin_memory)

        super().__init__(pack_to_cpu, unpack_from_cpu)


@contextlib.contextmanager
def disable_saved_tensors_hooks(error_message: str):
    """Context manager (and decorator): while open, setting saved-tensor hooks raises
    ``RuntimeError(error_message)``; opening it while hooks are set raises the same."""
    prev = _state.disabled
    try:
        if not isinstance(error_message, str):
            raise TypeError(
                "_saved_tensors_hooks_disable(): incompatible function arguments. The "
                "following argument types are supported:\n    1. (error_message: str, "
                "fail_if_non_empty: bool = True) -> None\n\nInvoked with: "
                f"{error_message!r}")
        _state.disabled = error_message
        if _state.stack:
            raise RuntimeError(error_message)
        yield
    finally:
        _state.disabled = prev


disable_saved_tensors_hooks.__module__ = _GRAPH_MODULE


def current_hooks():
    """The calling thread's innermost (pack, unpack) pair, or None."""
    stack = _state.stack
    return stack[-1] if stack else None


# -- packing -----------------------------------------------------------------------------

_INPUT, _LEAF, _OUTPUT = 0, 1, 2

_PACK_INPLACE = (
    "A saved tensor pack hook is modifying its input in place. Tensors provided as input to "
    "pack hook cannot be modified by in-place operations as this can lead to unexpected "
    "side-effects. Please open an issue if you need to perform in-place operations on the "
    "input to a pack hook.")


class _Packed:
    """One saved tensor after ``pack_hook``: the packed object, the hook that unpacks it and
    what the unpacked tensor's history is (PyTorch's SavedVariable with hooks)."""

    __slots__ = ("obj", "unpack_hook", "kind", "fn", "nr", "leaf")

    def unpack(self, node, linked: bool) -> Tensor:
        """The tensor ``unpack_hook`` gives, with the saved tensor's history: its grad_fn
        (this node for an output), or a leaf requiring grad. ``linked`` (a backward with
        create_graph): a leaf's copy passes its gradient on to the leaf itself."""
        obj = self.unpack_hook(self.obj)
        if not isinstance(obj, Tensor):
            raise TypeError("Output of saved tensor unpack_hook expected to be a Tensor but "
                            f"got result of type {type(obj).__name__}")
        data = obj._data
        kind = self.kind
        if kind == _OUTPUT:
            t = _wrap(data, node)
            t._output_nr = self.nr
        elif self.fn is not None:
            t = _wrap(data, self.fn)
            t._output_nr = self.nr
        elif kind == _LEAF:
            leaf = self.leaf
            if linked and data is leaf._data:
                t = leaf   # (detach() / cpu() hooks) the leaf itself: it looks as PyTorch's
            elif linked:
                t = _wrap(data, _LeafLink.of(leaf))
            else:
                t = _wrap(data)
                t._requires_grad = True
        else:
            t = _wrap(data)
        return t


class _PackedGroup(_Packed):
    """Index tensors a record keeps as arrays (``IndexBackward0``'s indices, alone or in a
    tuple): PyTorch saves each as a tensor, so each goes through the hooks."""

    __slots__ = ("items", "container")

    def unpack(self, node, linked: bool):
        items = [v.unpack(node, linked)._data if type(v) is _Packed and v.kind == _ARRAY
                 else v.unpack(node, linked) if type(v) is _Packed else v for v in self.items]
        if self.container is None:
            return items[0]
        return self.container(items)


_ARRAY = 3   # kind of a packed array (an index kept as an ndarray)


def _pack_group(value, hooks):
    """``_PackedGroup`` of an ndarray or a tuple / list holding ndarrays or tensors; None
    when nothing in it is one."""
    single = not isinstance(value, (tuple, list))
    items = [value] if single else list(value)
    found = False
    for j, v in enumerate(items):
        if isinstance(v, np.ndarray):
            items[j] = _pack(_wrap(v), hooks, _INPUT)
            items[j].kind = _ARRAY
            found = True
        elif isinstance(v, Tensor):
            items[j] = _pack(v, hooks, _INPUT)
            found = True
    if not found:
        return None
    group = _PackedGroup()
    group.items = items
    group.container = None if single else type(value)
    return group


class _LeafLink(Node):
    """Under create_graph, what a formula computes from an unpacked leaf goes to the leaf:
    the unpacked copy hangs on this pass-through node (PyTorch's copy shares the leaf's
    gradient accumulator)."""

    __slots__ = ()

    @staticmethod
    def of(leaf):
        node = object.__new__(_LeafLink)
        node._seq = _graph.next_seq()
        node._edges = ((leaf, 0),)
        node._saved = ()
        node._versions = None
        node._args = None
        return node

    def apply(self, grads, create_graph):
        return [grads[0]]


_LeafLink.__name__ = _LeafLink.__qualname__ = "AccumulateGrad"


def _pack(tensor: Tensor, hooks, kind: int, nr: int = 0, alias: bool = False) -> _Packed:
    """Call ``pack_hook`` on ``tensor`` (an alias without history for ``alias``, as
    ``register_hooks`` passes it); PyTorch refuses a hook that changed it in place."""
    pack_hook, unpack_hook = hooks
    vc = tensor._vc
    version = vc[0]
    arg = _wrap(tensor._data, None, vc) if alias else tensor
    obj = pack_hook(arg)
    if vc[0] != version:
        raise RuntimeError(_PACK_INPLACE)
    entry = _Packed()
    entry.obj = obj
    entry.unpack_hook = unpack_hook
    entry.kind = kind
    entry.nr = nr
    entry.fn = None
    entry.leaf = None
    if kind != _OUTPUT:
        fn = tensor._grad_fn
        if fn is not None:
            entry.fn = fn
            entry.nr = tensor._output_nr
        elif tensor._requires_grad:
            entry.kind = _LEAF
            entry.leaf = tensor
    return entry


def pack_input(tensor: Tensor, hooks) -> _Packed:
    """A tensor saved by a custom Function that is not its output (function.py)."""
    return _pack(tensor, hooks, _INPUT)


def pack_output(tensor: Tensor, hooks) -> _Packed:
    """An output of a custom Function that it saved (function.py)."""
    return _pack(tensor, hooks, _OUTPUT, tensor._output_nr)


def _kinds(node):
    """Per entry of ``node._saved``: "arg", "result", "output", "saved_output" or other."""
    record = getattr(node, "record", None)
    if record is None:
        return None
    return [kind for kind, _ in record.saved_sources]


# records whose argument names are not those of the ATen op PyTorch saves them under (the
# matrix products share one forward with ``self`` / ``other``)
_ATEN_NAMES = {"dot": {"other": "tensor"}, "mv": {"other": "vec"}, "mm": {"other": "mat2"},
               "bmm": {"other": "mat2"}}
_OUTPUT_KINDS = ("result", "output", "saved_output")


def _pack_order(node):
    """Indices of the saved entries in PyTorch's packing order (Note [Order of the pack
    calls]): arguments by name, then outputs in order."""
    cls = type(node)
    order = cls.__dict__.get("_pack_order")
    if order is not None and len(order) == len(node._saved):
        return order
    names = cls.saved_names
    kinds = _kinds(node)
    rename = _ATEN_NAMES.get(node.record.name, {})
    order = tuple(sorted(range(len(node._saved)), key=lambda i: (
        kinds[i] in _OUTPUT_KINDS,
        "" if kinds[i] in _OUTPUT_KINDS else rename.get(names[i], names[i]), i)))
    if len(order) == len(names):
        cls._pack_order = order   # (a class attribute: one computation per node class)
    return order


def pack_node(node, results, hooks) -> None:
    """Replace each tensor ``node`` saved by its packed form (Note [Packing only while hooks
    are set]); ``results`` are the op's outputs (a saved output is packed as the output)."""
    saved = node._saved
    if not saved:
        return
    versions = node._versions
    saved = list(saved)
    versions = list(versions) if versions is not None else [None] * len(saved)
    record = node.record
    extra = _EXTRA_SAVED.get(record.name)
    packed_any = False
    for i in _pack_order(node):
        v = saved[i]
        if v is None:
            continue
        if type(v) is SavedOutput:
            kind, pos = record.saved_sources[i]
            out = results[pos] if kind == "saved_output" else results[0]
            nr = pos if kind == "saved_output" else 0
            if _state.deferred is not None:
                _state.deferred.append((node, i, nr, out))   # (run_inplace)
                continue
            saved[i] = _pack(out, hooks, _OUTPUT, nr)
        elif isinstance(v, Tensor):
            if v._meta is not None and v._meta.get("inplace_old"):
                # an in-place op's old self: PyTorch saves ``self.clone()`` (the node's
                # edge stays the old history; the saved tensor's is CloneBackward0)
                v = v.clone()
            saved[i] = _pack(v, hooks, _INPUT)
        elif type(node).saved_names[i] in record.extra.get("saved_tensor_args", ()):
            group = _pack_group(v, hooks)
            if group is None:
                continue
            saved[i] = group
        else:
            continue
        versions[i] = None
        packed_any = True
    if extra is not None:
        tensors = extra(node, node._saved, results)
        if tensors:
            node._extra_packed = [_pack(t, hooks, _OUTPUT if t._grad_fn is node else _INPUT,
                                        t._output_nr) for t in tensors]
            packed_any = True
    if not packed_any:
        return
    node._saved = saved
    node._versions = versions
    _set_out_meta(node, results)
    node.__class__ = hooked_class(type(node))


def run_inplace(self, call, commit):
    """An in-place op while hooks are set (ops/inplace.py): ``call()`` computes the result
    out of place and ``commit(result)`` writes it into ``self``. PyTorch's node saves its
    output after the op, and that output is ``self`` (changed, its version bumped), so the
    outputs the nodes save are packed after the commit, the op's own as ``self``."""
    prev = _state.deferred
    _state.deferred = deferred = []
    try:
        result = call()
    finally:
        _state.deferred = prev
    out = commit(result)
    hooks = current_hooks()
    for node, i, nr, tensor in deferred:
        if hooks is None:
            break
        if node is result._grad_fn:
            tensor = self
        saved = list(node._saved)
        versions = list(node._versions) if node._versions is not None else [None] * len(saved)
        saved[i] = _pack(tensor, hooks, _OUTPUT, nr)
        versions[i] = None
        node._saved = saved
        node._versions = versions
        _set_out_meta(node, (tensor,))
        node.__class__ = hooked_class(type(node))
    return out


# Note [Statistics PyTorch saves]
# PyTorch's norm and loss kernels return statistics their backward reuses, and their nodes
# save them after the arguments: native_layer_norm's mean and rstd, native_batch_norm's
# save_mean and save_invstd (empty in eval mode), native_group_norm's mean and rstd (outputs
# of the node: they require grad), nll_loss's total_weight. leafgrad's formulas recompute
# what they need, so only the hooks see these: while hooks are set, ``pack_node`` computes
# them and packs them after the saved arguments, and the hooked ``apply`` unpacks them after
# the others (their values are not used).

def _stat_tensors(x, axes, eps, keepdims):
    """(mean, 1 / sqrt(biased variance + eps)) of ``x`` over ``axes``, in ``x``'s dtype."""
    d = x.astype(np.float64)
    mean = d.mean(axis=axes, keepdims=keepdims)
    var = d.var(axis=axes, keepdims=keepdims)
    with np.errstate(divide="ignore", invalid="ignore"):
        rstd = 1.0 / np.sqrt(var + eps)
    return [_wrap(np.asarray(mean, x.dtype)), _wrap(np.asarray(rstd, x.dtype))]


def _layer_norm_stats(node, saved, results):
    x = saved[0]._data
    k = len(saved[1])
    return _stat_tensors(x, tuple(range(x.ndim - k, x.ndim)), saved[4], True)


def _batch_norm_stats(node, saved, results):
    x = saved[0]._data
    if not saved[4]:   # eval mode: save_mean and save_invstd are empty
        return [_wrap(np.empty((0,), x.dtype)), _wrap(np.empty((0,), x.dtype))]
    return _stat_tensors(x, tuple(i for i in range(x.ndim) if i != 1), saved[5], False)


def _group_norm_stats(node, saved, results):
    x = saved[0]._data
    n, group = saved[2], saved[4]
    stats = _stat_tensors(x.reshape(n, group, -1), 2, saved[5], False)
    for nr, t in enumerate(stats, start=1):   # outputs 1 and 2 of the node
        t._grad_fn = node
        t._requires_grad = True
        t._output_nr = nr
    return stats


def _nll_loss_total_weight(node, saved, results):
    x, target, weight, reduction, ignore = saved[0]._data, saved[1]._data, saved[2], \
        saved[3], saved[4]
    if reduction == 0:   # "none": PyTorch's kernel leaves it 0
        total = 0.0
    else:
        kept = target != ignore
        if weight is None:
            total = float(np.count_nonzero(kept))
        else:
            w = weight._data
            total = float(w[np.where(kept, target, 0)][kept].astype(np.float64).sum())
    return [_wrap(np.array(total, x.dtype))]


_EXTRA_SAVED = {"layer_norm": _layer_norm_stats, "native_batch_norm": _batch_norm_stats,
                "native_group_norm": _group_norm_stats, "nll_loss": _nll_loss_total_weight}


def _set_out_meta(node, results) -> None:
    """What the gradients must conform to: ``_args`` leaves out inputs of the output's own
    shape and dtype, and an unpack_hook may return another dtype (PyTorch's engine casts
    the gradients back to each input's)."""
    if "_hook_meta" in node.__dict__:
        return
    out = results[0]._data if results else None
    node._hook_meta = (out.shape, out.dtype) if out is not None else None


_HOOKED = {}


def hooked_class(cls):
    """``cls``'s twin for nodes with packed saved tensors (same name, module and slots)."""
    if cls.__dict__.get("_unpacks_saved"):
        return cls   # already the twin (register_hooks on a second entry)
    sub = _HOOKED.get(cls)
    if sub is None:
        base_apply = cls.apply
        sub = type(cls.__name__, (cls,), {
            "__slots__": (), "apply": _make_apply(base_apply), "_unpacks_saved": True,
            "_result_slot": None, "_output_slots": (), "__module__": cls.__module__,
            "__qualname__": cls.__qualname__})
        _HOOKED[cls] = sub
    return sub


def _make_apply(base_apply):
    def apply(self, grads, create_graph, wanted=None):
        saved = self._saved
        if saved is None:
            raise RuntimeError(errors.BACKWARD_TWICE)
        versions = self._versions
        if versions is not None:   # the entries not packed (register_hooks on another)
            _graph.check_versions(self, saved, versions)
        _state.in_backward += 1
        try:
            self._saved = unpack_all(self, saved, create_graph)
            for entry in self.__dict__.get("_extra_packed", ()):
                entry.unpack(self, create_graph)   # (Note [Statistics PyTorch saves])
        finally:
            _state.in_backward -= 1
        self._versions = None
        try:
            if wanted is None:
                out = base_apply(self, grads, create_graph)
            else:
                out = base_apply(self, grads, create_graph, wanted)
        finally:
            self._saved = saved
            self._versions = versions
        return _conform_all(self, out)
    return apply


def unpack_all(node, saved, linked):
    """The saved entries with every tensor unpacked (the hooked class's ``apply`` runs the
    plain one with them, so its own unpacking of the output is turned off), packed ones in
    packing order."""
    out = list(saved)
    for i in _pack_order(node):
        v = out[i]
        if isinstance(v, _Packed):
            out[i] = v.unpack(node, linked)
        elif isinstance(v, SavedOutput):
            out[i] = v.unpack_output(node, linked) if getattr(v, "nr", None) is not None \
                else v.unpack(node, linked)
    return out


def _conform_all(node, grads):
    meta = node._args
    out_meta = node.__dict__.get("_hook_meta")
    if out_meta is None or getattr(node, "record", None) is None or node.record.n_outputs != 1:
        return grads
    grads = list(grads)
    for i, g in enumerate(grads):
        if g is None:
            continue
        m = meta[i] if meta is not None and meta[i] is not None else out_meta
        d = g._data
        if d.shape != m[0] or d.dtype != m[1]:
            grads[i] = _graph._conform(g, m, node, i)
    return grads


def _record_packing(rec, args, results) -> None:
    """``record_node`` while some thread has hooks (Note [Packing only while hooks are
    set])."""
    from ..ops import dispatch
    inner = dispatch._record_checked if dispatch.INTEGER_HISTORY[0] else dispatch._record_plain
    inner(rec, args, results)
    hooks = current_hooks()
    if hooks is None:
        return
    for r in results:
        node = r._grad_fn
        if node is not None:
            pack_node(node, results, hooks)
            return


def _install() -> None:
    from ..ops import dispatch
    dispatch.record_node = _record_packing


def _uninstall() -> None:
    from ..ops import dispatch
    dispatch.record_node = (dispatch._record_checked if dispatch.INTEGER_HISTORY[0]
                            else dispatch._record_plain)


# -- non-reentrant checkpoint ------------------------------------------------------------

def run_checkpointed(function, args, kwargs):
    """``torch.utils.checkpoint``'s non-reentrant variant, as saved-tensor hooks see it.

    leafgrad runs ``function`` once and keeps its graph (utils/checkpoint.py). PyTorch saves
    the tensor inputs through the hooks set outside (one pack each), and the tensors saved
    inside through hooks of its own, so the outer hooks see no pack inside and, in backward,
    one unpack per input when the first saved tensor inside is needed; with hooks disabled
    it raises their message. Without hooks this is ``function(*args, **kwargs)``."""
    from ..grad_mode import state as mode
    if not mode.grad_enabled:
        return function(*args, **kwargs)
    if _state.disabled is not None:
        raise RuntimeError(_state.disabled)
    hooks = current_hooks()
    if hooks is None:
        return function(*args, **kwargs)
    packed = [_pack(a, hooks, _INPUT) for a in args if isinstance(a, Tensor)]
    pending = [True]

    def unpack_inside(t):
        if pending[0] and _state.in_backward:
            pending[0] = False
            for entry in packed:
                entry.unpack(None, False)
        return t

    with saved_tensors_hooks(_keep, unpack_inside):
        return function(*args, **kwargs)


def _keep(t):
    return t
