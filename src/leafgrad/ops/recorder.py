"""Recorders specialised per op record: ``record_node``'s work as straight-line code.

Note [Specialised recorders]
``record_node`` (dispatch.py) is general: it loops over the record's inputs, then over its
saved plan, testing each entry's kind. For one-output records this module writes, the first
time a node is recorded, a function of the record alone (``rec.recorder``): the input loop
unrolled (one block per input: edge, mask bit, shape/dtype metadata), then a call of a
"saver" written per input mask (which inputs need a gradient), which saves exactly the
entries of that mask's plan in one list display, with the type tests only where the
argument's type is not already known (an input in the mask is a Tensor). The savers of the
two usual masks, the first input alone (a unary op, a tensor with a number) and every input,
are written into the recorder itself (no call, no lookup); the others are made on first use
and kept in the recorder's ``_savers``. The result is the same node as ``record_node``'s general path builds, field for field (``_edges``, ``_saved``,
``_versions``, ``_args``), in the same order of side effects (stale views refreshed before
their edge is read, the anomaly trace after the edges, the inference-tensor error before
the output gets its ``grad_fn``); it costs a third of the bytecodes on W3's ops. The code
carries a file name inside the package, so frame walks (anomaly traces, the user's line of
an in-place change) step over it as leafgrad's own. Records with several outputs keep the
general path.
"""
from __future__ import annotations

from ..autograd.graph import SavedOutput, anomaly as _anomaly, next_seq as _next_seq, MAX_SEQ
from ..grad_mode import inference_depth as _inference_depth, state as _mode
from ..tensor import Tensor

__all__ = ["make_recorder"]

_FILE = __file__[:-len("recorder.py")] + "<op recorders>"


def _max_seq():
    """A NotImplemented node's number (Note [Sequence numbers] in autograd/graph.py)."""
    return MAX_SEQ


def make_recorder(rec):
    """The recorder of a one-output record, ``recorder(args, results)``; None for others
    (several outputs, a list input)."""
    from . import dispatch
    if rec.n_outputs != 1 or rec.list_input:
        return None
    n = len(rec.input_pos)
    lines = ["def record(args, results):",
             "    node = _new(_cls)",
             "    node._seq = _next_seq()",
             "    result0 = results[0]",
             "    out_data = result0._data",
             "    oshape = out_data.shape",
             "    odtype = out_data.dtype",
             "    meta = None",
             "    mask = 0"]
    for k, p in enumerate(rec.input_pos):
        # a view made under no_grad (no accumulator) is no edge, and with several inputs
        # nothing is saved for its gradient (_record_general's comment); one input's node
        # saves what it saves whatever its edge, as PyTorch's
        edge = [f"        e{k} = (fn, a._output_nr) if fn is not None else (a, 0)",
                f"        mask |= {1 << k}"] if n == 1 else [
            "        if fn is not None:",
            f"            e{k} = (fn, a._output_nr)",
            f"            mask |= {1 << k}",
            "        elif a._meta is None or not a._meta.get('no_grad_view'):",
            f"            e{k} = (a, 0)",
            f"            mask |= {1 << k}",
            "        else:",
            f"            e{k} = _NO_EDGE"]
        lines += [
            f"    a = args[{p}]",
            "    if isinstance(a, Tensor) and a._requires_grad:",
            "        if a._base is not None and a._vc[0] != a._view_version:",
            "            _refresh_view(a)",
            "        fn = a._grad_fn"] + edge + [
            "        d = a._data",
            "        if d.shape != oshape or d.dtype != odtype:",
            "            if meta is None:",
            f"                meta = [None] * {n}",
            f"            meta[{k}] = (d.shape, d.dtype)",
            "    else:",
            f"        e{k} = _NO_EDGE"]
    edges = ", ".join(f"e{k}" for k in range(n)) + ("," if n == 1 else "")
    lines += [f"    node._edges = ({edges})",
              "    if _anomaly.enabled:",
              "        _anomaly.record(node)"]
    # the savers of the usual masks written inline (no call): only the first input (unary
    # ops, a tensor with a number) and every input; others through ``_savers``
    full = (1 << n) - 1
    for k, m in enumerate((1, full) if full != 1 else (1,)):
        lines.append(f"    {'if' if not k else 'elif'} mask == {m}:")
        lines += ["    " + line for line in _saver_lines(rec, m)]
    lines += ["    else:",
              "        saver = _savers.get(mask)",
              "        if saver is None:",
              "            saver = _make_saver(mask)",
              "        saver(node, args, result0)",
              "    node._args = meta",
              "    result0._grad_fn = node",
              "    result0._requires_grad = True"]
    savers: dict = {}
    env = {"_new": object.__new__, "_cls": rec.node_class,
           "_next_seq": _max_seq if rec.node_class._max_priority else _next_seq,
           "Tensor": Tensor, "_refresh_view": dispatch.refresh_view,
           "_NO_EDGE": dispatch._NO_EDGE, "_anomaly": _anomaly, "_savers": savers,
           "_make_saver": lambda mask: _make_saver(rec, mask, savers), **_saver_env()}
    return _compile(lines, env, "record")


def _make_saver(rec, mask, savers):
    """``saver(node, args, result0)``: sets ``node._saved`` and ``node._versions`` as
    ``record_node``'s plan loop does for inputs ``mask``."""
    lines = ["def save(node, args, result0):"] + _saver_lines(rec, mask)
    saver = _compile(lines, _saver_env(), "save")
    savers[mask] = saver
    return saver


def _saver_env() -> dict:
    from . import dispatch
    return {"_new": object.__new__, "Tensor": Tensor, "SavedOutput": SavedOutput,
            "_EMPTY": dispatch._EMPTY, "_INFERENCE_SAVE": dispatch.INFERENCE_SAVE,
            "_strides": _strides}


def _saver_lines(rec, mask) -> list:
    """A saver's body for inputs ``mask`` (indented one level; locals ``node``, ``args``,
    ``result0``; it defines ``v<i>``, ``r<i>`` and ``vc``)."""
    from . import dispatch
    plan = rec.plans.get(mask)
    if plan is None:
        plan = dispatch._plan(rec, mask)
    lines = []
    if not plan:
        lines += ["    node._saved = _EMPTY", "    node._versions = None"]
    else:
        known = {p for k, p in enumerate(rec.input_pos) if mask & (1 << k)}
        n = len(rec.saved_plan)
        values, versions = ["None"] * n, ["None"] * n
        maybe = []       # version names that are None when the argument is not a tensor
        always = False   # some entry always has a version
        for i, kind, pos in plan:
            v, r = f"v{i}", f"r{i}"
            if kind == dispatch._ARG:
                lines.append(f"    {v} = args[{pos}]")
                check = [f"if {v}._meta is not None and {v}._meta.get('inference'):",
                         "    raise RuntimeError(_INFERENCE_SAVE)",
                         f"{r} = {v}._vc[0]"]
                if pos in known:
                    lines += ["    " + c for c in check]
                    always = True
                else:
                    lines.append(f"    if isinstance({v}, Tensor):")
                    lines += ["        " + c for c in check]
                    lines += ["    else:", f"        {r} = None"]
                    maybe.append(r)
                versions[i] = r
            elif kind == dispatch._RESULT:
                lines += ["    vc = result0._vc",
                          f"    {r} = vc[0]",
                          f"    {v} = _new(SavedOutput)",
                          f"    {v}.data = result0._data",
                          f"    {v}.vc = vc"]
                versions[i] = r
                always = True
            elif kind == dispatch._SHAPE:
                lines += [f"    {v} = args[{pos}]",
                          f"    {v} = {v}._data.shape if isinstance({v}, Tensor) else ()"]
            elif kind == dispatch._STRIDES:
                lines.append(f"    {v} = _strides(args[{pos}])")
            elif kind == dispatch._DTYPE:
                lines += [f"    {v} = args[{pos}]",
                          f"    {v} = {v}.dtype if isinstance({v}, Tensor) else None"]
            else:   # another output: only multi-output records save one (no recorder)
                raise AssertionError(f"{rec.name}: saved kind {kind} in a one-output record")
            values[i] = v
        lines.append(f"    node._saved = [{', '.join(values)}]")
        listed = f"[{', '.join(versions)}]"
        if always:
            lines.append(f"    node._versions = {listed}")
        elif maybe:
            test = " and ".join(f"{r} is None" for r in maybe)
            lines.append(f"    node._versions = None if {test} else {listed}")
        else:
            lines.append("    node._versions = None")
    return lines


def _strides(v):
    """A tensor's strides in elements (``<input>_strides``), () for a non-tensor."""
    if not isinstance(v, Tensor):
        return ()
    st = v._data.strides
    size = v._data.itemsize
    return (st[0] // size, st[1] // size) if len(st) == 2 else tuple(s // size for s in st)


def _compile(lines, env, name):
    code = compile("\n".join(lines) + "\n", _FILE, "exec")
    exec(code, env)   # noqa: S102 - our own generated source (Note above)
    return env[name]


# Note [Specialised apply]
# ``OpNode.apply`` (autograd/graph.py) is the same kind of general loop on the backward side:
# per input it unpacks the formula and the indices of its saved values, counts them and
# branches on the count. A one-output record's node class gets, when the class is made
# (registry.py's ``node_class``), an ``apply`` written for it: each input's formula called
# with its saved values by index, in input order, then conformed (broadcast reduced, dtype
# cast) exactly where ``OpNode.apply`` conforms. A call with ``wanted`` (only some inputs
# wanted: ``autograd.grad``, ``inputs=``), or under create_graph for a record whose gradients
# PyTorch computes last input first, goes to ``OpNode.apply`` itself. Keep the two in
# step: the written one is ``OpNode.apply``'s plain path, unrolled.
def make_apply(cls):
    """The unrolled ``apply`` of a one-output record's node class ``cls``."""
    from ..autograd import graph
    # under create_graph most nodes compute their inputs' gradients last input first
    # (OpNode._apply_reversed): the general apply keeps that order
    general_if = "wanted is not None or create_graph" if cls._reverse_grads \
        else "wanted is not None"
    lines = ["def apply(self, grads, create_graph, wanted=None):",
             f"    if {general_if}:",
             "        return _general(self, grads, create_graph, wanted)",
             "    saved = self._saved",
             "    if saved is None:",
             "        raise RuntimeError(_BACKWARD_TWICE)",
             "    versions = self._versions",
             "    if versions is not None:",
             "        if _DETACHED[0]:",
             "            _check_versions(self, saved, versions)",
             "        else:"]
    # check_versions' loop unrolled over the entries that can carry a version (an argument,
    # which is versioned when it is a tensor, and the op's own output), in its order
    versioned = [i for i, (kind, _) in enumerate(cls.record.saved_sources)
                 if kind in ("arg", "result")]
    for i in versioned:
        lines += [f"            r = versions[{i}]",
                  "            if r is not None:",
                  f"                v = saved[{i}]",
                  "                if (v.vc if type(v) is _SavedOutput else v._vc)[0] != r:",
                  "                    _check_version(self, v, r)"]
    if not versioned:
        lines.append("            pass")
    slot = cls._result_slot
    if slot is not None:
        # (SavedOutput.unpack and its _wrap, inline: Note [Inline wraps] in tensor.py)
        lines += [f"    if saved and type(saved[{slot}]) is _SavedOutput:",
                  "        saved = list(saved)",
                  f"        s = saved[{slot}]",
                  "        t = _new(_Tensor)",
                  "        t._data = s.data",
                  "        if create_graph:",
                  "            t._grad_fn = self",
                  "            t._requires_grad = True",
                  "        else:",
                  "            t._grad_fn = None",
                  "            t._requires_grad = False",
                  "        t._vc = s.vc",
                  "        if _inference_depth[0] and _mode.inference:",
                  "            t._meta = {'inference': True}",
                  f"        saved[{slot}] = t"]
    lines += ["    grad = grads[0]",
              "    meta = self._args",
              "    edges = self._edges"]
    env = {"_general": graph.OpNode.apply, "_BACKWARD_TWICE": graph.errors.BACKWARD_TWICE,
           "_check_versions": graph.check_versions, "_SavedOutput": SavedOutput,
           "_check_version": graph._check_version, "_DETACHED": graph.DETACHED_INPLACE,
           "_conform": graph._conform, "_new": object.__new__, "_Tensor": Tensor,
           "_inference_depth": _inference_depth, "_mode": _mode}
    names = [f"g{k}" for k in range(len(cls._calls))]
    for k in (cls._order or range(len(cls._calls))):   # (a node's own order: graph._order)
        call = cls._calls[k]
        g = f"g{k}"
        if call is None:
            lines.append(f"    {g} = None")
            continue
        formula, idx = call
        env[f"_f{k}"] = formula
        args = "".join(f", saved[{j}]" for j in idx)
        lines += [f"    if edges[{k}][0] is None:",
                  f"        {g} = None",
                  "    else:",
                  f"        {g} = _f{k}(grad{args})",
                  f"        if meta is not None and {g} is not None:",
                  f"            m = meta[{k}]",
                  "            if m is not None:",
                  f"                d = {g}._data",
                  "                if d.shape != m[0] or d.dtype != m[1]:   # _conform's tests",
                  f"                    {g} = _conform({g}, m, self, {k})"]
    lines.append(f"    return [{', '.join(names)}]")
    return _compile(lines, env, "apply")
