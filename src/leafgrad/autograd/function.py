"""Custom differentiable functions: ``torch.autograd.Function``.

A subclass gives ``forward`` and ``backward`` as staticmethods; ``F.apply(*args)`` runs the
forward under no-grad and, when an input requires grad (and grad mode is on), makes the outputs
point at one node of class ``FBackward``. That node is also the ``ctx`` both methods receive,
as in PyTorch: what ``forward`` (or ``setup_context``) stores on it, ``backward`` reads.

>>> import leafgrad as torch
>>> class Cube(torch.autograd.Function):
...     @staticmethod
...     def forward(ctx, x):
...         ctx.save_for_backward(x)
...         return x ** 3
...     @staticmethod
...     def backward(ctx, grad):
...         x, = ctx.saved_tensors
...         return 3 * x ** 2 * grad
>>> x = torch.tensor([1.0, 2.0], requires_grad=True)
>>> y = Cube.apply(x)
>>> y
tensor([1., 8.], grad_fn=<CubeBackward>)
>>> y.sum().backward()
>>> x.grad
tensor([ 3., 12.])

Note [Function nodes and the engine]
The node is an ordinary ``Node`` for the engine: ``_edges`` holds one edge per *tensor*
argument, ``n_outputs`` one slot per forward output (tensor or not), ``_args`` the shape and
dtype of each tensor argument, and ``apply(grads, create_graph)`` returns one gradient per
edge. The engine already runs backward under grad mode = ``create_graph``, so the user's
backward is recorded when a graph of the gradient is wanted.

Note [Saved tensors of a Function]
``save_for_backward`` only stores the objects; after the forward they are turned into saved
entries with the version they have then (an in-place change inside the forward, with
``mark_dirty``, is part of the forward). Inputs and other tensors are kept as they are (so
``ctx.saved_tensors[0] is x``); an output is kept as array + version counter (holding the
output would make a cycle through its ``grad_fn``) and comes back with ``grad_fn`` = this node.
``_saved`` always ends with a marker the engine recognises as a saved tensor, so it frees it
after a backward without ``retain_graph`` even when nothing else was saved, and reading
``saved_tensors`` then fails as in PyTorch, while a second backward that does not read them
still works.
"""
from __future__ import annotations

import functools
import inspect
import warnings

import numpy as np

from .. import dtypes as _dt
from .. import errors
from ..grad_mode import state as _mode
from ..tensor import Tensor, _wrap, bump_version
from .graph import Node, SavedOutput, stripped_name, sum_to, version_hint, with_change_note
from .graph import anomaly as _anomaly, next_seq
from . import reduce_grad as _reduce_grad
from . import saved_hooks as _saved_hooks
from .saved_tensor import raw_saved

__all__ = [
    "BackwardCFunction",
    "Function",
    "FunctionCtx",
    "InplaceFunction",
    "once_differentiable",
]

_NO_EDGE = (None, 0)


class _SavedFunctionOutput(SavedOutput):
    """An output saved by ``save_for_backward``: array + version counter + output number."""

    __slots__ = ("output_nr",)

    def __init__(self, tensor: Tensor):
        super().__init__(tensor)
        self.output_nr = tensor._output_nr


class _FreeMarker(SavedOutput):
    """Ends every Function node's ``_saved`` so the engine frees it (Note [Saved tensors])."""

    __slots__ = ()

    def __init__(self):
        pass


_FREE_MARK = _FreeMarker()


class FunctionCtx:
    """What ``forward`` / ``setup_context`` may call on ``ctx`` to prepare the backward."""

    def save_for_backward(self, *tensors) -> None:
        """Keep tensors (or None) for ``backward``, which reads them from ``saved_tensors``."""
        self.to_save = tensors

    def save_for_forward(self, *tensors) -> None:
        """Accepted for compatibility; leafgrad has no forward-mode AD."""
        self.saved_for_forward = tensors

    def mark_dirty(self, *args) -> None:
        """Declare inputs the forward changed in place; each must also be returned."""
        self.dirty_tensors = args

    def mark_non_differentiable(self, *args) -> None:
        """Declare outputs that get no gradient (``requires_grad=False``; zeros in backward)."""
        self.non_differentiable = args

    def set_materialize_grads(self, value: bool) -> None:
        """With False, ``backward`` receives None (not zeros) for outputs without a gradient."""
        self.materialize_grads = bool(value)


class BackwardCFunction(FunctionCtx, Node):
    """The node (and ctx) of a custom Function; ``FBackward`` for a Function ``F``."""

    _forward_cls = None
    runs_without_grads = True
    materialize_grads = True
    to_save = None
    dirty_tensors = None
    non_differentiable = None

    def __repr__(self) -> str:
        return f"<{type(self).__module__}.{type(self).__name__} object at {hex(id(self))}>"

    @property
    def saved_tensors(self) -> tuple:
        """The tensors given to ``save_for_backward``, checked against in-place changes."""
        saved = self._saved
        if saved is None:
            raise RuntimeError(errors.BACKWARD_TWICE)
        entries = saved[:-1]
        versions = self._versions
        out = []
        for i, v in enumerate(entries):
            if v is None:
                out.append(None)
                continue
            if versions is not None:
                _check_version(self, v, versions[i])
            if type(v) is _saved_hooks._Packed:   # saved through hooks (saved_hooks.py)
                out.append(v.unpack(self, _mode.grad_enabled))
            elif type(v) is _SavedFunctionOutput:
                t = _wrap(v.data, self, v.vc)
                t._output_nr = v.output_nr
                out.append(t)
            else:
                out.append(v)
        return tuple(out)

    saved_variables = saved_tensors

    @property
    def _raw_saved_tensors(self) -> tuple:
        """PyTorch's ``SavedTensor`` per tensor given to ``save_for_backward``."""
        saved = self._saved
        if saved is None:
            raise RuntimeError(errors.BACKWARD_TWICE)
        return tuple(raw_saved(self, i) for i in range(len(saved) - 1))

    def apply(self, grads, create_graph: bool):
        """Run the user's backward; return one gradient per edge (Note [Function nodes])."""
        cls = self._forward_cls
        if self.materialize_grads:
            grads = _materialize(grads, self._out_meta)
        backward = cls.backward
        if backward is Function.backward and cls.vjp is not Function.vjp:
            backward = cls.vjp
        result = backward(self, *grads)
        return _check_grads(self, result)


def _materialize(grads, out_meta):
    out = list(grads)
    for i, g in enumerate(out):
        if g is None and out_meta[i] is not None:
            shape, dtype = out_meta[i]
            out[i] = _wrap(np.zeros(shape, dtype))
    return out


def _check_grads(node, result):
    """PyTorch's checks of what a backward returned; conform shapes and dtypes to the inputs."""
    if not isinstance(result, tuple):
        result = (result,)
    is_tensor = node._arg_is_tensor
    n_args = len(is_tensor)
    name = type(node).__name__
    if len(result) != n_args:
        if len(result) > n_args and all(g is None for g in result[n_args:]):
            result = result[:n_args]
        else:
            raise RuntimeError(f"function {name} returned an incorrect number of gradients "
                               f"(expected {n_args}, got {len(result)})")
    out = []
    k = 0
    edges = node._edges
    meta = node._args
    for i, g in enumerate(result):
        if g is not None and not isinstance(g, Tensor):
            raise RuntimeError(f"expected Variable or None (got {type(g).__name__})")
        if not is_tensor[i]:
            if g is not None:
                raise RuntimeError(
                    f"function {name} returned a gradient different than None at position "
                    f"{i + 1}, but the corresponding forward input was not a Variable")
            continue
        if g is None or edges[k][0] is None:
            out.append(None)
        else:
            m = meta[k]
            if _reduce_grad.ANY_RESHAPED:   # Note [Reshaped outputs] (reduce_grad.py)
                m = (_reduce_grad.reshaped_target(edges[k], m[0]), m[1])
            out.append(_conform(name, k, g, m))
        k += 1
    return out


def _conform(name, index, g, meta):
    shape, np_dtype = meta
    gshape = g._data.shape
    if gshape != shape:
        if not _expandable(shape, gshape):
            raise RuntimeError(
                f"Function {name} returned an invalid gradient at index {index} - got "
                f"{errors.shape_str(gshape)} but expected shape compatible with "
                f"{errors.shape_str(shape)}")
        g = sum_to(g, shape)
    if g._data.dtype != np_dtype:
        g = g.to(_dt.from_numpy_dtype(np_dtype))
    return g


def _expandable(shape, target) -> bool:
    """Whether ``shape`` broadcasts to ``target`` (so a gradient of ``target`` sums back)."""
    if len(shape) > len(target):
        return False
    for s, t in zip(reversed(shape), reversed(target)):
        if s != t and s != 1:
            return False
    return True


def _check_version(node, value, version) -> None:
    if version is None:
        return
    current = value.vc[0] if isinstance(value, SavedOutput) else value._vc[0]
    if current == version:
        return
    if isinstance(value, SavedOutput):
        shape, dtype_t = value.data.shape, _wrap(value.data)
        which = f", which is output {value.output_nr} of {stripped_name(node)},"
    else:
        shape, dtype_t = value._data.shape, value
        fn = value._grad_fn
        which = (f", which is output {value._output_nr} of {stripped_name(fn)},"
                 if fn is not None else "")
    raise with_change_note(RuntimeError(
        "one of the variables needed for gradient computation has been modified by an "
        f"inplace operation: [{errors.tensor_type_str(dtype_t)} {errors.shape_str(shape)}]"
        f"{which} is at version {current}; expected version {version} instead. "
        f"{version_hint()}"), value.vc if isinstance(value, SavedOutput) else value._vc)


class FunctionMeta(type):
    """Gives each Function subclass its node class, ``<Name>Backward``."""

    def __init__(cls, name, bases, attrs):
        backward_cls = type(name + "Backward", (BackwardCFunction,), {"_forward_cls": cls})
        backward_cls.__module__ = BackwardCFunction.__module__   # torch's name under the alias
        backward_cls.__qualname__ = name + "Backward"
        cls._backward_cls = backward_cls
        super().__init__(name, bases, attrs)


class Function(metaclass=FunctionMeta):
    """Base class for custom differentiable operations (``torch.autograd.Function``).

    Subclasses define ``forward(ctx, *args, **kwargs)`` (or ``forward(*args)`` plus
    ``setup_context(ctx, inputs, output)``) and ``backward(ctx, *grad_outputs)``, returning
    one gradient per positional forward argument (None for non-tensors), and are used
    through ``apply``.
    """

    generate_vmap_rule = False

    def __init__(self, *args, **kwargs):
        warnings.warn(
            f"{type(self)} should not be instantiated. Methods on autograd functions are all "
            "static, so you should invoke them on the class itself. Instantiating an autograd "
            "function will raise an error in a future version of PyTorch.",
            DeprecationWarning, stacklevel=2)

    def __call__(self, *args, **kwargs):
        raise RuntimeError(
            "Legacy autograd function with non-static forward method is deprecated. Please use "
            "new-style autograd function with static forward method. (Example: "
            "https://pytorch.org/docs/stable/autograd.html#torch.autograd.Function)")

    @staticmethod
    def forward(*args, **kwargs):
        raise NotImplementedError(
            "You must implement the forward function for custom autograd.Function.")

    @staticmethod
    def setup_context(ctx, inputs, output):
        raise NotImplementedError("setup_context is not implemented.")

    @staticmethod
    def backward(ctx, *grad_outputs):
        raise NotImplementedError(
            "You must implement either the backward or vjp method for your custom "
            "autograd.Function to use it with backward mode AD.")

    vjp = backward

    @staticmethod
    def jvp(ctx, *grad_inputs):
        raise NotImplementedError(
            "You must implement the jvp function for custom autograd.Function to use it with "
            "forward mode AD.")

    @staticmethod
    def vmap(info, in_dims, *args):
        raise NotImplementedError(
            "To use autograd.Function with vmap, you must either override the vmap staticmethod "
            "or set generate_vmap_rule=True.")

    @classmethod
    def apply(cls, *args, **kwargs):
        """Run the forward and, if a tensor argument requires grad, record ``cls``'s node."""
        new_style = cls.setup_context is not Function.setup_context
        if new_style:
            bound = inspect.signature(cls.forward).bind(*args, **kwargs)
            bound.apply_defaults()
            args, kwargs = bound.args, bound.kwargs
        node_cls = cls._backward_cls
        node = node_cls.__new__(node_cls)
        node._seq = next_seq()   # made before the forward runs, as PyTorch's
        arg_is_tensor = tuple(isinstance(a, Tensor) for a in args)
        needs = tuple(t and a._requires_grad for a, t in zip(args, arg_is_tensor))
        node.needs_input_grad = needs
        node._arg_is_tensor = arg_is_tensor
        executable = _mode.grad_enabled and any(needs)
        prev = _mode.grad_enabled
        _mode.grad_enabled = False
        try:
            if new_style:
                output = cls.forward(*args, **kwargs)
                cls.setup_context(node, args, output)
            else:
                output = cls.forward(node, *args, **kwargs)
        finally:
            _mode.grad_enabled = prev
        return _wrap_outputs(node, args, output, executable)


def _wrap_outputs(node, args, output, executable):
    """Point the outputs at ``node`` and fill in its edges, metadata and saved tensors."""
    is_tuple = isinstance(output, tuple)
    raw = output if is_tuple else (output,)
    tensor_args = [a for a in args if isinstance(a, Tensor)]
    if executable:
        node._edges = tuple(
            ((a._grad_fn, a._output_nr) if a._grad_fn is not None else (a, 0))
            if a._requires_grad else _NO_EDGE for a in tensor_args)
        if _anomaly.enabled:
            _anomaly.record(node)
    else:
        node._edges = ()
    node._args = tuple((a._data.shape, a._data.dtype) for a in tensor_args)
    node._versions = None
    node.n_outputs = len(raw)
    dirty = node.dirty_tensors or ()
    non_diff = node.non_differentiable or ()
    input_ids = {id(a) for a in tensor_args}
    outputs = []
    out_meta = []
    for i, o in enumerate(raw):
        if not isinstance(o, Tensor):
            outputs.append(o)
            out_meta.append(None)
            continue
        out_meta.append((o._data.shape, o._data.dtype))
        is_dirty = any(o is d for d in dirty)
        if is_dirty:
            if executable and o._grad_fn is None and o._requires_grad:
                raise RuntimeError(
                    "a leaf Variable that requires grad has been used in an in-place operation.")
            if executable and o._base is not None:
                _check_dirty_view(o, len(raw))
            bump_version(o)
            if not executable and o._base is not None:
                o._view_version = o._vc[0]   # PyTorch: its grad_fn stays None, no error
        elif id(o) in input_ids:
            o = _alias(o, _mode.grad_enabled)
            if executable:
                # an in-place change of it must fail (ops/views.py check_view_inplace)
                o._view_kind = ("custom_function", node._forward_cls.__name__, i)
        if executable:
            if any(o is n or raw[i] is n for n in non_diff):
                if not is_dirty:
                    o._requires_grad = False
            elif is_dirty and o._base is not None:
                # the base's history becomes CopySlices around this node, as for any
                # in-place change of a view (ops/views.py); the view reads the new base
                from ..ops.views import rebase_node
                rebase_node(o, node)
            else:
                o._grad_fn = node
                o._requires_grad = True
                o._output_nr = i
        outputs.append(o)
    for d in dirty:
        if not any(d is o for o in raw):
            raise RuntimeError(
                "Some elements marked as dirty during the forward method were not returned as "
                "output. The inputs that are modified inplace must all be outputs of the "
                "Function.")
    node._out_meta = out_meta
    _save(node, raw, outputs)
    return tuple(outputs) if is_tuple else outputs[0]


def _check_dirty_view(view: Tensor, n_outputs: int) -> None:
    """PyTorch's checks before a Function's in-place change of a view is rebased."""
    if n_outputs > 1:
        raise RuntimeError(
            "If your Function modifies inplace an input that is a view of another Tensor, your "
            "Function cannot return more than one Tensor. This is not supported by the current "
            "autograd engine. You should either make sure the input is not a view (using "
            ".clone() for example) or make your Function only return one Tensor (potentially "
            "splitting it into two Functions: one doing the inplace that returns a single "
            "Tensor and a second one that does the other operations). You can ask on the forum "
            "https://discuss.pytorch.org/ if you need help to do this change.")
    from ..ops.views import check_view_inplace
    check_view_inplace(view)
    base = view._base
    if base._grad_fn is None and base._requires_grad:
        raise RuntimeError("a view of a leaf Variable that requires grad is being used in an "
                           "in-place operation.")


def _alias(t: Tensor, as_view: bool) -> Tensor:
    """An output that is an input comes back as a new tensor on the same storage: a view of
    it, or under no-grad a plain alias (``_base`` None), as in PyTorch."""
    out = _wrap(t._data, None, t._vc)
    if as_view:
        out._base = t._base if t._base is not None else t
        out._view_version = t._vc[0]   # its history is current (see ops/views.py)
    return out


def _save(node, raw, outputs) -> None:
    to_save = node.to_save
    if not to_save:
        node._saved = (_FREE_MARK,)
        return
    saved = []
    versions = []
    for i, t in enumerate(to_save):
        if t is None:
            saved.append(None)
            versions.append(None)
            continue
        if not isinstance(t, Tensor):
            raise TypeError(f"save_for_backward can only save variables, but argument {i} is "
                            f"of type {type(t).__name__}")
        out_index = next((j for j, o in enumerate(raw) if o is t), None)
        if out_index is not None and outputs[out_index]._grad_fn is node:
            entry = _SavedFunctionOutput(outputs[out_index])
            versions.append(entry.vc[0])
            saved.append(entry)
        else:
            versions.append(t._vc[0])
            saved.append(t)
    hooks = _saved_hooks.current_hooks()
    if hooks is not None:   # saved-tensor hooks: each saved tensor packed, in saving order
        for i, v in enumerate(saved):
            if v is None:
                continue
            if type(v) is _SavedFunctionOutput:
                saved[i] = _saved_hooks.pack_output(outputs[v.output_nr], hooks)
            else:
                saved[i] = _saved_hooks.pack_input(v, hooks)
            versions[i] = None
    saved.append(_FREE_MARK)
    node._saved = tuple(saved)
    node._versions = versions
    node.to_save = None


class _OnceDifferentiableError(Node):
    """Stands behind the results of a ``@once_differentiable`` backward run with create_graph."""

    __slots__ = ()

    def apply(self, grads, create_graph):
        raise RuntimeError("trying to differentiate twice a function that was marked with "
                           "@once_differentiable")


_OnceDifferentiableError.__name__ = _OnceDifferentiableError.__qualname__ = "Error"


def once_differentiable(fn):
    """Decorate a ``backward`` that is not itself differentiable.

    It runs under no-grad; if a graph of the gradient was asked for and a gradient input
    requires grad, the results get a node that raises when differentiated again.
    """
    @functools.wraps(fn)
    def wrapper(ctx, *args, **kwargs):
        prev = _mode.grad_enabled
        _mode.grad_enabled = False
        try:
            outputs = fn(ctx, *args, **kwargs)
        finally:
            _mode.grad_enabled = prev
        if not prev:
            return outputs
        if not any(isinstance(a, Tensor) and a._requires_grad for a in args):
            return outputs
        is_tuple = isinstance(outputs, tuple)
        wrapped = tuple(_error_output(o) for o in (outputs if is_tuple else (outputs,)))
        return wrapped if is_tuple else wrapped[0]
    return wrapper


def _error_output(t):
    if t is None:
        return None
    leaf = _wrap(t._data, None, t._vc)
    leaf._requires_grad = True
    node = _OnceDifferentiableError.__new__(_OnceDifferentiableError)
    node._seq = next_seq()
    node._edges = ((leaf, 0),)
    node._saved = ()
    node._versions = None
    node._args = None
    return _wrap(t._data, node, t._vc)


class InplaceFunction(Function):
    """Kept for backward compatibility, as in PyTorch: a Function with an ``inplace`` flag."""

    def __init__(self, inplace=False):
        super().__init__()
        self.inplace = inplace
