"""In-place changes through views, differentiated through the base (PyTorch's CopySlices).

Note [In-place on a view]
``v = y[0]; v.mul_(2)`` changes ``y``'s storage. Autograd must see it as a change of ``y``:
``y``'s history becomes a ``CopySlices`` node, whose backward routes the gradient of the
changed region through the in-place op's own node and passes the rest of ``y``'s gradient
through unchanged. ``v`` then gets a fresh ``AsStridedBackward0`` node reading its elements
out of the new ``y``. Every other view of ``y`` made before the change is stale: its old
``grad_fn`` describes the old values, so it is regenerated the same way the next time the view
enters an op (``refresh``), as PyTorch does. The region is described by the view's
(size, stride, offset) in the base's storage, read off the NumPy strides, and turned into the
row-major positions where the base's gradient holds those elements (``base_index``). With
``create_graph`` the same routing runs as leafgrad ops (``take`` / ``put``), and
``as_strided``'s backward is ``index_add`` + ``as_strided``, so double backward works.

Note [View kinds]
``view._view_kind`` says which in-place changes autograd forbids (PyTorch's creation meta):
None (allowed), "no_grad" / "inference" (made under no_grad / in inference mode from a normal
tensor), ``(name, index)`` (an output of a function
returning several views: unbind, split, chunk), ``("custom_function", name, index)`` (an input
a custom Function returned as-is). A view of such a view made in grad mode keeps the
restriction under the newer op's name (``("no_grad", "Slice")`` ...). Changing the view in
place raises (``check_view_inplace``); so does using it in grad mode after its base or another
view of the base changed (``refresh``: its history could not be regrown honestly).

Note [Views made under no_grad]
``with torch.no_grad(): v = x[0]`` with ``x`` requiring grad gives, as in PyTorch, a leaf
(``grad_fn`` None) that *reports* ``requires_grad=True`` (through its base) but has no
gradient accumulator: ops on it record nodes, yet no gradient reaches ``v`` or ``x`` through
it (``v.grad`` stays None, ``autograd.grad(out, v)`` finds it unused, ``next_functions`` shows
``(None, 0)``). It is marked ``_meta["no_grad_view"]``; the engine skips such leaves.
"""
from __future__ import annotations

import re

import numpy as np

from .. import errors
from ..autograd.graph import Node, next_seq
from ..grad_mode import state as _mode
from ..tensor import Tensor, _wrap
from .registry import Sample, bind_method, defop, export_function

__all__ = ["as_strided", "positions", "base_index", "dense", "rebase", "rebase_node", "refresh",
           "CopySlices", "check_view_inplace", "inherited_kind", "inference_view", "no_grad_view",
           "views_follow_base", "views_gain_grad"]

FAMILY = "views"
_SUFFIX = re.compile(r"Backward\d*$")


def dense(data: np.ndarray) -> bool:
    """Whether ``data`` fills one block of memory from its first element (a permutation of a
    contiguous layout, no negative or overlapping strides): the storage as_strided reads."""
    if data.flags.c_contiguous or data.size == 0:
        return True
    expected = data.itemsize
    for stride, size in sorted((s, n) for n, s in zip(data.shape, data.strides) if n != 1):
        if stride != expected:
            return False
        expected *= size
    return True


def _strides(data: np.ndarray) -> tuple:
    return tuple(s // data.itemsize for s in data.strides)


def positions(view_data: np.ndarray, base_data: np.ndarray):
    """(size, stride, storage_offset) of ``view_data`` inside ``base_data``'s storage, in
    elements (the storage starts at the base's first element, see ``dense``)."""
    if not dense(base_data):
        raise NotImplementedError(
            "leafgrad differentiates in-place changes of views only when the base tensor is "
            "dense (no expanded or negative strides); call .contiguous() on the base first")
    item = base_data.itemsize
    offset = (view_data.__array_interface__["data"][0]
              - base_data.__array_interface__["data"][0]) // item
    return tuple(view_data.shape), _strides(view_data), offset


def _flat_index(size, stride, offset):
    idx = np.full(size, offset, dtype=np.int64)
    for d, (n, s) in enumerate(zip(size, stride)):
        shape = [1] * len(size)
        shape[d] = n
        idx = idx + (np.arange(n, dtype=np.int64) * s).reshape(shape)
    return idx


def base_index(base_shape, base_strides, size, stride, offset) -> np.ndarray:
    """For each element of the strided view (size, stride, offset) of a dense base's storage,
    its position in the base's flattened (row-major) order: where a backward formula, which
    sees the base's gradient in row-major order, finds it."""
    where = _flat_index(tuple(size), tuple(stride), offset)
    if _row_major(base_shape, base_strides):
        return where
    n = int(np.prod(base_shape))
    storage_to_flat = np.empty(n, dtype=np.int64)
    storage_to_flat[_flat_index(tuple(base_shape), tuple(base_strides), 0).reshape(-1)] = \
        np.arange(n, dtype=np.int64)
    return storage_to_flat[where]


def _row_major(shape, strides) -> bool:
    step = 1
    for n, s in zip(reversed(shape), reversed(strides)):
        if n != 1 and s != step:   # size-1 dims may carry any stride in NumPy
            return False
        step *= n
    return True


def as_strided_op(self, size, stride, storage_offset=None):
    """A view of ``self``'s storage with the given sizes and strides (in elements).

    The storage is the memory block ``self`` fills from its first element (see ``dense``).
    """
    if not dense(self):
        raise NotImplementedError("leafgrad's as_strided reads the storage of dense tensors "
                                  "only; call .contiguous() first")
    size, stride = tuple(size), tuple(stride)
    offset = storage_offset or 0
    item = self.itemsize
    n = self.size
    if all(k > 0 for k in size):
        needed = offset + 1 + sum((k - 1) * s for k, s in zip(size, stride))
        if needed > n:
            raise RuntimeError(
                f"setStorage: sizes [{', '.join(map(str, size))}], strides "
                f"[{', '.join(map(str, stride))}], storage offset {offset}, and itemsize "
                f"{item} requiring a storage size of {needed * item} are out of bounds for "
                f"storage of size {n * item}")
    storage = np.lib.stride_tricks.as_strided(self, shape=(n,), strides=(item,))
    return np.lib.stride_tricks.as_strided(storage[offset:], shape=size,
                                           strides=tuple(s * item for s in stride))


def as_strided_self(grad, self_shape, self_strides, size, stride, storage_offset):
    # Each output element adds its gradient to the storage element it reads (several may read
    # one); the sum is laid out like self's storage and viewed with self's strides, as in
    # PyTorch. index_add and as_strided keep it differentiable for double backward.
    n = int(np.prod(self_shape))
    where = _flat_index(tuple(size), tuple(stride), storage_offset or 0).reshape(-1)
    storage = _wrap(np.zeros(n, dtype=grad._data.dtype)).index_add(0, _wrap(where),
                                                                   grad.reshape(-1))
    return AS_STRIDED.public(storage, self_shape, self_strides, 0)


def _as_strided_samples(make, shapes):
    return [Sample((make((3, 4)), (2, 2), (4, 1), 1), call="as_strided"),
            Sample((make((6,)), (3, 2), (1, 1)), call="as_strided"),
            Sample((make((4, 3)), (3, 2), (1, 3), 2), call="Tensor.as_strided"),
            Sample((make((2, 3)), (2, 2), (0, 1), 1), call="as_strided")]


AS_STRIDED = defop("as_strided", as_strided_op, derivatives={"self": as_strided_self},
                   dtype="same", view=True, samples=_as_strided_samples, family=FAMILY,
                   methods=(), functions=())


def as_strided(self, size, stride, storage_offset=None):
    """``self.as_strided(size, stride, storage_offset)``: a view of the storage ``self`` is
    in. ``storage_offset`` counts from the start of the storage, which for a view is its base's
    (PyTorch); leafgrad reads within the view's own block, so an offset before it or a window
    beyond it is refused."""
    base = self._base
    if base is None or storage_offset is None:
        return AS_STRIDED.public(self, size, stride, storage_offset)
    own = positions(self._data, base._data)[2]
    offset = storage_offset - own
    if offset < 0 or not dense(self._data) or (
            all(k > 0 for k in size)
            and offset + 1 + sum((k - 1) * s for k, s in zip(size, stride)) > self._data.size):
        raise NotImplementedError(
            "leafgrad's as_strided on a view reads only the view's own elements; call it on "
            "the base tensor (or on a .contiguous() copy)")
    return AS_STRIDED.public(self, size, stride, offset)


bind_method("as_strided", as_strided)
export_function("as_strided", as_strided)


class CopySlices(Node):
    """The base's new history after an in-place op on one of its views.

    Saves the in-place op's node and where the view's elements sit in the base (row-major
    positions). The gradient of the changed region goes through the op's node (whose first
    input was the view, as in PyTorch); the rest of the base's gradient passes unchanged.
    """

    __slots__ = ()
    saved_names = ()
    # freed after every backward without retain_graph, whatever the op saved: PyTorch's
    # CopySlices drops its op, so a second backward raises (engine._free)
    saved_is_tensor = (True, False, False)

    def name(self) -> str:
        return "torch::autograd::CopySlices"   # PyTorch's C++-only nodes carry the namespace

    def apply(self, grads, create_graph: bool):
        if self._saved is None:
            raise RuntimeError(errors.BACKWARD_TWICE)
        op_node, index, overlapping = self._saved
        grad = grads[0]
        if create_graph:
            return self._apply_recorded(grad, op_node, index, overlapping, self._edges)
        result = np.array(grad._data, copy=True, order="C")
        flat = result.reshape(-1)
        # asarray: a 0-d index gives a NumPy scalar, whose copies the op's forward cannot
        # write through (x[...] = 0.5 on a 0-d view lost its zeroing)
        region = _wrap(np.asarray(flat[index]))
        op_grads = op_node.apply([region], create_graph)
        if overlapping:
            _check_slice_copy(op_grads, self._edges)
        flat[index] = 0
        if op_grads[0] is not None:
            np.add.at(flat, index, np.broadcast_to(op_grads[0]._data, index.shape))
        return [_wrap(result)] + list(op_grads[1:])

    @staticmethod
    def _apply_recorded(grad, op_node, index, overlapping, edges):
        """The same with leafgrad ops (take / put), so ``create_graph`` records a graph."""
        where = _wrap(index)
        op_grads = op_node.apply([grad.take(where)], True)
        if overlapping:
            _check_slice_copy(op_grads, edges)
        g = op_grads[0]
        if g is None:
            g = _wrap(np.zeros(index.shape, dtype=grad._data.dtype))
        elif g._data.shape != index.shape:
            g = g.expand(index.shape)
        return [grad.put(where, g)] + list(op_grads[1:])


CopySlices.__name__ = CopySlices.__qualname__ = "CopySlices"


def _check_slice_copy(op_grads, edges) -> None:
    """PyTorch's CopySlices copies the op's gradient into the view's region of the base's
    gradient (``grad_slice.copy_``): for a view with internal overlap (an expanded view
    changed by ``fill_``, ``masked_fill_``, ``index_fill_``) that copy raises, once the op's
    own backward has run, when the base needs a gradient."""
    if op_grads[0] is not None and edges[0][0] is not None:
        from .overlap import INTERNAL_OVERLAP
        raise RuntimeError(INTERNAL_OVERLAP)


_NO_GRAD_TAIL = (
    " with grad mode enabled. Given that this use case is ambiguous and error-prone, it is "
    "forbidden. You can clarify your code by moving both the view and the inplace either both "
    "inside the no_grad block (if you don't want the inplace to be tracked) or both outside (if "
    "you want the inplace to be tracked).")
_INFERENCE_TAIL = (
    " in normal mode. Given that this use case is ambiguous and error-prone, it is forbidden. "
    "You can clarify your code by moving both the view and the inplace either both inside the "
    "inference_mode block (if you don't want the inplace to be tracked) or both outside (if you "
    "want the inplace to be tracked).")
_MULTI_TAIL = (
    " This view is the output of a function that returns multiple views. Such functions do not "
    "allow the output views to be modified inplace. You should replace the inplace operation "
    "by an out-of-place one.")
_CUSTOM_TAIL = (
    " This view was created inside a custom Function (or because an input was returned as-is) "
    "and the autograd logic to handle view+inplace would override the custom backward "
    "associated with the custom Function, leading to incorrect gradients. This behavior is "
    "forbidden. You can fix this by cloning the output of the custom Function.")


def check_view_inplace(view: Tensor, indirect: bool = False) -> None:
    """PyTorch's errors for in-place changes of views it cannot rebase (Note [View kinds]).

    ``indirect``: the base or another view of it was changed, and ``view`` is used after.
    """
    kind = view._view_kind
    if kind is None:
        return
    changed = ("its base or another view of its base has been modified inplace" if indirect
               else "is being modified inplace")
    # PyTorch names the view's node only when it has one; a view without history (nothing
    # it came from requires grad, the in-place op's other input does) is "created in no_grad
    # mode" whatever the kind, whose own sentence follows
    has_fn = view._grad_fn is not None
    if kind == "no_grad" or (not has_fn and kind[0] == "no_grad"):
        raise RuntimeError(f"A view was created in no_grad mode and {changed}{_NO_GRAD_TAIL}")
    if kind[0] == "no_grad":
        raise RuntimeError(f"Output 0 of {kind[1]} is a view of a view which was created in "
                           f"no_grad mode and {changed}{_NO_GRAD_TAIL}")
    if kind == "inference" or (not has_fn and kind[0] == "inference"):
        raise RuntimeError(f"A view was created in inference mode and {changed}"
                           f"{_INFERENCE_TAIL}")
    if kind[0] == "inference":
        raise RuntimeError(f"Output 0 of {kind[1]} is a view of a view which was created in "
                           f"inference mode and {changed}{_INFERENCE_TAIL}")
    if kind[0] == "custom_function":
        _, name, index = kind
        tail = _CUSTOM_TAIL
    else:
        name, index = kind
        tail = _MULTI_TAIL
    head = (f"Output {index} of {name} is a view and {changed}." if has_fn else
            f"A view was created in no_grad mode and {changed} with grad mode enabled.")
    raise RuntimeError(head + tail)


def inherited_kind(kind, rec):
    """The kind of a view made (in grad mode) of a view of ``kind``: PyTorch keeps the
    restriction and names the newest view op (``Output 0 of Slice is a view of a view ...``)."""
    name = _SUFFIX.sub("", rec.grad_fn_name) if rec is not None else "?"
    if kind in ("no_grad", "inference") or kind[0] in ("no_grad", "inference"):
        return (kind if type(kind) is str else kind[0], name)
    if kind[0] == "custom_function":
        return ("custom_function", name, 0)
    return (name, 0)


def inference_view(view: Tensor, base: Tensor) -> None:
    """A view made in inference mode of a normal tensor is a normal tensor (with the base's
    version counter), not an inference tensor; changing it in normal mode is refused."""
    meta = base._meta
    if meta is not None and meta.get("inference"):
        return   # a view of an inference tensor is one
    if view._meta is not None:
        view._meta.pop("inference", None)
    view._view_kind = "inference"


def no_grad_view(view: Tensor) -> None:
    """A view made under no_grad of a tensor that requires grad (Note [Views made under
    no_grad])."""
    view._requires_grad = True
    if view._meta is None:
        view._meta = {}
    view._meta["no_grad_view"] = True


def views_follow_base(base: Tensor) -> None:
    """``base.requires_grad_()`` changed its flag: its views made in grad mode while it needed
    no gradient (so no history) now report requires_grad through it, as PyTorch's views do,
    and take no gradient themselves (like a view made under no_grad); turned off, they no
    longer require grad. Their version counter is the base's, so the tensors referring to it
    are the candidates (rare: only when something else holds that counter)."""
    import gc
    value = base._requires_grad
    for t in gc.get_referrers(base._vc):
        if not isinstance(t, Tensor) or t._base is not base or t._grad_fn is not None:
            continue
        meta = t._meta
        if value and not t._requires_grad:
            no_grad_view(t)
        elif not value and meta is not None and meta.get("no_grad_view"):
            del meta["no_grad_view"]
            t._requires_grad = False


def views_gain_grad(base: Tensor, skip=None) -> None:
    """An in-place op gave ``base`` (which needed no gradient) a history: its views report
    requires_grad through it, as PyTorch's (``is_view() && base.requires_grad()``), and as
    the op bumped the shared version their histories regrow when next read (``refresh``);
    views made under no_grad require grad with no history (Note [Views made under no_grad]).
    (Seed 134: a view of a 0-d tensor changed by masked_fill_ with a value needing grad
    went on as a constant: every op on it lost the gradient.)"""
    import gc
    import sys
    # only base's slot, ``skip``'s and getrefcount's argument hold the counter: no other view
    if sys.getrefcount(base._vc) <= (2 if skip is None else 3):
        return
    for t in gc.get_referrers(base._vc):
        if not isinstance(t, Tensor) or t._base is not base or t._requires_grad or t is skip:
            continue
        kind = t._view_kind
        if kind is not None and (kind in ("no_grad", "inference")
                                 or kind[0] in ("no_grad", "inference")):
            no_grad_view(t)
        else:
            t._requires_grad = True


def rebase(view: Tensor, result: Tensor) -> None:
    """Make ``view``'s base carry the in-place op recorded on ``result`` (a CopySlices)."""
    rebase_node(view, result._grad_fn)


def rebase_node(view: Tensor, op_node: Node) -> None:
    """The base's history becomes ``CopySlices(base's old history, op_node)``, where
    ``op_node`` changed ``view`` in place (its first input); ``view`` reads the new base."""
    base = view._base
    size, stride, offset = positions(view._data, base._data)
    node = object.__new__(CopySlices)
    node._seq = next_seq()   # after the op's own node, as PyTorch's
    if base._requires_grad:
        fn = base._grad_fn
        first = (fn, base._output_nr) if fn is not None else (base, 0)
    else:
        first = (None, 0)
    node._edges = (first,) + tuple(op_node._edges[1:])
    # PyTorch's CopySlices takes the op's edges but the first, which the op's node keeps: the
    # view's old history lives while the op's node does, that is until a backward without
    # retain_graph runs this CopySlices and frees it (engine._free). A version error for the
    # output the op saved names the view's node while it lives, else the op (fuzz seeds 80,
    # 156)
    # a stride-0 dim of size > 1: PyTorch's backward refuses it (_check_slice_copy)
    # (an empty view overlaps nothing: NumPy may give its dims stride 0; fuzz seed 51)
    overlapping = 0 not in size and any(st == 0 and n > 1 for n, st in zip(size, stride))
    node._saved = (op_node, base_index(base._data.shape, _strides(base._data), size, stride,
                                       offset), overlapping)
    node._versions = None
    node._args = None
    gained = not base._requires_grad
    base._grad_fn = node
    base._requires_grad = True
    base._output_nr = 0
    _regrow(view, base, size, stride, offset)
    if gained:
        views_gain_grad(base, skip=view)


def _regrow(view, base, size, stride, offset):
    from . import dispatch
    with_grad = _mode.grad_enabled
    _mode.grad_enabled = True
    checking = dispatch.record_node
    # an integer view regrows its history as PyTorch's does (lazily there, never refused:
    # Note [Integer tensors with history] in dispatch.py)
    dispatch.record_node = dispatch._record_plain
    try:
        fresh = AS_STRIDED.public(base, size, stride, offset)
    finally:
        _mode.grad_enabled = with_grad
        dispatch.record_node = checking
    old_node, old_nr = view._grad_fn, view._output_nr
    view._grad_fn = fresh._grad_fn
    view._requires_grad = fresh._requires_grad
    view._output_nr = 0
    view._view_version = base._vc[0]
    if view._retains_grad:   # retain_grad follows the view to its regrown history
        from .inplace import _move_retain_grad
        _move_retain_grad(view, old_node, old_nr)


def refresh(view: Tensor) -> None:
    """Regenerate a stale view's history after its base changed in place (Note above)."""
    base = view._base
    kind = view._view_kind
    if kind is not None and base._requires_grad:
        # PyTorch's grad_fn() checks whatever the grad mode (a saved view unpacked by a
        # backward, a grad_fn read under no_grad: fuzz seeds 155, 158;
        # the view stays stale: asking again raises again)
        check_view_inplace(view, indirect=True)
        if kind in ("no_grad", "inference") or kind[0] in ("no_grad", "inference"):
            return   # no history to regrow: it stays a leaf (Note [Views made under no_grad])
    view._view_version = base._vc[0]
    if not base._requires_grad:
        return
    size, stride, offset = positions(view._data, base._data)
    _regrow(view, base, size, stride, offset)



