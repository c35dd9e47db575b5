"""gradcheck / gradgradcheck: results, exceptions, messages and warnings compared with PyTorch."""
from __future__ import annotations

import inspect
import os
import subprocess
import sys
import warnings

import pytest
import torch
from oracle import same_on_both

import leafgrad

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SEEDS = "/work/shared/seeds/programs"


def _f64(t, values):
    return t.tensor(values, dtype=t.float64, requires_grad=True)


def _with_warnings(program):
    """Run ``program(t)`` recording warnings: (result or error, [warning texts])."""
    def wrapped(t):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                out = program(t)
            except Exception as e:  # noqa: BLE001 - compared as an outcome
                out = [type(e).__name__, str(e)]
        texts = [f"{w.category.__name__}: {w.message}" for w in caught
                 if not issubclass(w.category, (ImportWarning, ResourceWarning))]
        return [out, texts]
    return wrapped


def _wrong_square(t, factor=3):
    class WrongSquare(t.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * x

        @staticmethod
        def backward(ctx, g):
            x, = ctx.saved_tensors
            return factor * x * g
    return WrongSquare


def test_signatures_match():
    for name in ("gradcheck", "gradgradcheck"):
        mine = inspect.signature(getattr(leafgrad.autograd, name))
        theirs = inspect.signature(getattr(torch.autograd, name))
        assert list(mine.parameters) == list(theirs.parameters)
        for p in theirs.parameters.values():
            assert mine.parameters[p.name].default == p.default, p.name
            assert mine.parameters[p.name].kind == p.kind, p.name


def test_module_and_function_names():
    import importlib
    for lib in ("leafgrad", "torch"):
        auto = importlib.import_module(lib + ".autograd")
        module = sys.modules[lib + ".autograd.gradcheck"]
        assert inspect.isfunction(auto.gradcheck)
        assert inspect.ismodule(module)
        assert issubclass(module.GradcheckError, RuntimeError)
        assert module.gradcheck is auto.gradcheck


@pytest.mark.parametrize("which", ["product", "two-outputs", "broadcast", "pow", "sum",
                                   "sigmoid", "tensor-not-tuple", "non-tensor-arg"])
def test_correct_functions_pass(which):
    def prog(t):
        a = _f64(t, [[1.0, 2.0, 3.0], [0.5, -1.0, 2.0]])
        b = _f64(t, [0.3, 0.2, -0.7])
        if which == "product":
            return t.autograd.gradcheck(lambda x, y: x * y, (a, b))
        if which == "two-outputs":
            return t.autograd.gradcheck(lambda x, y: (x * y, x + y), (a, b))
        if which == "broadcast":
            return t.autograd.gradcheck(lambda x, y: (x - y) / (y + 2), [a, b])
        if which == "pow":
            return t.autograd.gradcheck(lambda x: x.pow(3) + 2 * x, (a,))
        if which == "sum":
            return t.autograd.gradcheck(lambda x: (x * x).sum(), (a,))
        if which == "sigmoid":
            return t.autograd.gradcheck(lambda x: x.sigmoid().exp(), (b,))
        if which == "tensor-not-tuple":
            return t.autograd.gradcheck(lambda x: x.sqrt(), _f64(t, [1.0, 4.0]))
        return t.autograd.gradcheck(lambda x, k, y: x * k + y, (a, 3.0, b.detach()))
    assert same_on_both(prog) is True


def test_jacobian_mismatch_message():
    def prog(t):
        x = _f64(t, [1.0, 2.0])
        return t.autograd.gradcheck(_wrong_square(t).apply, (x,))
    same_on_both(_with_warnings(prog))

    def second_input(t):
        class Mul(t.autograd.Function):
            @staticmethod
            def forward(ctx, x, y):
                return x * y

            @staticmethod
            def backward(ctx, g):
                return g, g
        return t.autograd.gradcheck(Mul.apply, (_f64(t, [1.0, 2.0, 6.0]),
                                                _f64(t, [3.0, 4.0, 5.0])))
    same_on_both(second_input)


def test_mismatch_error_type_and_raise_exception_false():
    x = leafgrad.tensor([1.0, 2.0], dtype=leafgrad.float64, requires_grad=True)
    from leafgrad.autograd.gradcheck import GradcheckError
    with pytest.raises(GradcheckError, match=r"^Jacobian mismatch for output 0 with respect"):
        leafgrad.autograd.gradcheck(_wrong_square(leafgrad).apply, (x,))

    def prog(t):
        y = _f64(t, [1.0, 2.0])
        return [t.autograd.gradcheck(_wrong_square(t).apply, (y,), raise_exception=False),
                t.autograd.gradcheck(_wrong_square(t, 2).apply, (y,), raise_exception=False)]
    assert same_on_both(prog) == [False, True]


def test_tolerances_are_used():
    def prog(t):
        x = _f64(t, [1.0, 2.0])
        f = _wrong_square(t, 2.001).apply
        return [t.autograd.gradcheck(f, (x,), raise_exception=False),
                t.autograd.gradcheck(f, (x,), atol=1e-2, raise_exception=False),
                t.autograd.gradcheck(f, (x,), rtol=1e-2, raise_exception=False),
                t.autograd.gradcheck(f, (x,), eps=1e-3, atol=0.0, rtol=0.0,
                                     raise_exception=False)]
    same_on_both(prog)


def test_no_input_requires_grad():
    def prog(t):
        return t.autograd.gradcheck(lambda a: a * 2, (t.ones(2, dtype=t.float64),))
    same_on_both(prog)


def test_single_precision_warns_and_uses_float32_differences():
    def prog(t):
        return t.autograd.gradcheck(lambda a: a * 2, (t.ones(2, requires_grad=True),))
    same_on_both(_with_warnings(prog))

    def second_arg(t):
        return t.autograd.gradcheck(lambda a, b: a * b,
                                    (_f64(t, [1.0]), t.tensor([0.5], requires_grad=True)),
                                    raise_exception=False)
    same_on_both(_with_warnings(second_arg))


def test_backward_not_multiplied_by_grad_output():
    def prog(t):
        class Z(t.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x * 2

            @staticmethod
            def backward(ctx, g):
                return 2 * g + (1 - g.sum())
        return t.autograd.gradcheck(Z.apply, (_f64(t, [1.0, 2.0]),))
    same_on_both(prog)


def test_undefined_output_gradients():
    def prog(t):
        calls = []

        class U(t.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                ctx.set_materialize_grads(False)
                return x * 2

            @staticmethod
            def backward(ctx, g):
                calls.append(g is None)
                if g is None:
                    raise RuntimeError("undefined")
                return 2 * g
        try:
            t.autograd.gradcheck(U.apply, (_f64(t, [1.0, 2.0]),))
        except RuntimeError as e:
            return [type(e).__name__, str(e), str(e.__cause__), calls]
    same_on_both(_with_warnings(prog))

    def skipped(t):
        class U(t.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                ctx.set_materialize_grads(False)
                return x * 2

            @staticmethod
            def backward(ctx, g):
                if g is None:
                    raise RuntimeError("undefined")
                return 2 * g
        return t.autograd.gradcheck(U.apply, (_f64(t, [1.0, 2.0]),), check_undefined_grad=False)
    same_on_both(_with_warnings(skipped))

    def several_outputs(t):
        calls = []

        class M(t.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                ctx.set_materialize_grads(False)
                return x * 2, x * 3

            @staticmethod
            def backward(ctx, a, b):
                calls.append((a is None, b is None))
                if a is None and b is None:
                    return None
                return (0 if a is None else 2 * a) + (0 if b is None else 3 * b)
        return [t.autograd.gradcheck(M.apply, (_f64(t, [1.0, 2.0]),)), calls]
    same_on_both(several_outputs)


def test_no_differentiable_outputs():
    def depends(t):
        return t.autograd.gradcheck(lambda a: a.detach() * 2, (_f64(t, [1.0, 2.0]),))
    same_on_both(depends)

    def constant(t):
        return t.autograd.gradcheck(lambda a: t.ones(2, dtype=t.float64), (_f64(t, [1.0, 2.0]),))
    same_on_both(constant)

    def partial(t):
        x = _f64(t, [1.0, 2.0])
        return t.autograd.gradcheck(lambda a, b: (a * 2, b.detach()), (x, x))
    same_on_both(partial)


def test_nondeterministic_backward():
    def prog(t):
        count = [0]

        class N(t.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x * 2

            @staticmethod
            def backward(ctx, g):
                count[0] += 1
                return g * (2 + 1e-9 * count[0])
        x = _f64(t, [1.0, 2.0])
        out = []
        for tol in (0.0, 1e-6):
            try:
                out.append(t.autograd.gradcheck(N.apply, (x,), nondet_tol=tol))
            except RuntimeError as e:
                out.append([type(e).__name__, str(e)])
        return out
    same_on_both(prog)


def test_gradgradcheck():
    def prog(t):
        x = _f64(t, [1.0, 2.0])
        y = _f64(t, [0.5, -1.5])
        go = _f64(t, [0.5, -0.25])
        return [t.autograd.gradgradcheck(lambda a: a * a * a, (x,)),
                t.autograd.gradgradcheck(lambda a, b: (a * b * a, (a + b).exp()), (x, y)),
                t.autograd.gradgradcheck(lambda a: a.sigmoid(), (x,), (go,)),
                t.autograd.gradgradcheck(lambda a: a.pow(3).sum(), (x,))]
    assert same_on_both(prog) == [True] * 4


def test_gradgradcheck_mismatch_message():
    def prog(t):
        class NotTwice(t.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                ctx.save_for_backward(x)
                return x * x * x

            @staticmethod
            def backward(ctx, g):
                x, = ctx.saved_tensors
                return 3 * x.detach() * x.detach() * g
        x = _f64(t, [1.0, 2.0])
        go = _f64(t, [0.5, -0.25])
        return t.autograd.gradgradcheck(NotTwice.apply, (x,), (go,))
    same_on_both(prog)


def test_argument_assertions():
    same_on_both(lambda t: t.autograd.gradcheck(lambda a: a, (_f64(t, [1.0]),),
                                                check_backward_ad=False))
    same_on_both(lambda t: t.autograd.gradgradcheck(lambda a: a, (_f64(t, [1.0]),),
                                                    check_rev_over_rev=False))


def test_unsupported_modes_say_so():
    x = leafgrad.tensor([1.0], dtype=leafgrad.float64, requires_grad=True)
    with pytest.raises(NotImplementedError, match="forward-mode"):
        leafgrad.autograd.gradcheck(lambda a: a * 2, (x,), check_forward_ad=True)
    with pytest.raises(NotImplementedError, match="vmap"):
        leafgrad.autograd.gradcheck(lambda a: a * 2, (x,), check_batched_grad=True)


def test_inputs_restored_and_versions_untouched():
    for lib in (leafgrad, torch):
        x = lib.tensor([1.0, 2.0], dtype=lib.float64, requires_grad=True)
        before = x._version
        assert lib.autograd.gradcheck(lambda a: a.exp(), (x,))
        assert x._version == before
        assert x.detach().numpy().tolist() == [1.0, 2.0]
        assert x.grad is None


def test_seed_program_s000_6():
    path = os.path.join(SEEDS, "s000_6_gradcheck.py")
    env = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "src"))
    done = subprocess.run([sys.executable, "-m", "leafgrad", "run", path], check=False, env=env,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout == "OK s000_6_gradcheck\n"


def test_gradcheck_stays_a_function_after_importing_its_module(tmp_path):
    program = tmp_path / "prog.py"
    program.write_text(
        "import torch\n"
        "from torch.autograd.gradcheck import GradcheckError\n"
        "x = torch.tensor([1.0, 2.0], dtype=torch.float64, requires_grad=True)\n"
        "print(torch.autograd.gradcheck(lambda t: t * t, (x,)), issubclass(GradcheckError,"
        " RuntimeError))\n")
    expected = subprocess.run([sys.executable, str(program)], check=False, capture_output=True, text=True,
                              timeout=120)
    env = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "src"))
    done = subprocess.run([sys.executable, "-m", "leafgrad", "run", str(program)], check=False,
                          env=env,
                          capture_output=True, text=True, timeout=120)
    assert expected.stdout == "True True\n"
    assert (done.returncode, done.stdout) == (0, expected.stdout), done.stderr
