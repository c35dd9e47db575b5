"""Saved-tensor hooks (``torch.autograd.graph.saved_tensors_hooks`` and kin) against PyTorch:
which tensors are packed and unpacked, in what order and how often, the values and gradients
that result, the errors and their texts, freeing, nesting and threads."""
from __future__ import annotations

import gc
import re
import threading
import weakref

import pytest

from tests.oracle import same_on_both


def _name(fn):
    return None if fn is None else type(fn).__name__


class Log:
    """Hooks that record what they see: shape, dtype, requires_grad, grad_fn name, and
    which of the ``known`` tensors (by name) the argument is."""

    def __init__(self, known=None, pack=None, unpack=None):
        self.events = []
        self.known = known if known is not None else {}
        self._pack = pack or (lambda t: t)
        self._unpack = unpack or (lambda t: t)

    def _who(self, t):
        return next((k for k, v in self.known.items() if v is t), None)

    def pack(self, t):
        self.events.append(("pack", tuple(t.shape), str(t.dtype), t.requires_grad,
                            _name(t.grad_fn), self._who(t)))
        return self._pack(t)

    def unpack(self, obj):
        t = self._unpack(obj)
        self.events.append(("unpack", tuple(t.shape), _name(t.grad_fn)))
        return t

    def hooks(self, lib):
        return lib.autograd.graph.saved_tensors_hooks(self.pack, self.unpack)


def _inputs(lib):
    x = lib.tensor([[0.5, -1.0, 2.0], [1.5, 0.25, -0.75]], requires_grad=True)
    w = lib.tensor([0.3, -0.2, 0.9], requires_grad=True)
    e = lib.tensor([[0.1, 0.2, 0.3]], requires_grad=True)
    c = lib.tensor([[2.0, 3.0, 4.0], [5.0, 6.0, 7.0]])
    return x, w, e, c


OPS = {
    "mul": lambda lib, x, w, e, c: x * w,
    "mul_self": lambda lib, x, w, e, c: x * x,
    "mul_const_tensor": lambda lib, x, w, e, c: x * c,
    "mul_number": lambda lib, x, w, e, c: x * 2,
    "div": lambda lib, x, w, e, c: x / w,
    "add": lambda lib, x, w, e, c: x + w,
    "sub_alpha": lambda lib, x, w, e, c: lib.sub(x, w, alpha=2),
    "lerp": lambda lib, x, w, e, c: lib.lerp(x, e, w),
    "addcmul": lambda lib, x, w, e, c: lib.addcmul(x, e, w),
    "addcdiv": lambda lib, x, w, e, c: lib.addcdiv(x, e, w + 2),
    "exp": lambda lib, x, w, e, c: x.exp(),
    "sin": lambda lib, x, w, e, c: x.sin(),
    "tanh": lambda lib, x, w, e, c: x.tanh(),
    "sigmoid": lambda lib, x, w, e, c: x.sigmoid(),
    "relu": lambda lib, x, w, e, c: x.relu(),
    "sqrt": lambda lib, x, w, e, c: (x * x).sqrt(),
    "pow_number": lambda lib, x, w, e, c: x.pow(2),
    "pow_tensor": lambda lib, x, w, e, c: (x * x + 1).pow(w),
    "sum": lambda lib, x, w, e, c: x.sum(),
    "mean": lambda lib, x, w, e, c: x.mean(),
    "mm": lambda lib, x, w, e, c: lib.mm(x, x.t()),
    "matmul_vec": lambda lib, x, w, e, c: x.matmul(w),
    "matmul_mat": lambda lib, x, w, e, c: x.matmul(x.t()),
    "dot": lambda lib, x, w, e, c: w.dot(w * 2),
    "bmm": lambda lib, x, w, e, c: lib.bmm(x[None], x.t()[None]),
    "linear": lambda lib, x, w, e, c: lib.nn.functional.linear(x, e, w[:1]),
    "softmax": lambda lib, x, w, e, c: x.softmax(1),
    "log_softmax": lambda lib, x, w, e, c: x.log_softmax(1),
    "mse_loss": lambda lib, x, w, e, c: lib.nn.functional.mse_loss(x, c),
    "view_sin": lambda lib, x, w, e, c: x[:, 1:].sin(),
    "clone": lambda lib, x, w, e, c: x.clone(),
    "max_dim": lambda lib, x, w, e, c: x.max(1)[0],
    "where": lambda lib, x, w, e, c: lib.where(c > 3, x, w),
}


# more ops of one input x (2 x 3); what they pack differs from PyTorch for layer_norm,
# batch_norm and nll_loss / cross_entropy (PyTorch also saves mean / rstd and total_weight,
# which leafgrad's records do not keep) and for in-place ops that save their input's old
# value (PyTorch saves a clone of it)
OPS_X = {
    "conv2d": lambda lib, x: lib.nn.functional.conv2d(
        x.reshape(1, 1, 2, 3), lib.ones(2, 1, 2, 2, requires_grad=True),
        lib.ones(2, requires_grad=True)),
    "dropout0": lambda lib, x: lib.nn.functional.dropout(x, 0.0),
    "embedding": lambda lib, x: lib.nn.functional.embedding(lib.tensor([0, 1, 1]), x),
    "gelu": lambda lib, x: lib.nn.functional.gelu(x),
    "silu": lambda lib, x: lib.nn.functional.silu(x),
    "leaky_relu": lambda lib, x: lib.nn.functional.leaky_relu(x),
    "softplus": lambda lib, x: lib.nn.functional.softplus(x),
    "bce_logits": lambda lib, x: lib.nn.functional.binary_cross_entropy_with_logits(
        x, lib.ones(2, 3)),
    "max_pool1d": lambda lib, x: lib.nn.functional.max_pool1d(x.reshape(1, 2, 3), 2),
    "abs": lambda lib, x: x.abs(),
    "log": lambda lib, x: (x * x + 1).log(),
    "norm": lambda lib, x: x.norm(),
    "var": lambda lib, x: x.var(1),
    "std_mean": lambda lib, x: x.std_mean(1)[0],
    "logsumexp": lambda lib, x: x.logsumexp(1),
    "prod": lambda lib, x: x.prod(),
    "cumsum": lambda lib, x: x.cumsum(1),
    "index": lambda lib, x: x[lib.tensor([1, 0])],
    "index_slice": lambda lib, x: x[:, lib.tensor([2, 0])],
    "gather": lambda lib, x: x.gather(1, lib.tensor([[0], [2]])),
    "clamp": lambda lib, x: x.clamp(-0.5, 0.5),
    "maximum": lambda lib, x: lib.maximum(x, x.flip(0)),
    "expand_mul": lambda lib, x: x.expand(2, 2, 3) * x,
    "masked_fill": lambda lib, x: x.masked_fill(x > 0, 0.0),
    "topk": lambda lib, x: x.topk(2)[0],
    "sort": lambda lib, x: x.sort(1)[0],
    "exp_": lambda lib, x: (x * 1).exp_(),
    "setitem": lambda lib, x: (lambda y: (y.__setitem__(0, x[1]), y)[1])(x * 1),
}


@pytest.mark.parametrize("op", sorted(OPS_X))
def test_pack_and_unpack_calls_more_ops(op):
    def program(lib):
        x = lib.tensor([[0.5, -1.0, 2.0], [1.5, 0.25, -0.75]], requires_grad=True)
        log = Log({"x": x})
        with log.hooks(lib):
            y = OPS_X[op](lib, x)
        packed = list(log.events)
        log.events.clear()
        y.sum().backward()
        return packed, log.events, x.grad
    same_on_both(program)


@pytest.mark.parametrize("op", sorted(OPS))
def test_pack_and_unpack_calls_per_op(op):
    """What each op packs (which tensor, in PyTorch's order), what backward unpacks, and the
    gradients that come out."""
    def program(lib):
        x, w, e, c = _inputs(lib)
        log = Log({"x": x, "w": w, "e": e, "c": c})
        with log.hooks(lib):
            y = OPS[op](lib, x, w, e, c)
        packed = list(log.events)
        log.events.clear()
        y.sum().backward()
        return packed, log.events, x.grad, w.grad, e.grad
    same_on_both(program)


def test_saved_result_is_unpacked_each_read():
    def program(lib):
        x = lib.tensor([0.5, 1.0, 2.0], requires_grad=True)
        log = Log()
        with log.hooks(lib):
            y = x.exp()
        log.known["y"] = y
        r1 = y.grad_fn._saved_result
        r2 = y.grad_fn._saved_result
        s = x.sin()
        with log.hooks(lib):
            s = x.sin()
        saved_self = s.grad_fn._saved_self
        return (log.events, r1, r1 is y, r2 is r1, _name(r1.grad_fn), r1.requires_grad,
                saved_self is x, saved_self.requires_grad, saved_self.is_leaf,
                _name(saved_self.grad_fn), r1._version)
    same_on_both(program)


def test_outputs_and_inputs_reach_pack_hook_as_themselves():
    def program(lib):
        x = lib.tensor([0.5, 1.0, 2.0], requires_grad=True)
        seen = []
        with lib.autograd.graph.saved_tensors_hooks(lambda t: seen.append(t) or t,
                                                    lambda t: t):
            y = x.exp()
            z = y.sin()
        return [s is x for s in seen], [s is y for s in seen], [s is z for s in seen]
    same_on_both(program)


def test_packed_objects_of_any_type():
    def program(lib):
        x = lib.tensor([0.5, 1.0, 2.0], requires_grad=True)
        with lib.autograd.graph.saved_tensors_hooks(lambda t: ("packed", t.detach()),
                                                    lambda o: o[1]):
            y = (x * x.exp()).sum()
        y.backward()
        return x.grad
    same_on_both(program)


@pytest.mark.parametrize("unpack", ["int", "none", "list"])
def test_unpack_must_return_a_tensor(unpack):
    results = {"int": lambda t: 42, "none": lambda t: None, "list": lambda t: [t]}

    def program(lib):
        x = lib.tensor([0.5, 1.0, 2.0], requires_grad=True)
        with lib.autograd.graph.saved_tensors_hooks(lambda t: t.detach(), results[unpack]):
            y = x.exp()
        y.sum().backward()
    same_on_both(program)


@pytest.mark.parametrize("case", ["shape_error", "broadcast", "double", "double_mul"])
def test_unpack_changing_shape_or_dtype(case):
    """PyTorch's formula meets the unpacked tensor as it is; the engine then reduces and casts
    the gradients to each input's shape and dtype."""
    def program(lib):
        x = lib.tensor([0.5, 1.0, 2.0], requires_grad=True)
        unpack = {"shape_error": lambda o: o[:2], "broadcast": lambda o: o.reshape(3, 1),
                  "double": lambda o: o.double(), "double_mul": lambda o: o.double()}[case]
        with lib.autograd.graph.saved_tensors_hooks(lambda t: t.detach(), unpack):
            y = x.exp() if case in ("shape_error", "double") else x * x.detach()
        y.sum().backward()
        return x.grad
    same_on_both(program)


def test_exceptions_in_hooks_propagate():
    class Boom(Exception):
        pass

    def bad(t):
        raise ValueError("boom")

    def pack_raises(lib):
        x = lib.ones(3, requires_grad=True)
        with lib.autograd.graph.saved_tensors_hooks(bad, lambda t: t):
            x.exp()

    def unpack_raises(lib):
        x = lib.ones(3, requires_grad=True)
        with lib.autograd.graph.saved_tensors_hooks(lambda t: t, bad):
            y = x.exp()
        out = []
        for f in (lambda: y.grad_fn._saved_result, lambda: y.sum().backward()):
            try:
                f()
            except ValueError as exc:
                out.append(str(exc))
        return out

    def hooks_popped_after_error(lib):
        x = lib.ones(3, requires_grad=True)
        calls = []
        try:
            with lib.autograd.graph.saved_tensors_hooks(lambda t: calls.append(1) or t,
                                                        lambda t: t):
                raise Boom()
        except Boom:
            pass
        x.exp()
        return calls
    same_on_both(pack_raises)
    same_on_both(unpack_raises)
    same_on_both(hooks_popped_after_error)


@pytest.mark.parametrize("pack", ["identity", "clone"])
def test_no_version_check_through_hooks(pack):
    """With hooks PyTorch cannot follow versions: an in-place change after saving is no
    error, and backward sees whatever unpack_hook returns."""
    def program(lib):
        a = lib.tensor([0.25, 0.75, 1.5], requires_grad=True)
        b = a * 1
        p = (lambda t: t) if pack == "identity" else (lambda t: t.clone())
        with lib.autograd.graph.saved_tensors_hooks(p, lambda t: t):
            d = b.sin()
            e = b.exp()
        b.add_(1)
        (d.sum() + e.sum()).backward()
        return a.grad
    same_on_both(program)


def test_pack_hook_changing_its_input_in_place():
    def program(lib):
        x = lib.ones(3, requires_grad=True)
        b = x * 1

        def pack(t):
            t.detach().add_(1)
            return t
        with lib.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
            b.exp()
    same_on_both(program)


def test_retain_graph_and_freeing_texts():
    def program(lib):
        a = lib.tensor([0.5, 1.0, 2.0], requires_grad=True)
        counts = [0, 0]

        def pack(t):
            counts[0] += 1
            return t.detach()

        def unpack(t):
            counts[1] += 1
            return t
        with lib.autograd.graph.saved_tensors_hooks(pack, unpack):
            y = (a * a).sum()
        out = [list(counts)]
        y.backward(retain_graph=True)
        out.append(list(counts))
        y.backward()
        out.append(list(counts))
        node = y.grad_fn.next_functions[0][0]
        for f in (lambda: y.backward(), lambda: node._saved_self,
                  lambda: node._raw_saved_self.register_hooks(lambda t: t, lambda t: t)):
            try:
                f()
            except RuntimeError as exc:
                out.append(str(exc))
        out.append(list(counts))
        return out, a.grad
    same_on_both(program)


def test_packed_objects_are_released_after_backward():
    class Box:
        def __init__(self, t):
            self.t = t

    def program(lib):
        gc.disable()
        try:
            x = lib.tensor([0.5, 1.0, 2.0], requires_grad=True)
            boxes = []

            def pack(t):
                box = Box(t.detach())
                boxes.append(weakref.ref(box))
                return box
            with lib.autograd.graph.saved_tensors_hooks(pack, lambda b: b.t):
                y = (x.exp() * x).sum()
            alive_before = [r() is not None for r in boxes]
            y.backward(retain_graph=True)
            alive_retained = [r() is not None for r in boxes]
            y.backward()
            alive_after = [r() is not None for r in boxes]
            with lib.autograd.graph.saved_tensors_hooks(pack, lambda b: b.t):
                z = x.sin()
            del z
            alive_dropped = [r() is not None for r in boxes]
            return alive_before, alive_retained, alive_after, alive_dropped
        finally:
            gc.enable()
    same_on_both(program)


def test_no_hooks_under_no_grad_or_inference_mode():
    def program(lib):
        x = lib.ones(3, requires_grad=True)
        log = Log()
        with log.hooks(lib):
            with lib.no_grad():
                x.exp()
            with lib.inference_mode():
                x.exp()
            y = x.detach().exp()
        return log.events, y.requires_grad
    same_on_both(program)


def test_nesting_innermost_wins():
    def program(lib):
        x = lib.tensor([0.5, 1.0, 2.0], requires_grad=True)
        log = []
        G = lib.autograd.graph
        with G.saved_tensors_hooks(lambda t: log.append("pack outer") or t,
                                   lambda t: log.append("unpack outer") or t):
            with G.saved_tensors_hooks(lambda t: log.append("pack inner") or t,
                                       lambda t: log.append("unpack inner") or t):
                y = x.exp()
            z = x.sin()
        w = x.cos()
        (y + z + w).sum().backward()
        return log, x.grad
    same_on_both(program)


def test_disable_saved_tensors_hooks():
    def program(lib):
        G = lib.autograd.graph
        x = lib.ones(3, requires_grad=True)
        out = []

        def attempt(f):
            try:
                f()
                out.append("ok")
            except (RuntimeError, TypeError) as exc:
                out.append((type(exc).__name__, str(exc)))

        def disable_then_hooks():
            with G.disable_saved_tensors_hooks("no hooks here"):
                out.append("inside")
                x.exp()
                with G.saved_tensors_hooks(lambda t: t, lambda t: t):
                    out.append("not reached")

        def hooks_then_disable():
            with G.saved_tensors_hooks(lambda t: t, lambda t: t):
                with G.disable_saved_tensors_hooks("disabled inside"):
                    out.append("not reached")

        def nested():
            with G.disable_saved_tensors_hooks("outer"):
                with G.disable_saved_tensors_hooks("inner"):
                    pass
                with G.save_on_cpu():
                    pass

        def as_decorator():
            @G.disable_saved_tensors_hooks("decorated")
            def f():
                with G.saved_tensors_hooks(lambda t: t, lambda t: t):
                    pass
            f()

        attempt(disable_then_hooks)
        attempt(hooks_then_disable)
        attempt(nested)
        attempt(as_decorator)
        attempt(lambda: G.disable_saved_tensors_hooks(3).__enter__())
        # everything was restored: hooks can be set again
        log = Log()
        with log.hooks(lib):
            x.exp()
        out.append(len(log.events))
        return out
    same_on_both(program)


def test_hooks_are_per_thread():
    def program(lib):
        x = lib.tensor([0.5, 1.0, 2.0], requires_grad=True)
        events = {"main": [], "worker": []}
        ready, go = threading.Event(), threading.Event()
        grads = {}

        def worker():
            with lib.autograd.graph.saved_tensors_hooks(
                    lambda t: events["worker"].append("pack") or t,
                    lambda t: events["worker"].append("unpack") or t):
                ready.set()
                go.wait(10)
                y = x.exp()
            grads["worker"] = lib.autograd.grad(y.sum(), x)[0]
            plain = x.sin()
            events["worker"].append(plain.requires_grad)

        t = threading.Thread(target=worker)
        t.start()
        ready.wait(10)
        with lib.autograd.graph.saved_tensors_hooks(
                lambda t: events["main"].append("pack") or t,
                lambda t: events["main"].append("unpack") or t):
            z = x.cos() * x
        go.set()
        t.join(10)
        other = threading.Thread(target=lambda: events.setdefault("late", []).append(
            x.tanh().requires_grad))
        other.start()
        other.join(10)
        grads["main"] = lib.autograd.grad(z.sum(), x)[0]
        return events, grads
    same_on_both(program)


def _no_address(text):
    return re.sub(r"0x[0-9a-f]+", "0x", text).replace("leafgrad", "torch")


def test_register_hooks_on_raw_saved():
    def program(lib):
        x = lib.tensor([0.5, 1.0, 2.0], requires_grad=True)
        out = []
        y = x.exp()
        raw = y.grad_fn._raw_saved_result
        out.append(raw is y.grad_fn._raw_saved_result)
        out.append(raw.unpack_hook is None)
        out.append(raw.data)
        log = Log({"x": x, "y": y})
        raw.register_hooks(log.pack, log.unpack)
        out.append(list(log.events))
        out.append(raw.unpack_hook == log.unpack)
        out.append(y.grad_fn._saved_result)
        for f in (lambda: raw.register_hooks(lambda t: t, lambda t: t),
                  lambda: (x * lib.ones(3)).grad_fn._raw_saved_self.register_hooks(
                      lambda t: t, lambda t: t)):
            try:
                f()
            except RuntimeError as exc:
                out.append(str(exc))
        for args in ((1, 2), (lambda t: t,)):
            try:
                x.sin().grad_fn._raw_saved_self.register_hooks(*args)
            except TypeError as exc:
                out.append(_no_address(str(exc)).split("Invoked with")[0])
        y.sum().backward()
        out.append(log.events)
        out.append(x.grad)
        with lib.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: t):
            z = x.exp()
        try:
            z.grad_fn._raw_saved_result.register_hooks(lambda t: t, lambda t: t)
        except RuntimeError as exc:
            out.append(str(exc))
        return out
    same_on_both(program)


def test_register_hooks_on_an_input_skips_its_version_check():
    def program(lib):
        x = lib.tensor([0.5, 1.0, 2.0], requires_grad=True)
        b = x * 1
        s = b.sin()
        s.grad_fn._raw_saved_self.register_hooks(lambda t: t.clone(), lambda t: t)
        b.add_(1)
        s.sum().backward()
        return x.grad
    same_on_both(program)


def test_custom_function_saves_through_hooks():
    def program(lib):
        class F(lib.autograd.Function):
            @staticmethod
            def forward(ctx, a, b):
                out = a * b
                ctx.save_for_backward(b, a, out)
                return out

            @staticmethod
            def backward(ctx, g):
                b, a, out = ctx.saved_tensors
                return g * b, g * a + out * 0

        a = lib.tensor([1.0, 2.0], requires_grad=True)
        b = lib.tensor([3.0, 4.0], requires_grad=True)
        log = Log({"a": a, "b": b}, pack=lambda t: t.detach())
        with log.hooks(lib):
            o = F.apply(a, b)
        packed = list(log.events)
        n_raw = len(o.grad_fn._raw_saved_tensors)
        log.events.clear()
        o.sum().backward()
        try:
            _ = o.grad_fn.saved_tensors
        except RuntimeError as exc:
            freed = str(exc)
        return packed, n_raw, log.events, a.grad, b.grad, freed
    same_on_both(program)


def test_save_on_cpu():
    def program(lib):
        x = lib.tensor([0.5, 1.0, 2.0], requires_grad=True)
        with lib.autograd.graph.save_on_cpu():
            y = (x.exp() * x).sum()
        saved = y.grad_fn.next_functions[0][0]._saved_self
        with lib.autograd.graph.save_on_cpu(pin_memory=True):
            z = (x.sin() * x).sum()
        (y + z).backward()
        return saved, x.grad, type(lib.autograd.graph.save_on_cpu()).__name__
    same_on_both(program)


@pytest.mark.parametrize("pack", ["detach", "clone", "identity"])
def test_double_backward_through_hooks(pack):
    def program(lib):
        x = lib.tensor([0.5, 1.0, 2.0], requires_grad=True)
        p = {"detach": lambda t: t.detach(), "clone": lambda t: t.clone(),
             "identity": lambda t: t}[pack]
        with lib.autograd.graph.saved_tensors_hooks(p, lambda t: t):
            y = (x * x * x).sum() + (x.exp() * x).sum()
        g, = lib.autograd.grad(y, x, create_graph=True)
        g.sum().backward()
        return g, x.grad
    same_on_both(program)


def test_inplace_op_and_multi_output_under_hooks():
    def program(lib):
        x = lib.tensor([[0.5, -1.0, 2.0], [1.5, 0.25, -0.75]], requires_grad=True)
        log = Log()
        with log.hooks(lib):
            y = x * 1
            y.exp_()
            v, _ = x.max(1)
            s = x.std_mean(1)[0]
        (y.sum() + v.sum() + s.sum()).backward()
        return [e[0] for e in log.events], x.grad
    same_on_both(program)


def test_raw_saved_data_and_unpack():
    def program(lib):
        G = lib.autograd.graph
        x = lib.ones(2, requires_grad=True)
        b = x * 2
        out = []

        def attempt(f):
            try:
                out.append(f())
            except RuntimeError as exc:
                out.append(str(exc))
        with G.saved_tensors_hooks(lambda t: ("P", t), lambda o: o[1]):
            s, s2, y = b.sin(), x.sin(), b.exp()
        for raw in (s.grad_fn._raw_saved_self, s2.grad_fn._raw_saved_self,
                    y.grad_fn._raw_saved_result):
            attempt(lambda raw=raw: raw.unpack())
            attempt(lambda raw=raw: (raw.unpack() is b, raw.unpack() is x))
            attempt(lambda raw=raw: raw.data[0])
            attempt(lambda raw=raw: raw.data[1] is b)
        s = b.sin()
        raw = s.grad_fn._raw_saved_self
        out.append((raw.data is b, raw.unpack() is b))
        y = b.exp()
        raw = y.grad_fn._raw_saved_result
        out.append((raw.data, raw.data.requires_grad))
        y.sum().backward()
        out.append(raw.data)
        attempt(lambda: raw.unpack())
        return out
    same_on_both(program)


def test_register_hooks_on_two_entries_and_on_a_function():
    def program(lib):
        x = lib.tensor([0.5, 1.0, 2.0], requires_grad=True)
        w = lib.tensor([1.5, -1.0, 0.5], requires_grad=True)
        log = Log({"x": x, "w": w}, pack=lambda t: t.clone())
        y = (x * w).pow(2)
        mul = y.grad_fn.next_functions[0][0]
        mul._raw_saved_self.register_hooks(log.pack, log.unpack)
        mul._raw_saved_other.register_hooks(log.pack, log.unpack)
        y.grad_fn._raw_saved_self.register_hooks(log.pack, log.unpack)

        class Square(lib.autograd.Function):
            @staticmethod
            def forward(ctx, a):
                ctx.save_for_backward(a)
                return a * a

            @staticmethod
            def backward(ctx, g):
                a, = ctx.saved_tensors
                return 2 * a * g

        z = Square.apply(x)
        z.grad_fn._raw_saved_tensors[0].register_hooks(log.pack, log.unpack)
        (y.sum() + z.sum()).backward()
        return log.events, x.grad, w.grad
    same_on_both(program)


def test_mlp_training_steps_under_hooks():
    """A small model trained under save_on_cpu and under counting hooks: the same losses,
    gradients and number of pack / unpack calls as PyTorch."""
    import numpy as np

    def program(lib):
        rng = np.random.default_rng(0)
        w1 = lib.tensor(rng.standard_normal((4, 3)).astype(np.float32), requires_grad=True)
        b1 = lib.tensor(rng.standard_normal(4).astype(np.float32), requires_grad=True)
        w2 = lib.tensor(rng.standard_normal((2, 4)).astype(np.float32), requires_grad=True)
        data = lib.tensor(rng.standard_normal((5, 3)).astype(np.float32))
        target = lib.tensor([0, 1, 1, 0, 1])
        opt = lib.optim.SGD([w1, b1, w2], lr=0.1)
        counts = [0, 0]

        def pack(t):
            counts[0] += 1
            return t.detach()

        def unpack(t):
            counts[1] += 1
            return t
        losses = []
        for step in range(3):
            hooks = lib.autograd.graph.save_on_cpu() if step % 2 == 0 else \
                lib.autograd.graph.saved_tensors_hooks(pack, unpack)
            with hooks:
                h = lib.nn.functional.linear(data, w1, b1).tanh()
                loss = lib.nn.functional.cross_entropy(h @ w2.t(), target)
            opt.zero_grad()
            loss.backward()
            opt.step()
            losses.append(loss.detach())
        return losses, w1.grad, b1.grad, w2.grad, counts[1] > 0
    same_on_both(program)


@pytest.mark.parametrize("number", [2, 2.5, True])
def test_register_hooks_on_a_wrapped_number(number):
    """A Python number given for a tensor input is saved as PyTorch's 0-d "wrapped number"
    tensor: ``data`` shows it and ``register_hooks`` packs it."""
    def program(lib):
        x = lib.ones(2, requires_grad=True)
        y = x * number
        raw = y.grad_fn._raw_saved_other
        out = [raw.data]
        seen = []
        raw.register_hooks(lambda t: seen.append(t) or t.clone(), lambda t: t)
        out += [seen, y.grad_fn._saved_other]
        y.sum().backward()
        return out, x.grad
    same_on_both(program)


@pytest.mark.parametrize("create_graph", [False, True])
def test_backward_inside_hooks(create_graph):
    """A backward run while hooks are set: with create_graph the gradient formulas' own nodes
    pack (and the double backward unpacks) through the hooks, in PyTorch's order."""
    def program(lib):
        x = lib.tensor([0.25, 0.75, 1.5], requires_grad=True)
        log = Log()
        with log.hooks(lib):
            y = (x.exp() * x.sin()).sum()
            g, = lib.autograd.grad(y, x, create_graph=create_graph)
        events = list(log.events)
        log.events.clear()
        if create_graph:
            g.sum().backward()
        return events, log.events, g, x.grad
    same_on_both(program)


def test_non_reentrant_checkpoint_under_hooks():
    """PyTorch's non-reentrant checkpoint saves its inputs through the outer hooks (one pack
    each, one unpack each in backward) and what is saved inside through its own; with
    hooks disabled it raises their message."""
    def program(lib):
        import importlib
        checkpoint = importlib.import_module(lib.__name__ + ".utils.checkpoint").checkpoint
        G = lib.autograd.graph
        x = lib.ones(3, requires_grad=True)
        w = lib.full((3,), 2., requires_grad=True)
        b = w * 1
        log = []
        with G.saved_tensors_hooks(lambda t: log.append(('p', t.grad_fn is None, t is x, t is b)) or t, lambda t: log.append(('u', t.grad_fn is None)) or t):
            y = checkpoint(lambda t, u, k: (t * 3).sin() * u * k, x, b, 3.0, use_reentrant=False)
            ev1 = list(log); log.clear()
            z = y.exp()
            with lib.no_grad():
                checkpoint(lambda t: t.sin(), x, use_reentrant=False)
            checkpoint(lambda t: t.sin(), lib.ones(2), use_reentrant=False)
        ev2 = list(log); log.clear()
        z.sum().backward()
        out = [ev1, ev2, list(log), x.grad, w.grad]
        with G.disable_saved_tensors_hooks("msg here"):
            try:
                checkpoint(lambda t: t.sin(), x, use_reentrant=False)
            except RuntimeError as e:
                out.append(str(e))
        return out
    same_on_both(program)
