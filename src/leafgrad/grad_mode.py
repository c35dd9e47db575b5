"""Thread-local grad and inference modes, each usable as a context manager and a decorator.

>>> import leafgrad as torch
>>> x = torch.ones(2, requires_grad=True)
>>> with torch.no_grad():
...     y = x * 2
>>> y.requires_grad
False
"""
from __future__ import annotations

import functools
import inspect
import threading

__all__ = ["no_grad", "enable_grad", "set_grad_enabled", "inference_mode", "is_grad_enabled",
           "is_inference_mode_enabled"]


class _ModeState(threading.local):
    # Each new thread starts with grad enabled and inference mode off, as in PyTorch.
    def __init__(self):
        self.grad_enabled = True
        self.inference = False


state = _ModeState()

# Note [Inference depth]
# ``inference_depth[0]`` counts the inference_mode(True) blocks open in the process, in any
# thread. Reading a thread-local attribute costs about as much as wrapping a new tensor, and
# every op result is wrapped, so ``tensor._wrap`` reads ``state.inference`` only while some
# block is open. The count changes under a lock so that threads cannot lose an update.
inference_depth = [0]
_depth_lock = threading.Lock()


def is_grad_enabled() -> bool:
    return state.grad_enabled


def is_inference_mode_enabled() -> bool:
    return state.inference


class _DecoratorContextManager:
    """Base: ``with mode():`` or ``@mode()`` (and ``@mode`` for the no-argument modes)."""

    def __call__(self, func):
        if inspect.isclass(func):
            raise TypeError(f"{type(self).__name__} cannot decorate a class")
        if inspect.isgeneratorfunction(func):
            @functools.wraps(func)
            def gen_wrapper(*args, **kwargs):
                gen = func(*args, **kwargs)
                with self.clone():
                    response = gen.send(None)
                while True:
                    try:
                        request = yield response
                    except GeneratorExit:
                        with self.clone():
                            gen.close()
                        raise
                    except BaseException as exc:
                        with self.clone():
                            response = gen.throw(exc)
                    else:
                        with self.clone():
                            response = gen.send(request)
            return gen_wrapper

        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            with self.clone():
                return func(*args, **kwargs)
        return wrapper

    def clone(self):
        return type(self)()


class no_grad(_DecoratorContextManager):
    """Disable graph recording inside the block (factories with requires_grad=True still work)."""

    def __new__(cls, orig_func=None):
        if orig_func is None:
            return super().__new__(cls)
        return cls()(orig_func)

    def __enter__(self):
        self.prev = state.grad_enabled
        state.grad_enabled = False

    def __exit__(self, *exc):
        state.grad_enabled = self.prev


class enable_grad(_DecoratorContextManager):
    """Enable graph recording inside the block, e.g. within ``no_grad``."""

    def __new__(cls, orig_func=None):
        if orig_func is None:
            return super().__new__(cls)
        return cls()(orig_func)

    def __enter__(self):
        self.prev = state.grad_enabled
        state.grad_enabled = True

    def __exit__(self, *exc):
        state.grad_enabled = self.prev


class set_grad_enabled(_DecoratorContextManager):
    """Set grad mode now (plain call), or for a block, or for a decorated function."""

    def __init__(self, mode: bool):
        self.prev = state.grad_enabled
        self.mode = bool(mode)
        state.grad_enabled = self.mode

    def __call__(self, func):
        state.grad_enabled = self.prev
        return super().__call__(func)

    def __enter__(self):
        state.grad_enabled = self.mode

    def __exit__(self, *exc):
        state.grad_enabled = self.prev

    def clone(self):
        return type(self)(self.mode)

    def __repr__(self) -> str:
        return f"torch.autograd.grad_mode.set_grad_enabled(mode={self.mode})"


class inference_mode(_DecoratorContextManager):
    """Like no_grad, and tensors made inside are inference tensors (see issue 3)."""

    def __new__(cls, mode=True):
        if isinstance(mode, bool):
            return super().__new__(cls)
        return cls()(mode)

    def __init__(self, mode: bool = True):
        self.mode = mode

    def __enter__(self):
        self.prev = (state.grad_enabled, state.inference)
        if self.mode:
            with _depth_lock:
                inference_depth[0] += 1
        state.grad_enabled = not self.mode
        state.inference = bool(self.mode)

    def __exit__(self, *exc):
        state.grad_enabled, state.inference = self.prev
        if self.mode:
            with _depth_lock:
                inference_depth[0] -= 1

    def clone(self):
        return type(self)(self.mode)
