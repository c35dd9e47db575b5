"""Install and uninstall the diagnostic wrappers.

Note [Diagnostics cost nothing when off]
The hot path (``ops/dispatch.py``, ``tensor._wrap``, the engine loop) has no diagnostic test
in it. ``install()`` swaps, for as long as diagnostics are on: every op record's dispatcher
(``rec.dispatch`` and the ``_dispatch`` global of its generated public function), the Tensor
methods that cut history or change data in place, the ``grad``/``data``/``requires_grad``
properties, ``backward``/``autograd.grad``, the factories in the ``leafgrad`` namespace,
``nn.Parameter``, ``Module.__call__``/``eval``, ``Optimizer.step`` of each optimizer class,
and the grad-mode blocks. ``uninstall()`` puts each original object back where it was.

The wrappers add Python frames. So that warnings still point at the user's line, ``warnings.warn``
is wrapped too: it does not count the wrappers' frames in ``stacklevel``; tracebacks printed by
``leafgrad explain`` leave them out as well (``strip_traceback``).
"""
from __future__ import annotations

import sys
import types
import warnings

from .. import autograd as _autograd
from .. import grad_mode as _gm
from ..tensor import Tensor
from . import hooks as H
from . import provenance as pv

__all__ = ["install", "installed", "strip_traceback", "uninstall"]

_saved: list = []        # (owner, name, original, had_own_attribute)
_CODES: set = set()      # code objects of the wrappers (skipped by warnings and tracebacks)
_installed = False


def installed() -> bool:
    return _installed


def _swap(owner, name, new) -> None:
    d = owner.__dict__ if isinstance(owner, type) else vars(owner)
    own = name in d
    _saved.append((owner, name, d.get(name), own))
    setattr(owner, name, new)


def _code(fn):
    _CODES.add(fn.__code__)
    return fn


# -- op records --------------------------------------------------------------------
def _dispatch_wrapper(orig):
    def traced_dispatch(rec, args):
        try:
            out = orig(rec, args)
        except Exception as exc:
            H.on_error(exc, pv.user_site(3), args=args)
            raise
        H.on_op(rec, args, out)
        return out
    return _code(traced_dispatch)


def _install_records() -> None:
    from ..ops.registry import RECORDS
    for rec in RECORDS.values():
        orig = rec.dispatch
        wrapper = _dispatch_wrapper(orig)
        _swap(rec, "dispatch", wrapper)
        env = rec.public.__globals__ if rec.public is not None else None
        if env is not None and env.get("_dispatch") is orig:
            _saved.append((env, "_dispatch", orig, True))
            env["_dispatch"] = wrapper


# -- Tensor methods ----------------------------------------------------------------
_PY_NUMBER = ("item", "tolist", "__float__", "__int__")
_CASTS = ("to", "type", "long", "int", "short", "bool", "byte", "char")
_INPLACE_DUNDERS = ("__setitem__", "__iadd__", "__isub__", "__imul__", "__itruediv__",
                    "__ifloordiv__", "__ipow__", "__imatmul__", "__imod__", "__iand__",
                    "__ior__", "__ixor__", "__ilshift__", "__irshift__")
_NOT_INPLACE = {"requires_grad_", "detach_", "share_memory_"}


def _cut_method(orig, code, what):
    def cutting(self, *args, **kwargs):
        try:
            out = orig(self, *args, **kwargs)
        except Exception as exc:
            H.on_error(exc, pv.user_site(3))
            raise
        H.on_cut(code, what, self, out if isinstance(out, Tensor) else None)
        return out
    return _code(cutting)


def _numpy_method(orig):
    def numpy(self, *args, **kwargs):
        try:
            out = orig(self, *args, **kwargs)
        except Exception as exc:
            H.on_error(exc, pv.user_site(3))
            raise
        H.on_cut("numpy", "numpy()", self)
        return out
    return _code(numpy)


def _cast_method(orig, name):
    def cast(self, *args, **kwargs):
        out = orig(self, *args, **kwargs)
        if isinstance(out, Tensor) and out is not self:
            if self._requires_grad and not out._requires_grad \
                    and out._data.dtype.kind in "iub":
                H.on_cut("integer-dtype", f"{name}()", self, out)
            elif pv.lookup(out) is None:
                H.on_made(out, name, self)
        return out
    return _code(cast)


def _inplace_method(orig, name):
    def inplace(self, *args, **kwargs):
        vc = self._vc
        before = vc[0]
        st = pv.state
        st.inplace_depth += 1
        try:
            out = orig(self, *args, **kwargs)
        except Exception as exc:
            H.on_error(exc, pv.user_site(3), args=(self,) + args)
            raise
        finally:
            st.inplace_depth -= 1
        if st.inplace_depth == 0 and self._vc[0] != before:
            H.on_version(self._vc, pv.user_site(3), f"{name}()" if not name.startswith("__")
                         else name)
        return out
    return _code(inplace)


def _requires_grad_(orig):
    def requires_grad_(self, requires_grad=True):
        try:
            out = orig(self, requires_grad)
        except Exception as exc:
            H.on_error(exc, pv.user_site(3))
            raise
        H.on_requires_grad(self, requires_grad, pv.user_site(3))
        return out
    return _code(requires_grad_)


def _error_method(orig):
    def checked(self, *args, **kwargs):
        try:
            return orig(self, *args, **kwargs)
        except Exception as exc:
            H.on_error(exc, pv.user_site(3))
            raise
    return _code(checked)


def _install_tensor() -> None:
    d = Tensor.__dict__
    for name in _PY_NUMBER:
        _swap(Tensor, name, _cut_method(d[name], "python-number", f"{name}()"
                                        if not name.startswith("__") else
                                        f"{name.strip('_')}(tensor)"))
    _swap(Tensor, "detach", _cut_method(d["detach"], "detached", "detach()"))
    _swap(Tensor, "numpy", _numpy_method(d["numpy"]))
    for name in _CASTS:
        if name in d:
            _swap(Tensor, name, _cast_method(d[name], name))
    _swap(Tensor, "requires_grad_", _requires_grad_(d["requires_grad_"]))
    for name, fn in list(d.items()):
        if not callable(fn) or isinstance(fn, type):
            continue
        if (name.endswith("_") and not name.startswith("_") and name not in _NOT_INPLACE) \
                or name in _INPLACE_DUNDERS:
            _swap(Tensor, name, _inplace_method(fn, name))
    _swap(Tensor, "detach_", _detach_(d["detach_"]))
    _install_properties(d)


def _detach_(orig):
    def detach_(self):
        H.on_cut("detached", "detach_()", self)
        return orig(self)
    return _code(detach_)


def _install_properties(d) -> None:
    grad = d["grad"]
    from .. import errors

    def grad_get(self):
        # the getter's own behaviour (its warning at the caller's line) and a note on None
        if self._grad_fn is not None and not self._retains_grad:
            warnings.warn(errors.NON_LEAF_GRAD_WARNING, UserWarning, stacklevel=2)
        g = self._grad
        if pv.called_from_user(2):
            if g is None:
                H.on_grad_none(self, pv.user_site(2))
            else:
                H.on_grad_read(g, pv.user_site(2))
                if self._grad_fn is None and not g._data.any():
                    H.on_grad_none(self, pv.user_site(2))
        return g
    _swap(Tensor, "grad", property(_code(grad_get), grad.fset, grad.fdel, grad.__doc__))

    data = d["data"]

    def data_get(self):
        out = data.fget(self)
        H.on_cut("detached", ".data", self, out)
        return out
    _swap(Tensor, "data", property(_code(data_get), data.fset, data.fdel, data.__doc__))

    rg = d["requires_grad"]

    def rg_set(self, value):
        try:
            rg.fset(self, value)
        except Exception as exc:
            H.on_error(exc, pv.user_site(3))
            raise
        H.on_requires_grad(self, value, pv.user_site(3))
    _swap(Tensor, "requires_grad", property(rg.fget, _code(rg_set), rg.fdel, rg.__doc__))


# -- backward ----------------------------------------------------------------------
def _roots(x):
    if isinstance(x, Tensor):
        return [x]
    if isinstance(x, (list, tuple)):
        return [t for t in x if isinstance(t, Tensor)]
    return []


def _backward_wrapper(orig, accumulate):
    def traced_backward(tensors, *args, **kwargs):
        st = pv.state
        if st.backward_depth:
            return orig(tensors, *args, **kwargs)
        site = pv.user_site(3)
        roots = _roots(tensors)
        H.before_backward(roots, site, accumulate)
        st.backward_depth += 1
        try:
            return orig(tensors, *args, **kwargs)
        except Exception as exc:
            H.on_error(exc, site, roots=roots)
            raise
        finally:
            st.backward_depth -= 1
    return _code(traced_backward)


def _install_backward() -> None:
    _swap(Tensor, "backward", _backward_wrapper(Tensor.__dict__["backward"], True))
    _swap(_autograd, "backward", _backward_wrapper(_autograd.backward, True))
    _swap(_autograd, "grad", _backward_wrapper(_autograd.grad, False))


# -- factories ---------------------------------------------------------------------
def _factory(orig, name):
    def factory(*args, **kwargs):
        try:
            out = orig(*args, **kwargs)
        except Exception as exc:
            H.on_error(exc, pv.user_site(3))
            raise
        data = args[0] if args else kwargs.get("data", kwargs.get("obj"))
        if name in ("tensor", "as_tensor", "asarray") and isinstance(out, Tensor):
            sources = [data] if isinstance(data, Tensor) else (
                [x for x in data if isinstance(x, Tensor)]
                if isinstance(data, (list, tuple)) else [])
            if sources and out is not data and not out._grad_fn:
                H.on_cut("new-leaf", f"torch.{name}(tensor)", sources, out)
                return out
        if isinstance(out, Tensor) and (out is not data):
            H.on_made(out, name)
        return out
    return _code(factory)


def _install_factories() -> None:
    import leafgrad

    from .. import factories, random
    names = set(factories.__all__) | set(random.__all__)
    for name in sorted(names):
        fn = leafgrad.__dict__.get(name)
        if callable(fn) and not isinstance(fn, type):
            _swap(leafgrad, name, _factory(fn, name))
    from ..nn import parameter
    new = parameter.Parameter.__dict__["__new__"]
    orig_new = new.__func__ if isinstance(new, staticmethod) else new

    def param_new(cls, *args, **kwargs):
        out = orig_new(cls, *args, **kwargs)
        H.on_made(out, "Parameter")
        return out
    _swap(parameter.Parameter, "__new__", staticmethod(_code(param_new)))


# -- modules, optimizers, grad modes ------------------------------------------------
def _install_nn() -> None:
    from ..nn.modules.module import Module
    call = Module.__dict__["__call__"]

    def module_call(self, *args, **kwargs):
        st = pv.state
        st.call_depth += 1
        try:
            out = call(self, *args, **kwargs)
        finally:
            st.call_depth -= 1
        if st.call_depth == 0:
            H.after_module_call(self, out, pv.user_site(2))
        return out
    _swap(Module, "__call__", _code(module_call))

    _install_optimizers()


def _install_optimizers() -> None:
    """Observe ``step`` of every optimizer class: those that exist now (built-in and the
    user's) and those defined while diagnostics are on (a hook on ``__init_subclass__``;
    ``uninstall`` restores their ``step`` too, as each swap is recorded)."""
    from ..optim.optimizer import Optimizer
    todo = list(Optimizer.__subclasses__())
    while todo:
        cls = todo.pop()
        todo.extend(cls.__subclasses__())
        _observe_step(cls)
    hook = Optimizer.__dict__.get("__init_subclass__")
    orig = hook.__func__ if isinstance(hook, classmethod) else None

    def init_subclass(cls, **kwargs):
        if orig is not None:
            orig(cls, **kwargs)
        else:
            super(Optimizer, cls).__init_subclass__(**kwargs)
        _observe_step(cls)
    _swap(Optimizer, "__init_subclass__", classmethod(_code(init_subclass)))


def _observe_step(cls) -> None:
    if "step" in cls.__dict__:
        _swap(cls, "step", _step_wrapper(cls.__dict__["step"]))


def _step_wrapper(orig):
    def step(self, *args, **kwargs):
        st = pv.state
        if st.step_depth:          # a subclass's step calling super().step(): observe once
            return orig(self, *args, **kwargs)
        site = pv.user_site(3)
        before = H.before_step(self)
        st.step_depth += 1
        try:
            out = orig(self, *args, **kwargs)
        finally:
            st.step_depth -= 1
        H.after_step(self, before, site)
        return out
    return _code(step)


def _caller_site():
    """(from_user, Site) of the first frame outside ``grad_mode.py`` above the wrapper."""
    f = sys._getframe(2)
    while f is not None and f.f_code.co_filename == _gm.__file__:
        f = f.f_back
    from_user = f is not None and not pv._internal(f)
    site = pv.Site((f.f_code.co_filename, f.f_lineno, f.f_code.co_name)) \
        if from_user else None
    return from_user, site


def _mode_wrappers(cls, kind, label) -> None:
    """Note each grad-mode block the user enters: ``kind`` and ``label`` may be functions of
    the mode object (``set_grad_enabled(False)`` is a no-grad block, ``(True)`` is not)."""
    enter, exit_ = cls.__dict__["__enter__"], cls.__dict__["__exit__"]

    def mode_enter(self):
        from_user, site = _caller_site()
        k = kind(self) if callable(kind) else kind
        H.on_mode_enter(k, from_user, site, label(self) if callable(label) else label)
        return enter(self)

    def mode_exit(self, *exc):
        H.on_mode_exit(self)
        return exit_(self, *exc)
    _swap(cls, "__enter__", _code(mode_enter))
    _swap(cls, "__exit__", _code(mode_exit))


def _set_grad_kind(self) -> str:
    return "enable" if self.mode else "no-grad"


def _set_grad_label(self) -> str:
    return f"torch.set_grad_enabled({self.mode})"


def _install_set_grad_enabled() -> None:
    """``set_grad_enabled(False)`` switches grad off when it is *constructed* (a plain call
    works without ``with``), so the constructor notes the user's call as a plain switch;
    ``__exit__`` and the decorator's ``__call__`` undo the note with the mode (Note [Plain
    grad switch] in ``provenance.py``)."""
    cls = _gm.set_grad_enabled
    init, call = cls.__dict__["__init__"], cls.__dict__["__call__"]

    def sge_init(self, mode):
        from_user, site = _caller_site()
        self._diag_plain = pv.state.plain_mode   # what __exit__/__call__ restore
        init(self, mode)
        if from_user:
            H.on_plain_mode(bool(mode), site, _set_grad_label(self))

    def sge_call(self, func):
        pv.state.plain_mode = getattr(self, "_diag_plain", None)
        return call(self, func)
    _swap(cls, "__init__", _code(sge_init))
    _swap(cls, "__call__", _code(sge_call))
    _mode_wrappers(cls, _set_grad_kind, _set_grad_label)


def _install_modes() -> None:
    _mode_wrappers(_gm.no_grad, "no-grad", "torch.no_grad()")
    _mode_wrappers(_gm.inference_mode, "inference-mode", "torch.inference_mode()")
    _mode_wrappers(_gm.enable_grad, "enable", "torch.enable_grad()")
    _install_set_grad_enabled()


# -- notebook display (Note [Notebook display] in viz.py) ------------------------------
def _install_notebook() -> None:
    from .viz import NOTEBOOK_METHODS
    for cls, name, fn in NOTEBOOK_METHODS:
        _swap(cls, name, fn)


# -- warnings keep pointing at the user's line -------------------------------------
def _install_warnings() -> None:
    orig = warnings.warn

    def warn(message, category=None, stacklevel=1, source=None, **kwargs):
        if stacklevel > 1:
            f = sys._getframe(1)
            level, left = 1, stacklevel - 1
            while f is not None and left > 0:
                f = f.f_back
                level += 1
                if f is not None and f.f_code in _CODES:
                    continue
                left -= 1
            stacklevel = level
        return orig(message, category, stacklevel + 1, source, **kwargs)
    _swap(warnings, "warn", _code(warn))


def strip_traceback(tb):
    """``tb`` without the wrappers' frames (new traceback objects; the original is kept)."""
    entries = []
    while tb is not None:
        if tb.tb_frame.f_code not in _CODES:
            entries.append(tb)
        tb = tb.tb_next
    out = None
    for e in reversed(entries):
        out = types.TracebackType(out, e.tb_frame, e.tb_lasti, e.tb_lineno)
    return out


# -- entry points ------------------------------------------------------------------
def install() -> None:
    """Put every wrapper in place (idempotent)."""
    global _installed
    if _installed:
        return
    _installed = True
    try:
        _install_records()
        _install_tensor()
        _install_backward()
        _install_factories()
        _install_nn()
        _install_modes()
        _install_notebook()
        _install_warnings()
    except BaseException:
        uninstall()
        raise


def uninstall() -> None:
    """Restore every original object exactly."""
    global _installed
    while _saved:
        owner, name, orig, own = _saved.pop()
        if isinstance(owner, dict):
            owner[name] = orig
        elif own:
            setattr(owner, name, orig)
        elif name in vars(owner):    # (viz.notebook(False) may have removed it already)
            delattr(owner, name)
    _installed = False
