"""The public function of an op record: its exact PyTorch signature, from a template.

``defop`` (registry.py) reads a forward's parameters with ``_signature`` (no
``inspect.signature`` on the import path), makes the forward take every argument by position
(``_positional``) and builds ``rec.public``, a copy of a template compiled once per parameter
shape (Note [Cheap defop]); records with ``dim``/``keepdim`` also take NumPy's ``axis=`` and
``keepdims=`` (Note [NumPy aliases at no cost], numpy_aliases.py).
"""
from __future__ import annotations   # compile() below inherits it: _templates.py has it too

import builtins
import inspect
import types
from typing import TYPE_CHECKING, Callable

from ._alias_templates import CODES as _PRECOMPILED_ALIAS
from ._templates import CODES as _PRECOMPILED
from .numpy_aliases import NA as _NA, resolve as _resolve

if TYPE_CHECKING:
    from .registry import OpRecord

__all__ = ["_positional", "_make_public", "_signature", "_template", "_qualname",
           "_TEMPLATE_FILE"]


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
    an alias was passed (or a required dim was left out), then through ``_resolve``; from
    _alias_templates.py's cached bytecode when it holds this shape."""
    key = (n_pos, n_kwonly, dim, required, keep)
    code = _PRECOMPILED_ALIAS.get(key)
    if code is not None:   # the same code, compiled ahead (see _template)
        return code.replace(co_filename=_TEMPLATE_FILE, co_firstlineno=1, co_name="f",
                            **({"co_qualname": "f"} if _HAS_QUALNAME else {}))
    module = compile(_alias_source(*key), _TEMPLATE_FILE, "exec")
    return next(c for c in module.co_consts if isinstance(c, types.CodeType))


def _alias_source(n_pos: int, n_kwonly: int, dim: int, required: tuple, keep: bool,
                  name: str = "f") -> str:
    """The source of an alias template (``_alias_template``)."""
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
    return (f"def {name}({', '.join(params)}):\n"
            f"    if {' or '.join(tests)}:\n"
            f"        return _dispatch(_rec, _resolve(_name, _names, _defaults, ({packed}), "
            f"({', '.join(pairs)},)))\n"
            f"    return _dispatch(_rec, ({packed}))\n")


def write_alias_templates() -> None:
    """Regenerate _alias_templates.py from every record's alias shape (all families loaded):
    ``PYTHONPATH=src python -c "from leafgrad.ops import public_fn;
    public_fn.write_alias_templates()"``."""
    import os
    from . import lazy
    lazy.load_all()
    keys = sorted(k[1:] for k in _TEMPLATES if k[0] == "alias")
    out = ['"""The alias templates of ops/public_fn.py (``_alias_template``), compiled ahead.',
           "",
           "Generated by ``public_fn.write_alias_templates()``: as _templates.py, so that",
           "``import leafgrad`` does not compile them (~20 at import, a few ms). A shape missing",
           "here is compiled on first use; tests/test_alias_templates.py checks each one equals",
           'the compiled template."""',
           "# flake8: noqa",
           "from __future__ import annotations   # as public_fn.py (compile() inherits it)",
           ""]
    for i, key in enumerate(keys):
        out.append(_alias_source(*key, name=f"_a{i}"))
    out.append("CODES = {")
    out += [f"    {key!r}: _a{i}.__code__," for i, key in enumerate(keys)]
    out.append("}")
    path = os.path.join(os.path.dirname(__file__), "_alias_templates.py")
    with open(path, "w") as f:
        f.write("\n".join(out) + "\n")


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
_TEMPLATE_FILE = __file__[:-len("public_fn.py")] + "<public op templates>"


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
