"""The op table: one ``OpRecord`` per PyTorch op, and the dispatcher that runs them.

A family file (pointwise.py, reduction.py, ...) calls ``defop`` once per op. The record
holds everything about the op: its PyTorch name (which gives the ``grad_fn`` name), the NumPy
forward, one derivative formula per differentiable input (a named function whose parameters
say what must be saved, as in PyTorch's derivatives.yaml), the dtype rule, the Tensor methods,
dunders and in-place variant it provides, and sample inputs for the registry-driven tests.

Formula parameters: the first is ``grad`` (``grads``, a list, for ops with several outputs);
the rest name saved values: an input (``self``, ``other``, ...), ``result`` (the op's output),
``result1``, ``result2``... (another output of a multi-output op, a non-differentiable one),
a non-tensor argument (``dim``, ``keepdim``, ...), or ``<input>_shape`` / ``<input>_dtype`` /
``<input>_strides`` (only the metadata, so the input's array is not kept alive; strides in
elements, as PyTorch's ``sym_strides()``, for formulas that answer in the input's layout).

>>> from leafgrad.ops.registry import RECORDS
>>> RECORDS["mul"].grad_fn_name
'MulBackward0'
"""
from __future__ import annotations

import inspect
from typing import Callable

import numpy as np

from .. import dtypes as _dt
from ..autograd.graph import make_node_class
from ..tensor import Tensor
from .dispatch import choose_dispatch, dispatch, record_node  # noqa: F401
from .iter_layout import OWN, default_layout
from .lazy import _Table, lazy_slot
# re-exported: family files and out_variants.py import these names from here
from .inplace import (_can_cast, _inplace_kernel_error, _make_inplace, _move_retain_grad,  # noqa: F401
                      commit_inplace, inplace_check, old_value)
from .public_fn import (_PRECOMPILED, _TEMPLATE_FILE, _TEMPLATES, _make_public,  # noqa: F401
                        _positional, _qualname, _signature, _template)

__all__ = ["OpRecord", "Formula", "Sample", "defop", "RECORDS", "FUNCTIONS", "bind_method",
           "export_function", "inplace_check"]

# Both load the lazy families on a miss or a full iteration (Note [Lazy families], lazy.py).
RECORDS: dict = _Table("RECORDS")
FUNCTIONS: dict = _Table("FUNCTIONS")   # torch.<name> functions provided by the ops package


class _Fields:
    """The parts of ``@dataclass`` these classes used: ``__repr__`` and ``__eq__`` over
    ``_FIELDS`` (their ``__init__`` is written out below). Note [No dataclasses at import]:
    ``@dataclass`` compiles its methods from source when the class is made, and with the
    ``dataclasses`` module that was ~5% of ``import leafgrad``."""

    _FIELDS: tuple = ()
    __hash__ = None   # as @dataclass(eq=True)

    def __repr__(self) -> str:
        return (f"{self.__class__.__qualname__}("
                + ", ".join(f"{f}={getattr(self, f)!r}" for f in self._FIELDS) + ")")

    def __eq__(self, other):
        if other.__class__ is self.__class__:
            return (tuple(getattr(self, f) for f in self._FIELDS)
                    == tuple(getattr(other, f) for f in self._FIELDS))
        return NotImplemented


_NEW_DICT = object()   # a default meaning "a new empty dict" (dataclass default_factory=dict)


class Sample(_Fields):
    """One test call of an op, compared with PyTorch by tests/test_ops_registry.py.

    ``args``/``kwargs`` may hold NumPy arrays: the test turns each into a leafgrad tensor and
    a torch tensor (float arrays require grad). ``call`` names what to call: ``"add"`` is
    ``torch.add``, ``"Tensor.add_"`` a method, ``"__rsub__"`` a dunder on the first argument;
    None means the record's first function (or method). ``grad``: compare first and second
    derivatives too.
    """
    _FIELDS = ("args", "kwargs", "call", "grad", "atol")

    def __init__(self, args: tuple, kwargs: dict = _NEW_DICT, call: str | None = None,
                 grad: bool = True, atol: float = 1e-6):
        self.args = args
        self.kwargs = {} if kwargs is _NEW_DICT else kwargs
        self.call = call
        self.grad = grad
        self.atol = atol


class Formula(_Fields):
    """One input's derivative formula: ``fn`` and the saved names it takes (``args``; their
    slots ``idx``). A joint formula (Note [Joint formulas] in autograd/graph.py) computes the
    gradients of the inputs ``group`` (their indices) at once; this input's is at ``pos`` in
    what it returns; with ``mask`` it takes PyTorch's ``grad_input_mask`` last."""
    _FIELDS = ("fn", "args", "idx", "group", "pos", "mask")

    def __init__(self, fn: Callable, args: tuple, idx: tuple = (), group: tuple | None = None,
                 pos: int = 0, mask: bool = False):
        self.fn = fn
        self.args = args
        self.idx = idx
        self.group = group
        self.pos = pos
        self.mask = mask


class OpRecord(_Fields):
    _FIELDS = ("name", "forward", "params", "inputs", "formulas", "saved_names",
               "dtype_rule", "grad_fn_name", "differentiable", "view", "n_outputs", "samples",
               "family", "methods", "functions", "inplace", "differentiable_outputs",
               "materialize", "has_saved_output", "input_pos", "saved_sources", "saved_users",
               "public", "list_input", "saved_plan", "plans", "dispatch", "extra", "kernel",
               "kernel_tail", "layout")

    def __init__(self, name: str, forward: Callable, params: tuple, inputs: tuple,
                 formulas: tuple, saved_names: tuple, dtype_rule: Callable, grad_fn_name: str,
                 differentiable: bool, view: bool, n_outputs: int, samples: Callable | None,
                 family: str, methods: tuple, functions: tuple, inplace: str | None,
                 differentiable_outputs: tuple | None, materialize: Callable | None = None,
                 has_saved_output: bool = False, input_pos: tuple = (),
                 saved_sources: tuple = (), saved_users: tuple = (), public: Callable = None,
                 list_input: bool = False, saved_plan: tuple = (), plans: dict = _NEW_DICT,
                 dispatch: Callable = None, extra: dict = _NEW_DICT,
                 kernel: Callable | None = None, kernel_tail: tuple = (), layout=OWN):
        self.name = name
        self.forward = forward
        self.params = params
        self.inputs = inputs
        self.formulas = formulas
        self.saved_names = saved_names
        self.dtype_rule = dtype_rule
        self.grad_fn_name = grad_fn_name
        self.differentiable = differentiable
        self.view = view
        self.n_outputs = n_outputs
        self.samples = samples
        self.family = family
        self.methods = methods
        self.functions = functions
        self.inplace = inplace
        self.differentiable_outputs = differentiable_outputs
        self.materialize = materialize
        self.has_saved_output = has_saved_output
        self.input_pos = input_pos
        self.saved_sources = saved_sources
        self.saved_users = saved_users
        self.public = public
        self.list_input = list_input
        self.saved_plan = saved_plan
        self.plans = {} if plans is _NEW_DICT else plans
        self.dispatch = dispatch
        self.extra = {} if extra is _NEW_DICT else extra
        self.kernel = kernel               # see defop
        self.kernel_tail = kernel_tail     # the defaults of the parameters after the inputs
        self.layout = layout               # see defop


class _LazyNodeClass:
    """``rec.node_class``: the record's Node subclass, made on first use.

    Note [Lazy node classes]
    Making ~400 node classes (a ``type()`` call and a property per saved name each) was about
    a sixth of ``import leafgrad``, yet a program uses a few dozen ops with grad. The class is
    made the first time a node is recorded (or the class is asked for) and then stored in the
    record's ``__dict__``, which shadows this non-data descriptor: later reads are plain
    attribute reads."""

    def __get__(self, rec, owner=None):
        if rec is None:
            return self
        cls = make_node_class(rec.grad_fn_name, rec.saved_names, rec)
        if cls._plain:   # Note [Specialised apply] in ops/recorder.py
            from .recorder import make_apply
            cls.apply = make_apply(cls)
        rec.__dict__["node_class"] = cls
        return cls


OpRecord.node_class = _LazyNodeClass()


class _LazyRecorder:
    """``rec.recorder``: the record's specialised recorder (Note [Specialised recorders] in
    ops/recorder.py), or None for records the general ``record_node`` path handles; written
    on first use and then stored in the record's ``__dict__``, as ``node_class``."""

    def __get__(self, rec, owner=None):
        if rec is None:
            return self
        from .recorder import make_recorder
        fn = make_recorder(rec)
        rec.__dict__["recorder"] = fn
        return fn


OpRecord.recorder = _LazyRecorder()


# -- dtype rules: (record, args) -> (compute numpy dtype or None, output numpy dtype or None) -
def _tensor_args(rec, args):
    return [args[p] for p in rec.input_pos]


def promote(rec, args):
    """Inputs promoted by PyTorch's rules; output in the same dtype."""
    d = _dt.result_type(*_tensor_args(rec, args)).np
    return d, d


def promote_float(rec, args):
    """Like promote, but integer and bool results become the default float dtype."""
    d = _dt.result_type(*_tensor_args(rec, args))
    if not d.is_floating_point:
        d = _dt.get_default_dtype()
    return d.np, d.np


def compare(rec, args):
    """Inputs promoted together; the output is bool."""
    d = _dt.result_type(*_tensor_args(rec, args)).np
    return d, np.dtype(np.bool_)


def same(rec, args):
    """Leave dtypes to the forward (shape ops, indexing)."""
    return None, None


def _promote_list(rec, args):
    d = _dt.result_type(*args[0]).np
    return d, d


DTYPE_RULES = {"promote": promote, "promote_float": promote_float, "compare": compare,
               "same": same}


_OUTPUTS = ("result", "output", "saved_output")


def defop(name: str, forward: Callable, *, derivatives: dict | None = None,
          inputs: tuple | None = None, dtype="promote", grad_fn_name: str | None = None,
          methods=None, functions=None, inplace: str | None = None, view: bool = False,
          n_outputs: int = 1, differentiable_outputs: tuple | None = None,
          materialize: Callable | None = None, samples: Callable | None = None,
          family: str = "", list_input: bool = False, kernel: Callable | None = None,
          layout=None, **extra) -> OpRecord:
    """Register one op. ``forward``'s signature is the op's PyTorch signature.

    ``derivatives`` maps each differentiable input name to its formula; an op with none is
    non-differentiable (its outputs never get a ``grad_fn``). With ``list_input`` the first
    input is a sequence of tensors (``cat``, ``stack``): one edge per tensor, and its formula
    returns one gradient per tensor.

    ``kernel`` (optional) is a NumPy function, usually a ufunc, that equals the forward when
    the inputs are floating arrays of one dtype and every other argument has its default;
    the dispatcher's fast paths then call it directly, saving the forward's Python frames
    (see Note [Fast paths] in dispatch.py).

    ``layout`` is how the dispatcher lays out the outputs (ITER, CONTIG, SELF... from
    ops/iter_layout.py, Note [Elementwise output layouts], or a function: the record's own
    rule); None takes the family's default (``default_layout``: RED for reductions, ITER for
    elementwise families, else OWN).
    """
    sig = _signature(forward)
    params = sig.names
    if inputs is None:
        inputs = tuple(p for p in params if p in ("self", "other"))
    derivatives = derivatives or {}
    # a tuple key names the inputs of one joint formula (PyTorch's "self, other: f(...)")
    groups = {}
    for key in list(derivatives):
        if isinstance(key, tuple):
            for k in key:
                derivatives = {**derivatives, k: derivatives[key]}
                groups[k] = key
            derivatives = {k: v for k, v in derivatives.items() if k != key}
    formulas = []
    saved_names: list = []
    for inp in inputs:
        fn = derivatives.get(inp)
        if fn is None:
            formulas.append(None)
            continue
        fparams = _signature(fn).names[1:]
        mask = inp in groups and fparams[-1:] == ("output_mask",)
        if mask:
            fparams = fparams[:-1]
        for a in fparams:
            if a not in saved_names:
                saved_names.append(a)
        if inp in groups:
            key = groups[inp]
            formulas.append(Formula(fn, fparams, group=tuple(inputs.index(k) for k in key),
                                    pos=key.index(inp), mask=mask))
        else:
            formulas.append(Formula(fn, fparams))
    for f in formulas:
        if f is not None:
            f.idx = tuple(saved_names.index(a) for a in f.args)
    if grad_fn_name is None:
        grad_fn_name = "".join(w.capitalize() for w in name.split("_")) + "Backward0"
    rule = DTYPE_RULES[dtype] if isinstance(dtype, str) else dtype
    if list_input and dtype == "promote":
        rule = _promote_list
    if methods is None:
        methods = (name,)
    if functions is None:
        functions = (name,)
    rec = OpRecord(
        name=name, forward=forward, params=params, inputs=inputs, formulas=tuple(formulas),
        saved_names=tuple(saved_names), dtype_rule=rule, grad_fn_name=grad_fn_name,
        differentiable=bool(derivatives), view=view, n_outputs=n_outputs, samples=samples,
        family=family, methods=tuple(methods), functions=tuple(functions), inplace=inplace,
        differentiable_outputs=differentiable_outputs, materialize=materialize,
        list_input=list_input, extra=extra,
        layout=default_layout(name, family, view) if layout is None else layout)
    rec.input_pos = tuple(params.index(i) for i in inputs)
    if kernel is not None:
        rec.kernel = kernel
        rec.kernel_tail = tuple(sig.defaults.get(p, inspect.Parameter.empty)
                                for p in params)[len(inputs):]
    rec.forward = _positional(forward, sig)
    sources, users = [], []
    for s in saved_names:
        user_inputs = tuple(i for i, f in enumerate(rec.formulas) if f is not None and s in f.args)
        users.append(user_inputs)
        if s == "result":
            sources.append(("result", None))
            rec.has_saved_output = True
        elif s[:6] == "result" and s[6:].isdigit():
            # another output: a non-differentiable one (max_pool's indices: PyTorch's result1)
            # saved as the tensor itself, a differentiable one (linalg_lu's U) as a
            # SavedOutput (no cycle through its grad_fn), so changing it in place is caught
            nr = int(s[6:])
            if not 0 <= nr < n_outputs:
                raise ValueError(f"op {name}: {s!r} names no output")
            if differentiable_outputs is not None and not differentiable_outputs[nr]:
                sources.append(("output", nr))
            elif nr == 0:
                raise ValueError(f"op {name}: save a differentiable output 0 as 'result'")
            else:
                sources.append(("saved_output", nr))
        elif s in params:
            sources.append(("arg", params.index(s)))
        elif s.endswith("_shapes") and s[:-7] in params:
            sources.append(("shapes", params.index(s[:-7])))
        elif s.endswith("_shape") and s[:-6] in params:
            sources.append(("shape", params.index(s[:-6])))
        elif s.endswith("_strides") and s[:-8] in params:
            sources.append(("strides", params.index(s[:-8])))
        elif s.endswith("_dtype") and s[:-6] in params:
            sources.append(("dtype", params.index(s[:-6])))
        else:
            raise ValueError(f"op {name}: formula parameter {s!r} names nothing it can save")
    rec.saved_sources = tuple(sources)
    rec.saved_users = tuple(users)
    # A number parameter (``alpha``, ``dim``) is saved whenever a node is made, as PyTorch
    # does (``(x + 3).grad_fn._saved_alpha`` is 1); input tensors only for the inputs needing
    # them; outputs always (PyTorch saves ``result`` even when only a formula of an input that
    # needs no gradient reads it: ``a ** b`` with a constant ``b`` catches ``result`` changed
    # in place)
    # Input tensors: PyTorch's generated code guards a save by "does that input need a
    # gradient" only where one formula reads it; a value two formulas read, or any value a
    # backward op or a list op saves, is saved whenever a node is made (addcdiv's tensor2
    # with only self requiring grad), and a second backward then raises for it
    every = (1 << len(inputs)) - 1
    unguarded = "backward" in name or list_input
    rec.saved_plan = tuple(
        (kind, pos, every if (kind == "arg" and pos not in rec.input_pos) or kind in _OUTPUTS
         or (kind == "arg" and (unguarded or len(users) > 1))
         else sum(1 << u for u in users))
        for (kind, pos), users in zip(rec.saved_sources, rec.saved_users))
    rec.dispatch = choose_dispatch(rec)
    rec.public = _make_public(rec, sig)
    RECORDS[name] = rec
    for m in rec.methods:
        bind_method(m, rec.public)
    for f in rec.functions:
        export_function(f, rec.public)
    if inplace:
        bind_method(inplace, _make_inplace(rec, sig))
    return rec


def bind_method(name: str, fn: Callable) -> None:
    slot = lazy_slot(name)
    if slot is not None:
        slot.value = fn   # published once the family has loaded (Note [Lazy families])
        return
    setattr(Tensor, name, fn)


def export_function(name: str, fn: Callable) -> None:
    FUNCTIONS[name] = fn


def publish(name: str, fn: Callable, method: bool = True, function: bool = True) -> None:
    """``fn`` as ``torch.<name>`` and/or ``Tensor.<name>``."""
    if function:
        export_function(name, fn)
    if method:
        bind_method(name, fn)
