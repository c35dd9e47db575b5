"""``torch.utils.checkpoint``: activation checkpointing.

``checkpoint(fn, *args, use_reentrant=...)`` returns what ``fn(*args)`` returns, with the
same gradients. The reentrant variant (``use_reentrant=True``, still PyTorch's default, with a
warning when the argument is omitted) runs ``fn`` without recording a graph and recomputes it
in backward under the RNG state the forward saw (the surrounding RNG state is restored after),
so its outputs carry a ``CheckpointFunctionBackward`` node. The non-reentrant variant gives the
ordinary graph of ``fn``; here ``fn`` simply runs once (the values, gradients, ``grad_fn``
names and RNG stream a program sees are the same; only the memory saving is not reproduced).

>>> import leafgrad as torch
>>> from leafgrad.utils.checkpoint import checkpoint
>>> x = torch.ones(2, requires_grad=True)
>>> y = checkpoint(lambda t: (t * 3).sin(), x, use_reentrant=True)
>>> y.grad_fn.name()
'CheckpointFunctionBackward'
"""
from __future__ import annotations

import warnings

from ..tensor import Tensor

__all__ = ["checkpoint", "checkpoint_sequential"]


def _make_function():
    """The ``CheckpointFunction`` autograd.Function class (made on first use: autograd is a
    layer above utils' import time)."""
    import leafgrad
    from ..autograd.function import Function

    class CheckpointFunction(Function):
        @staticmethod
        def forward(ctx, run_function, preserve_rng_state, *args):
            if not any(a.requires_grad for a in args if isinstance(a, Tensor)):
                warnings.warn("None of the inputs have requires_grad=True. Gradients will "
                              "be None", stacklevel=2)
            ctx.run_function = run_function
            ctx.preserve_rng_state = preserve_rng_state
            if preserve_rng_state:
                ctx.fwd_cpu_state = leafgrad.get_rng_state()
            ctx.inputs = []
            ctx.tensor_indices = []
            tensor_inputs = []
            for i, arg in enumerate(args):
                if isinstance(arg, Tensor):
                    tensor_inputs.append(arg)
                    ctx.tensor_indices.append(i)
                    ctx.inputs.append(None)
                else:
                    ctx.inputs.append(arg)
            ctx.save_for_backward(*tensor_inputs)
            with leafgrad.no_grad():
                return run_function(*args)

        @staticmethod
        def backward(ctx, *grads):
            inputs = list(ctx.inputs)
            for i, idx in enumerate(ctx.tensor_indices):
                inputs[idx] = ctx.saved_tensors[i]
            with leafgrad.random.fork_rng(enabled=ctx.preserve_rng_state):
                if ctx.preserve_rng_state:
                    leafgrad.set_rng_state(ctx.fwd_cpu_state)
                detached = []
                for inp in inputs:
                    if isinstance(inp, Tensor):
                        d = inp.detach()
                        d.requires_grad = inp.requires_grad
                        inp = d
                    detached.append(inp)
                with leafgrad.enable_grad():
                    outputs = ctx.run_function(*detached)
            if isinstance(outputs, Tensor):
                outputs = (outputs,)
            outputs_with_grad, args_with_grad = [], []
            for out, g in zip(outputs, grads):
                if isinstance(out, Tensor) and out.requires_grad:
                    outputs_with_grad.append(out)
                    args_with_grad.append(g)
            if not outputs_with_grad:
                raise RuntimeError("none of output has requires_grad=True, this checkpoint() "
                                   "is not necessary")
            leafgrad.autograd.backward(outputs_with_grad, args_with_grad)
            return (None, None) + tuple(inp.grad if isinstance(inp, Tensor) else None
                                        for inp in detached)

    return CheckpointFunction


_FUNCTION = []


def checkpoint(function, *args, use_reentrant=None, context_fn=None,
               determinism_check="default", debug=False, early_stop=True, **kwargs):
    """``function(*args, **kwargs)``, its activations recomputed in backward (see the
    module's docstring for the two variants)."""
    if use_reentrant is None:
        warnings.warn(
            "torch.utils.checkpoint: the use_reentrant parameter should be passed "
            "explicitly. Starting in PyTorch 2.9, calling checkpoint without use_reentrant "
            "will raise an exception. use_reentrant=False is recommended, but if you need to "
            "preserve the current default behavior, you can pass use_reentrant=True. Refer to "
            "docs for more details on the differences between the two variants.",
            stacklevel=2)
        use_reentrant = True
    preserve = kwargs.pop("preserve_rng_state", True)
    if kwargs and use_reentrant:
        raise ValueError("Unexpected keyword arguments: " + ",".join(arg for arg in kwargs))
    if use_reentrant:
        if context_fn is not None or debug is not False:
            raise ValueError("Passing `context_fn` or `debug` is only supported when "
                             "use_reentrant=False.")
        if not _FUNCTION:
            _FUNCTION.append(_make_function())
        return _FUNCTION[0].apply(function, preserve, *args)
    from ..autograd import saved_hooks
    return saved_hooks.run_checkpointed(function, args, kwargs)


def checkpoint_sequential(functions, segments, input, use_reentrant=None, **kwargs):
    """Run ``functions`` (an ``nn.Sequential`` or a list) on ``input`` in ``segments`` chunks,
    checkpointing all but the last."""
    import leafgrad
    if use_reentrant is None:
        warnings.warn(
            "torch.utils.checkpoint.checkpoint_sequential: the use_reentrant parameter "
            "should be passed explicitly. In version 2.9 we will raise an exception if "
            "use_reentrant is not passed. use_reentrant=False is recommended, but if you "
            "need to preserve the current default behavior, you can pass "
            "use_reentrant=True. Refer to docs for more details on the differences between "
            "the two variants.", stacklevel=2)
        use_reentrant = True
    preserve = kwargs.pop("preserve_rng_state", True)
    if kwargs:
        raise ValueError("Unexpected keyword arguments: " + ",".join(arg for arg in kwargs))

    def run_function(start, end, functions):
        def forward(input):
            for j in range(start, end + 1):
                input = functions[j](input)
            return input
        return forward

    if isinstance(functions, leafgrad.nn.Sequential):
        functions = list(functions.children())
    segment_size = len(functions) // segments
    end = -1
    for start in range(0, segment_size * (segments - 1), segment_size):
        end = start + segment_size - 1
        input = checkpoint(run_function(start, end, functions), input,
                           use_reentrant=use_reentrant, preserve_rng_state=preserve)
    return run_function(end + 1, len(functions) - 1, functions)(input)
