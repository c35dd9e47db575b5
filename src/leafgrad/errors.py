"""PyTorch's autograd messages (../shared/reference/torch-messages.md) in one place."""
from __future__ import annotations

__all__ = ["BACKWARD_TWICE", "NON_LEAF_GRAD_WARNING", "tensor_type_str", "shape_str",
           "broadcast_error"]

BACKWARD_TWICE = (
    "Trying to backward through the graph a second time (or directly access saved tensors "
    "after they have already been freed). Saved intermediate values of the graph are freed "
    "when you call .backward() or autograd.grad(). Specify retain_graph=True if you need to "
    "backward through the graph a second time or if you need to access saved tensors after "
    "calling backward.")

NON_LEAF_GRAD_WARNING = (
    "The .grad attribute of a Tensor that is not a leaf Tensor is being accessed. Its .grad "
    "attribute won't be populated during autograd.backward(). If you indeed want the .grad "
    "field to be populated for a non-leaf Tensor, use .retain_grad() on the non-leaf Tensor. "
    "If you access the non-leaf Tensor by mistake, make sure you access the leaf Tensor "
    "instead. See github.com/pytorch/pytorch/pull/30531 for more information. (Triggered "
    "internally at /__w/pytorch/pytorch/build/aten/src/ATen/core/TensorBody.h:493.)")
# (the "Triggered internally" tail is part of the text PyTorch 2.13's wheel prints)

SCALAR_REQUIRES_GRAD = (
    "Converting a tensor with requires_grad=True to a scalar may lead to unexpected behavior.\n"
    "Consider using tensor.detach() first. (Triggered internally at "
    "/__w/pytorch/pytorch/torch/csrc/autograd/generated/python_variable_methods.cpp:822.)")

NUMPY_REQUIRES_GRAD = (
    "Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() instead.")

REQUIRES_GRAD_NONLEAF = (
    "you can only change requires_grad flags of leaf variables. If you want to use a computed "
    "variable in a subgraph that doesn't require differentiation use "
    "var_no_grad = var.detach().")

CREATE_GRAPH_WARNING = (
    "Using backward() with create_graph=True will create a reference cycle between the "
    "parameter and its gradient which can cause a memory leak. We recommend using "
    "autograd.grad when creating the graph to avoid this. If you have to use this function, "
    "make sure to reset the .grad fields of your parameters to None after use to break the "
    "cycle and avoid the leak.")


def shape_str(shape) -> str:
    """``[2, 3]`` as PyTorch writes sizes inside messages."""
    return "[" + ", ".join(str(s) for s in shape) + "]"


def tensor_type_str(t) -> str:
    """``torch.FloatTensor`` style name used in version-counter messages; PyTorch names a
    bool tensor by its dispatch key and scalar type there (``CPUBoolType``)."""
    if t.dtype.tensor_type == "BoolTensor":
        return "CPUBoolType"
    return "torch." + t.dtype.tensor_type


def broadcast_error(shapes):
    """PyTorch's RuntimeError for operand shapes that do not broadcast (None if they do).

    Shapes are folded left to right, as PyTorch's TensorIterator does: tensor a is the shape
    broadcast so far, tensor b the next operand; dims are checked from the right.
    """
    acc = ()
    for shape in shapes:
        n = max(len(acc), len(shape))
        a_full = (1,) * (n - len(acc)) + tuple(acc)
        b_full = (1,) * (n - len(shape)) + tuple(shape)
        for i in range(n - 1, -1, -1):
            a, b = a_full[i], b_full[i]
            if a != b and a != 1 and b != 1:
                return RuntimeError(f"The size of tensor a ({a}) must match the size of tensor "
                                    f"b ({b}) at non-singleton dimension {i}")
        acc = tuple(b if a == 1 else a for a, b in zip(a_full, b_full))
    return None


def no_dims_error(dim) -> IndexError:
    """PyTorch's error for ``size(dim)`` / ``stride(dim)`` of a 0-d tensor (any dim)."""
    return IndexError(f"Dimension specified as {dim} but tensor has no dimensions")
