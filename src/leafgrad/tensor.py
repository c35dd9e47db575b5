"""The Tensor: an ndarray plus autograd metadata. No math lives here; ops/ binds it.

Note [Storage and versions]
A tensor's ``_data`` is a NumPy array. Views (``view``, slicing, ``transpose``, ``detach``...)
hold NumPy views of their base's array and share its version counter ``_vc``, a one-element
list, so an in-place change through any of them is seen by every saved copy.

>>> import leafgrad as torch
>>> x = torch.tensor([1.0, 2.0], requires_grad=True)
>>> x.detach().data_ptr() == x.data_ptr()
True
"""
from __future__ import annotations

import sys
import warnings

import numpy as np

from . import _zerotensor as _zt
from . import dtypes as _dt
from . import errors
from ._device import CPU, check_device, device   # noqa: F401 - re-exported
from ._versions import bump_version, user_location, where_changed   # noqa: F401 - re-exported
from ._size import Size   # noqa: F401 - re-exported (torch.Size)
from .grad_mode import inference_depth as _inference_depth, state as _mode

__all__ = ["Tensor", "Size", "is_tensor"]

_new = object.__new__
_Device = device   # the name other modules import


# Set once a tensor with a history is detached in place: from then on a node checks that the
# non-leaf tensors it saved still have one (PyTorch's "detached in-place" error, graph.py).
DETACHED_INPLACE = [False]

class Tensor:
    """A multi-dimensional array that records the operations applied to it.

    >>> import leafgrad as torch
    >>> w = torch.tensor(2.0, requires_grad=True)
    >>> (3 * w.square()).backward()
    >>> w.grad
    tensor(12.)
    """

    # Note [Tensor attributes]: the four attributes every op touches are slots; the rarely
    # set ones are class-level defaults, overridden per instance in ``__dict__`` when set,
    # so the hot constructor ``_wrap`` assigns four fields only.
    __slots__ = ("_data", "_grad_fn", "_requires_grad", "_vc", "__dict__", "__weakref__")
    _base = None          # the tensor this one is a view of
    _output_nr = 0        # which output of ``_grad_fn`` this is
    _grad = None
    _hooks = None         # tensor hooks (leaves): {handle id: fn}
    _retains_grad = False
    _acc = None           # weak reference to the leaf's AccumulateGrad, once asked for
    _meta = None          # dict of rare flags (inference tensor, post-accumulate hooks, ...)
    _view_version = None  # base version when this view's grad_fn was made (ops/views.py)
    _numpy_strides = False  # empty and made from a NumPy array: its (zero) strides, as PyTorch
    _view_kind = None     # "no_grad" or (creator name, output index) for multi-output views

    # -- construction -----------------------------------------------------------------
    def __new__(cls, *args, **kwargs):
        # Legacy ``torch.Tensor(...)`` constructor: float32 of the given data or shape.
        from .factories import _legacy_tensor
        return _legacy_tensor(cls, args, kwargs)

    # -- autograd metadata -----------------------------------------------------------
    @property
    def requires_grad(self) -> bool:
        return self._requires_grad

    @requires_grad.setter
    def requires_grad(self, value) -> None:
        if self._grad_fn is not None:
            # PyTorch's text is the long one only when turning grad off
            raise RuntimeError(errors.REQUIRES_GRAD_NONLEAF if not value else
                               "you can only change requires_grad flags of leaf variables.")
        if value and self._data.dtype.kind not in "fc":
            raise RuntimeError(
                "only Tensors of floating point and complex dtype can require gradients")
        self._check_inference_requires_grad(value)
        was = self._requires_grad
        self._requires_grad = bool(value)
        if self._meta is not None and "no_grad_view" in self._meta:
            self._set_no_grad_view(value)
        elif was != self._requires_grad:
            self._views_follow()

    def _check_inference_requires_grad(self, value) -> None:
        if value and self._meta is not None and self._meta.get("inference") \
                and not _mode.inference:
            raise RuntimeError("Setting requires_grad=True on inference tensor outside "
                               "InferenceMode is not allowed.")

    def requires_grad_(self, requires_grad: bool = True) -> "Tensor":
        if self._grad_fn is not None and not requires_grad:
            raise RuntimeError(errors.REQUIRES_GRAD_NONLEAF)
        if requires_grad and self._data.dtype.kind not in "fc":
            raise RuntimeError("only Tensors of floating point dtype can require gradients")
        self._check_inference_requires_grad(requires_grad)
        if self._grad_fn is None:
            was = self._requires_grad
            self._requires_grad = bool(requires_grad)
            if self._meta is not None and "no_grad_view" in self._meta:
                self._set_no_grad_view(requires_grad)
            elif was != self._requires_grad:
                self._views_follow()
        return self

    def _views_follow(self) -> None:
        # A view reports requires_grad through its base: views made before the base's flag
        # changed follow it (Note [Views made under no_grad], ops/views.py). Only the version
        # counter's refcount says whether other tensors (views) share it: 2 is this slot and
        # getrefcount's argument.
        if self._base is None and sys.getrefcount(self._vc) > 2:
            from .ops.views import views_follow_base
            views_follow_base(self)

    def _set_no_grad_view(self, value) -> None:
        # A view made under no_grad still requires grad through its base; True gives it an
        # accumulator of its own, False takes it away (Note [Views made under no_grad])
        self._meta["no_grad_view"] = not value
        self._requires_grad = True

    @property
    def is_leaf(self) -> bool:
        if self._base is not None and self._vc[0] != self._view_version:
            return self.grad_fn is None   # PyTorch reads grad_fn(): a stale view regrows
        return self._grad_fn is None

    @property
    def grad_fn(self):
        base = self._base
        if base is not None and self._vc[0] != self._view_version and base._requires_grad:
            from .ops.views import refresh   # the base changed in place: regrow (views.py)
            refresh(self)
        return self._grad_fn

    @property
    def grad(self):
        if self._grad_fn is not None and not self._retains_grad:
            warnings.warn(errors.NON_LEAF_GRAD_WARNING, UserWarning, stacklevel=2)
        return self._grad

    @grad.setter
    def grad(self, value) -> None:
        if value is not None:
            if not isinstance(value, Tensor):
                raise TypeError("assigned grad expected to be a Tensor or None but got grad "
                                f"of type {type(value).__name__}")
            if value._data.dtype != self._data.dtype:
                raise RuntimeError("assigned grad has data of a different type")
            if value._data.shape != self._data.shape:
                raise RuntimeError(
                    f"attempting to assign a gradient of size '{errors.shape_str(value.shape)}'"
                    f" to a tensor of size '{errors.shape_str(self.shape)}'. Please ensure "
                    "that the gradient and the tensor are the same size")
        self._grad = value

    @grad.deleter
    def grad(self) -> None:
        self._grad = None

    @property
    def retains_grad(self) -> bool:
        return self._retains_grad

    def retain_grad(self) -> None:
        if not self._requires_grad:
            raise RuntimeError("can't retain_grad on Tensor that has requires_grad=False")
        if self.grad_fn is None or self._retains_grad:   # (a stale view regrows or raises)
            return
        import weakref
        node = self._grad_fn
        if node._retain_grad_hooks is None:
            node._retain_grad_hooks = {}
        node._retain_grad_hooks[self._output_nr] = weakref.ref(self)
        self._retains_grad = True

    def register_hook(self, hook):
        """``hook(grad)`` runs when this tensor's gradient is computed; it may return a new
        gradient of the same shape. Returns a handle whose ``remove()`` unregisters it.

        >>> import leafgrad as torch
        >>> x = torch.tensor([1.0, 2.0], requires_grad=True)
        >>> handle = x.register_hook(lambda g: g * 10)
        >>> (x * 2).sum().backward()
        >>> x.grad
        tensor([20., 20.])
        """
        from .autograd.graph import RemovableHandle, _HookDict
        if not self._requires_grad:
            raise RuntimeError("cannot register a hook on a tensor that doesn't require "
                               "gradient")
        if self._grad_fn is None:
            if self._hooks is None:
                self._hooks = _HookDict()
            hooks = self._hooks
        else:
            node = self._grad_fn
            if node._tensor_pre_hooks is None:
                node._tensor_pre_hooks = {}
            hooks = node._tensor_pre_hooks.setdefault(self._output_nr, _HookDict())
        handle = RemovableHandle(hooks)
        hooks[handle.id] = hook
        return handle

    def register_post_accumulate_grad_hook(self, hook):
        """``hook(tensor)`` runs after a leaf's ``.grad`` was accumulated."""
        from .autograd.graph import RemovableHandle, _HookDict
        if not self._requires_grad:
            raise RuntimeError("cannot register a hook on a tensor that doesn't require "
                               "gradient")
        if self._grad_fn is not None:
            raise RuntimeError("post accumulate grad hooks cannot be registered on non-leaf "
                               "tensors")
        if self._meta is None:
            self._meta = {}
        hooks = self._meta.setdefault("post_acc_hooks", _HookDict())
        handle = RemovableHandle(hooks)
        hooks[handle.id] = hook
        return handle

    @property
    def output_nr(self) -> int:
        return self._output_nr

    @property
    def _version(self) -> int:
        if self._meta is not None and self._meta.get("inference"):
            raise RuntimeError("Inference tensors do not track version counter.")
        return self._vc[0]

    @property
    def data(self) -> "Tensor":
        """The same storage without history; changes through it skip version checks."""
        return _wrap(self._data)

    @data.setter
    def data(self, value: "Tensor") -> None:
        if self._grad_fn is not None and value._data.shape != self._data.shape:
            from .autograd.reduce_grad import note_reshaped   # (autograd imports tensor)
            note_reshaped(self)   # its node keeps the old shape (Note [Reshaped outputs])
        self._data = value._data

    def detach(self) -> "Tensor":
        """A tensor sharing storage and the version counter, cut from the graph."""
        return _wrap(self._data, None, self._vc)   # shares storage and version; not a view

    def detach_(self) -> "Tensor":
        if self._base is not None:
            raise RuntimeError(
                "Can't detach views in-place. Use detach() instead. If you are using "
                "DistributedDataParallel (DDP) for training, and gradient_as_bucket_view is set "
                "as True, gradients are views of DDP buckets, and hence detach_() cannot be "
                "called on these gradients. To fix this error, please refer to the "
                "Optimizer.zero_grad() function in torch/optim/optimizer.py as the solution.")
        if self._grad_fn is not None:
            DETACHED_INPLACE[0] = True   # saved tensors are checked from now on (graph.py)
        was = self._requires_grad
        self._grad_fn = None
        self._requires_grad = False
        if was:
            self._views_follow()   # views made under no_grad stop requiring grad with it
        return self

    def backward(self, gradient=None, retain_graph=None, create_graph=False, inputs=None):
        """Accumulate d(self)/d(leaf) into each leaf's ``.grad`` (see autograd.backward)."""
        if gradient is None and inputs is None and not create_graph and not retain_graph \
                and self._grad_fn is not None and self._data.size == 1 and self._base is None \
                and self._data.dtype.kind == "f":
            # the everyday ``loss.backward()``: straight to the engine with a fresh seed
            d = self._data
            if d.ndim:
                seed = np.empty(d.shape, d.dtype)
                seed.fill(1)   # np.ones is a Python-level function: several times slower here
            else:   # a 0-d loss: a copy of a cached one, one NumPy call
                one = _ONES.get(d.dtype)
                if one is None:
                    one = _ONES[d.dtype] = np.ones((), d.dtype)
                seed = one.copy()
            _engine.execute((self,), (_wrap(seed),), False, False, fresh_seeds=True)
            return
        from .autograd import backward
        backward(self, gradient, retain_graph, create_graph, inputs=inputs)

    # -- shape and type --------------------------------------------------------------
    @property
    def shape(self) -> Size:
        return Size(self._data.shape)

    def size(self, dim=None):
        if dim is None:
            return Size(self._data.shape)
        if self._data.ndim == 0:
            raise IndexError(f"Dimension specified as {dim} but tensor has no dimensions")
        return self._data.shape[_wrap_dim(dim, self._data.ndim)]

    @property
    def ndim(self) -> int:
        return self._data.ndim

    def dim(self) -> int:
        return self._data.ndim

    ndimension = dim

    def numel(self) -> int:
        return self._data.size

    nelement = numel

    @property
    def dtype(self) -> _dt.dtype:
        return _dt.from_numpy_dtype(self._data.dtype)

    @property
    def device(self):
        return CPU

    @property
    def is_cuda(self) -> bool:
        return False

    @property
    def layout(self):
        return "torch.strided"

    def is_floating_point(self) -> bool:
        return self._data.dtype.kind == "f"

    def is_complex(self) -> bool:
        return False

    def element_size(self) -> int:
        return self._data.itemsize

    def stride(self, dim=None):
        d = self._data
        if d.size or self._numpy_strides or any(d.strides):   # (set on purpose when empty)
            strides = tuple(s // d.itemsize for s in d.strides)
        else:   # PyTorch gives an empty result contiguous strides (NumPy gives zeros)
            strides, step = [], 1
            for size in reversed(d.shape):
                strides.append(step)
                step *= max(size, 1)
            strides = tuple(reversed(strides))
        return strides if dim is None else strides[_wrap_dim(dim, d.ndim)]

    def storage_offset(self) -> int:
        return 0 if self._base is None else (self.data_ptr() - self._base.data_ptr()) // max(
            self._data.itemsize, 1)

    def is_contiguous(self, memory_format=None) -> bool:
        return self._data.flags.c_contiguous

    def data_ptr(self) -> int:
        return self._data.__array_interface__["data"][0]

    def untyped_storage(self):
        return _Storage(self)

    def type(self, dtype=None):
        if dtype is None:
            return "torch." + self.dtype.tensor_type
        if isinstance(dtype, str) and dtype.startswith("torch.") and dtype.endswith("Tensor"):
            name = {d.tensor_type: d for d in _dt.ALL}[dtype[6:]]
            return self.to(name)
        return self.to(getattr(dtype, "_legacy_dtype", dtype))   # torch.FloatTensor & co.

    def cpu(self) -> "Tensor":
        return self

    def cuda(self, *args, **kwargs):
        check_device("cuda")

    def is_inference(self) -> bool:
        return self._meta is not None and self._meta.get("inference", False)

    # -- conversion to Python and NumPy -----------------------------------------------
    def item(self):
        if self._data.size != 1:
            raise RuntimeError(
                f"a Tensor with {self._data.size} elements cannot be converted to Scalar")
        return self._data.reshape(()).item()

    def tolist(self):
        if type(self._data) is not np.ndarray and _zt.is_zero_array(self._data):
            raise RuntimeError("tolist() shouldn't be called on a tensor with unallocated "
                               "storage")
        return self._data.tolist()

    def numpy(self, *, force: bool = False) -> np.ndarray:
        if self._requires_grad and not force:
            raise RuntimeError(errors.NUMPY_REQUIRES_GRAD)
        if type(self._data) is not np.ndarray and _zt.is_zero_array(self._data):
            if not force:
                raise RuntimeError(_zt.NO_NUMPY)
            return np.zeros(self._data.shape, self._data.dtype)
        return self._data

    def _is_zerotensor(self) -> bool:
        """Whether this is one of PyTorch's immutable zero tensors (Note [Zero tensors] in
        _zerotensor.py), as ``sgn``'s gradient of a real input is."""
        return type(self._data) is not np.ndarray and _zt.is_zero_array(self._data)

    def __array__(self, dtype=None, copy=None):
        if self._requires_grad:
            raise RuntimeError(errors.NUMPY_REQUIRES_GRAD)
        if type(self._data) is not np.ndarray and _zt.is_zero_array(self._data):
            raise RuntimeError(_zt.NO_NUMPY)
        if dtype is None:
            return self._data
        return self._data.astype(dtype, copy=False)

    def __float__(self) -> float:
        if self._data.size != 1:
            raise ValueError("only one element tensors can be converted to Python scalars")
        if self._requires_grad and _mode.grad_enabled:   # PyTorch is silent under no_grad
            _warn_once(errors.SCALAR_REQUIRES_GRAD)
        return float(self._data.reshape(()).item())

    def __int__(self) -> int:
        if self._data.size != 1:
            raise ValueError("only one element tensors can be converted to Python scalars")
        return int(self._data.reshape(()).item())

    def __index__(self) -> int:
        if self._data.dtype.kind not in "iub" or self._data.size != 1:
            raise TypeError("only integer tensors of a single element can be converted to an "
                            "index")
        return int(self._data.reshape(()).item())

    def __bool__(self) -> bool:
        if self._data.size != 1:
            raise RuntimeError("Boolean value of Tensor with no values is ambiguous"
                               if self._data.size == 0 else
                               "Boolean value of Tensor with more than one value is ambiguous")
        return bool(self._data.reshape(()).item())

    def __complex__(self) -> complex:
        return complex(self.item())

    def __len__(self) -> int:
        if self._data.ndim == 0:
            raise TypeError("len() of a 0-d tensor")
        return self._data.shape[0]

    def __iter__(self):
        if self._data.ndim == 0:
            raise TypeError("iteration over a 0-d tensor")
        return iter(self.unbind(0))

    def __hash__(self) -> int:
        return id(self)

    def __repr__(self) -> str:
        from ._printing import tensor_repr
        return tensor_repr(self)

    def __format__(self, spec: str) -> str:
        # as PyTorch: a plain 0-d tensor formats as its Python number
        if self._data.ndim == 0 and type(self) is Tensor:
            return format(self.item(), spec)
        return object.__format__(self, spec)

    def __reduce_ex__(self, protocol):
        if type(self._data) is not np.ndarray and _zt.is_zero_array(self._data):
            raise RuntimeError(_zt.NOT_SERIALIZABLE)
        return (_rebuild, (self._data.copy(), self._requires_grad))

    def __deepcopy__(self, memo):
        if type(self._data) is not np.ndarray and _zt.is_zero_array(self._data):
            raise RuntimeError("Attempted to call copy_() on an invalid python storage.")
        if self._grad_fn is not None:
            raise RuntimeError("Only Tensors created explicitly by the user (graph leaves) "
                               "support the deepcopy protocol at the moment.  If you were "
                               "attempting to deepcopy a module, this may be because of a "
                               "torch.nn.utils.weight_norm usage, see "
                               "https://github.com/pytorch/pytorch/pull/103001")
        out = type(self).__new__(type(self), self._data.copy()) if type(self) is not Tensor \
            else _wrap(self._data.copy())
        out._requires_grad = self._requires_grad
        if self._grad is not None:
            out._grad = self._grad.__deepcopy__(memo)
        memo[id(self)] = out
        return out

    @property
    def T(self) -> "Tensor":
        ndim = self._data.ndim
        if ndim != 2:
            _warn_once(
                "Tensor.T is deprecated on 0-D tensors. This function is the identity in these "
                "cases. (Triggered internally at "
                "/__w/pytorch/pytorch/aten/src/ATen/native/TensorShape.cpp:4321.)" if ndim == 0
                else
                "The use of `x.T` on tensors of dimension other than 2 to reverse their shape "
                "is deprecated and it will throw an error in a future release. Consider `x.mT` "
                "to transpose batches of matrices or `x.permute(*torch.arange(x.ndim - 1, -1, "
                "-1))` to reverse the dimensions of a tensor. (Triggered internally at "
                "/__w/pytorch/pytorch/aten/src/ATen/native/TensorShape.cpp:4314.)")
        return self.permute(tuple(range(ndim - 1, -1, -1)))   # () for 0-d: still a permute

    @property
    def mT(self) -> "Tensor":
        if self._data.ndim == 0:
            _warn_once("Tensor.mT is deprecated on 0-D tensors. This function is the "
                       "identity in these cases. (Triggered internally at "
                       "/__w/pytorch/pytorch/aten/src/ATen/native/TensorShape.cpp:4373.)")
            return self   # the identity: PyTorch returns the tensor itself
        if self._data.ndim == 1:
            raise RuntimeError("tensor.mT is only supported on matrices or batches of "
                               "matrices. Got 1-D tensor.")
        return self.transpose(-2, -1)

    @property
    def H(self) -> "Tensor":
        return self if self._data.ndim == 0 else self.T

    @property
    def mH(self) -> "Tensor":
        return self.mT

    @property
    def is_sparse(self) -> bool:
        return False

    @property
    def names(self):
        return (None,) * self._data.ndim


class _Storage:
    __slots__ = ("_t",)

    def __init__(self, t):
        self._t = t

    def data_ptr(self) -> int:
        t = self._t
        base = t._base if t._base is not None else t
        return base.data_ptr()

    def nbytes(self) -> int:
        t = self._t
        base = t._base if t._base is not None else t
        return base._data.nbytes


class _LazyEngine:
    """``autograd.engine``, imported on first use (it sits in a layer above this module)."""

    def __getattr__(self, name):
        from .autograd import engine
        globals()["_engine"] = engine
        return getattr(engine, name)


_engine = _LazyEngine()


_ONES: dict = {}   # dtype -> 0-d one, copied for ``loss.backward()``'s seed


def _rebuild(data, requires_grad):
    t = _wrap(data)
    t._requires_grad = requires_grad
    return t


# Note [Inline wraps]
# The fast dispatchers (dispatch_binary, _run_unary in ops/dispatch.py) build their result
# as ``_wrap(out)`` does, inline, and so do the specialised applies (make_apply in
# ops/recorder.py) for a saved output: a frame fewer on every op of a chain. Keep them in
# step with this function.
def _wrap(data: np.ndarray, grad_fn=None, vc=None) -> Tensor:
    """Fast internal constructor: data must already be an ndarray of a supported dtype."""
    t = _new(Tensor)
    t._data = data
    t._grad_fn = grad_fn
    t._requires_grad = grad_fn is not None
    t._vc = [0] if vc is None else vc
    if _inference_depth[0] and _mode.inference:   # see Note [Inference depth] in grad_mode
        t._meta = {"inference": True}
    return t


_WARNED: set = set()


def _warn_once(message: str) -> None:
    """A UserWarning at the caller's caller, once per process (PyTorch's TORCH_WARN_ONCE)."""
    if message not in _WARNED:
        _WARNED.add(message)
        warnings.warn(message, UserWarning, stacklevel=3)


def _wrap_dim(dim: int, ndim: int) -> int:
    n = ndim if ndim > 0 else 1
    if not -n <= dim < n:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-n}, {n - 1}],"
                         f" but got {dim})")
    return dim % n


def is_tensor(obj) -> bool:
    return isinstance(obj, Tensor)
