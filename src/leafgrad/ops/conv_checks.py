"""``torch.convolution``'s argument checks, with PyTorch's messages (and the dtype/type names
they print). conv.py's record runs ``check_conv_args`` before its kernels."""
from __future__ import annotations

import math

import numpy as np

from .. import dtypes as _dt
from ..tensor import Tensor
from .tensor_utils import get_num_threads as _num_threads

__all__ = ["check_conv_args", "transposed_output_shape"]


def _size(shape) -> str:
    return "[" + ", ".join(str(s) for s in shape) + "]"


# PyTorch's C++ type names (caffe2::TypeMeta), used by some nn messages
_C_NAMES = {"float32": "float", "float64": "double", "float16": "c10::Half", "int64": "long int",
            "int32": "int", "int16": "short int", "int8": "signed char", "uint8": "unsigned char",
            "bool": "bool"}


# dtypes without a legacy tensor type: PyTorch's type string names the backend's type
_TYPE_NAMES = {"bool": "CPUBoolType", "complex64": "CPUComplexFloatType",
               "complex128": "CPUComplexDoubleType"}


def _type_name(d) -> str:
    name = _TYPE_NAMES.get(np.dtype(d).name)
    return name if name is not None else "torch." + _dt.from_numpy_dtype(d).tensor_type


def check_conv_args(input, weight, bias, stride, padding, dilation, transposed,
                    output_padding, groups) -> None:
    """PyTorch's argument checks of ``convolution`` (arrays or tensors; same messages)."""
    if any(s <= 0 for s in stride):
        raise RuntimeError("non-positive stride is not supported")
    if any(p < 0 for p in padding):
        raise RuntimeError("negative padding is not supported")
    if any(p < 0 for p in output_padding):
        raise RuntimeError("negative output_padding is not supported")
    if any(d <= 0 for d in dilation):
        raise RuntimeError("non-positive dilation is not supported")
    if groups <= 0:
        raise RuntimeError("non-positive groups is not supported")
    ish, wsh = tuple(input.shape), tuple(weight.shape)
    k = len(wsh)
    if len(ish) != k:
        raise RuntimeError(f"Expected {k}-dimensional input for {k}-dimensional weight "
                           f"{_size(wsh)}, but got {len(ish)}-dimensional input of size "
                           f"{_size(ish)} instead")
    if wsh[0] < groups:
        raise RuntimeError(f"Given groups={groups}, expected weight to be at least {groups} at "
                           f"dimension 0, but got weight of size {_size(wsh)} instead")
    if wsh[0] % groups:
        raise RuntimeError(f"Given groups={groups}, expected weight to be divisible by "
                           f"{groups} at dimension 0, but got weight of size [{_size(wsh)}] "
                           "instead")
    bsh = None if bias is None else tuple(bias.shape)
    if not transposed:
        if ish[1] != wsh[1] * groups:
            raise RuntimeError(f"Given groups={groups}, weight of size {_size(wsh)}, expected "
                               f"input{_size(ish)} to have {wsh[1] * groups} channels, but "
                               f"got {ish[1]} channels instead")
        if bsh is not None and (len(bsh) != 1 or bsh[0] != wsh[0]):
            raise RuntimeError(f"Given weight of size {_size(wsh)}, expected bias to be "
                               f"1-dimensional with {wsh[0]} elements, but got bias of size "
                               f"{_size(bsh)} instead")
        padded = [ish[2 + i] + 2 * padding[i] for i in range(k - 2)]
        kernel = [dilation[i] * (wsh[2 + i] - 1) + 1 for i in range(k - 2)]
        if any(kk > pp for kk, pp in zip(kernel, padded)):
            raise RuntimeError(
                f"Calculated padded input size per channel: ({' x '.join(map(str, padded))}). "
                f"Kernel size: ({' x '.join(map(str, kernel))}). Kernel size can't be greater "
                "than actual input size")
    else:
        if ish[1] != wsh[0]:
            raise RuntimeError(f"Given transposed=1, weight of size {_size(wsh)}, expected "
                               f"input{_size(ish)} to have {wsh[0]} channels, but got "
                               f"{ish[1]} channels instead")
        out_ch = wsh[1] * groups
        if bsh is not None and (len(bsh) != 1 or bsh[0] != out_ch):
            raise RuntimeError(f"Given transposed=1, weight of size {_size(wsh)}, expected "
                               f"bias to be 1-dimensional with {out_ch} elements, but got "
                               f"bias of size {_size(bsh)} instead")
        if any(output_padding[i] >= stride[i] and output_padding[i] >= dilation[i]
               for i in range(k - 2)):
            # 1-d transposed convolutions run as 2-d ones in PyTorch, so it names height and
            # width there (with a unit height); 3-d ones add the depth
            names = ("depth", "height", "width")[-max(k - 2, 2):]
            lift = [0] if k == 3 else []
            pads, ss, ds = (lift + list(output_padding), [1] * len(lift) + list(stride),
                            [1] * len(lift) + list(dilation))
            raise RuntimeError(
                "output padding must be smaller than either stride or dilation, but got "
                + " ".join(f"output_padding_{nm}: {v}" for nm, v in zip(names, pads)) + " "
                + " ".join(f"stride_{nm}: {v}" for nm, v in zip(names, ss)) + " "
                + " ".join(f"dilation_{nm}: {v}" for nm, v in zip(names, ds)))
    idt, wdt = input.dtype, weight.dtype
    if isinstance(input, Tensor):
        idt, wdt = input._data.dtype, weight._data.dtype
    bdt = None if bias is None else bias._data.dtype if isinstance(bias, Tensor) else \
        bias.dtype
    if ish[0] == 0 or ish[1] == 0:
        # PyTorch's "empty" backend: no kernel runs (so no dtype checks); it multiplies the
        # input by the weight's first element, which must exist
        if ish[1] != 0 and math.prod(wsh) == 0:
            raise IndexError("select(): index 0 out of range for tensor of size [0] at "
                             "dimension 0")
        return
    if math.prod(ish) == 0:
        raise RuntimeError("Only zero batch or zero channel inputs are supported, but got input "
                           f"shape: {_size(_as_2d(ish))}")
    mkldnn = idt == np.float32 and _use_mkldnn(ish, wsh, stride, dilation, transposed,
                                               output_padding, groups)
    if not mkldnn and math.prod(wsh) == 0:
        _check_empty_weight(wsh, transposed, dilation)
    if transposed and not mkldnn:   # the slow transposed kernels check their output size
        _check_transposed_size(ish, wsh, stride, padding, dilation, output_padding)
    if idt.kind in "biu" and idt != np.int64:
        # the slow kernels' dtype dispatch comes before their weight and bias checks
        _check_kernel_dtype(idt, transposed, k, wsh, stride, padding, dilation, groups)
    if idt != wdt:
        if not mkldnn:
            raise RuntimeError(f"expected scalar type {_dt.from_numpy_dtype(idt).tensor_type[:-6]}"
                               f" but found {_dt.from_numpy_dtype(wdt).tensor_type[:-6]}")
        raise RuntimeError(f"Input type ({_type_name(idt)}) and weight type ({_type_name(wdt)}) "
                           "should be the same or input should be a MKLDNN tensor and weight "
                           "is a dense tensor")
    if bdt is not None and bdt != idt:
        if transposed:
            _check_transposed_bias(idt, bdt, mkldnn, k)
        elif mkldnn:   # the slow kernels add a bias of another dtype into the output
            raise RuntimeError(f"Input type ({_type_name(idt)}) and bias type "
                               f"({_type_name(bdt)}) should be the same or input should be a "
                               "MKLDNN tensor and bias is a dense tensor")


def _use_mkldnn(ish, wsh, stride, dilation, transposed, output_padding, groups) -> bool:
    """Whether PyTorch runs a float32 convolution with MKLDNN (whose messages differ from the
    slow kernels'): not a transposed one whose output padding reaches its stride; else an
    unstrided, undilated 1x1 kernel on a batch under 16 on one thread is left to the slow
    path, and of the rest only grouped ones, kernels over 3x3 both ways, batches over one
    and inputs over 20480 elements (counted over four dims) take it. A 1-d convolution
    runs as a 2-d one of unit height."""
    if transposed and any(p >= s for p, s in zip(output_padding, stride)):
        return False
    i4, w4 = _as_2d(ish), _as_2d(wsh)
    if not (any(v != 1 for v in stride) or any(v != 1 for v in dilation) or i4[0] >= 16
            or w4[-1] != 1 or w4[-2] != 1 or _num_threads() > 1):
        return False
    return (groups > 1 or (w4[-1] > 3 and w4[-2] > 3) or i4[0] > 1
            or i4[0] * i4[1] * i4[2] * i4[3] > 20480)


def _as_2d(shape) -> tuple:
    """PyTorch runs a 1-d convolution as a 2-d one of unit height (its messages say so)."""
    return tuple(shape[:2]) + (1,) + tuple(shape[2:]) if len(shape) == 3 else tuple(shape)


def _check_empty_weight(wsh, transposed: bool, dilation) -> None:
    """The slow kernels' shape checks of a weight with a zero-size dim (the channel dims of
    a non-transposed one cannot be zero here)."""
    w2 = _as_2d(wsh)
    if transposed and len(wsh) == 5:
        raise RuntimeError("non-empty 5D (n_output_plane x n_input_plane x kernel_depth x "
                           "kernel_height x kernel_width) tensor expected for weight, but got: "
                           f"{_size(wsh)}")
    if min(wsh[2:]) == 0:
        if len(wsh) == 5:
            raise RuntimeError("kernel size should be greater than zero, but got: "
                               f"{' x '.join(map(str, wsh[2:]))} (TxHxW)")
        if not transposed and any(d != 1 for d in dilation):
            raise RuntimeError(f"kernel size should be greater than zero, but got {_size(w2[2:])}")
        raise RuntimeError(f"kernel size should be greater than zero, but got kernel_height: "
                           f"{w2[2]} kernel_width: {w2[3]}")
    if transposed:
        raise RuntimeError(f"non-empty 2D or 4D weight tensor expected, but got: {_size(w2)}")


def _check_transposed_size(ish, wsh, stride, padding, dilation, output_padding) -> None:
    out = transposed_output_shape(ish, wsh, stride, padding, dilation, output_padding, 1)[2:]
    if min(out) < 1:
        lift = (1,) if len(ish) == 3 else ()
        raise RuntimeError(
            f"Given input size per channel: ({' x '.join(map(str, lift + tuple(ish[2:])))}). "
            f"Calculated output size per channel: ({' x '.join(map(str, lift + tuple(out)))}). "
            "Output size is too small")


def _check_kernel_dtype(idt, transposed, k, wsh, stride, padding, dilation, groups) -> None:
    """The CPU kernels' dtype dispatch: the plain 2-d/3-d ones take every dtype but bool;
    the dilated and transposed ones only floats and int64."""
    name = _dt.from_numpy_dtype(idt).tensor_type[:-6]
    if transposed:
        kernel = f"slow_conv_transpose{3 if k == 5 else 2}d_out_cpu"
    elif any(d != 1 for d in dilation):
        kernel = "slow_conv_dilated<>"
    elif idt != np.bool_:
        return
    elif k < 5:
        kernel = "slow_conv2d_cpu"
    elif (all(v == 1 for v in wsh[2:]) and all(v == 1 for v in stride)
          and not any(padding) and groups == 1):
        kernel = "slow_conv3d_cpu"
    else:
        kernel = "compute_columns3d"
    raise NotImplementedError(f'"{kernel}" not implemented for \'{name}\'')


def _check_transposed_bias(idt, bdt, mkldnn: bool, k: int) -> None:
    """A transposed convolution's bias of another dtype: the MKLDNN path and the
    3-d kernels refuse it; the 1-d/2-d ones add it into the output in place, so only a cast
    the output's dtype cannot take (a float bias into an integer output) fails."""
    if mkldnn:
        raise RuntimeError(f"Input type ({_type_name(idt)}) and bias type ({_type_name(bdt)}) "
                           "should be the same or input should be a MKLDNN tensor and bias is "
                           "a dense tensor")
    if k == 5:
        raise RuntimeError(f"expected scalar type {_dt.from_numpy_dtype(idt).tensor_type[:-6]}"
                           f" but found {_dt.from_numpy_dtype(bdt).tensor_type[:-6]}")
    if idt.kind in "iub" and bdt.kind in "fc":
        raise RuntimeError(f"result type {_dt.from_numpy_dtype(bdt).tensor_type[:-6]} can't "
                           f"be cast to the desired output type "
                           f"{_dt.from_numpy_dtype(idt).tensor_type[:-6]}")


def transposed_output_shape(x_shape, w_shape, stride, padding, dilation, output_padding,
                            groups) -> tuple:
    """The output shape of a transposed convolution."""
    spatial = tuple((x_shape[2 + i] - 1) * stride[i] - 2 * padding[i]
                    + dilation[i] * (w_shape[2 + i] - 1) + output_padding[i] + 1
                    for i in range(len(x_shape) - 2))
    return (x_shape[0], w_shape[1] * groups) + spatial
