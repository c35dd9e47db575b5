"""In-place variants of op records: PyTorch's checks before an in-place change, and the
commit that writes an out-of-place result into ``self`` and moves its history over.

``defop(..., inplace="name_")`` binds ``_make_inplace``'s method; other in-place ops
(setitem, casts, random fills) call ``inplace_check`` and ``commit_inplace`` directly.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Callable

import numpy as np

from .. import dtypes as _dt
from ..autograd.graph import SavedOutput
from ..autograd.saved_hooks import _active as _HOOKS_SET
from ..grad_mode import state as _mode
from .._zerotensor import check_mutable, is_zero_array, materialized
from ..tensor import Tensor, _wrap, bump_version
from .dispatch import INPLACE_TARGET, INTEGER_HISTORY, integer_history_seen
from .overlap import check_internal_overlap, check_write, same_data, writable

if TYPE_CHECKING:
    from .registry import OpRecord
    from .public_fn import _Signature

__all__ = ["inplace_check", "old_value", "commit_inplace"]

_ndarray = np.ndarray


def inplace_check(self: Tensor, args: tuple = (), kwargs: dict | None = None,
                  metadata_only: bool = False) -> None:
    """PyTorch's errors for in-place changes of leaves that require grad (and of inference
    tensors outside inference mode), then of zero tensors (unless only the shape changes:
    ``metadata_only``). ``args``/``kwargs``: the op's other arguments; a view autograd
    forbids changing is refused as soon as any input requires grad."""
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
    if type(self._data) is not _ndarray and not metadata_only:
        check_mutable(self)   # a zero tensor (Note [Zero tensors] in _zerotensor.py)


def _any_requires_grad(args, kwargs) -> bool:
    for a in (*args, *kwargs.values()) if kwargs else args:
        if isinstance(a, Tensor) and a._requires_grad:
            return True
    return False


def _onto_itself(self, args) -> bool:
    """``self.copy_(src)`` with ``src`` the very memory of ``self`` (same start, shape,
    strides and dtype): PyTorch's copy returns before its overlap checks (an expanded
    ``x[0].copy_(x[-1])`` is allowed); autograd still records it."""
    src = args[0] if args else None
    return (isinstance(src, Tensor) and src._data.shape == self._data.shape
            and same_data(self._data, src._data))


def _make_inplace(rec: OpRecord, sig: "_Signature") -> Callable:
    public = rec.public
    needs_old_self = "self" in rec.saved_names
    is_copy = rec.inplace == "copy_"

    def inplace(self, *args, **kwargs):
        inplace_check(self, args, kwargs)
        onto = is_copy and _onto_itself(self, args)
        if not onto:
            check_write(self, args, kwargs)   # Note [Memory overlap] (ops/overlap.py)
        src = self
        if needs_old_self and _mode.grad_enabled:
            src = old_value(self)
        if _HOOKS_SET[0]:   # the node's saved output is packed as self, after the commit
            from ..autograd.saved_hooks import run_inplace
            return run_inplace(self, lambda: _call(public, self, src, args, kwargs),
                               lambda result: commit_inplace(self, result, rec, onto))
        try:
            result = public(src, *args, **kwargs)
        except NotImplementedError as exc:
            raise _inplace_kernel_error(self, args, exc) from None
        if src is not self:
            save_clone(result, src)
        return commit_inplace(self, result, rec, onto)

    inplace.__name__ = inplace.__qualname__ = rec.inplace
    inplace.__doc__ = f"In-place version of :meth:`{rec.name}`."
    return inplace


def _call(public, self, src, args, kwargs):
    try:
        return public(src, *args, **kwargs)
    except NotImplementedError as exc:
        raise _inplace_kernel_error(self, args, exc) from None


def old_value(self: Tensor) -> Tensor:
    """A copy of ``self`` with its history, saved in place of ``self`` before an in-place op."""
    if INTEGER_HISTORY[0] and self._requires_grad and self._data.dtype.kind not in "fc":
        from .dispatch import integer_history_error   # PyTorch's saved clone is refused
        raise integer_history_error(self._data.dtype)
    if self._requires_grad and self._base is not None and self._vc[0] != self._view_version:
        # a view whose base changed in place regrows its history first, as PyTorch's op reads
        # its grad_fn: the op's node holds the new one (the old one may die: a version error
        # then names the op that saved it, not a stale AsStrided)
        from .dispatch import refresh_view
        refresh_view(self)
    t = _wrap(self._data.copy())
    t._grad_fn = self._grad_fn
    t._requires_grad = self._requires_grad
    t._output_nr = self._output_nr
    if _HOOKS_SET[0]:   # PyTorch saves a clone: its pack hook sees CloneBackward0 (saved_hooks.py)
        t._meta = {"inplace_old": True}
    return t


def save_clone(result, old) -> None:
    """PyTorch's in-place ops save ``self.clone()`` for their formulas (not on the no-hooks
    path of the one written to by ``old_value``): the node's edge stays the old history, but
    the saved tensor's ``grad_fn`` is a CloneBackward0 made after the op's node, which a
    create_graph gradient built on it shows (``y.mul_(w)``: w's gradient is
    MulBackward0(None, CloneBackward0)). Replaces the node's saved ``old`` by such a clone."""
    if not old._requires_grad or not isinstance(result, Tensor):
        return
    node = result._grad_fn
    names = getattr(node, "saved_names", None)
    if not names or "self" not in names:
        return
    i = names.index("self")
    saved = node._saved
    if saved is None or i >= len(saved) or saved[i] is not old:
        return
    from .registry import RECORDS
    clone = RECORDS["clone"].public(old)
    if type(saved) is not list:
        saved = node._saved = list(saved)
    saved[i] = clone
    versions = node._versions
    if versions is not None and versions[i] is not None:
        versions[i] = clone._vc[0]


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
        # when its error carries one: add_'s alpha check knows bool.add_(3) gives Long; a
        # number argument such as lerp_'s weight or threshold_'s threshold is no operand)
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


def _cast_back_inputs(node, shape, dtype):
    """An in-place op computed in a wider dtype than ``self``'s (a float16 ``add_`` of a
    float32 tensor): its gradient arrives in self's dtype, and PyTorch's engine casts each
    input's gradient to that input's dtype. The node noted only inputs unlike the wider result
    (shape, dtype): note the others too, so the float32 input's gradient is float32 again
    (fuzz seed 231)."""
    if not getattr(node, "_plain", False):
        return
    meta = list(node._args) if node._args is not None else [None] * len(node._edges)
    for i, (fn, _) in enumerate(node._edges):
        if fn is not None and meta[i] is None:
            meta[i] = (shape, dtype)
    node._args = meta


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
    values = result._data
    if type(values) is not _ndarray and is_zero_array(values):
        # PyTorch's in-place kernels take a zero tensor operand as plain zeros: x.mul_(z)
        # is x * 0 (signed zeros, NaN at inf), not the zero tensor's +0
        values = np.multiply(self._data, materialized(values))
    if self._data.flags.writeable:
        np.copyto(self._data, values, casting="unsafe")
    else:
        # an expanded view (read-only broadcast): fill_/zero_ write one value through it, any
        # op may write where no two elements share memory (a 0-d or size-1 expand)
        if not expanded_ok:
            check_internal_overlap(self._data)
        np.copyto(writable(self._data), values, casting="unsafe")
    bump_version(self)
    if INTEGER_HISTORY[0]:
        INPLACE_TARGET[0] = None
    if result._grad_fn is not None:
        if rd != sd:
            _cast_back_inputs(result._grad_fn, result._data.shape, rd)
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
        gained = not self._requires_grad
        self._grad_fn = node
        self._requires_grad = True
        self._output_nr = 0
        _move_retain_grad(self, old_node, old_nr)
        if gained:
            from .views import views_gain_grad
            views_gain_grad(self)
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
