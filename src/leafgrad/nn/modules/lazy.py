"""Lazy layers: ``LazyLinear``, ``LazyConv1d/2d/3d``, ``LazyBatchNorm1d/2d/3d``. Their
parameters are ``UninitializedParameter`` until the first call, which reads the input's size,
materializes them, runs the layer's usual initialisation, and turns the module into its eager
class (``LazyLinear`` becomes ``Linear``), as PyTorch does.

>>> import leafgrad as torch
>>> m = torch.nn.LazyLinear(4)
>>> m
LazyLinear(in_features=0, out_features=4, bias=True)
>>> _ = m(torch.ones(2, 3))
>>> m
Linear(in_features=3, out_features=4, bias=True)
"""
from __future__ import annotations

import numpy as np

from ... import dtypes as _dt
from ...grad_mode import no_grad
from ...tensor import Tensor
from ..parameter import Parameter
from .batchnorm import BatchNorm1d, BatchNorm2d, BatchNorm3d
from .conv import Conv1d, Conv2d, Conv3d
from .linear import Linear
from .module import Module
from .nn_extra import InstanceNorm1d, InstanceNorm2d, InstanceNorm3d

__all__ = ["UninitializedParameter", "UninitializedBuffer", "LazyLinear", "LazyConv1d",
           "LazyConv2d", "LazyConv3d", "LazyBatchNorm1d", "LazyBatchNorm2d",
           "LazyBatchNorm3d", "LazyInstanceNorm1d", "LazyInstanceNorm2d", "LazyInstanceNorm3d"]


_NO_SHAPE = ("Can't access the shape of an uninitialized parameter or buffer. This error "
             "usually happens in `load_state_dict` when trying to load an uninitialized "
             "parameter into an initialized one. Call `forward` to initialize the parameters "
             "before accessing their attributes.")


def _no_use(method: str, kind: str) -> ValueError:
    return ValueError(f"Attempted to use an uninitialized parameter in <method '{method}' of "
                      "'torch._C.TensorBase' objects>. This error happens when you are using a "
                      "`LazyModule` or explicitly manipulating "
                      f"`torch.nn.parameter.{kind}` objects. When using "
                      "LazyModules Call `forward` with a dummy batch to initialize the "
                      "parameters before calling torch functions")


class _Unshaped:
    """PyTorch's answers for the shape of a tensor that has none yet (``size()`` is
    ``torch.Size([0])`` there, as here). Other uses are not refused: leafgrad's ops read
    the (empty) array directly."""
    __slots__ = ()

    @property
    def shape(self):
        raise RuntimeError(_NO_SHAPE)

    def numel(self):
        raise _no_use("numel", type(self).__name__)

    def dim(self):
        raise _no_use("dim", type(self).__name__)


class UninitializedParameter(_Unshaped, Parameter):
    """A parameter without a shape yet; ``materialize(shape)`` gives it one (uninitialized
    values) and makes it a plain ``Parameter``."""
    __slots__ = ()
    cls_to_become = Parameter

    def __new__(cls, requires_grad=True, device=None, dtype=None):
        from ...tensor import _wrap
        d = _dt.get_default_dtype() if dtype is None else _dt.to_dtype(dtype)
        return super().__new__(cls, _wrap(np.empty((0,), d.np)), requires_grad)

    def materialize(self, shape, device=None, dtype=None) -> None:
        d = self._data.dtype if dtype is None else _dt.to_dtype(dtype).np
        self._data = np.empty(tuple(shape), d)
        self.__class__ = self.cls_to_become

    def __repr__(self) -> str:
        return f"<{type(self).__name__}>"


class UninitializedBuffer(_Unshaped, Tensor):
    """A buffer without a shape yet (see :class:`UninitializedParameter`)."""
    __slots__ = ()

    def __new__(cls, requires_grad=False, device=None, dtype=None):
        from ...tensor import _wrap
        d = _dt.get_default_dtype() if dtype is None else _dt.to_dtype(dtype)
        t = object.__new__(cls)
        base = _wrap(np.empty((0,), d.np))
        for slot in ("_data", "_grad_fn", "_requires_grad", "_vc"):
            setattr(t, slot, getattr(base, slot))
        return t

    def materialize(self, shape, device=None, dtype=None) -> None:
        d = self._data.dtype if dtype is None else _dt.to_dtype(dtype).np
        self._data = np.empty(tuple(shape), d)
        self.__class__ = Tensor

    def __repr__(self) -> str:
        return f"<{type(self).__name__}>"


def _uninitialized(module) -> bool:
    return any(isinstance(t, (UninitializedParameter, UninitializedBuffer))
               for t in list(module._parameters.values()) + list(module._buffers.values()))


class _LazyMixin:
    """Infers the missing sizes on the first call, then becomes ``cls_to_become``."""
    cls_to_become = None

    def __call__(self, *args, **kwargs):
        if _uninitialized(self):
            with no_grad():
                self.initialize_parameters(*args, **kwargs)
        self.__class__ = self.cls_to_become   # even with nothing to infer, as PyTorch
        return Module.__call__(self, *args, **kwargs)

    def has_uninitialized_params(self) -> bool:
        return _uninitialized(self)

    def reset_parameters(self) -> None:
        if not _uninitialized(self) and self._ready():
            super().reset_parameters()


class LazyLinear(_LazyMixin, Linear):
    """``Linear`` whose ``in_features`` is read from the first input's last dim."""
    cls_to_become = Linear

    def __init__(self, out_features: int, bias: bool = True, device=None, dtype=None) -> None:
        super().__init__(0, 0, False)
        self.weight = UninitializedParameter(dtype=dtype)
        self.out_features = out_features
        if bias:
            self.bias = UninitializedParameter(dtype=dtype)

    def _ready(self) -> bool:
        return self.in_features != 0

    def initialize_parameters(self, input, *args, **kwargs) -> None:
        self.in_features = input.shape[-1]
        self.weight.materialize((self.out_features, self.in_features))
        if self.bias is not None:
            self.bias.materialize((self.out_features,))
        self.reset_parameters()


class _LazyConv(_LazyMixin):
    def _lazy_init(self, out_channels, bias, dtype) -> None:
        self.weight = UninitializedParameter(dtype=dtype)
        self.out_channels = out_channels
        if bias:
            self.bias = UninitializedParameter(dtype=dtype)

    def _ready(self) -> bool:
        return self.in_channels != 0

    def initialize_parameters(self, input, *args, **kwargs) -> None:
        spatial = len(self.kernel_size)
        if input.dim() not in (spatial + 1, spatial + 2):
            raise RuntimeError(f"Expected {spatial + 1}D (unbatched) or {spatial + 2}D "
                               f"(batched) input to {type(self).__name__}, but got input of "
                               f"size: {list(input.shape)}")
        self.in_channels = input.shape[1] if input.dim() == spatial + 2 else input.shape[0]
        if self.in_channels % self.groups != 0:
            raise ValueError("in_channels must be divisible by groups")
        self.weight.materialize((self.out_channels, self.in_channels // self.groups)
                                + tuple(self.kernel_size))
        if self.bias is not None:
            self.bias.materialize((self.out_channels,))
        self.reset_parameters()


def _lazy_conv(name, eager):
    def __init__(self, out_channels, kernel_size, stride=1, padding=0, dilation=1, groups=1,
                 bias=True, padding_mode="zeros", device=None, dtype=None):
        eager.__init__(self, 0, 0, kernel_size, stride, padding, dilation, groups, False,
                       padding_mode)
        self._lazy_init(out_channels, bias, dtype)

    return type(name, (_LazyConv, eager), {"cls_to_become": eager, "__init__": __init__,
                                           "__doc__": f"``{eager.__name__}`` whose "
                                           f"``in_channels`` is read from the first input.",
                                           "__module__": __name__})


LazyConv1d = _lazy_conv("LazyConv1d", Conv1d)
LazyConv2d = _lazy_conv("LazyConv2d", Conv2d)
LazyConv3d = _lazy_conv("LazyConv3d", Conv3d)


class _LazyNorm(_LazyMixin):
    def _lazy_init(self, dtype, bias=True) -> None:
        if self.affine:
            self.weight = UninitializedParameter(dtype=dtype)
            if bias:
                self.bias = UninitializedParameter(dtype=dtype)
        if self.track_running_stats:
            self.running_mean = UninitializedBuffer(dtype=dtype)
            self.running_var = UninitializedBuffer(dtype=dtype)

    def _ready(self) -> bool:
        return self.num_features != 0

    def reset_running_stats(self) -> None:
        if not _uninitialized(self) and self._ready():
            super().reset_running_stats()

    def initialize_parameters(self, input, *args, **kwargs) -> None:
        self.num_features = input.shape[1]
        for name in ("weight", "bias", "running_mean", "running_var"):
            t = getattr(self, name, None)
            if isinstance(t, (UninitializedParameter, UninitializedBuffer)):
                t.materialize((self.num_features,))
        self.reset_parameters()


def _lazy_norm(name, eager, with_bias=False):
    def __init__(self, eps=1e-5, momentum=0.1, affine=True, track_running_stats=True,
                 device=None, dtype=None, **kw):
        bias = kw.pop("bias", True) if with_bias else True
        if kw:
            raise TypeError(f"{name}.__init__() got an unexpected keyword argument "
                            f"'{next(iter(kw))}'")
        eager.__init__(self, 0, eps, momentum, False, False)
        self.affine, self.track_running_stats = affine, track_running_stats
        self._lazy_init(dtype, bias)
        if track_running_stats:
            from ...factories import tensor
            self.num_batches_tracked = tensor(0, dtype=_dt.int64)

    return type(name, (_LazyNorm, eager), {"cls_to_become": eager, "__init__": __init__,
                                           "__doc__": f"``{eager.__name__}`` whose "
                                           f"``num_features`` is read from the first input.",
                                           "__module__": __name__})


LazyBatchNorm1d = _lazy_norm("LazyBatchNorm1d", BatchNorm1d)
LazyBatchNorm2d = _lazy_norm("LazyBatchNorm2d", BatchNorm2d)
LazyBatchNorm3d = _lazy_norm("LazyBatchNorm3d", BatchNorm3d)
LazyInstanceNorm1d = _lazy_norm("LazyInstanceNorm1d", InstanceNorm1d, with_bias=True)
LazyInstanceNorm2d = _lazy_norm("LazyInstanceNorm2d", InstanceNorm2d, with_bias=True)
LazyInstanceNorm3d = _lazy_norm("LazyInstanceNorm3d", InstanceNorm3d, with_bias=True)
