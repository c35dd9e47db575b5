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

import builtins
import inspect
import types
from typing import Callable

import numpy as np

from .. import dtypes as _dt
from ..autograd.graph import SavedOutput, make_node_class
from ..grad_mode import state as _mode
from ..tensor import Tensor, _wrap, bump_version
from .dispatch import (INPLACE_TARGET, INTEGER_HISTORY, choose_dispatch, dispatch,
                       integer_history_seen, record_node)
from .lazy import _Table, lazy_slot
from ._templates import CODES as _PRECOMPILED
from .numpy_aliases import NA as _NA, resolve as _resolve
from .overlap import check_internal_overlap, check_write, writable

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
    _FIELDS = ("fn", "args", "idx")

    def __init__(self, fn: Callable, args: tuple, idx: tuple = ()):
        self.fn = fn
        self.args = args
        self.idx = idx


class OpRecord(_Fields):
    _FIELDS = ("name", "forward", "params", "inputs", "formulas", "saved_names",
               "dtype_rule", "grad_fn_name", "differentiable", "view", "n_outputs", "samples",
               "family", "methods", "functions", "inplace", "differentiable_outputs",
               "materialize", "has_saved_output", "input_pos", "saved_sources", "saved_users",
               "public", "list_input", "saved_plan", "plans", "dispatch", "extra", "kernel",
               "kernel_tail")

    def __init__(self, name: str, forward: Callable, params: tuple, inputs: tuple,
                 formulas: tuple, saved_names: tuple, dtype_rule: Callable, grad_fn_name: str,
                 differentiable: bool, view: bool, n_outputs: int, samples: Callable | None,
                 family: str, methods: tuple, functions: tuple, inplace: str | None,
                 differentiable_outputs: tuple | None, materialize: Callable | None = None,
                 has_saved_output: bool = False, input_pos: tuple = (),
                 saved_sources: tuple = (), saved_users: tuple = (), public: Callable = None,
                 list_input: bool = False, saved_plan: tuple = (), plans: dict = _NEW_DICT,
                 dispatch: Callable = None, extra: dict = _NEW_DICT,
                 kernel: Callable | None = None, kernel_tail: tuple = ()):
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
          **extra) -> OpRecord:
    """Register one op. ``forward``'s signature is the op's PyTorch signature.

    ``derivatives`` maps each differentiable input name to its formula; an op with none is
    non-differentiable (its outputs never get a ``grad_fn``). With ``list_input`` the first
    input is a sequence of tensors (``cat``, ``stack``): one edge per tensor, and its formula
    returns one gradient per tensor.

    ``kernel`` (optional) is a NumPy function, usually a ufunc, that equals the forward when
    the inputs are floating arrays of one dtype and every other argument has its default;
    the dispatcher's fast paths then call it directly, saving the forward's Python frames
    (see Note [Fast paths] in dispatch.py).
    """
    sig = _signature(forward)
    params = sig.names
    if inputs is None:
        inputs = tuple(p for p in params if p in ("self", "other"))
    derivatives = derivatives or {}
    formulas = []
    saved_names: list = []
    for inp in inputs:
        fn = derivatives.get(inp)
        if fn is None:
            formulas.append(None)
            continue
        fparams = _signature(fn).names[1:]
        for a in fparams:
            if a not in saved_names:
                saved_names.append(a)
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
        list_input=list_input, extra=extra)
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
    every = (1 << len(inputs)) - 1
    rec.saved_plan = tuple(
        (kind, pos, every if (kind == "arg" and pos not in rec.input_pos) or kind in _OUTPUTS
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


def _positional(forward: Callable, sig: "_Signature") -> Callable:
    """The dispatcher passes every argument by position: a copy of ``forward`` whose
    keyword-only parameters are positional ones (see Note [Cheap defop])."""
    if not sig.n_kwonly:
        return forward
    code = getattr(forward, "__code__", None)
    if code is not None and code.co_kwonlyargcount == sig.n_kwonly:
        flat = code.replace(co_argcount=code.co_argcount + code.co_kwonlyargcount,
                            co_kwonlyargcount=0)
        fn = types.FunctionType(flat, forward.__globals__, forward.__name__, None,
                                forward.__closure__)
        fn.__qualname__ = forward.__qualname__
        return fn
    names = sig.names   # not a plain function: call it with keywords
    n_pos = len(names) - sig.n_kwonly
    src = (f"def adapter({', '.join(names)}):\n    return _fwd("
           f"{', '.join(names[:n_pos] + tuple(f'{n}={n}' for n in names[n_pos:]))})\n")
    env = {"_fwd": forward}
    exec(src, env)
    return env["adapter"]


def bind_method(name: str, fn: Callable) -> None:
    slot = lazy_slot(name)
    if slot is not None:
        slot.value = fn   # published once the family has loaded (Note [Lazy families])
        return
    setattr(Tensor, name, fn)


def export_function(name: str, fn: Callable) -> None:
    FUNCTIONS[name] = fn


def _make_public(rec: OpRecord, sig: "_Signature") -> Callable:
    """A function with the op's exact signature, ``return _dispatch(_rec, (<params>,))``,
    from a template compiled once per parameter count (see Note [Cheap defop])."""
    if "dim" in sig.names or "keepdim" in sig.names:
        return _make_aliased_public(rec, sig)   # Note [NumPy aliases at no cost]
    return _make_public_plain(rec, sig)


def _make_public_plain(rec: OpRecord, sig: "_Signature") -> Callable:
    names = sig.names
    n_pos = len(names) - sig.n_kwonly
    key = (n_pos, sig.n_kwonly)
    template = _TEMPLATES.get(key)
    if template is None:
        template = _TEMPLATES[key] = _template(n_pos, sig.n_kwonly)
    code = template.replace(co_varnames=names, co_name=rec.name, **_qualname(rec.name))
    env = {"_dispatch": rec.dispatch, "_rec": rec, "__builtins__": builtins}
    defaults = sig.defaults
    fn = types.FunctionType(code, env, rec.name,
                            tuple(defaults[n] for n in names[:n_pos] if n in defaults) or None)
    kwdefaults = {n: defaults[n] for n in names[n_pos:] if n in defaults}
    if kwdefaults:
        fn.__kwdefaults__ = kwdefaults
    fn.__doc__ = rec.forward.__doc__
    return fn


def _make_aliased_public(rec: OpRecord, sig: "_Signature") -> Callable:
    """``_make_public`` for a record with ``dim``/``keepdim``: it also takes ``axis=`` and
    ``keepdims=`` (see Note [NumPy aliases at no cost] in ops/numpy_aliases.py)."""
    names, defaults = sig.names, dict(sig.defaults)
    n_pos = len(names) - sig.n_kwonly
    dim = names.index("dim") if "dim" in names else -1
    # a required dim gets NA as default, so axis alone can stand for it, and so does each
    # later positional parameter without one (Python requires it: ``gather(x, axis=0,
    # index=i)``); the template sends a call leaving any of them out to _resolve
    required = ()
    if dim >= 0 and "dim" not in defaults:
        required = tuple(i for i in range(dim, n_pos) if names[i] not in defaults) or (dim,)
    keep = names.index("keepdim") if "keepdim" in names else -1
    if dim < 0 and keep < 0:
        return _make_public_plain(rec, sig)
    key = ("alias", n_pos, sig.n_kwonly, dim, required, keep >= 0)
    template = _TEMPLATES.get(key)
    if template is None:
        template = _TEMPLATES[key] = _alias_template(*key[1:])
    alias_names = (("axis",) if dim >= 0 else ()) + (("keepdims",) if keep >= 0 else ())
    code = template.replace(co_varnames=names + alias_names
                            + template.co_varnames[len(names) + len(alias_names):],
                            co_name=rec.name, **_qualname(rec.name))
    env = {"_dispatch": rec.dispatch, "_rec": rec, "__builtins__": builtins, "_NA": _NA,
           "_resolve": _resolve, "_name": rec.name, "_names": names, "_defaults": defaults}
    for i in required:
        defaults[names[i]] = _NA
    fn = types.FunctionType(code, env, rec.name,
                            tuple(defaults[n] for n in names[:n_pos] if n in defaults) or None)
    kwdefaults = {n: defaults[n] for n in names[n_pos:] if n in defaults}
    kwdefaults.update(dict.fromkeys(alias_names, _NA))
    fn.__kwdefaults__ = kwdefaults
    fn.__doc__ = rec.forward.__doc__
    env["_defaults"] = sig.defaults   # the caller's own defaults: NA marks "not passed"
    return fn


def _alias_template(n_pos: int, n_kwonly: int, dim: int, required: tuple,
                    keep: bool) -> types.CodeType:
    """``def f(p0, .., *, k0, .., a0, a1)``: ``_dispatch(_rec, (p0, .., k0, ..))`` unless
    an alias was passed (or a required dim was left out), then through ``_resolve``."""
    names = [f"p{i}" for i in range(n_pos + n_kwonly)]
    aliases, tests, pairs = [], [], []
    if dim >= 0:
        aliases.append("a_axis")
        tests.extend([f"p{i} is _NA" for i in required] + ["a_axis is not _NA"])
        pairs.append("('dim', a_axis)")
    if keep:
        aliases.append("a_keepdims")
        tests.append("a_keepdims is not _NA")
        pairs.append("('keepdim', a_keepdims)")
    params = names[:n_pos] + ["*"] + names[n_pos:] + aliases
    packed = ", ".join(names) + ("," if len(names) == 1 else "")
    src = (f"def f({', '.join(params)}):\n"
           f"    if {' or '.join(tests)}:\n"
           f"        return _dispatch(_rec, _resolve(_name, _names, _defaults, ({packed}), "
           f"({', '.join(pairs)},)))\n"
           f"    return _dispatch(_rec, ({packed}))\n")
    module = compile(src, _TEMPLATE_FILE, "exec")
    return next(c for c in module.co_consts if isinstance(c, types.CodeType))


# Note [Cheap defop]
# ``import leafgrad`` runs ~270 ``defop`` calls, and most of their cost was
# ``inspect.signature`` (~600 calls) and compiling a generated function per record. Now
# parameters are read straight from the code object (``_signature``). The public function of
# a record with P positional and K keyword-only parameters is a copy of one template compiled
# once per (P, K) (``_TEMPLATES``, about a dozen): ``def f(p0, ..., *, k0, ...): return
# _dispatch(_rec, (p0, ..., k0, ...))``, its parameters renamed (``co_varnames``: the bytecode
# addresses locals by position, so renaming changes nothing else), its globals the record and
# its dispatcher, its defaults set on the function object. A forward with keyword-only
# parameters becomes a copy whose code takes them positionally (``_positional``), which also
# saves the adapter frame the dispatcher used to go through.
_TEMPLATES: dict = {}
# A file name inside the package, so every "first frame outside leafgrad" walk (version notes,
# warnings, diagnostics' provenance, anomaly mode) steps over these frames as leafgrad's own.
_TEMPLATE_FILE = __file__[:-len("registry.py")] + "<public op templates>"


def _template(n_pos: int, n_kwonly: int) -> types.CodeType:
    code = _PRECOMPILED.get((n_pos, n_kwonly))
    if code is not None:   # the same code, from _templates.py's cached bytecode
        return code.replace(co_filename=_TEMPLATE_FILE, co_firstlineno=1, co_name="f",
                            **({"co_qualname": "f"} if _HAS_QUALNAME else {}))
    names = [f"p{i}" for i in range(n_pos + n_kwonly)]
    params = names[:n_pos] + (["*"] + names[n_pos:] if n_kwonly else [])
    packed = ", ".join(names) + ("," if len(names) == 1 else "")
    module = compile(f"def f({', '.join(params)}):\n    return _dispatch(_rec, ({packed}))\n",
                     _TEMPLATE_FILE, "exec")
    return next(c for c in module.co_consts if isinstance(c, types.CodeType))


def _qualname(name: str) -> dict:
    return {"co_qualname": name} if _HAS_QUALNAME else {}


_HAS_QUALNAME = hasattr(types.CodeType, "co_qualname")   # Python 3.11+


class _Signature:
    """A plain function's parameters: ``names`` in order, ``n_kwonly`` (the last ones are
    keyword-only), ``defaults`` {name: default} for those that have one."""

    __slots__ = ("names", "n_kwonly", "defaults")

    def __init__(self, names, n_kwonly, defaults):
        self.names, self.n_kwonly, self.defaults = names, n_kwonly, defaults


def _signature(fn: Callable) -> _Signature:
    code = getattr(fn, "__code__", None)
    if (code is None or getattr(fn, "__wrapped__", None) is not None
            or code.co_flags & (inspect.CO_VARARGS | inspect.CO_VARKEYWORDS)):
        return _inspect_signature(fn)
    n_pos, n_kw = code.co_argcount, code.co_kwonlyargcount
    names = code.co_varnames[:n_pos + n_kw]
    defaults = {}
    pos_defaults = fn.__defaults__
    if pos_defaults:
        defaults.update(zip(names[n_pos - len(pos_defaults):n_pos], pos_defaults))
    if fn.__kwdefaults__:
        defaults.update(fn.__kwdefaults__)
    return _Signature(names, n_kw, defaults)


def _inspect_signature(fn: Callable) -> _Signature:
    """The general path (callables without a plain code object): inspect.signature."""
    params = inspect.signature(fn).parameters.values()
    if any(p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD) for p in params):
        raise TypeError(f"defop: {fn!r} takes *args or **kwargs; an op's forward and "
                        "formulas need named parameters")
    names = tuple(p.name for p in params)
    n_kw = sum(1 for p in params if p.kind is p.KEYWORD_ONLY)
    defaults = {p.name: p.default for p in params if p.default is not p.empty}
    return _Signature(names, n_kw, defaults)


def inplace_check(self: Tensor, args: tuple = (), kwargs: dict | None = None) -> None:
    """PyTorch's errors for in-place changes of leaves that require grad (and of inference
    tensors outside inference mode). ``args``/``kwargs``: the op's other arguments; a view
    autograd forbids changing is refused as soon as any input requires grad."""
    if self._meta is not None and self._meta.get("inference") and not _mode.inference:
        raise RuntimeError(
            "Inplace update to inference tensor outside InferenceMode is not allowed.You can "
            "make a clone to get a normal tensor before doing inplace update.See "
            "https://github.com/pytorch/rfcs/pull/17 for more details.")
    if _mode.grad_enabled:
        if INTEGER_HISTORY[0]:
            INPLACE_TARGET[0] = self   # Note [Integer tensors with history] (dispatch.py)
        if self._view_kind is not None and (self._requires_grad or self._base._requires_grad
                                            or _any_requires_grad(args, kwargs)):
            from .views import check_view_inplace
            check_view_inplace(self)   # PyTorch checks how the view was made first
        # a view is asked about first: one of a leaf (its base has no history) that requires
        # grad, itself or through its base, is named as a view
        base = self._base
        if base is not None and base._grad_fn is None and (base._requires_grad
                                                           or self._requires_grad):
            raise RuntimeError("a view of a leaf Variable that requires grad is being used in "
                               "an in-place operation.")
        if self._grad_fn is None and self._requires_grad:
            raise RuntimeError(
                "a leaf Variable that requires grad is being used in an in-place operation.")


def _any_requires_grad(args, kwargs) -> bool:
    for a in (*args, *kwargs.values()) if kwargs else args:
        if isinstance(a, Tensor) and a._requires_grad:
            return True
    return False


def _make_inplace(rec: OpRecord, sig: "_Signature") -> Callable:
    public = rec.public
    needs_old_self = "self" in rec.saved_names

    def inplace(self, *args, **kwargs):
        inplace_check(self, args, kwargs)
        check_write(self, args, kwargs)   # Note [Memory overlap] (ops/overlap.py)
        src = self
        if needs_old_self and _mode.grad_enabled:
            src = old_value(self)
        try:
            result = public(src, *args, **kwargs)
        except NotImplementedError as exc:
            raise _inplace_kernel_error(self, args, exc) from None
        return commit_inplace(self, result, rec)

    inplace.__name__ = inplace.__qualname__ = rec.inplace
    inplace.__doc__ = f"In-place version of :meth:`{rec.name}`."
    return inplace


def old_value(self: Tensor) -> Tensor:
    """A copy of ``self`` with its history, saved in place of ``self`` before an in-place op."""
    if INTEGER_HISTORY[0] and self._requires_grad and self._data.dtype.kind not in "fc":
        from .dispatch import integer_history_error   # PyTorch's saved clone is refused
        raise integer_history_error(self._data.dtype)
    t = _wrap(self._data.copy())
    t._grad_fn = self._grad_fn
    t._requires_grad = self._requires_grad
    t._output_nr = self._output_nr
    return t


def _can_cast(frm, to) -> bool:
    """PyTorch's canCast: only float to integral, complex to real and anything to bool are
    refused (int64 into uint8 is allowed, unlike NumPy's same_kind)."""
    fk, tk = frm.kind, to.kind
    if fk == "c" and tk != "c":
        return False
    if fk == "f" and tk in "iub":
        return False
    return not (tk == "b" and fk != "b")


def _inplace_kernel_error(self, args, exc):
    """A kernel's "not implemented" comes after TensorIterator's shapes in PyTorch: an
    in-place op whose operands broadcast past self's shape fails on the output shape."""
    shapes = [self._data.shape] + [a._data.shape for a in args if isinstance(a, Tensor)]
    try:
        full = np.broadcast_shapes(*shapes)
    except ValueError:
        return exc
    if full != self._data.shape:
        return RuntimeError(f"output with shape [{', '.join(map(str, self._data.shape))}] "
                            f"doesn't match the broadcast shape [{', '.join(map(str, full))}]")
    try:   # then the result dtype must cast into self's (the forward's own result dtype
        # when its error carries one: add_'s alpha check knows bool.add_(3) gives Long)
        known = getattr(exc, "result_dtype", None)
        rd = _dt.from_numpy_dtype(known) if known is not None else _dt.result_type(
            self, *[a for a in args if isinstance(a, Tensor)])
    except Exception:   # noqa: BLE001 - only a better message is looked for
        return exc
    sd = self._data.dtype
    if rd.np != sd and not _can_cast(rd.np, sd):
        return RuntimeError(f"result type {rd.tensor_type[:-6]} can't be cast to the desired "
                            f"output type {_dt.from_numpy_dtype(sd).tensor_type[:-6]}")
    return exc


def commit_inplace(self: Tensor, result: Tensor, rec: OpRecord | None = None,
                   expanded_ok: bool = False) -> Tensor:
    """Write ``result`` into ``self``'s storage, bump the version, move the history over.

    ``result`` was computed out of place from ``self``, so its node already saved the old
    value of ``self`` where a formula needs it.
    """
    if result._data.shape != self._data.shape:
        raise RuntimeError(
            f"output with shape [{', '.join(map(str, self._data.shape))}] doesn't match the "
            f"broadcast shape [{', '.join(map(str, result._data.shape))}]")
    rd, sd = result._data.dtype, self._data.dtype
    if rd != sd and not _can_cast(rd, sd):
        # PyTorch names scalar types here: "Float", "Long" ("FloatTensor" less "Tensor")
        raise RuntimeError(f"result type {_dt.from_numpy_dtype(rd).tensor_type[:-6]} can't "
                           f"be cast to the desired output type "
                           f"{_dt.from_numpy_dtype(sd).tensor_type[:-6]}")
    is_view = self._base is not None
    if is_view and _mode.grad_enabled and (result._grad_fn is not None
                                           or self._base._requires_grad):
        from .views import check_view_inplace
        check_view_inplace(self)
    if self._data.flags.writeable:
        np.copyto(self._data, result._data, casting="unsafe")
    else:
        # an expanded view (read-only broadcast): fill_/zero_ write one value through it, any
        # op may write where no two elements share memory (a 0-d or size-1 expand)
        if not expanded_ok:
            check_internal_overlap(self._data)
        np.copyto(writable(self._data), result._data, casting="unsafe")
    bump_version(self)
    if INTEGER_HISTORY[0]:
        INPLACE_TARGET[0] = None
    if result._grad_fn is not None:
        old_node, old_nr = self._grad_fn, self._output_nr
        if self._data.dtype.kind not in "fc":
            integer_history_seen()   # Note [Integer tensors with history] (dispatch.py)
        node = result._grad_fn
        if node.record is not None and node.record.has_saved_output:
            # The saved output is now self's storage (a view's too: its base's version
            # counter): later changes to it must be caught.
            versions = list(node._versions)
            for i, v in enumerate(node._saved):
                if type(v) is SavedOutput:
                    v.data, v.vc = self._data, self._vc
                    versions[i] = self._vc[0]
            node._versions = tuple(versions)
        if is_view:
            from .views import rebase
            rebase(self, result)   # the base's history becomes a CopySlices (views.py)
            if node.record is not None and node.record.has_saved_output:
                import weakref
                for v in node._saved:
                    if type(v) is SavedOutput:
                        v.view_fn = weakref.ref(self._grad_fn)
            _move_retain_grad(self, old_node, old_nr)
            return self
        self._grad_fn = node
        self._requires_grad = True
        self._output_nr = 0
        _move_retain_grad(self, old_node, old_nr)
    return self


def _move_retain_grad(t: Tensor, old_node, old_nr) -> None:
    """retain_grad follows the tensor to its new grad_fn after an in-place op."""
    if not t._retains_grad or old_node is None or old_node is t._grad_fn:
        return
    hooks = old_node._retain_grad_hooks
    if hooks is not None:
        hooks.pop(old_nr, None)
    node = t._grad_fn
    if node._retain_grad_hooks is None:
        node._retain_grad_hooks = {}
    import weakref
    node._retain_grad_hooks[t._output_nr] = weakref.ref(t)
