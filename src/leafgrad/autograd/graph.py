"""Backward graph nodes: one Node subclass per op record, plus AccumulateGrad for leaves.

Note [Edges]
``node._edges`` holds one ``(fn, input_nr)`` per input of the forward op. ``fn`` is another
Node, the leaf Tensor itself (its AccumulateGrad is made only when someone asks for it through
``next_functions``), or None for inputs that need no gradient. Keeping leaves as plain tensors
saves an object per leaf per op on the hot path.

Note [Saved values]
``node._saved`` is a tuple aligned with the class's ``saved_names``; entries the backward will
not need are None. Inputs are saved as the Tensor itself (no cycle: an input never points at
its consumer). The op's own output is saved as a ``SavedOutput`` (array + version counter), since
holding the output tensor would make a cycle through ``grad_fn``. After a backward without
``retain_graph`` the tuple is dropped; a node whose saved values were all plain numbers keeps
them, so a second backward through it works, as in PyTorch.
"""
from __future__ import annotations

import itertools
import re
import weakref

import numpy as np

from .. import errors
from .._zerotensor import FORMULA_RULES, formula_calls
from ..grad_mode import state as _mode
from ..tensor import DETACHED_INPLACE, Tensor, _wrap, where_changed
from .reduce_grad import _conform, sum_to  # noqa: F401 (sum_to: imported from here by ops)

__all__ = ["Node", "AccumulateGrad", "SavedOutput", "make_node_class", "RemovableHandle",
           "anomaly", "version_hint", "next_seq", "MAX_SEQ", "saved_tensors_hooks",
           "save_on_cpu", "disable_saved_tensors_hooks"]

# Note [Sequence numbers]
# PyTorch numbers nodes in the order they are made, and its engine runs, among the nodes
# whose gradients are complete, the most recently made one first (AccumulateGrad, numbered
# last of all, as soon as it is ready). The order is visible: which of two failing nodes
# raises, whether a leaf's .grad is written before a version-counter error, the order hooks
# run in. Every node stores its number negated, ``node._seq = next_seq()`` when it is made
# (one C call): the engine's heap pops the smallest, the newest node.
next_seq = itertools.count(0, -1).__next__
_ACC_SEQ = -(2 ** 64 - 1)   # AccumulateGrad's number: UINT64_MAX
# PyTorch's NotImplemented nodes take no number either: UINT64_MAX, as AccumulateGrad's, so
# its engine runs one as soon as it is ready (the engine keeps ties in push order)
MAX_SEQ = _ACC_SEQ

_SUFFIX = re.compile(r"Backward\d*$")


class RemovableHandle:
    """Returned by ``register_hook``-style calls; ``remove()`` unregisters the hook."""

    _next_id = 0

    def __init__(self, hooks_dict):
        self._ref = weakref.ref(hooks_dict) if hooks_dict is not None else None
        self.id = RemovableHandle._next_id
        RemovableHandle._next_id += 1

    def remove(self) -> None:
        hooks = self._ref() if self._ref is not None else None
        if hooks is not None and self.id in hooks:
            del hooks[self.id]

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.remove()


class _HookDict(dict):
    # dict subclass so a handle can hold a weak reference to it
    __slots__ = ("__weakref__",)


class SavedOutput:
    """The op's own result, saved without a reference back to the tensor (see Note above)."""

    # view_fn (set only for an in-place op on a view): a weak reference to the view's node,
    # which PyTorch's version error names while it is alive
    # nr (set only for another differentiable output, saved by a multi-output op's formula
    # as ``result<nr>``): which output the version error names
    __slots__ = ("data", "vc", "view_fn", "nr")

    def __init__(self, tensor: Tensor):
        self.data = tensor._data
        self.vc = tensor._vc

    def unpack(self, node, create_graph: bool) -> Tensor:
        # (the specialised applies do this inline: make_apply in ops/recorder.py)
        t = _wrap(self.data, node if create_graph else None, self.vc)
        return t

    def unpack_output(self, node, create_graph: bool) -> Tensor:
        """``unpack`` for another output (``nr`` set): the tensor is output ``nr`` of node."""
        t = _wrap(self.data, node if create_graph else None, self.vc)
        t._output_nr = self.nr
        return t


class Node:
    """A backward function. ``name()`` and ``type(node).__name__`` give PyTorch's name."""

    # Every node sets these four; the rarely used hook tables are class-level defaults,
    # overridden in the instance ``__dict__`` when someone registers a hook.
    __slots__ = ("_edges", "_saved", "_versions", "_args", "_seq", "__dict__", "__weakref__")
    _pre_hooks = None           # Node.register_prehook: {id: fn(grad_outputs)}
    _hooks = None               # Node.register_hook: {id: fn(grad_inputs, grad_outputs)}
    _tensor_pre_hooks = None    # Tensor.register_hook on a non-leaf: {output_nr: {id: fn}}
    _retain_grad_hooks = None   # retain_grad: {output_nr: weakref to the tensor}
    _metadata = None

    saved_names: tuple = ()
    saved_is_tensor: tuple | None = None   # per saved name: does freeing it count? (engine)
    _tensor_slots: tuple | None = None     # op nodes: see Note [Node class constants]
    _reverse_grads: bool = True            # op nodes: see make_node_class
    _order = None                          # op nodes: their formulas' own order, if any
    n_outputs: int = 1
    runs_without_grads: bool = False   # run even when every incoming grad is None (Function)
    _max_priority: bool = False   # numbered MAX_SEQ, not next_seq() (NotImplemented)

    def name(self) -> str:
        n = type(self).__name__
        return _CPP_NAMES.get(n, n)   # (NotImplemented: its C++ name, as PyTorch's)

    def __repr__(self) -> str:
        return f"<{type(self).__name__} object at {hex(id(self))}>"

    def _sequence_nr(self) -> int:
        """The order this node was made in (Note [Sequence numbers])."""
        return -self._seq

    @property
    def next_functions(self):
        edges = self._edges
        calls = getattr(self, "_calls", None)
        if calls is not None and None in calls and len(calls) == len(edges):
            # PyTorch lists only differentiable inputs: where's condition, masked_fill's
            # mask, an index or a target are no edges (an input with a formula that needs
            # no gradient still is: (None, 0))
            edges = [e for e, call in zip(edges, calls) if call is not None]
        out = []
        for fn, nr in edges:
            if isinstance(fn, Tensor):
                # a view made under no_grad has no accumulator (Note in ops/views.py)
                fn = None if fn._meta is not None and fn._meta.get("no_grad_view") else \
                    AccumulateGrad.of(fn)
            out.append((fn, nr))
        return tuple(out)

    @property
    def metadata(self) -> dict:
        if getattr(self, "_metadata", None) is None:
            self._metadata = {}
        return self._metadata

    @property
    def requires_grad(self) -> bool:
        return True

    def _get_hooks(self, attr):
        hooks = getattr(self, attr, None)
        if hooks is None:
            hooks = _HookDict()
            setattr(self, attr, hooks)
        return hooks

    def register_hook(self, fn):
        """``fn(grad_inputs, grad_outputs)`` runs after this node; may return new grad_inputs."""
        hooks = self._get_hooks("_hooks")
        handle = RemovableHandle(hooks)
        hooks[handle.id] = fn
        return handle

    def register_prehook(self, fn):
        """``fn(grad_outputs)`` runs before this node; may return new grad_outputs."""
        hooks = self._get_hooks("_pre_hooks")
        handle = RemovableHandle(hooks)
        hooks[handle.id] = fn
        return handle

    # Subclasses define ``apply(grad_outputs, create_graph)``.


class AccumulateGrad(Node):
    """The node that writes into a leaf's ``.grad``; one per leaf, made on demand.

    PyTorch writes this node in C++: ``name()`` gives its C++ name, the class is still
    called ``AccumulateGrad`` (as ``repr`` and ``type(node).__name__`` show)."""

    __slots__ = ("variable",)

    def name(self) -> str:
        return "torch::autograd::AccumulateGrad"

    @staticmethod
    def of(leaf: Tensor) -> "AccumulateGrad":
        ref = leaf._acc
        node = ref() if ref is not None else None
        if node is None:
            node = AccumulateGrad()
            node._seq = _ACC_SEQ
            node.variable = leaf
            node._edges = ()
            node._saved = ()
            leaf._acc = weakref.ref(node)
        return node


def stripped_name(node) -> str:
    """``SigmoidBackward0`` -> ``Sigmoid``, as PyTorch 2.13 writes it in version errors; an
    overload number other than 0 stays (``ClampBackward1`` -> ``Clamp1``, ``FillBackward3``
    -> ``Fill3``). Nodes PyTorch writes in C++, such as CopySlices, carry their C++ name."""
    name = type(node).__name__
    cpp = _CPP_NAMES.get(name)
    if cpp:
        return cpp
    m = _SUFFIX.search(name)
    if m is None:
        return name
    number = m.group()[len("Backward"):]
    return name[:m.start()] + ("" if number == "0" else number)


_CPP_NAMES = {"CopySlices": "torch::autograd::CopySlices",
              "CopyBackwards": "torch::autograd::CopyBackwards",
              "AccumulateGrad": "torch::autograd::AccumulateGrad",
              "NotImplemented": "torch::autograd::NotImplemented",
              "Error": "torch::autograd::Error"}


# The ``__module__`` of node classes made from now on (records make theirs on first use:
# Note [Lazy node classes] in ops/registry.py); compat.py sets "builtins", PyTorch's.
node_class_module = None


def make_node_class(grad_fn_name: str, saved_names: tuple, record) -> type:
    """A Node subclass named like PyTorch's (``MulBackward0``) for one op record.

    The class also carries what ``OpNode.apply`` and the engine would otherwise work out from
    the record on every backward step (see Note [Node class constants])."""
    # saved_tensor_args: index arguments PyTorch holds as tensors (IndexBackward0's indices),
    # so freeing them makes a second backward fail as there
    counted = record.extra.get("saved_tensor_args", ())
    is_tensor = tuple(kind in ("result", "output", "saved_output") or (kind == "arg" and (
        pos in record.input_pos or record.params[pos] in counted))
        for kind, pos in record.saved_sources)
    kinds = [kind for kind, _ in record.saved_sources]
    calls = tuple(None if f is None else (f.fn, f.idx) if f.group is None else
                  JointCall(f.fn, f.idx, f.group, f.pos, f.mask) for f in record.formulas)
    joint = any(type(c) is JointCall for c in calls)
    if record.name in FORMULA_RULES:   # zero-tensor gradients (_zerotensor.py)
        calls = formula_calls(record, calls)
    namespace = {
        "__slots__": (), "saved_names": saved_names, "saved_is_tensor": is_tensor,
        "record": record, "_calls": calls,
        "_result_slot": kinds.index("result") if "result" in kinds else None,
        "_output_slots": tuple(i for i, k in enumerate(kinds) if k == "saved_output"),
        "_tensor_slots": tuple(i for i, t in enumerate(is_tensor) if t),
        # PyTorch computes most nodes' input gradients last input first (create_graph makes
        # nodes in that order); a few (atan2, the mse / huber / smooth_l1 / cdist backwards)
        # first input first: their records say grads_in_order=True
        "_reverse_grads": not record.extra.get("grads_in_order", False),
        # a few generated nodes compute their inputs' gradients in another order in every
        # mode (PyTorch's codegen takes derivatives.yaml's keys sorted: clamp's "min, max"
        # before "self"): the input indices in that order
        "_order": record.extra.get("formula_order"),
        "_plain": record.n_outputs == 1 and not record.list_input and not joint,
        "_max_priority": grad_fn_name == "NotImplemented"}
    if node_class_module is not None:
        namespace["__module__"] = node_class_module
    # saved_aliases: PyTorch's names for saved outputs (linalg_qr's ``result`` is ``_saved_Q``)
    aliases = record.extra.get("saved_aliases", {})
    for i, (name, (kind, pos)) in enumerate(zip(saved_names, record.saved_sources)):
        namespace["_saved_" + aliases.get(name, name)] = _saved_property(
            i, kind == "arg" and pos in record.input_pos)
        if is_tensor[i]:   # PyTorch's SavedTensor of a saved tensor (autograd/saved_hooks.py)
            namespace["_raw_saved_" + aliases.get(name, name)] = _raw_saved_property(i)
    return type(grad_fn_name, (OpNode,), namespace)


def _saved_property(index: int, is_input: bool) -> property:
    """``grad_fn._saved_<name>``: the value saved for backward, until the graph is freed.

    A property per saved name rather than a ``Node.__getattr__``: a class with ``__getattr__``
    makes every attribute read on its instances slower (CPython cannot specialize them), and
    the engine reads node attributes on every backward step.

    A Python number given for a tensor input (``x * 3``) reads back as the 0-d tensor PyTorch
    wraps it in (``tensor(3)``: int64, float64, bool or complex128); numbers given for number
    parameters (``alpha``, ``exponent``) read back as numbers, as in PyTorch."""
    def get(node):
        saved = node._saved
        if saved is None:
            raise RuntimeError(errors.BACKWARD_TWICE)
        if index >= len(saved):
            return None   # nothing was saved: no input needed a gradient
        value = saved[index]
        if isinstance(value, _Packed):   # saved through hooks: what unpack_hook gives
            return value.unpack(node, False)
        if isinstance(value, SavedOutput):
            return value.unpack_output(node, True) if hasattr(value, "nr") else \
                value.unpack(node, True)
        if is_input and type(value) in _WRAPPED_NUMBER:
            return _wrap(np.array(value, _WRAPPED_NUMBER[type(value)]))
        return value
    return property(get)


def _raw_saved_property(index: int) -> property:
    """``grad_fn._raw_saved_<name>``: the saved tensor as PyTorch's ``SavedTensor`` (one
    object per node and name), whose ``register_hooks`` packs it (autograd/saved_hooks.py)."""
    def get(node):
        return raw_saved(node, index)
    return property(get)


# the dtype PyTorch gives a Python number passed where a tensor is expected ("wrapped number")
_WRAPPED_NUMBER = {bool: np.bool_, int: np.int64, float: np.float64, complex: np.complex128}


# Note [Joint formulas]
# PyTorch's derivatives.yaml gives some ops one formula for several inputs ("self, input2:
# cholesky_solve_backward(..., grad_input_mask)"): its node calls it once, with a mask of the
# inputs whose gradient is wanted, and takes each input's gradient from the tuple it returns.
# Under create_graph that matters: the gradients share the nodes the formula made for both
# (cholesky_solve's input2 gradient is built on the self gradient's CholeskySolveBackward0), so
# a backward through one with retain_graph=False frees what the other's needs. A record says
# so with a tuple key in ``derivatives``; its inputs' calls are ``JointCall``s, and the node
# (not ``_plain``) evaluates them in ``OpNode._apply_general``, once per group.
class JointCall:
    __slots__ = ("fn", "idx", "group", "pos", "mask")

    def __init__(self, fn, idx, group, pos, mask):
        self.fn, self.idx, self.group, self.pos, self.mask = fn, idx, group, pos, mask


# Note [Node class constants]
# Backward runs once per node, so per-node work there is hot. What depends only on the record
# is computed once, in ``make_node_class``: ``_calls`` (per input: the formula and the indices
# of the saved values it takes, or None), ``_result_slot`` (where the op's own output is saved,
# if it is), ``_tensor_slots`` (saved entries whose freeing counts, for the engine's ``_free``)
# and ``_plain`` (one output, no list input: the common case ``apply`` handles inline).


class OpNode(Node):
    """A node made by an op record: evaluates one derivative formula per input edge."""

    __slots__ = ()
    record = None

    def apply(self, grads, create_graph: bool, wanted=None):
        """The gradients of the inputs; ``wanted`` (a list of flags, from the engine) skips
        those no wanted input needs, as PyTorch computes only the needed ones."""
        saved = self._saved
        if saved is None:
            raise RuntimeError(errors.BACKWARD_TWICE)
        versions = self._versions
        if versions is not None:
            check_versions(self, saved, versions)
        slot = self._result_slot
        # (``saved`` is empty when the inputs needing a gradient use nothing saved)
        if slot is not None and saved and type(saved[slot]) is SavedOutput:
            saved = list(saved)
            saved[slot] = saved[slot].unpack(self, create_graph)
        calls = self._calls
        if wanted is not None:   # a derivative nobody wants is not computed
            calls = [c if w else None for c, w in zip(calls, wanted)]
        if not self._plain:
            return self._apply_general(grads, saved, create_graph, calls)
        grad = grads[0]
        meta = self._args
        if self._order is not None:
            return self._apply_reversed(grad, saved, calls, meta, self._order)
        if create_graph and self._reverse_grads:
            return self._apply_reversed(grad, saved, calls, meta)
        out = []
        i = 0
        for (fn, _), call in zip(self._edges, calls):
            if fn is None or call is None:
                out.append(None)
            else:
                formula, idx = call
                n = len(idx)
                if n == 1:
                    g = formula(grad, saved[idx[0]])
                elif n == 0:
                    g = formula(grad)
                elif n == 2:
                    g = formula(grad, saved[idx[0]], saved[idx[1]])
                else:
                    g = formula(grad, *[saved[j] for j in idx])
                if meta is not None and g is not None:
                    m = meta[i]
                    if m is not None:
                        g = _conform(g, m, self, i)
                out.append(g)
            i += 1
        return out

    def _apply_reversed(self, grad, saved, calls, meta, order=None):
        """Under create_graph, most nodes compute the last input's gradient first, as
        PyTorch's generated nodes do: the order of the nodes made (their sequence numbers),
        so of a later backward's sums, follows (float16 rounds differently otherwise).
        Without create_graph the inputs' order stays: it decides the first error of ops
        whose PyTorch formula is one function for all inputs (clamp's min before max).
        ``order``: the node's own order in every mode (``_order``)."""
        edges = self._edges
        out = [None] * len(edges)
        for i in (range(len(edges) - 1, -1, -1) if order is None else order):
            call = calls[i]
            if edges[i][0] is None or call is None:
                continue
            formula, idx = call
            g = formula(grad, *[saved[j] for j in idx])
            if meta is not None and g is not None:
                m = meta[i]
                if m is not None:
                    g = _conform(g, m, self, i)
            out[i] = g
        return out

    def _apply_general(self, grads, saved, create_graph, calls):
        """Several outputs (gradients materialized first) or a list input."""
        rec = self.record
        if rec.n_outputs > 1:
            grad = rec.materialize(grads, self._args)
        else:
            grad = grads[0]
        if rec.list_input:
            return self._apply_list(grad, saved)
        slots = self._output_slots
        if slots and saved:
            # the other differentiable outputs a formula reads (``result1``: linalg_qr's R),
            # unpacked as ``result`` is: under create_graph with this node as their grad_fn
            saved = list(saved)
            for j in slots:
                saved[j] = saved[j].unpack_output(self, create_graph)
        out = []
        edges = self._edges
        joint = None
        for i, ((fn, _), call) in enumerate(zip(edges, calls)):
            if fn is None or call is None:
                out.append(None)
            elif type(call) is JointCall:   # Note [Joint formulas]
                if joint is None:
                    joint = {}
                res = joint.get(call.group)
                if res is None:
                    args = [saved[j] for j in call.idx]
                    if call.mask:
                        args.append([edges[j][0] is not None and calls[j] is not None
                                     for j in call.group])
                    res = joint[call.group] = call.fn(grad, *args)
                g = res[call.pos]
                meta = self._args if rec.n_outputs == 1 else None
                if meta is not None and g is not None and meta[i] is not None:
                    g = _conform(g, meta[i], self, i)
                out.append(g)
            else:
                formula, idx = call
                out.append(formula(grad, *[saved[j] for j in idx]))
        return out

    def _apply_list(self, grad, saved):
        formula, idx = self._calls[0]
        grads = formula(grad, *[saved[j] for j in idx])
        meta = self._args
        out = []
        for i, ((fn, _), g) in enumerate(zip(self._edges, grads)):
            if fn is None or g is None:
                out.append(None)
            else:
                out.append(_conform(g, meta[i], self, i) if meta is not None else g)
        return out




_HINT = ("Hint: enable anomaly detection to find the operation that failed to compute its "
         "gradient, with torch.autograd.set_detect_anomaly(True, check_nan=False).")
_ANOMALY_HINT = ("Hint: the backtrace further above shows the operation that failed to compute "
                 "its gradient. The variable in question was changed in there or anywhere later. "
                 "Good luck!")


class AnomalyState:
    """``torch.autograd.set_detect_anomaly`` state: global (not per thread), as in PyTorch.

    It lives here so that the engine and the dispatcher (lower layers) can test one flag;
    ``autograd/anomaly_mode.py`` sets it and installs ``record`` (called on each new node) and
    ``run_node`` (runs a node in the engine: warns with its forward trace, checks for NaN).
    """

    __slots__ = ("enabled", "check_nan", "record", "run_node")

    def __init__(self):
        self.enabled = False
        self.check_nan = True
        self.record = None
        self.run_node = None


anomaly = AnomalyState()


def version_hint() -> str:
    """The hint closing a version-counter error; anomaly mode changes it, as in PyTorch."""
    return _ANOMALY_HINT if anomaly.enabled else _HINT


_DETACHED_INPLACE_MSG = (
    "Trying to use a saved tensor that has been detached in-place, i.e. with .detach_().This "
    "is not supported, please use out-of-place `.detach()` instead")


def check_versions(node, saved, versions) -> None:
    if DETACHED_INPLACE[0]:
        for i, (value, version) in enumerate(zip(saved, versions)):
            if type(version) is tuple:
                _check_tuple(node, value, version)
            elif version is not None:
                if type(value) is not SavedOutput and value._grad_fn is None:
                    _check_not_detached(node, i)
                _check_version(node, value, version)
        return
    for value, version in zip(saved, versions):
        if version is None:
            continue
        if type(version) is tuple:
            _check_tuple(node, value, version)
            continue
        current = value.vc[0] if type(value) is SavedOutput else value._vc[0]
        if current != version:
            _check_version(node, value, version)


def _check_tuple(node, values, versions) -> None:
    """Tensors saved as one argument (einsum's operands), each at its own version. What
    PyTorch's einsum saves of an operand is a view of it (permuted, reshaped for bmm),
    regrown after the change: its error names AsStrided (the view's shape is its own)."""
    for value, version in zip(values, versions):
        if value._vc[0] != version:
            _check_version(node, value, version, "AsStrided")


def _check_version(node, value, version, view_name=None) -> None:
    """Raise PyTorch's error if ``value`` is no longer at the ``version`` it was saved at."""
    current = value.vc[0] if type(value) is SavedOutput else value._vc[0]
    if current != version and view_name is not None:
        raise _version_error(value, value._data.shape, f", which is output 0 of {view_name},",
                             current, version, value._vc)
    if current != version:
        value, version = _first_stale(node, value, version)
        current = value.vc[0] if type(value) is SavedOutput else value._vc[0]
        if type(value) is SavedOutput:
            shape, dtype_t = value.data.shape, _wrap(value.data)
            ref = getattr(value, "view_fn", None)
            fn = ref() if ref is not None else None
            producer = stripped_name(fn if fn is not None else node)
        else:
            shape, dtype_t = value._data.shape, value
            fn = value._grad_fn
            if value._base is not None and value._vc[0] != value._view_version:
                # PyTorch's unpack reads a saved view's grad_fn first: a stale view regrows
                # (its AsStrided is named), or one autograd cannot regrow (made under no_grad,
                # a multi-output view) raises its own error (fuzz seeds 155, 158)
                fn = value.grad_fn
            producer = stripped_name(fn) if fn is not None else None
        which = f", which is output {_output_index(value, node, fn)} of {producer}," \
            if producer else ""
        raise _version_error(dtype_t, shape, which, current, version,
                             value.vc if type(value) is SavedOutput else value._vc)


def _version_error(dtype_t, shape, which, current, version, vc):
    """PyTorch's version-counter error, with the note of the line that changed ``vc``."""
    return with_change_note(RuntimeError(
        "one of the variables needed for gradient computation has been modified by an "
        f"inplace operation: [{errors.tensor_type_str(dtype_t)} {errors.shape_str(shape)}]"
        f"{which} is at version {current}; expected version {version} instead. "
        f"{version_hint()}"), vc)


def _first_stale(node, value, version):
    """Of a node's saved tensors changed in place, the one PyTorch names: its generated
    ``apply`` unpacks the saved inputs in the order of their names (``exponent`` before
    ``self``, ``other`` before ``self``, ``tensor1`` before ``tensor2``), then the saved
    outputs (logsumexp's ``self`` before its ``result``); the first stale one raises."""
    names, saved = getattr(type(node), "saved_names", ()), getattr(node, "_saved", None)
    versions = getattr(node, "_versions", None)
    record = getattr(node, "record", None)
    if not names or saved is None or versions is None or len(saved) != len(names) \
            or record is None or len(record.saved_sources) != len(names):
        return value, version
    aliases = record.extra.get("saved_aliases", {})
    best = None
    for name, (kind, _), v, r in zip(names, record.saved_sources, saved, versions):
        if r is None or v is None or type(r) is tuple:   # (a tuple: _check_tuple's own)
            continue
        if (v.vc[0] if type(v) is SavedOutput else v._vc[0]) != r:
            key = (kind != "arg", aliases.get(name, name))
            if best is None or key < best[0]:
                best = (key, v, r)
    return (value, version) if best is None else best[1:]


def _output_index(value, node, fn) -> int:
    """Which output of its node a saved tensor is, as PyTorch numbers them: among the
    differentiable outputs only (linalg_lu's L is output 0); a record computing one output of
    a PyTorch op (svdvals: LinalgSvd's S) says which in ``extra["result_nr"]``."""
    if type(value) is SavedOutput:
        nr = getattr(value, "nr", None)
        if nr is None:
            record = getattr(node, "record", None)
            return record.extra.get("result_nr", 0) if record is not None else 0
    else:
        nr, node = value._output_nr, fn
    diff = getattr(getattr(node, "record", None), "differentiable_outputs", None)
    return sum(1 for d in diff[:nr] if d) if diff is not None else nr


def _check_not_detached(node, i) -> None:
    """PyTorch's error for a saved input that had a history when it was saved (its edge leads
    to a node) and has none now: ``detach_()`` was called on it since."""
    record = getattr(node, "record", None)
    if record is None or i >= len(record.saved_sources):
        return
    kind, pos = record.saved_sources[i]
    if kind != "arg" or pos not in record.input_pos:
        return
    fn = node._edges[record.input_pos.index(pos)][0]
    if fn is not None and not isinstance(fn, Tensor):
        raise RuntimeError(_DETACHED_INPLACE_MSG)


def with_change_note(error: Exception, vc) -> Exception:
    """Add where the in-place change happened to a version-counter error (PEP 678 note)."""
    note = where_changed(vc)
    if note is not None and hasattr(error, "add_note"):
        error.add_note(note)
    return error


# PyTorch's torch.autograd.graph also holds the saved-tensor hooks (autograd/saved_hooks.py,
# which builds on the classes above)
from .saved_hooks import (_Packed, disable_saved_tensors_hooks,  # noqa: E402
                          save_on_cpu, saved_tensors_hooks)
from .saved_tensor import raw_saved  # noqa: E402
