"""Running an op record: dtype promotion, the NumPy forward, and recording the graph node.

Note [Fast paths]
Most calls in a training loop are elementwise ops on tensors of one float dtype, possibly with
a Python number. ``dispatch_unary`` / ``dispatch_binary`` handle exactly those with a few
type checks and fall back to the general ``dispatch`` for anything else (mixed dtypes, integer
inputs to float-only ops, non-tensor first arguments). A Python number meeting a float array
is turned into a cached 0-d array of the array's dtype: NumPy's handling of Python scalars
costs about twice an array-array op on small arrays, and the result is the same (PyTorch also
computes in the tensor's dtype). A record with a ``kernel`` (a ufunc equal to its forward on
such inputs) has it called directly when the other arguments are the defaults: the forward's
own Python frames cost as much as the arithmetic on small arrays.

Elementwise records (``rec.layout``) give their outputs PyTorch's TensorIterator layout (Note
[Elementwise output layouts] in ops/iter_layout.py): the dispatchers look at it only for
outputs of two or more dims with an input that is not C-contiguous (a ufunc kernel on one
tensor already keeps its layout), so the common case pays one ``ndim`` test.
"""
from __future__ import annotations

import numpy as np

from ..autograd.graph import SavedOutput, anomaly as _anomaly, next_seq as _next_seq, MAX_SEQ
from .._zerotensor import promoted
from ..dtypes import cast_array
from ..errors import broadcast_error
from ..grad_mode import inference_depth as _inference_depth, state as _mode
from ..tensor import Tensor, _wrap
from .iter_layout import (CONTIG, RED, REV, SELF, STRIDES, TARGET, WHERE, cast_layout,
                          contiguous_result, elem_strides, odd_strides, preserve_strides,
                          relayout, relayout_sorted, with_strides)

__all__ = ["dispatch", "dispatch_unary", "dispatch_binary", "dispatch_view", "choose_dispatch",
           "record_node"]

_ndarray = np.ndarray
# (asanyarray: a zero tensor's array, an ndarray subclass, stays one: Note [Zero tensors]
# in _zerotensor.py; NumPy scalars become 0-d arrays as with asarray)
_asarray = np.asanyarray
_SCALARS = (int, float, bool, np.number, np.bool_)
_NO_EDGE = (None, 0)
_EMPTY = ()
_new = object.__new__
_scalar_cache: dict = {}


def _scalar_array(value, dtype):
    """A cached read-only 0-d array of ``value`` in ``dtype`` (see Note [Fast paths])."""
    key = (value, dtype)
    arr = _scalar_cache.get(key)
    if arr is None:
        arr = np.array(value, dtype)
        if not value or value != value:
            return arr   # keys: 0.0 == -0.0 (yet x * -0.0 gives -0), and NaN != NaN
        if len(_scalar_cache) > 4096:
            _scalar_cache.clear()
        arr.flags.writeable = False
        _scalar_cache[key] = arr
    return arr


def fix_layout(rec, out, args, compute=None):
    """``out`` (two or more dims) in PyTorch's layout for ``rec`` (``rec.layout``), the
    inputs converted to ``compute`` (a NumPy dtype) where it is given."""
    kind = rec.layout
    if kind.__class__ is not int:   # the record's own rule (Note in iter_layout.py)
        return kind(out, [args[p]._data if isinstance(args[p], Tensor) else None
                          for p in rec.input_pos])
    if kind == CONTIG:
        return out if out.flags.c_contiguous else contiguous_result(out)
    if kind == RED:   # (C-contiguous without size-1 dims: exact strides, no work)
        return out if out.flags.c_contiguous and 1 not in out.shape else contiguous_result(out)
    arrays = [args[p]._data for p in rec.input_pos if isinstance(args[p], Tensor)]
    if compute is not None:
        arrays = [a if a.dtype == compute or a.flags.c_contiguous or (kind == WHERE and i == 0)
                  else cast_layout(a) for i, a in enumerate(arrays)]
    sort = False   # operands of other shapes (numbers too): TensorIterator sorts the dims
    if kind == SELF or kind == STRIDES:
        del arrays[1:]
        if kind == STRIDES and not arrays[0].flags.c_contiguous:
            return preserve_strides(out, arrays[0])
        if arrays[0].flags.c_contiguous and odd_strides(arrays[0]):
            return with_strides(out, elem_strides(arrays[0]))   # empty_like keeps them
    else:
        sort = len(arrays) < len(rec.input_pos) or any(a.shape != out.shape for a in arrays)
        if kind == REV and len(arrays) > 1:
            arrays[0], arrays[1] = arrays[1], arrays[0]
        elif kind == TARGET:
            del arrays[0], arrays[1:]
    for a in arrays:
        if not a.flags.c_contiguous:
            return relayout(out, arrays)
    if sort and any(odd_strides(a) for a in arrays):   # (a transposed column)
        return relayout_sorted(out, arrays)
    # every input C-contiguous: so is PyTorch's output (a forward may have built another)
    return out if out.flags.c_contiguous else contiguous_result(out)


def choose_dispatch(rec):
    from .registry import promote, promote_float, compare, same
    rule = rec.dtype_rule
    simple = (rec.n_outputs == 1 and not rec.list_input and not rec.view
              and rec.layout.__class__ is int
              and (rule in (promote, promote_float, compare, same)
                   or getattr(rule, "fast_float", False)))
    if simple and rec.input_pos == (0,):
        if getattr(rule, "fast_float", False):
            return dispatch_unary_numbers
        return dispatch_unary_any if rule is same else dispatch_unary
    if simple and rec.input_pos == (0, 1) and rule is not same:
        return dispatch_binary
    if (rec.view and rule is same and rec.n_outputs == 1 and not rec.list_input
            and rec.input_pos == (0,)):
        return dispatch_view
    return dispatch


def dispatch_view(rec, args):
    """A view op of one tensor (``t``, ``transpose``, ``view``...): the general ``dispatch``
    without its dtype rule and argument loop, which do nothing for these records. Every
    ``nn.Linear`` runs ``weight.t()`` forward and twice backward."""
    x = args[0]
    if not isinstance(x, Tensor):
        return dispatch(rec, args)
    try:
        out = rec.forward(x._data, *args[1:]) if len(args) > 1 else rec.forward(x._data)
    except ValueError as exc:
        raise _shape_error(rec, args, exc) from None
    except RuntimeError:
        stale_first(rec, (x,))
        raise
    if type(out) is not _ndarray:
        out = _asarray(out)
    result = _wrap(out)
    _make_view(result, x, None, rec)
    if x._requires_grad and rec.differentiable and _mode.grad_enabled:
        record_node(rec, args, (result,))
    return result


def dispatch_unary(rec, args):
    """One float tensor, maybe with non-tensor arguments (see Note [Fast paths])."""
    x = args[0]
    if not isinstance(x, Tensor) or x._data.dtype.kind != "f":
        return dispatch(rec, args)
    return _run_unary(rec, x, args, rec.kernel)


def dispatch_unary_any(rec, args):
    """dispatch_unary for records whose forward handles every dtype (dtype rule ``same``)."""
    x = args[0]
    if not isinstance(x, Tensor):
        return dispatch(rec, args)
    return _run_unary(rec, x, args, rec.kernel if x._data.dtype.kind == "f" else None)


def dispatch_unary_numbers(rec, args):
    """dispatch_unary for ops whose other arguments are numbers promoted with the tensor
    (``pow(x, 2)``): only Python numbers keep a float tensor's dtype."""
    for a in args[1:]:
        if type(a) is not float and type(a) is not int:
            return dispatch(rec, args)
    return dispatch_unary(rec, args)


def _run_unary(rec, x, args, kernel):
    d = x._data
    if kernel is not None and (len(args) == 1 or args[1:] == rec.kernel_tail):
        out = kernel(d)   # (a ufunc keeps one input's layout, as PyTorch does)
        if type(out) is not _ndarray:
            out = _asarray(out)   # a ufunc on a 0-d array answers a NumPy scalar
        elif not d.flags.c_contiguous and 1 in d.shape and rec.layout and out.ndim > 1:
            out = fix_layout(rec, out, args)   # (but not a size-1 dim's stride)
    else:
        out = rec.forward(d, *args[1:]) if len(args) > 1 else rec.forward(d)
        if type(out) is not _ndarray:
            out = _asarray(out)
        elif out.ndim > 1 and rec.layout and (rec.layout == CONTIG or not d.flags.c_contiguous
                                               or odd_strides(d)):
            out = fix_layout(rec, out, args)
    result = _new(Tensor)   # _wrap(out) inline (Note [Inline wraps] in tensor.py)
    result._data = out
    result._grad_fn = None
    result._requires_grad = False
    result._vc = [0]
    if _inference_depth[0] and _mode.inference:
        result._meta = {"inference": True}
    if x._requires_grad and rec.differentiable and _mode.grad_enabled:
        # record_node's first step, without its frame, while it is not rebound (Note
        # [Integer tensors with history], saved-tensor hooks)
        recorder = rec.recorder
        if recorder is not None and record_node is _record_plain:
            recorder(args, (result,))
        else:
            record_node(rec, args, (result,))
    return result


def dispatch_binary(rec, args):
    """A float tensor with a tensor of its dtype or a Python number (Note [Fast paths])."""
    a = args[0]
    b = args[1]
    if not isinstance(a, Tensor):
        return dispatch(rec, args)
    ad = a._data
    dt = ad.dtype
    if dt.kind != "f":
        return dispatch(rec, args)
    if isinstance(b, Tensor):
        bd = b._data
        if bd.dtype is not dt and bd.dtype != dt:
            return dispatch(rec, args)
        requires = a._requires_grad or b._requires_grad
    elif type(b) is float or type(b) is int:
        if dt.char == "e":   # Note [Half with a number] in pointwise.py: the forward sees b
            return dispatch(rec, args)
        bd = _scalar_cache.get((b, dt))
        if bd is None:
            bd = _scalar_array(b, dt)
        requires = a._requires_grad
    else:
        return dispatch(rec, args)
    kernel = rec.kernel
    try:
        # (True == 1, but add(alpha=True) is not add(alpha=1): its forward refuses it)
        if kernel is not None and (len(args) == 2 or (args[2:] == rec.kernel_tail
                                                      and args[2] is not True)):
            out = kernel(ad, bd)
        else:
            out = rec.forward(ad, bd, *args[2:]) if len(args) > 2 else rec.forward(ad, bd)
    except ValueError as exc:
        raise _shape_error(rec, args, exc) from None
    except NotImplementedError as exc:
        raise _kernel_error(rec, args, exc) from None
    if type(out) is not _ndarray:
        out = _asarray(out)
    elif out.ndim > 1 and rec.layout and (rec.layout == CONTIG or not (
            ad.flags.c_contiguous and bd.flags.c_contiguous) or (
            ad.shape != bd.shape and (odd_strides(ad) or odd_strides(bd)))):
        out = fix_layout(rec, out, args)
    result = _new(Tensor)   # _wrap(out) inline (Note [Inline wraps] in tensor.py)
    result._data = out
    result._grad_fn = None
    result._requires_grad = False
    result._vc = [0]
    if _inference_depth[0] and _mode.inference:
        result._meta = {"inference": True}
    if requires and rec.differentiable and _mode.grad_enabled:
        # record_node's first step, without its frame, while it is not rebound (Note
        # [Integer tensors with history], saved-tensor hooks)
        recorder = rec.recorder
        if recorder is not None and record_node is _record_plain:
            recorder(args, (result,))
        else:
            record_node(rec, args, (result,))
    return result


def _kernel_error(rec, args, exc):
    """A kernel's "not implemented for 'Float'" comes after the operands are broadcast in
    PyTorch (TensorIterator is built first): shapes that do not broadcast are the error."""
    stale_first(rec, args)
    if rec.family != "pointwise" or "not implemented for '" not in str(exc):
        return exc   # only elementwise ops broadcast first; leafgrad's own errors stay as raised
    shapes = [args[p]._data.shape for p in rec.input_pos if isinstance(args[p], Tensor)]
    return (len(shapes) > 1 and broadcast_error(shapes)) or exc


def _shape_error(rec, args, exc):
    """NumPy's "could not be broadcast" ValueError as PyTorch's RuntimeError (only on the
    error path: forwards are not slowed by a shape check)."""
    stale_first(rec, args)
    if "broadcast" not in str(exc):
        return exc
    shapes = [args[p]._data.shape for p in rec.input_pos if isinstance(args[p], Tensor)]
    return broadcast_error(shapes) or exc


def _as_input(rec, value, pos):
    if isinstance(value, _SCALARS):
        return value
    if isinstance(value, _ndarray):
        return value
    raise TypeError(f"{rec.name}(): argument '{rec.params[pos]}' (position {pos + 1}) must be "
                    f"Tensor, not {type(value).__name__}")


def dispatch(rec, args: tuple):
    """Run one op in general: promote dtypes, call the forward, record a node if needed."""
    if rec.list_input:
        return _dispatch_list(rec, args)
    datas = list(args)
    requires = False
    try:
        compute, out_dtype = rec.dtype_rule(rec, args)
    except NotImplementedError as exc:
        raise _kernel_error(rec, args, exc) from None
    except RuntimeError:
        stale_first(rec, args)
        raise
    if compute is None:   # the forward takes the inputs as they are (addmm, log_softmax...)
        for p in rec.input_pos:
            a = args[p]
            if isinstance(a, Tensor):
                datas[p] = a._data
                if a._requires_grad:
                    requires = True
            elif a is not None:
                datas[p] = _as_input(rec, a, p)
    else:
        for p in rec.input_pos:
            a = args[p]
            if isinstance(a, Tensor):
                d = a._data
                if d.dtype != compute:
                    if type(d) is not _ndarray:
                        d = promoted(d, compute)
                    elif compute.char == "e" and d.dtype.char == "d":
                        d = cast_array(d, compute)   # Note [Double to half] in dtypes.py
                    else:
                        d = d.astype(compute)
                datas[p] = d
                if a._requires_grad:
                    requires = True
            elif a is not None:
                a = _as_input(rec, a, p)
                if type(a) is int and compute.kind in "iu":
                    # PyTorch wraps an out-of-range number into the dtype (uint8 - 2 ->
                    # 255...); NumPy 2 would raise OverflowError instead.
                    a = np.array(a).astype(compute)
                datas[p] = a
    try:
        out = rec.forward(*datas)
    except ValueError as exc:
        raise _shape_error(rec, args, exc) from None
    except NotImplementedError as exc:
        raise _kernel_error(rec, args, exc) from None
    except (RuntimeError, IndexError):   # (a dim out of range is an IndexError)
        stale_first(rec, args)
        raise
    record = requires and rec.differentiable and _mode.grad_enabled
    if rec.n_outputs == 1:
        if type(out) is not _ndarray:
            out = _asarray(out)
        if out_dtype is not None and out.dtype != out_dtype:
            out = out.astype(out_dtype)
        if rec.layout and out.ndim > 1:
            out = fix_layout(rec, out, args, compute)
        result = _wrap(out)
        if rec.view:
            _make_view(result, args[rec.input_pos[0]], None, rec)
        if record:
            record_node(rec, args, (result,))
        return result
    results = []
    for o in out:
        if type(o) is not _ndarray:
            o = _asarray(o)
        elif rec.layout and o.ndim > 1:
            o = fix_layout(rec, o, args, compute)
        results.append(_wrap(o))
    if rec.view:
        base = args[rec.input_pos[0]]
        name = rec.grad_fn_name[:-len("Backward0")] if rec.grad_fn_name.endswith(
            "Backward0") else rec.grad_fn_name
        for i, r in enumerate(results):
            _make_view(r, base, (name, i))
    if record:
        record_node(rec, args, results)
    return tuple(results)


def _dispatch_list(rec, args: tuple):
    tensors = args[0]
    if isinstance(tensors, Tensor) or not isinstance(tensors, (list, tuple)):
        raise TypeError(f"{rec.name}(): argument 'tensors' (position 1) must be tuple of "
                        f"Tensors, not {type(tensors).__name__}")
    for i, t in enumerate(tensors):
        if not isinstance(t, Tensor):
            raise TypeError(f"expected Tensor as element {i} in argument 0, but got "
                            f"{type(t).__name__}")
    stale_first(rec, tensors)   # PyTorch reads every input's grad_fn before the kernel runs
    compute, out_dtype = rec.dtype_rule(rec, (tensors,) + tuple(args[1:]))
    arrays = [t._data if compute is None or t._data.dtype == compute
              else t._data.astype(compute) for t in tensors]
    out = rec.forward(arrays, *args[1:])
    if type(out) is not _ndarray:
        out = _asarray(out)
    if out_dtype is not None and out.dtype != out_dtype:
        out = out.astype(out_dtype)
    if rec.layout and out.ndim > 1:   # a list record's own rule, from the inputs as given
        out = rec.layout(out, [t._data for t in tensors], *args[1:])
    result = _wrap(out)
    if rec.differentiable and _mode.grad_enabled and any(t._requires_grad for t in tensors):
        node = rec.node_class.__new__(rec.node_class)
        node._seq = MAX_SEQ if node._max_priority else _next_seq()
        node._edges = tuple(((t._grad_fn, t._output_nr) if t._grad_fn is not None else
                             _NO_EDGE if t._meta is not None and t._meta.get("no_grad_view")
                             else (t, 0))
                            if t._requires_grad else _NO_EDGE for t in tensors)
        if _anomaly.enabled:
            _anomaly.record(node)
        saved = []
        versions = None
        for kind, pos in rec.saved_sources:
            if kind == "shapes":
                saved.append(tuple(t._data.shape for t in args[pos]))
            elif kind == "arg" and pos > 0:
                value = args[pos]
                if type(value) is tuple and value and isinstance(value[0], Tensor) and \
                        rec.params[pos] in rec.extra.get("saved_tensor_args", ()):
                    # tensors saved as one argument (einsum's operands, where PyTorch's
                    # multiplies save them): one version each, checked at backward as any
                    # saved tensor's (never a silent gradient of values changed in place:
                    # fuzz seed 159)
                    if versions is None:
                        versions = [None] * len(rec.saved_sources)
                    versions[len(saved)] = tuple(t._vc[0] for t in value)
                saved.append(value)
            else:
                raise NotImplementedError(f"{rec.name}: list inputs save shapes only")
        node._saved = tuple(saved)
        node._versions = versions
        meta = [None if t._data.dtype == out.dtype else (t._data.shape, t._data.dtype)
                for t in tensors]
        node._args = meta if any(m is not None for m in meta) else None
        result._grad_fn = node
        result._requires_grad = True
    return result


INFERENCE_SAVE = (
    "Inference tensors cannot be saved for backward. Please do not use Tensors created in "
    "inference mode in computation tracked by autograd. To work around this, you can make a "
    "clone to get a normal tensor and use it in autograd, or use `torch.no_grad()` instead "
    "of `torch.inference_mode()`.")


def _make_view(result: Tensor, base: Tensor, multi=None, rec=None) -> None:
    """Make ``result`` a view of ``base``'s root: shared storage and version counter."""
    # an empty result shares no bytes, yet PyTorch still calls it a view of its base. NumPy
    # gives a view the array that owns the memory as ``.base``: a forward's view of ``base``'s
    # array has that array, or its owner, as ``.base`` (the cheap test, before the bounds
    # check of ``np.may_share_memory``).
    rd = result._data
    owner = rd.base
    if (owner is not None and (owner is base._data or owner is base._data.base)) \
            or rd.size == 0 or np.may_share_memory(rd, base._data):
        result._vc = base._vc
        root = base._base if base._base is not None else base
        result._base = root
        result._view_version = base._vc[0]
        if not _mode.grad_enabled:
            result._view_kind = "no_grad"
            if _mode.inference:
                from .views import inference_view
                inference_view(result, base)
            if root._requires_grad:
                from .views import no_grad_view
                no_grad_view(result)   # requires grad, yet no gradient reaches it
        elif multi is not None:
            result._view_kind = multi
        elif base._view_kind is not None:
            from .views import inherited_kind   # a view of a view the checks forbid
            result._view_kind = inherited_kind(base._view_kind, rec)


def refresh_view(view: Tensor) -> None:
    """Regrow a stale view's grad_fn after its base changed in place (ops/views.py)."""
    from .views import refresh
    refresh(view)


def stale_first(rec, tensors) -> None:
    """On an op's error path: PyTorch reads each input's grad_fn before the kernel runs, so a
    view autograd refuses to regrow (its base changed in place) raises that error before any
    shape or dtype error of the op (``refresh``). Free on the happy path."""
    if rec is not None and not rec.differentiable or not _mode.grad_enabled:
        return
    for a in tensors:
        if isinstance(a, Tensor) and a._requires_grad and a._base is not None \
                and a._vc[0] != a._view_version:
            refresh_view(a)


_ARG, _RESULT, _SHAPE, _DTYPE, _STRIDES, _OUTPUT, _SAVED_OUTPUT = 0, 1, 2, 3, 4, 5, 6
_KINDS = {"arg": _ARG, "result": _RESULT, "shape": _SHAPE, "dtype": _DTYPE,
          "strides": _STRIDES, "output": _OUTPUT, "saved_output": _SAVED_OUTPUT}


def _plan(rec, mask):
    """What to save when the inputs in ``mask`` need gradients: (index, kind, position).
    What PyTorch saves unguarded (every input's bit: registry's saved_plan) is saved whenever
    a node is made, even when no input has a valid edge (all views made under no_grad: fuzz
    seed 173, a DivBackward0 whose ``other`` is one)."""
    every = (1 << len(rec.input_pos)) - 1
    plan = tuple((i, _KINDS[kind], pos)
                 for i, (kind, pos, users) in enumerate(rec.saved_plan)
                 if mask & users or users == every)
    rec.plans[mask] = plan
    return plan


def record_node(rec, args: tuple, results) -> None:
    """Attach a grad_fn node to ``results``: edges, saved values, shape/dtype metadata
    (one-output records through their specialised recorder: Note [Specialised recorders]
    in ops/recorder.py)."""
    recorder = rec.recorder
    if recorder is not None:
        recorder(args, results)
    else:
        _record_general(rec, args, results)


def _record_general(rec, args: tuple, results) -> None:
    """record_node's general path: any record (the recorders do the same for one output)."""
    node = _new(rec.node_class)
    node._seq = MAX_SEQ if node._max_priority else _next_seq()   # Note [Sequence numbers]
    result0 = results[0]
    out_data = result0._data
    single = rec.n_outputs == 1
    edges = []
    meta = None    # single output: (shape, dtype) of each input the output differs from
    mask = 0
    bit = 1
    i = 0
    for p in rec.input_pos:
        a = args[p]
        if isinstance(a, Tensor) and a._requires_grad:
            if a._base is not None and a._vc[0] != a._view_version:
                refresh_view(a)   # its base changed in place since: see ops/views.py
            fn = a._grad_fn
            if fn is not None:
                edges.append((fn, a._output_nr))
                mask |= bit
            elif a._meta is None or not a._meta.get("no_grad_view") \
                    or len(rec.input_pos) == 1:
                edges.append((a, 0))
                mask |= bit
            else:
                # a view made under no_grad has no accumulator: PyTorch's edge to it is
                # invalid, and with several inputs its generated code saves a value used only
                # by that input's formula under should_compute_output, so nothing is saved
                # for it (the graph then survives a second backward: fuzz seed 171). With one
                # input it saves unguarded: the node saves what it saves (and no gradient
                # reaches the view: accumulate_grad)
                edges.append(_NO_EDGE)
            d = a._data
            if single and (d.shape != out_data.shape or d.dtype != out_data.dtype):
                if meta is None:
                    meta = [None] * len(rec.input_pos)
                meta[i] = (d.shape, d.dtype)
        else:
            edges.append(_NO_EDGE)
        bit <<= 1
        i += 1
    node._edges = tuple(edges)
    if _anomaly.enabled:
        _anomaly.record(node)   # the forward stack, for anomaly mode's error reports
    versions = None
    plan = rec.plans.get(mask)
    if plan is None:
        plan = _plan(rec, mask)
    if plan:
        saved = [None] * len(rec.saved_plan)
        for i, kind, pos in plan:
            if kind == _ARG:
                v = args[pos]
                if isinstance(v, Tensor):
                    if v._meta is not None and v._meta.get("inference"):
                        raise RuntimeError(INFERENCE_SAVE)
                    if versions is None:
                        versions = [None] * len(saved)
                    versions[i] = v._vc[0]
                saved[i] = v
            elif kind == _RESULT:
                if versions is None:
                    versions = [None] * len(saved)
                vc = result0._vc
                versions[i] = vc[0]
                out = _new(SavedOutput)   # SavedOutput(result0) without its __init__ frame
                out.data = out_data
                out.vc = vc
                saved[i] = out
            elif kind == _SHAPE:
                v = args[pos]
                saved[i] = v._data.shape if isinstance(v, Tensor) else ()
            elif kind == _OUTPUT:   # a non-differentiable output (``result1``): no cycle
                v = results[pos]
                if versions is None:
                    versions = [None] * len(saved)
                versions[i] = v._vc[0]
                saved[i] = v
            elif kind == _SAVED_OUTPUT:   # another differentiable output (``result2``)
                v = results[pos]
                if versions is None:
                    versions = [None] * len(saved)
                versions[i] = v._vc[0]
                out = SavedOutput(v)
                out.nr = pos
                saved[i] = out
            elif kind == _STRIDES:
                v = args[pos]
                if isinstance(v, Tensor):
                    st = v._data.strides
                    size = v._data.itemsize
                    # a matrix (mm/addmm's operands) without a generator expression
                    saved[i] = (st[0] // size, st[1] // size) if len(st) == 2 else \
                        tuple(s // size for s in st)
                else:
                    saved[i] = ()
            else:
                v = args[pos]
                saved[i] = v.dtype if isinstance(v, Tensor) else None
        node._saved = saved
    else:
        node._saved = _EMPTY
    node._versions = versions
    if single:
        node._args = meta
        result0._grad_fn = node
        result0._requires_grad = True
        return
    node._args = tuple((r._data.shape, r._data.dtype) for r in results)
    diff = rec.differentiable_outputs
    for i, r in enumerate(results):
        if diff is None or diff[i]:
            r._grad_fn = node
            r._requires_grad = True
            r._output_nr = i


# Note [Integer tensors with history]
# PyTorch lets a few in-place ops give an integer tensor a history (``y.masked_fill_(m, x)``
# with ``x`` requiring grad, ``y[0] = x``), and then refuses every op that would record a node
# on an integer output: "Autograd not support dtype: Long". Until such a tensor first
# appears, ``record_node`` runs without the dtype test (the hot path); ``commit_inplace``
# calls ``integer_history_seen``, which rebinds this module's ``record_node`` (called by name
# from the dispatchers above) to the checking version.
# The out-of-place computation of an in-place op (``masked_fill`` for ``masked_fill_``) is
# not refused (PyTorch's in-place ops rebase a history rather than set one):
# ``inplace_check`` notes the tensor being changed here, ``commit_inplace`` forgets it.
_record_plain = record_node
INTEGER_HISTORY = [False]
INPLACE_TARGET = [None]


def _writes_target(args) -> bool:
    target = INPLACE_TARGET[0]
    if target is None:
        return False
    for a in args:
        if isinstance(a, Tensor) and (a._vc is target._vc or (
                a._grad_fn is not None and a._grad_fn is target._grad_fn)):
            return True   # the target itself, or the copy of its old value (old_value)
    return False


def _record_checked(rec, args: tuple, results) -> None:
    if rec.grad_fn_name == "NotImplemented" and any(
            r._data.dtype.kind not in "fcO" for r in results):
        # an op without a derivative (floor_divide, heaviside, ...) leaves an integer output
        # without a history, unrefused, and in place the tensor keeps its own (seed 135)
        return
    if _writes_target(args):
        _record_plain(rec, args, results)
        return
    diff = rec.differentiable_outputs
    for i, r in enumerate(results):
        kind = r._data.dtype.kind   # ("O": an output left uncomputed, a None placeholder)
        if kind not in "fcO" and (diff is None or diff[i]):
            raise integer_history_error(r._data.dtype)
    _record_plain(rec, args, results)


def integer_history_error(np_dtype) -> RuntimeError:
    from ..dtypes import from_numpy_dtype
    return RuntimeError("Autograd not support dtype: "
                        + from_numpy_dtype(np_dtype).tensor_type[:-len("Tensor")])


def integer_history_seen() -> None:
    """An integer tensor got a history: check outputs' dtypes from now on (Note above)."""
    global record_node
    if record_node is _record_plain:   # (saved-tensor hooks' recorder reads the flag)
        record_node = _record_checked
    INTEGER_HISTORY[0] = True
